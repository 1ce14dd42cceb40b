//! Questions that need several documents (ARCHITECTURE §8): intent routing as data, task graphs
//! and their normalisation, the offline planner's rules, the coordinator that runs a graph in
//! parallel groups, the set-union merge of what tasks find, and the aggregation that shapes the
//! answer by intent. The decompose, coordinate and aggregate stages drive these.

pub mod aggregate;
pub mod coordinator;
pub mod figures;
pub mod merge;
pub mod plan_rules;
pub mod routing;
pub mod runner;
pub mod task;

use serde::{Deserialize, Serialize};

/// A decomposed question's graph work, carried from stage to stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphWork {
    pub intent: routing::IntentType,
    pub graph: task::TaskGraph,
    pub react_log: task::ReactLog,
    /// The agents routing selected, with their priorities.
    pub agents: Vec<(String, f64)>,
    #[serde(skip)]
    pub report: Option<coordinator::CoordinatorReport>,
    pub aggregation: Option<aggregate::AgentResultAggregation>,
}
