//! The orchestrator's public face: everything the terminal UI, the sessions and the headless
//! CLI know of it. Commands go in, events come out, results are values; nothing here lets a
//! caller reach an index or a model.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use super::band::{FinalReason, RetrievalConfidence};
pub use super::citations::{markers, numbers, source_line, sources_block, with_sources, Marker};
pub use super::dispatch::{
    validate_trace, DispatchError, DispatchRecord, DispatchStatus, ExecutionMode, Priority,
};
pub use super::driver::AskRequest;
pub use super::followup::ContextItem;
pub use super::graph::aggregate::{AgentResultAggregation, PartResult};
pub use super::graph::coordinator::{GraphEvent, TaskStatus, UnlockEvent};
pub use super::graph::merge::Conflict;
pub use super::graph::routing::IntentType;
pub use super::graph::task::{ReactEntry, ReactLog, Task, TaskGraph};
pub use super::runtime::{Engine, OrchestratorHandle};
pub use super::topology::{NodeId, TopologyView};
pub use super::types::{
    Citation, ManagerState, OrchestrationResult, PlanSummary, RetrieveSummary, StageStatus,
    StageTrace,
};
pub use crate::corpus::Date;
pub use crate::index::{Passage, YearMode};
pub use crate::resilience::breaker::{BreakerSnapshot, BreakerStateKind, BreakerTransition};

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Ask {
        query: String,
        requested_years: Vec<i32>,
        session_id: String,
        /// The earlier turns of the conversation, oldest first, for follow-up questions.
        context: Vec<ContextItem>,
    },
    /// Stops the running query promptly.
    Cancel,
    /// Asks for a passage by chunk id (answered with [`Event::Passage`]).
    Passage {
        chunk_id: String,
    },
    Shutdown,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    QueryStarted {
        query_id: String,
        query: String,
    },
    StageStarted {
        query_id: String,
        stage: NodeId,
        #[serde(rename = "loop")]
        loop_index: u8,
    },
    StageFinished {
        query_id: String,
        stage: NodeId,
        ms: f64,
        status: StageStatus,
        fallback: Option<String>,
        #[serde(rename = "loop")]
        loop_index: u8,
    },
    /// A piece of the answer as it is produced (a sentence offline, tokens from a model).
    AnswerToken {
        query_id: String,
        text: String,
    },
    /// The answer streamed so far was rejected (invalid output or a cut stream) and will be
    /// written again, by the model or by the offline fallback.
    AnswerReset {
        query_id: String,
    },
    /// A backend's circuit breaker after a call was admitted or its outcome recorded.
    Breaker {
        snapshot: BreakerSnapshot,
        #[serde(skip_serializing_if = "Option::is_none")]
        transition: Option<BreakerTransition>,
    },
    Finished {
        result: Box<OrchestrationResult>,
    },
    Cancelled {
        query_id: String,
    },
    /// The query could not run (for example, another is running).
    Rejected {
        reason: String,
    },
    /// Progress of a decomposed question's task graph: planned, a group started, a task done.
    Graph {
        query_id: String,
        update: GraphEvent,
    },
    /// The passage asked for with [`Command::Passage`]; `None` when the index no longer holds
    /// it (an answer from an older index, reopened from a session).
    Passage {
        chunk_id: String,
        passage: Option<Box<Passage>>,
    },
}

impl Event {
    pub fn final_reason(&self) -> Option<FinalReason> {
        match self {
            Event::Finished { result } => Some(result.final_reason),
            _ => None,
        }
    }
}

/// What the UI shows about the engine before any question: the backend, the collection, the
/// topology.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineInfo {
    /// Status-bar label: `offline · dense-bm25-blend(0.5)` or `<model> · <reranker>`.
    pub backend: String,
    pub documents: usize,
    pub chunks: usize,
    /// Documents per year, for the year picker.
    pub years: BTreeMap<i32, usize>,
    /// Dense retrieval takes part.
    pub dense: bool,
    pub topology: TopologyView,
}

/// Progress of getting an engine ready (indexing a corpus, loading models), for a progress view.
#[derive(Debug, Clone, PartialEq)]
pub enum StartupProgress {
    LoadingModel,
    Scanning,
    Scanned {
        documents: usize,
        to_embed: usize,
    },
    Skipped {
        path: String,
        reason: String,
    },
    /// Chunks embedded so far out of `total`, and the seconds left at the rate so far.
    Embedded {
        done: usize,
        total: usize,
        eta_secs: Option<u64>,
    },
    Rebuilding {
        reason: String,
    },
    Writing,
    /// A generation is served from now on, with this many chunks of `total` embedded.
    Published {
        embedded: usize,
        total: usize,
    },
    Opening,
    /// Every vector is in and retrieval is hybrid from now on; the engine's status-bar label
    /// (`<model or offline> · <reranker>`) changes to `backend`.
    DenseReady {
        backend: String,
    },
    /// A one-time notice for the user (e.g. dense retrieval is off and how to fix it).
    Notice(String),
}
