//! The orchestration state machine: pure. Given a topology, the error policy and how the last
//! dispatch ended, it decides what runs next — the next node by the topology's edges, the
//! offline half after a model failure, a skip after a timeout — or that the query ends, and
//! why. It performs no I/O and reads no clock; [`super::driver`] performs what it decides, so
//! routing, fallback and budget decisions are tested here as plain functions.

use super::dispatch::Priority;
use super::topology::{Facts, NodeId, Topology};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a node's stage is to be run.
#[derive(Debug, Clone, PartialEq)]
pub enum RunMode {
    /// The model half when a model is configured and wants the stage, else the offline half.
    Primary,
    /// The offline half, because the model half could not do it.
    Offline { fallback: String },
}

/// One dispatch the machine asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    pub node: NodeId,
    pub mode: RunMode,
    /// Why: the routing rule that chose the node, or the fallback that repeats it.
    pub reason: String,
    pub priority: Priority,
    /// Back edges taken so far (the pass of a loop such as reformulate → retrieve).
    pub loop_index: u8,
}

/// How a query ended, by the machine's reckoning.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// A node without a way onward finished.
    Completed,
    Failed {
        node: NodeId,
        error: String,
    },
    Cancelled,
    /// More stage runs than the topology allows: a loop that does not end.
    StepLimit {
        steps: usize,
    },
    /// The query's overall deadline passed.
    DeadlineExceeded {
        node: NodeId,
    },
}

/// What the machine does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Run(Dispatch),
    Finish(Ending),
}

/// How the last dispatch ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Completed {
        facts: Facts,
    },
    /// The model half could not do the stage (breaker open, invalid output, a failed call).
    ModelFellBack {
        reason: String,
    },
    Failed {
        error: String,
        critical: bool,
    },
    /// The stage's own timeout, or the query's deadline (`query_deadline`).
    TimedOut {
        query_deadline: bool,
    },
    Cancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// End the query with the error.
    FailFast,
    /// Carry on as if the stage had not run.
    Continue,
    /// Run the stage's offline half (or the node's fallback target) instead.
    Fallback,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    FailFast,
    /// Carry on without the stage's result.
    Skip,
    /// Carry on with whatever the stage had produced (for a sequential stage, nothing: its work
    /// is only applied when it completes, so this is `Skip`; parallel groups keep the parts
    /// that finished).
    UsePartial,
}

/// The error policy (ARCHITECTURE §4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorPolicy {
    pub on_error: OnError,
    pub on_timeout: OnTimeout,
    /// A node to run instead of one that failed, by node id.
    pub fallback_agents: BTreeMap<String, String>,
}

impl Default for ErrorPolicy {
    fn default() -> Self {
        ErrorPolicy {
            on_error: OnError::Fallback,
            on_timeout: OnTimeout::Skip,
            fallback_agents: BTreeMap::new(),
        }
    }
}

/// The machine's memory of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    facts: Facts,
    steps: usize,
    loops: u8,
    current: Dispatch,
}

impl Machine {
    /// A run of `t` from its entry node.
    pub fn start(t: &Topology) -> (Machine, Step) {
        let first = Dispatch {
            node: t.entry.clone(),
            mode: RunMode::Primary,
            reason: format!("entry of topology {}", t.name),
            priority: t.entry_priority,
            loop_index: 0,
        };
        let m = Machine {
            facts: t.initial_facts.clone(),
            steps: 1,
            loops: 0,
            current: first.clone(),
        };
        (m, Step::Run(first))
    }

    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// Decides what follows the current dispatch, which ended with `outcome`.
    pub fn step(&mut self, t: &Topology, policy: &ErrorPolicy, outcome: Outcome) -> Step {
        let node = self.current.node.clone();
        match outcome {
            Outcome::Completed { facts } => {
                self.facts.merge(facts);
                self.route(t, &node)
            }
            Outcome::ModelFellBack { reason } => match policy.on_error {
                OnError::Fallback => self.dispatch(Dispatch {
                    node,
                    mode: RunMode::Offline {
                        fallback: reason.clone(),
                    },
                    reason: format!("fallback to the offline stage: {reason}"),
                    priority: self.current.priority,
                    loop_index: self.loops,
                }),
                OnError::FailFast => Step::Finish(Ending::Failed {
                    node,
                    error: reason,
                }),
                OnError::Continue => self.route(t, &node),
            },
            Outcome::Failed { error, critical } => {
                if critical {
                    return Step::Finish(Ending::Failed { node, error });
                }
                let target = policy.fallback_agents.get(node.as_str()).cloned();
                match (policy.on_error, target) {
                    (OnError::Fallback, Some(target)) if target != node.as_str() => {
                        self.dispatch(Dispatch {
                            node: NodeId::owned(target),
                            mode: RunMode::Primary,
                            reason: format!("fallback agent for {node}: {error}"),
                            priority: self.current.priority,
                            loop_index: self.loops,
                        })
                    }
                    (OnError::Continue, _) => self.route(t, &node),
                    _ => Step::Finish(Ending::Failed { node, error }),
                }
            }
            Outcome::TimedOut {
                query_deadline: true,
            } => Step::Finish(Ending::DeadlineExceeded { node }),
            Outcome::TimedOut {
                query_deadline: false,
            } => match policy.on_timeout {
                OnTimeout::FailFast => Step::Finish(Ending::Failed {
                    error: format!("the {node} stage timed out"),
                    node,
                }),
                OnTimeout::Skip | OnTimeout::UsePartial => self.route(t, &node),
            },
            Outcome::Cancelled => Step::Finish(Ending::Cancelled),
        }
    }

    /// The next node by the edges out of `from`, or the end of the run.
    fn route(&mut self, t: &Topology, from: &NodeId) -> Step {
        let Some(edge) = t.next(from, &self.facts) else {
            return Step::Finish(Ending::Completed);
        };
        if t.position(edge.to.as_str()) <= t.position(from.as_str()) {
            self.loops = self.loops.saturating_add(1);
        }
        let reason = format!("rule {}: {} → {}", edge.rule, edge.from, edge.to);
        self.dispatch_within(
            t,
            Dispatch {
                node: edge.to.clone(),
                mode: RunMode::Primary,
                reason,
                priority: edge.priority,
                loop_index: self.loops,
            },
        )
    }

    fn dispatch_within(&mut self, t: &Topology, d: Dispatch) -> Step {
        if self.steps >= t.max_steps {
            return Step::Finish(Ending::StepLimit { steps: self.steps });
        }
        self.dispatch(d)
    }

    fn dispatch(&mut self, d: Dispatch) -> Step {
        self.steps += 1;
        self.current = d.clone();
        Step::Run(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::topology::qa;
    use crate::orchestrator::topology::{Condition, Edge};
    use std::borrow::Cow;

    fn done(facts: Facts) -> Outcome {
        Outcome::Completed { facts }
    }

    fn node(step: &Step) -> &str {
        match step {
            Step::Run(d) => d.node.as_str(),
            Step::Finish(_) => "(end)",
        }
    }

    /// Walks the QA topology with the facts each stage reports, returning the nodes visited.
    fn walk(
        t: &Topology,
        policy: &ErrorPolicy,
        mut report: impl FnMut(&str) -> Outcome,
    ) -> (Vec<String>, Ending) {
        let (mut m, mut step) = Machine::start(t);
        let mut path = Vec::new();
        loop {
            match step {
                Step::Finish(e) => return (path, e),
                Step::Run(d) => {
                    path.push(d.node.to_string());
                    step = m.step(t, policy, report(d.node.as_str()));
                }
            }
        }
    }

    fn qa_facts(node: &str, level: f64, attempts: &mut u8) -> Outcome {
        done(match node {
            "guardrail" => Facts::new().flag("blocked", false),
            "judgement" => Facts::new().flag("small_talk", false),
            "plan" => Facts::new()
                .flag("incoherent", false)
                .flag("needs_retrieval", true),
            "evaluate" => Facts::new().number("retrieval_level", level),
            "reformulate" => {
                *attempts += 1;
                Facts::new().number("reformulations", f64::from(*attempts))
            }
            _ => Facts::new(),
        })
    }

    #[test]
    fn a_sufficient_retrieval_walks_the_whole_pipeline_once() {
        let t = qa::topology(2);
        let mut n = 0;
        let (path, end) = walk(&t, &ErrorPolicy::default(), |node| {
            qa_facts(node, 3.0, &mut n)
        });
        assert_eq!(
            path,
            [
                "guardrail",
                "judgement",
                "plan",
                "retrieve",
                "rerank",
                "evaluate",
                "synthesize",
                "validate",
                "reflect",
                "respond"
            ]
        );
        assert_eq!(end, Ending::Completed);
    }

    #[test]
    fn low_retrieval_loops_twice_then_responds_and_counts_loops() {
        let t = qa::topology(2);
        let mut n = 0;
        let (mut m, mut step) = Machine::start(&t);
        let mut path = Vec::new();
        while let Step::Run(d) = &step {
            path.push((d.node.to_string(), d.loop_index));
            step = m.step(
                &t,
                &ErrorPolicy::default(),
                qa_facts(d.node.as_str(), 1.0, &mut n),
            );
        }
        assert_eq!(n, 2);
        let retrieves: Vec<u8> = path
            .iter()
            .filter(|(n, _)| n == "retrieve")
            .map(|(_, l)| *l)
            .collect();
        assert_eq!(
            retrieves,
            vec![0, 1, 2],
            "each pass of the loop is numbered"
        );
        assert_eq!(path.last().map(|p| p.0.as_str()), Some("respond"));
        assert_eq!(step, Step::Finish(Ending::Completed));
    }

    #[test]
    fn dispatch_reasons_name_the_rule_and_carry_its_priority() {
        let t = qa::topology(2);
        let (mut m, first) = Machine::start(&t);
        match &first {
            Step::Run(d) => {
                assert_eq!(d.reason, "entry of topology qa");
                assert_eq!(d.priority, Priority::Critical);
            }
            other => panic!("{other:?}"),
        }
        let next = m.step(
            &t,
            &ErrorPolicy::default(),
            done(Facts::new().flag("blocked", true)),
        );
        match next {
            Step::Run(d) => {
                assert_eq!(d.node, "respond");
                assert_eq!(d.reason, "rule guardrail_blocked: guardrail → respond");
                assert_eq!(d.priority, Priority::Critical);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_model_failure_falls_back_to_the_offline_half_of_the_same_node() {
        let t = qa::topology(2);
        let (mut m, _) = Machine::start(&t);
        let p = ErrorPolicy::default();
        let step = m.step(
            &t,
            &p,
            Outcome::ModelFellBack {
                reason: "breaker open".into(),
            },
        );
        match step {
            Step::Run(d) => {
                assert_eq!(d.node, "guardrail");
                assert_eq!(
                    d.mode,
                    RunMode::Offline {
                        fallback: "breaker open".into()
                    }
                );
                assert!(d.reason.contains("fallback"), "{}", d.reason);
            }
            other => panic!("{other:?}"),
        }
        let fail_fast = ErrorPolicy {
            on_error: OnError::FailFast,
            ..ErrorPolicy::default()
        };
        let (mut m, _) = Machine::start(&t);
        assert!(matches!(
            m.step(
                &t,
                &fail_fast,
                Outcome::ModelFellBack { reason: "x".into() }
            ),
            Step::Finish(Ending::Failed { .. })
        ));
        let carry_on = ErrorPolicy {
            on_error: OnError::Continue,
            ..ErrorPolicy::default()
        };
        let (mut m, _) = Machine::start(&t);
        assert_eq!(
            node(&m.step(&t, &carry_on, Outcome::ModelFellBack { reason: "x".into() })),
            "judgement"
        );
    }

    #[test]
    fn failures_end_the_query_unless_a_fallback_agent_or_continue_says_otherwise() {
        let t = qa::topology(2);
        let p = ErrorPolicy::default();
        let (mut m, _) = Machine::start(&t);
        assert!(matches!(
            m.step(&t, &p, Outcome::Failed { error: "boom".into(), critical: false }),
            Step::Finish(Ending::Failed { ref error, .. }) if error == "boom"
        ));
        let with_target = ErrorPolicy {
            fallback_agents: BTreeMap::from([("guardrail".to_string(), "plan".to_string())]),
            ..ErrorPolicy::default()
        };
        let (mut m, _) = Machine::start(&t);
        let step = m.step(
            &t,
            &with_target,
            Outcome::Failed {
                error: "boom".into(),
                critical: false,
            },
        );
        assert_eq!(node(&step), "plan");
        let (mut m, _) = Machine::start(&t);
        assert!(
            matches!(
                m.step(
                    &t,
                    &with_target,
                    Outcome::Failed {
                        error: "key".into(),
                        critical: true
                    }
                ),
                Step::Finish(Ending::Failed { .. })
            ),
            "critical errors never fall back"
        );
    }

    #[test]
    fn timeouts_follow_on_timeout_and_the_deadline_ends_the_query() {
        let t = qa::topology(2);
        let (mut m, _) = Machine::start(&t);
        let skip = ErrorPolicy::default();
        assert_eq!(
            node(&m.step(
                &t,
                &skip,
                Outcome::TimedOut {
                    query_deadline: false
                }
            )),
            "judgement"
        );
        let fail = ErrorPolicy {
            on_timeout: OnTimeout::FailFast,
            ..ErrorPolicy::default()
        };
        let (mut m, _) = Machine::start(&t);
        assert!(matches!(
            m.step(&t, &fail, Outcome::TimedOut { query_deadline: false }),
            Step::Finish(Ending::Failed { ref error, .. }) if error.contains("timed out")
        ));
        let (mut m, _) = Machine::start(&t);
        assert_eq!(
            m.step(
                &t,
                &skip,
                Outcome::TimedOut {
                    query_deadline: true
                }
            ),
            Step::Finish(Ending::DeadlineExceeded {
                node: NodeId::new("guardrail")
            })
        );
        let (mut m, _) = Machine::start(&t);
        assert_eq!(
            m.step(&t, &skip, Outcome::Cancelled),
            Step::Finish(Ending::Cancelled)
        );
    }

    #[test]
    fn a_loop_without_an_exit_stops_at_the_step_limit() {
        let t = Topology {
            name: Cow::Borrowed("spin"),
            entry: NodeId::new("a"),
            entry_priority: Priority::Low,
            nodes: vec![NodeId::new("a"), NodeId::new("b")],
            edges: vec![
                Edge::new("a", "b", Condition::Always, "ab", Priority::Low),
                Edge::new("b", "a", Condition::Always, "ba", Priority::Low),
            ],
            initial_facts: Facts::new(),
            max_steps: 7,
        };
        let (path, end) = walk(&t, &ErrorPolicy::default(), |_| done(Facts::new()));
        assert_eq!(path.len(), 7);
        assert_eq!(end, Ending::StepLimit { steps: 7 });
    }
}
