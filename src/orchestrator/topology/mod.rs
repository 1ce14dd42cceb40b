//! Topologies as data: nodes (stage ids), an entry node, and conditional edges over the facts
//! stages report. The driver routes with it and the UI draws it, so the two can never disagree.
//! Node ids and facts are open strings: a new stage or a new condition is data, not a new enum
//! variant to thread through several files.

pub mod qa;

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// How urgent a dispatch is: each routing rule of a topology carries one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Low,
    Medium,
    High,
    Critical,
}

/// A node of a topology: the id of the stage it runs (as in `cached_state` and events).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(Cow<'static, str>);

impl NodeId {
    pub const fn new(id: &'static str) -> NodeId {
        NodeId(Cow::Borrowed(id))
    }

    pub fn owned(id: impl Into<String>) -> NodeId {
        NodeId(Cow::Owned(id.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<&str> for NodeId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// A fact a stage reports for routing: a flag or a number.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fact {
    Flag(bool),
    Number(f64),
}

/// What routing knows about a query's progress: facts by name, as the stages set them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Facts(BTreeMap<String, Fact>);

impl Facts {
    pub fn new() -> Facts {
        Facts::default()
    }

    pub fn flag(mut self, name: &str, value: bool) -> Facts {
        self.set_flag(name, value);
        self
    }

    pub fn number(mut self, name: &str, value: f64) -> Facts {
        self.set_number(name, value);
        self
    }

    pub fn set_flag(&mut self, name: &str, value: bool) {
        self.0.insert(name.to_string(), Fact::Flag(value));
    }

    pub fn set_number(&mut self, name: &str, value: f64) {
        self.0.insert(name.to_string(), Fact::Number(value));
    }

    /// A flag's value; unset flags (and numbers) are false.
    pub fn is(&self, name: &str) -> bool {
        matches!(self.0.get(name), Some(Fact::Flag(true)))
    }

    pub fn get_number(&self, name: &str) -> Option<f64> {
        match self.0.get(name) {
            Some(Fact::Number(n)) => Some(*n),
            _ => None,
        }
    }

    /// Takes every fact of `other`, replacing facts of the same name.
    pub fn merge(&mut self, other: Facts) {
        self.0.extend(other.0);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A comparison's right-hand side: a constant or another fact (a budget, say).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Operand {
    Value(f64),
    Fact(Cow<'static, str>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Lt,
    Le,
    Eq,
    Ge,
    Gt,
}

/// When an edge may be taken. Pure data over [`Facts`]: tested without I/O, drawn by the UI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "when", rename_all = "snake_case")]
pub enum Condition {
    Always,
    /// The flag is set and true.
    Flag {
        fact: Cow<'static, str>,
    },
    /// The flag is unset or false.
    NotFlag {
        fact: Cow<'static, str>,
    },
    /// A number compared with a constant or another number; false when either is missing.
    Compare {
        fact: Cow<'static, str>,
        op: Op,
        to: Operand,
    },
    All {
        all: Vec<Condition>,
    },
}

impl Condition {
    pub const fn flag(fact: &'static str) -> Condition {
        Condition::Flag {
            fact: Cow::Borrowed(fact),
        }
    }

    pub const fn not_flag(fact: &'static str) -> Condition {
        Condition::NotFlag {
            fact: Cow::Borrowed(fact),
        }
    }

    pub const fn compare(fact: &'static str, op: Op, value: f64) -> Condition {
        Condition::Compare {
            fact: Cow::Borrowed(fact),
            op,
            to: Operand::Value(value),
        }
    }

    pub const fn compare_fact(fact: &'static str, op: Op, other: &'static str) -> Condition {
        Condition::Compare {
            fact: Cow::Borrowed(fact),
            op,
            to: Operand::Fact(Cow::Borrowed(other)),
        }
    }

    pub fn holds(&self, facts: &Facts) -> bool {
        match self {
            Condition::Always => true,
            Condition::Flag { fact } => facts.is(fact),
            Condition::NotFlag { fact } => !facts.is(fact),
            Condition::Compare { fact, op, to } => {
                let right = match to {
                    Operand::Value(v) => Some(*v),
                    Operand::Fact(f) => facts.get_number(f),
                };
                match (facts.get_number(fact), right) {
                    (Some(l), Some(r)) => match op {
                        Op::Lt => l < r,
                        Op::Le => l <= r,
                        Op::Eq => l == r,
                        Op::Ge => l >= r,
                        Op::Gt => l > r,
                    },
                    _ => false,
                }
            }
            Condition::All { all } => all.iter().all(|c| c.holds(facts)),
        }
    }
}

/// An edge: taken after `from` when `when` holds (edges are tried in order). `rule` names the
/// routing rule in dispatch records; `priority` is the dispatch's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    pub when: Condition,
    pub rule: Cow<'static, str>,
    pub priority: Priority,
}

impl Edge {
    pub fn new(
        from: &'static str,
        to: &'static str,
        when: Condition,
        rule: &'static str,
        priority: Priority,
    ) -> Edge {
        Edge {
            from: NodeId::new(from),
            to: NodeId::new(to),
            when,
            rule: Cow::Borrowed(rule),
            priority,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Topology {
    pub name: Cow<'static, str>,
    pub entry: NodeId,
    /// The entry dispatch's priority.
    pub entry_priority: Priority,
    pub nodes: Vec<NodeId>,
    pub edges: Vec<Edge>,
    /// Facts every run starts with (budgets such as `max_reformulations`).
    pub initial_facts: Facts,
    /// Stage runs after which a query is stopped as looping.
    pub max_steps: usize,
}

/// What is wrong with a topology.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    #[error("topology {topology}: the entry node {node} is not one of its nodes")]
    UnknownEntry { topology: String, node: String },
    #[error("topology {topology}: an edge {from} → {to} names a node it does not have")]
    UnknownNode {
        topology: String,
        from: String,
        to: String,
    },
    #[error("topology {topology}: node {node} has edges but none that is always taken")]
    NoWayOut { topology: String, node: String },
    #[error("topology {topology}: no stage is registered for node {node}")]
    Unregistered { topology: String, node: String },
}

impl Topology {
    /// Checks that every edge names known nodes and that a node with edges always has a way
    /// out (an unconditional last edge), so a run can only end at a node without edges.
    pub fn validate(&self) -> Result<(), TopologyError> {
        let name = self.name.to_string();
        if !self.nodes.contains(&self.entry) {
            return Err(TopologyError::UnknownEntry {
                topology: name,
                node: self.entry.to_string(),
            });
        }
        for e in &self.edges {
            if !self.nodes.contains(&e.from) || !self.nodes.contains(&e.to) {
                return Err(TopologyError::UnknownNode {
                    topology: name,
                    from: e.from.to_string(),
                    to: e.to.to_string(),
                });
            }
        }
        for n in &self.nodes {
            let mut out = self.edges_from(n).peekable();
            if out.peek().is_some() && !out.any(|e| e.when == Condition::Always) {
                return Err(TopologyError::NoWayOut {
                    topology: name,
                    node: n.to_string(),
                });
            }
        }
        Ok(())
    }

    /// The first edge out of `from` whose condition holds, or `None` at a terminal node.
    pub fn next(&self, from: &NodeId, facts: &Facts) -> Option<&Edge> {
        self.edges_from(from).find(|e| e.when.holds(facts))
    }

    pub fn edges_from<'a>(&'a self, from: &NodeId) -> impl Iterator<Item = &'a Edge> + 'a {
        let from = from.clone();
        self.edges.iter().filter(move |e| e.from == from)
    }

    /// Where `id` stands among the nodes (for ordering views), or past the end.
    pub fn position(&self, id: &str) -> usize {
        self.nodes
            .iter()
            .position(|n| n.as_str() == id)
            .unwrap_or(self.nodes.len())
    }

    /// What the UI draws: node ids and edges, without conditions.
    pub fn view(&self) -> TopologyView {
        TopologyView {
            name: self.name.to_string(),
            entry: self.entry.clone(),
            nodes: self.nodes.clone(),
            edges: self
                .edges
                .iter()
                .map(|e| EdgeView {
                    from: e.from.clone(),
                    to: e.to.clone(),
                    rule: e.rule.to_string(),
                })
                .collect(),
        }
    }
}

/// A topology as the UI and sessions see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopologyView {
    pub name: String,
    pub entry: NodeId,
    pub nodes: Vec<NodeId>,
    pub edges: Vec<EdgeView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeView {
    pub from: NodeId,
    pub to: NodeId,
    pub rule: String,
}

impl TopologyView {
    /// Nodes that a back edge returns to (the start of a loop), for drawing the loop marker.
    pub fn loops_back_to(&self, node: &NodeId) -> bool {
        let pos = |n: &NodeId| self.nodes.iter().position(|m| m == n);
        self.edges
            .iter()
            .any(|e| &e.to == node && pos(&e.from) > pos(&e.to))
    }

    /// Where `id` stands among the nodes, or past the end.
    pub fn position(&self, id: &str) -> usize {
        self.nodes
            .iter()
            .position(|n| n.as_str() == id)
            .unwrap_or(self.nodes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_over_facts() {
        let f = Facts::new()
            .flag("blocked", true)
            .number("level", 2.0)
            .number("tries", 1.0)
            .number("max", 2.0);
        assert!(Condition::Always.holds(&f));
        assert!(Condition::flag("blocked").holds(&f));
        assert!(!Condition::flag("missing").holds(&f));
        assert!(Condition::not_flag("missing").holds(&f));
        assert!(!Condition::not_flag("blocked").holds(&f));
        assert!(Condition::compare("level", Op::Ge, 2.0).holds(&f));
        assert!(!Condition::compare("level", Op::Gt, 2.0).holds(&f));
        assert!(Condition::compare("level", Op::Eq, 2.0).holds(&f));
        assert!(
            !Condition::compare("absent", Op::Le, 9.0).holds(&f),
            "missing facts never compare"
        );
        assert!(Condition::compare_fact("tries", Op::Lt, "max").holds(&f));
        assert!(!Condition::compare_fact("tries", Op::Lt, "absent").holds(&f));
        assert!(Condition::All {
            all: vec![
                Condition::flag("blocked"),
                Condition::compare("level", Op::Le, 2.0)
            ]
        }
        .holds(&f));
        assert!(!Condition::All {
            all: vec![Condition::flag("blocked"), Condition::flag("nope")]
        }
        .holds(&f));
    }

    #[test]
    fn facts_merge_replaces_by_name() {
        let mut f = Facts::new().flag("a", true).number("n", 1.0);
        f.merge(Facts::new().flag("a", false).number("m", 3.0));
        assert!(!f.is("a"));
        assert_eq!(f.get_number("n"), Some(1.0));
        assert_eq!(f.get_number("m"), Some(3.0));
        assert!(!f.is("n"), "a number is not a flag");
    }

    #[test]
    fn validation_catches_unknown_nodes_and_dead_ends() {
        let mut t = qa::topology(2);
        assert_eq!(t.validate(), Ok(()));
        t.edges.push(Edge::new(
            "plan",
            "nowhere",
            Condition::Always,
            "bad",
            Priority::Low,
        ));
        assert!(matches!(
            t.validate(),
            Err(TopologyError::UnknownNode { .. })
        ));
        let mut t = qa::topology(2);
        t.edges
            .retain(|e| !(e.from == "evaluate" && e.when == Condition::Always));
        assert!(matches!(t.validate(), Err(TopologyError::NoWayOut { .. })));
        let mut t = qa::topology(2);
        t.entry = NodeId::new("nowhere");
        assert!(matches!(
            t.validate(),
            Err(TopologyError::UnknownEntry { .. })
        ));
    }

    #[test]
    fn node_ids_serialise_as_plain_strings() {
        assert_eq!(
            serde_json::to_string(&NodeId::new("plan")).unwrap(),
            "\"plan\""
        );
        let back: NodeId = serde_json::from_str("\"custom_stage\"").unwrap();
        assert_eq!(back, NodeId::owned("custom_stage"));
    }
}
