//! The stage graph as data: nodes and conditional edges. The Manager routes with it and the UI
//! draws it, so the two can never disagree. Routing is a pure function of a small route state.

use super::band::RetrievalConfidence;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageId {
    Guardrail,
    Plan,
    Retrieve,
    Rerank,
    Evaluate,
    Reformulate,
    Synthesize,
    Validate,
    Reflect,
    Respond,
}

impl StageId {
    pub const ALL: [StageId; 10] = [
        StageId::Guardrail,
        StageId::Plan,
        StageId::Retrieve,
        StageId::Rerank,
        StageId::Evaluate,
        StageId::Reformulate,
        StageId::Synthesize,
        StageId::Validate,
        StageId::Reflect,
        StageId::Respond,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StageId::Guardrail => "guardrail",
            StageId::Plan => "plan",
            StageId::Retrieve => "retrieve",
            StageId::Rerank => "rerank",
            StageId::Evaluate => "evaluate",
            StageId::Reformulate => "reformulate",
            StageId::Synthesize => "synthesize",
            StageId::Validate => "validate",
            StageId::Reflect => "reflect",
            StageId::Respond => "respond",
        }
    }
}

impl std::fmt::Display for StageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What routing needs to know about a query's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RouteState {
    pub guardrail_blocked: bool,
    pub incoherent: bool,
    pub needs_retrieval: bool,
    pub retrieval: Option<RetrievalConfidence>,
    pub reformulation_attempts: u8,
    pub max_reformulations: u8,
}

/// When an edge may be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    Always,
    GuardrailBlocked,
    Incoherent,
    NoRetrievalNeeded,
    /// Retrieval confidence medium or high.
    RetrievalSufficient,
    /// Retrieval confidence low and reformulations left.
    RetrievalLowRetriesLeft,
}

impl Condition {
    pub fn holds(self, s: &RouteState) -> bool {
        match self {
            Condition::Always => true,
            Condition::GuardrailBlocked => s.guardrail_blocked,
            Condition::Incoherent => s.incoherent,
            Condition::NoRetrievalNeeded => !s.needs_retrieval,
            Condition::RetrievalSufficient => s
                .retrieval
                .is_some_and(|r| r >= RetrievalConfidence::Medium),
            Condition::RetrievalLowRetriesLeft => {
                s.retrieval == Some(RetrievalConfidence::Low)
                    && s.reformulation_attempts < s.max_reformulations
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub from: StageId,
    pub to: StageId,
    pub when: Condition,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Topology {
    pub nodes: Vec<StageId>,
    /// Tried in order for each `from`: the first edge whose condition holds is taken.
    pub edges: Vec<Edge>,
}

const fn edge(from: StageId, to: StageId, when: Condition) -> Edge {
    Edge { from, to, when }
}

impl Topology {
    /// The default pipeline of ARCHITECTURE §2.
    pub fn default_pipeline() -> Topology {
        use Condition::*;
        use StageId::*;
        Topology {
            nodes: StageId::ALL.to_vec(),
            edges: vec![
                edge(Guardrail, Respond, GuardrailBlocked),
                edge(Guardrail, Plan, Always),
                edge(Plan, Respond, Incoherent),
                edge(Plan, Respond, NoRetrievalNeeded),
                edge(Plan, Retrieve, Always),
                edge(Retrieve, Rerank, Always),
                edge(Rerank, Evaluate, Always),
                edge(Evaluate, Synthesize, RetrievalSufficient),
                edge(Evaluate, Reformulate, RetrievalLowRetriesLeft),
                edge(Evaluate, Respond, Always),
                edge(Reformulate, Retrieve, Always),
                edge(Synthesize, Validate, Always),
                edge(Validate, Reflect, Always),
                edge(Reflect, Respond, Always),
            ],
        }
    }

    /// The stage after `from`, or `None` after the terminal stage.
    pub fn next(&self, from: StageId, state: &RouteState) -> Option<StageId> {
        self.edges
            .iter()
            .find(|e| e.from == from && e.when.holds(state))
            .map(|e| e.to)
    }

    pub fn edges_from(&self, from: StageId) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(move |e| e.from == from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RetrievalConfidence as R;
    use StageId::*;

    fn state() -> RouteState {
        RouteState {
            needs_retrieval: true,
            max_reformulations: 2,
            ..RouteState::default()
        }
    }

    #[test]
    fn guardrail_edges() {
        let t = Topology::default_pipeline();
        assert_eq!(t.next(Guardrail, &state()), Some(Plan));
        assert_eq!(
            t.next(
                Guardrail,
                &RouteState {
                    guardrail_blocked: true,
                    ..state()
                }
            ),
            Some(Respond)
        );
    }

    #[test]
    fn plan_edges() {
        let t = Topology::default_pipeline();
        assert_eq!(t.next(Plan, &state()), Some(Retrieve));
        assert_eq!(
            t.next(
                Plan,
                &RouteState {
                    incoherent: true,
                    ..state()
                }
            ),
            Some(Respond)
        );
        assert_eq!(
            t.next(
                Plan,
                &RouteState {
                    needs_retrieval: false,
                    ..state()
                }
            ),
            Some(Respond)
        );
    }

    #[test]
    fn evaluate_edges_follow_retrieval_confidence() {
        let t = Topology::default_pipeline();
        let with = |r, attempts| RouteState {
            retrieval: Some(r),
            reformulation_attempts: attempts,
            ..state()
        };
        assert_eq!(t.next(Evaluate, &with(R::High, 0)), Some(Synthesize));
        assert_eq!(t.next(Evaluate, &with(R::Medium, 0)), Some(Synthesize));
        assert_eq!(t.next(Evaluate, &with(R::Low, 0)), Some(Reformulate));
        assert_eq!(t.next(Evaluate, &with(R::Low, 1)), Some(Reformulate));
        assert_eq!(t.next(Evaluate, &with(R::Insufficient, 0)), Some(Respond));
    }

    #[test]
    fn reformulation_is_capped_at_two() {
        let t = Topology::default_pipeline();
        let low = |attempts| RouteState {
            retrieval: Some(R::Low),
            reformulation_attempts: attempts,
            ..state()
        };
        assert_eq!(t.next(Evaluate, &low(2)), Some(Respond));
        assert_eq!(t.next(Evaluate, &low(3)), Some(Respond));
        // Walk the loop: it ends after exactly two reformulations however often retrieval stays low.
        let mut s = low(0);
        let mut stage = Evaluate;
        let mut visits = 0;
        while let Some(next) = t.next(stage, &s) {
            if next == Reformulate {
                visits += 1;
                s.reformulation_attempts += 1;
            }
            stage = next;
            if stage == Respond {
                break;
            }
        }
        assert_eq!(visits, 2);
        assert_eq!(stage, Respond);
    }

    #[test]
    fn straight_edges_and_terminal() {
        let t = Topology::default_pipeline();
        let s = state();
        assert_eq!(t.next(Retrieve, &s), Some(Rerank));
        assert_eq!(t.next(Rerank, &s), Some(Evaluate));
        assert_eq!(t.next(Reformulate, &s), Some(Retrieve));
        assert_eq!(t.next(Synthesize, &s), Some(Validate));
        assert_eq!(t.next(Validate, &s), Some(Reflect));
        assert_eq!(t.next(Reflect, &s), Some(Respond));
        assert_eq!(t.next(Respond, &s), None);
    }

    #[test]
    fn every_node_but_respond_has_an_unconditional_way_out() {
        let t = Topology::default_pipeline();
        for n in StageId::ALL.iter().filter(|&&n| n != Respond) {
            assert!(
                t.edges_from(*n).any(|e| e.when == Condition::Always),
                "{n} can get stuck"
            );
        }
    }
}
