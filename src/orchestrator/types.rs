//! The values that flow through the pipeline and out of it.

use super::band::{FinalReason, RetrievalConfidence};
use super::dispatch::DispatchRecord;
use super::topology::NodeId;
use crate::corpus::Date;
use crate::index::YearMode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coherence {
    Coherent,
    Incoherent,
}

pub use super::graph::routing::IntentType;
pub use crate::query::MetadataHints;

pub const DEFAULT_TOP_K: u8 = 10;
pub const MAX_TOP_K: u8 = 50;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecutionPlan {
    pub original_query: String,
    pub revised_query: String,
    pub coherence: Coherence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coherence_reason: Option<String>,
    pub needs_retrieval: bool,
    pub metadata_hints: Option<MetadataHints>,
    /// 1–50.
    pub top_k_hint: u8,
    pub intent: IntentType,
    /// Years the question names, offered to the year picker.
    pub suggested_years: Vec<i32>,
    /// A direct reply when no retrieval is needed or the query is incoherent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
}

/// A citation in an answer: marker `[n]` → a retrieved chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    pub n: usize,
    pub chunk_id: String,
    pub document: String,
    pub date: Option<Date>,
    pub section: Option<String>,
    pub score: f64,
}

/// How a query ended (a running query has no state yet: it is `execute_plan` until it ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ManagerState {
    Success,
    Fail,
}

/// How one run of one stage ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageStatus {
    Done,
    Failed,
    /// The model half could not do it; the offline half did.
    FellBack,
    /// The stage's timeout passed; the error policy decided what followed.
    TimedOut,
    Cancelled,
}

/// One run of one stage (a stage may run more than once in the reformulation loop).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageTrace {
    pub id: NodeId,
    pub status: StageStatus,
    pub ms: f64,
    /// Why a fallback was used, if one was.
    pub fallback: Option<String>,
    /// Which pass of the retrieval loop (0 = first).
    #[serde(rename = "loop")]
    pub loop_index: u8,
}

/// A guardrail block: the query ends in `fail` with a safe reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{stage} blocked the query: {reason}")]
pub struct GuardrailsViolationError {
    pub stage: NodeId,
    pub reason: String,
    pub safe_reply: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanSummary {
    pub original_query: String,
    pub revised_query: String,
    pub coherence: Coherence,
    pub coherence_reason: Option<String>,
    /// Older results: `factual`.
    #[serde(default = "factual")]
    pub intent: IntentType,
}

fn factual() -> IntentType {
    IntentType::Factual
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrieveSummary {
    pub year_mode: YearMode,
    pub requested_years: Vec<i32>,
    pub recent_year_window: Option<[i32; 2]>,
}

/// Everything a query produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrchestrationResult {
    pub session_id: String,
    pub query_id: String,
    pub state: ManagerState,
    pub final_reason: FinalReason,
    pub confidence: Option<f64>,
    pub retrieval_confidence: Option<RetrievalConfidence>,
    /// The answer with its `[n]` markers and band note; no Sources block (the citations are
    /// data, rendered by whoever shows the answer).
    pub answer: String,
    pub citations: Vec<Citation>,
    pub applicability_note: Option<String>,
    pub uncertainty_note: Option<String>,
    pub plan: Option<PlanSummary>,
    pub retrieve: RetrieveSummary,
    pub stages: Vec<StageTrace>,
    /// Each backend's circuit breaker when the query ended (empty offline).
    #[serde(default)]
    pub breakers: Vec<crate::resilience::breaker::BreakerSnapshot>,
    /// Tokens the model calls of this query used, per stage (empty offline).
    #[serde(default)]
    pub tokens_used: std::collections::BTreeMap<String, u64>,
    /// Stage id → that stage's documented slice, plus `session_id`.
    pub cached_state: BTreeMap<String, serde_json::Value>,
    pub dispatches: Vec<DispatchRecord>,
    /// The topology that ran (older results: `qa`).
    #[serde(default = "default_topology")]
    pub topology: String,
    /// A decomposed question's task graph (none on the single-question path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_graph: Option<super::graph::task::TaskGraph>,
    /// How the task graph was planned and run: planner traces, normalisations, groups, unlocks.
    #[serde(
        default,
        skip_serializing_if = "super::graph::task::ReactLog::is_empty"
    )]
    pub react_log: super::graph::task::ReactLog,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<super::graph::aggregate::AgentResultAggregation>,
    /// What the user should know about how the answer was made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn default_topology() -> String {
    "qa".to_string()
}
