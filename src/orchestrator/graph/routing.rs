//! Intent routing as data (ARCHITECTURE §8): which agents a question of each intent needs, in
//! what priority, and which of them may run together.
//!
//! The agents are what the orchestrator can dispatch for a question: `qa` (one retrieval and one
//! synthesis, the single-fact path), `decompose` (the task graph), the task tools `search` and
//! `extract`, and the aggregators `timeline`, `comparison`, `parts` and `tally` that shape the
//! answer. Rules are data; [`select_agents`] and [`get_execution_order`] are pure.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What kind of question it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentType {
    /// One fact.
    Factual,
    /// How something changed over a period.
    Trend,
    /// Two or more sides set against each other.
    Comparative,
    /// Why something happened.
    Causal,
    /// Several questions in one.
    MultiPart,
    /// Everything of a kind over a period (every dissent in 2019).
    Aggregate,
    /// An open question about a topic.
    Exploratory,
}

impl IntentType {
    pub const ALL: [IntentType; 7] = [
        IntentType::Factual,
        IntentType::Trend,
        IntentType::Comparative,
        IntentType::Causal,
        IntentType::MultiPart,
        IntentType::Aggregate,
        IntentType::Exploratory,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            IntentType::Factual => "factual",
            IntentType::Trend => "trend",
            IntentType::Comparative => "comparative",
            IntentType::Causal => "causal",
            IntentType::MultiPart => "multi_part",
            IntentType::Aggregate => "aggregate",
            IntentType::Exploratory => "exploratory",
        }
    }

    /// Intents answered from several documents through a task graph.
    pub fn needs_graph(self) -> bool {
        matches!(
            self,
            IntentType::Trend
                | IntentType::Comparative
                | IntentType::MultiPart
                | IntentType::Aggregate
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Complexity {
    Simple,
    Moderate,
    Complex,
}

/// Which agents an intent needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntentRoutingRule {
    pub intent_type: IntentType,
    /// Always run, in this order of priority.
    pub primary_agents: Vec<String>,
    /// Run when the question is at least moderately complex.
    pub optional_agents: Vec<String>,
    /// The primary agents depend on each other in order (none may run before the previous).
    pub sequence_required: bool,
}

/// What the planner found, and the user's preferences, for [`select_agents`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentSelectionCriteria {
    pub intent_type: IntentType,
    /// Dates, sides, series the planner found (as text, for the record).
    pub entities: Vec<String>,
    pub complexity: Complexity,
    pub time_budget_seconds: u32,
    /// Below this a part's answer counts as weak (default 0.7).
    pub confidence_threshold: f64,
    pub preferred_agents: Vec<String>,
    pub excluded_agents: Vec<String>,
}

impl AgentSelectionCriteria {
    pub fn new(intent_type: IntentType, complexity: Complexity) -> AgentSelectionCriteria {
        AgentSelectionCriteria {
            intent_type,
            entities: Vec::new(),
            complexity,
            time_budget_seconds: 120,
            confidence_threshold: 0.7,
            preferred_agents: Vec::new(),
            excluded_agents: Vec::new(),
        }
    }
}

fn agents(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// The built-in rules, one per intent.
pub fn default_rules() -> Vec<IntentRoutingRule> {
    use IntentType::*;
    let rule =
        |intent_type, primary: &[&str], optional: &[&str], sequence_required| IntentRoutingRule {
            intent_type,
            primary_agents: agents(primary),
            optional_agents: agents(optional),
            sequence_required,
        };
    vec![
        rule(Factual, &["qa"], &[], false),
        rule(Causal, &["qa"], &[], false),
        rule(Exploratory, &["qa"], &["decompose"], false),
        rule(
            Trend,
            &["decompose", "search", "extract", "timeline"],
            &[],
            false,
        ),
        rule(
            Comparative,
            &["decompose", "search", "extract", "comparison"],
            &[],
            false,
        ),
        rule(
            MultiPart,
            &["decompose", "search", "extract", "parts"],
            &[],
            false,
        ),
        rule(
            Aggregate,
            &["decompose", "search", "extract", "tally"],
            &[],
            false,
        ),
    ]
}

/// The agents for `criteria`, each with a priority in 0..1, highest first: the rule's primary
/// agents from 1.0 down in steps of 0.1, its optional ones at 0.5 when the question is at least
/// moderately complex; preferred agents get +0.1 (capped at 1), excluded ones are left out.
pub fn select_agents(
    rules: &[IntentRoutingRule],
    criteria: &AgentSelectionCriteria,
) -> Vec<(String, f64)> {
    let Some(rule) = rules.iter().find(|r| r.intent_type == criteria.intent_type) else {
        return vec![("qa".to_string(), 1.0)];
    };
    let mut picked: BTreeMap<String, f64> = BTreeMap::new();
    for (i, a) in rule.primary_agents.iter().enumerate() {
        picked.insert(a.clone(), (1.0 - 0.1 * i as f64).max(0.1));
    }
    if criteria.complexity >= Complexity::Moderate {
        for a in &rule.optional_agents {
            picked.entry(a.clone()).or_insert(0.5);
        }
    }
    for a in &criteria.preferred_agents {
        if let Some(p) = picked.get_mut(a) {
            *p = (*p + 0.1).min(1.0);
        }
    }
    picked.retain(|a, _| !criteria.excluded_agents.contains(a));
    let mut out: Vec<(String, f64)> = picked
        .into_iter()
        .map(|(a, p)| (a, (p * 100.0).round() / 100.0))
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Whether two units of work may run at the same time: neither waits for the other.
pub fn can_execute_parallel(a: &str, b: &str, depends_on: &BTreeMap<String, Vec<String>>) -> bool {
    a != b && !reaches(a, b, depends_on) && !reaches(b, a, depends_on)
}

/// Whether `from` (transitively) depends on `to`.
fn reaches(from: &str, to: &str, depends_on: &BTreeMap<String, Vec<String>>) -> bool {
    let mut stack = vec![from];
    let mut seen: Vec<&str> = Vec::new();
    while let Some(n) = stack.pop() {
        for d in depends_on.get(n).map(|v| v.as_slice()).unwrap_or(&[]) {
            if d == to {
                return true;
            }
            if !seen.contains(&d.as_str()) {
                seen.push(d);
                stack.push(d);
            }
        }
    }
    false
}

/// Groups that may run in parallel, in the order they can run: each group holds the units whose
/// dependencies all lie in earlier groups. Units in a cycle (which a normalised graph has none
/// of) come last, one per group.
pub fn get_execution_order(depends_on: &BTreeMap<String, Vec<String>>) -> Vec<Vec<String>> {
    let mut done: Vec<String> = Vec::new();
    let mut left: Vec<&String> = depends_on.keys().collect();
    let mut groups = Vec::new();
    while !left.is_empty() {
        let (ready, waiting): (Vec<&String>, Vec<&String>) = left.into_iter().partition(|u| {
            depends_on[*u]
                .iter()
                .all(|d| done.contains(d) || !depends_on.contains_key(d))
        });
        if ready.is_empty() {
            // A cycle: run the first waiting unit alone to make progress.
            let first = waiting[0].clone();
            done.push(first.clone());
            groups.push(vec![first]);
            left = waiting[1..].to_vec();
            continue;
        }
        let group: Vec<String> = ready.into_iter().cloned().collect();
        done.extend(group.iter().cloned());
        groups.push(group);
        left = waiting;
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_intent_has_a_rule_and_only_graph_intents_decompose() {
        let rules = default_rules();
        for i in IntentType::ALL {
            let picked = select_agents(&rules, &AgentSelectionCriteria::new(i, Complexity::Simple));
            let names: Vec<&str> = picked.iter().map(|p| p.0.as_str()).collect();
            assert_eq!(
                names.contains(&"decompose"),
                i.needs_graph(),
                "{i:?}: {names:?}"
            );
            assert!(!picked.is_empty());
        }
    }

    #[test]
    fn selection_orders_by_priority_and_honours_preferences() {
        let rules = default_rules();
        let c = AgentSelectionCriteria::new(IntentType::Trend, Complexity::Complex);
        let picked = select_agents(&rules, &c);
        assert_eq!(
            picked,
            vec![
                ("decompose".to_string(), 1.0),
                ("search".to_string(), 0.9),
                ("extract".to_string(), 0.8),
                ("timeline".to_string(), 0.7),
            ]
        );
        let mut c = AgentSelectionCriteria::new(IntentType::Exploratory, Complexity::Simple);
        assert_eq!(
            select_agents(&rules, &c).len(),
            1,
            "optional agents need moderate complexity"
        );
        c.complexity = Complexity::Moderate;
        assert_eq!(
            select_agents(&rules, &c),
            vec![("qa".to_string(), 1.0), ("decompose".to_string(), 0.5)]
        );
        c.preferred_agents = vec!["decompose".into()];
        c.excluded_agents = vec!["qa".into()];
        assert_eq!(
            select_agents(&rules, &c),
            vec![("decompose".to_string(), 0.6)]
        );
    }

    fn deps(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn execution_order_groups_by_dependencies() {
        let d = deps(&[
            ("a", &[]),
            ("b", &[]),
            ("c", &["a"]),
            ("d", &["c", "b"]),
            ("e", &[]),
        ]);
        assert_eq!(
            get_execution_order(&d),
            vec![vec!["a", "b", "e"], vec!["c"], vec!["d"]]
        );
        assert!(can_execute_parallel("a", "b", &d));
        assert!(
            !can_execute_parallel("a", "d", &d),
            "d waits for a through c"
        );
        assert!(!can_execute_parallel("d", "a", &d));
        assert!(!can_execute_parallel("a", "a", &d));
        let cyclic = deps(&[("x", &["y"]), ("y", &["x"])]);
        assert_eq!(
            get_execution_order(&cyclic).len(),
            2,
            "a cycle still makes progress"
        );
    }
}
