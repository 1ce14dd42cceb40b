//! The QA topology (ARCHITECTURE §2): guardrail → judgement → plan → retrieve → rerank → evaluate →
//! (reformulate → retrieve, at most `max_reformulations` times) → synthesize → validate →
//! reflect → respond; and, for questions that need several documents (§8), plan → decompose →
//! coordinate → aggregate → validate → reflect → respond. A single-fact question never visits
//! the decomposition nodes; small talk (judgement, §10) goes from judgement to respond.
//!
//! Facts the stages report: `blocked` (guardrail), `small_talk` (judgement), `incoherent`, `needs_retrieval` and
//! `decompose` (plan), `tasks` (decompose), `retrieval_level` 0–3 for insufficient/low/medium/high
//! (evaluate), `reformulations` (the attempts so far, reformulate); the run starts with the budget
//! `max_reformulations`.

use super::Priority;
use super::{Condition, Edge, Facts, NodeId, Op, Topology};
use std::borrow::Cow;

/// Never more reformulations than this, whatever the configuration says.
pub const MAX_REFORMULATIONS: u8 = 2;

pub fn topology(max_reformulations: u8) -> Topology {
    use Priority::*;
    let low_with_retries = Condition::All {
        all: vec![
            Condition::compare("retrieval_level", Op::Eq, 1.0),
            Condition::compare_fact("reformulations", Op::Lt, "max_reformulations"),
        ],
    };
    let nodes = [
        "guardrail",
        "judgement",
        "plan",
        "decompose",
        "coordinate",
        "aggregate",
        "retrieve",
        "rerank",
        "evaluate",
        "reformulate",
        "synthesize",
        "validate",
        "reflect",
        "respond",
    ];
    Topology {
        name: Cow::Borrowed("qa"),
        entry: NodeId::new("guardrail"),
        entry_priority: Critical,
        nodes: nodes.into_iter().map(NodeId::new).collect(),
        edges: vec![
            Edge::new(
                "guardrail",
                "respond",
                Condition::flag("blocked"),
                "guardrail_blocked",
                Critical,
            ),
            Edge::new(
                "guardrail",
                "judgement",
                Condition::Always,
                "input_allowed",
                High,
            ),
            Edge::new(
                "judgement",
                "respond",
                Condition::flag("small_talk"),
                "small_talk_reply",
                High,
            ),
            Edge::new("judgement", "plan", Condition::Always, "inquiry", High),
            Edge::new(
                "plan",
                "respond",
                Condition::flag("incoherent"),
                "incoherent_query",
                High,
            ),
            Edge::new(
                "plan",
                "respond",
                Condition::not_flag("needs_retrieval"),
                "no_retrieval_needed",
                High,
            ),
            Edge::new(
                "plan",
                "decompose",
                Condition::flag("decompose"),
                "needs_several_documents",
                High,
            ),
            Edge::new(
                "plan",
                "retrieve",
                Condition::Always,
                "retrieval_needed",
                High,
            ),
            Edge::new(
                "decompose",
                "retrieve",
                Condition::compare("tasks", Op::Lt, 2.0),
                "one_question_after_all",
                High,
            ),
            Edge::new(
                "decompose",
                "coordinate",
                Condition::Always,
                "run_task_graph",
                High,
            ),
            Edge::new(
                "coordinate",
                "aggregate",
                Condition::Always,
                "aggregate_parts",
                High,
            ),
            Edge::new(
                "aggregate",
                "validate",
                Condition::Always,
                "check_citations",
                High,
            ),
            Edge::new(
                "retrieve",
                "rerank",
                Condition::Always,
                "rank_candidates",
                Medium,
            ),
            Edge::new(
                "rerank",
                "evaluate",
                Condition::Always,
                "score_retrieval",
                Medium,
            ),
            Edge::new(
                "evaluate",
                "synthesize",
                Condition::compare("retrieval_level", Op::Ge, 2.0),
                "retrieval_sufficient",
                High,
            ),
            Edge::new(
                "evaluate",
                "reformulate",
                low_with_retries,
                "retrieval_low_retries_left",
                Low,
            ),
            Edge::new(
                "evaluate",
                "respond",
                Condition::Always,
                "retrieval_insufficient",
                Medium,
            ),
            Edge::new(
                "reformulate",
                "retrieve",
                Condition::Always,
                "retry_retrieval",
                Medium,
            ),
            Edge::new(
                "synthesize",
                "validate",
                Condition::Always,
                "check_citations",
                High,
            ),
            Edge::new(
                "validate",
                "reflect",
                Condition::Always,
                "score_confidence",
                Medium,
            ),
            Edge::new(
                "reflect",
                "respond",
                Condition::Always,
                "compose_reply",
                High,
            ),
        ],
        initial_facts: Facts::new().number("reformulations", 0.0).number(
            "max_reformulations",
            f64::from(max_reformulations.min(MAX_REFORMULATIONS)),
        ),
        // The longest path is eleven stages plus two loops of three, with room to spare.
        max_steps: 32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(t: &Topology, from: &'static str, facts: &Facts) -> Option<String> {
        t.next(&NodeId::new(from), facts).map(|e| e.to.to_string())
    }

    fn facts() -> Facts {
        let mut f = topology(2).initial_facts;
        f.set_flag("needs_retrieval", true);
        f
    }

    fn at(level: f64, tries: f64) -> Facts {
        facts()
            .number("retrieval_level", level)
            .number("reformulations", tries)
    }

    #[test]
    fn guardrail_and_plan_edges() {
        let t = topology(2);
        assert_eq!(
            next(&t, "guardrail", &facts()).as_deref(),
            Some("judgement")
        );
        assert_eq!(next(&t, "judgement", &facts()).as_deref(), Some("plan"));
        assert_eq!(
            next(&t, "judgement", &facts().flag("small_talk", true)).as_deref(),
            Some("respond")
        );
        assert_eq!(
            next(&t, "guardrail", &facts().flag("blocked", true)).as_deref(),
            Some("respond")
        );
        assert_eq!(next(&t, "plan", &facts()).as_deref(), Some("retrieve"));
        assert_eq!(
            next(&t, "plan", &facts().flag("incoherent", true)).as_deref(),
            Some("respond")
        );
        assert_eq!(
            next(&t, "plan", &facts().flag("needs_retrieval", false)).as_deref(),
            Some("respond")
        );
    }

    #[test]
    fn evaluate_edges_follow_retrieval_confidence() {
        let t = topology(2);
        assert_eq!(
            next(&t, "evaluate", &at(3.0, 0.0)).as_deref(),
            Some("synthesize")
        );
        assert_eq!(
            next(&t, "evaluate", &at(2.0, 0.0)).as_deref(),
            Some("synthesize")
        );
        assert_eq!(
            next(&t, "evaluate", &at(1.0, 0.0)).as_deref(),
            Some("reformulate")
        );
        assert_eq!(
            next(&t, "evaluate", &at(1.0, 1.0)).as_deref(),
            Some("reformulate")
        );
        assert_eq!(
            next(&t, "evaluate", &at(0.0, 0.0)).as_deref(),
            Some("respond")
        );
        assert_eq!(
            next(&t, "evaluate", &at(1.0, 2.0)).as_deref(),
            Some("respond")
        );
    }

    #[test]
    fn reformulation_budget_is_capped_at_two() {
        for configured in [0u8, 1, 2, 5] {
            let t = topology(configured);
            let mut f = t.initial_facts.clone().number("retrieval_level", 1.0);
            let mut node = NodeId::new("evaluate");
            let mut visits = 0;
            while let Some(e) = t.next(&node, &f) {
                node = e.to.clone();
                if node == "reformulate" {
                    visits += 1;
                    f.set_number("reformulations", f64::from(visits));
                }
                if node == "respond" {
                    break;
                }
            }
            assert_eq!(visits, configured.min(MAX_REFORMULATIONS));
            assert_eq!(node, "respond");
        }
    }

    #[test]
    fn questions_that_need_several_documents_take_the_graph_path() {
        let t = topology(2);
        let f = facts().flag("decompose", true);
        assert_eq!(next(&t, "plan", &f).as_deref(), Some("decompose"));
        assert_eq!(next(&t, "plan", &facts()).as_deref(), Some("retrieve"));
        assert_eq!(
            next(&t, "decompose", &f.clone().number("tasks", 1.0)).as_deref(),
            Some("retrieve"),
            "a graph of one task is the single path"
        );
        assert_eq!(
            next(&t, "decompose", &f.number("tasks", 4.0)).as_deref(),
            Some("coordinate")
        );
        assert_eq!(
            next(&t, "coordinate", &facts()).as_deref(),
            Some("aggregate")
        );
        assert_eq!(next(&t, "aggregate", &facts()).as_deref(), Some("validate"));
    }

    #[test]
    fn straight_edges_and_terminal() {
        let t = topology(2);
        let f = facts();
        for (from, to) in [
            ("retrieve", "rerank"),
            ("rerank", "evaluate"),
            ("reformulate", "retrieve"),
            ("synthesize", "validate"),
            ("validate", "reflect"),
            ("reflect", "respond"),
        ] {
            assert_eq!(next(&t, from, &f).as_deref(), Some(to), "{from}");
        }
        assert_eq!(next(&t, "respond", &f), None);
        assert_eq!(t.validate(), Ok(()));
    }
}
