//! Commands to the orchestrator task and the events it emits. The UI and the headless CLI know
//! the orchestrator only through these values.

use super::band::FinalReason;
use super::breaker::{BreakerSnapshot, BreakerTransition};
use super::followup::ContextItem;
use super::topology::StageId;
use super::types::{OrchestrationResult, StageStatus};
use serde::{Deserialize, Serialize};

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
        stage: StageId,
        #[serde(rename = "loop")]
        loop_index: u8,
    },
    StageFinished {
        query_id: String,
        stage: StageId,
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
}

impl Event {
    pub fn final_reason(&self) -> Option<FinalReason> {
        match self {
            Event::Finished { result } => Some(result.final_reason),
            _ => None,
        }
    }
}
