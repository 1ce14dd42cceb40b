//! What a stage is: one job, an offline implementation, optionally a model half under the
//! strict-JSON contract, and what it reports back (its `cached_state` slice, routing facts, a
//! confidence). Stages live in `stages/<name>/` and are registered in [`super::registry`].

use super::chat::ChatBackend;
use super::contract::ModelContract;
use super::dispatch::DispatchRecord;
use super::graph::coordinator::GraphEvent;
use super::state::{QueryInput, Work};
use super::topology::{Facts, NodeId};
use crate::index::Retriever;
use crate::resilience::breaker::{BreakerSnapshot, BreakerTransition};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A stage's dispatch timeout unless it says otherwise.
pub const DEFAULT_STAGE_TIMEOUT: Duration = Duration::from_secs(60);

/// `cached_state`: `session_id` and each stage's slice, by stage id.
pub type CachedState = BTreeMap<String, Value>;

/// What a running stage tells the world (the driver turns these into events).
pub trait StageSink: Send + Sync {
    /// A piece of the answer as it is produced (a sentence offline, tokens from a model).
    fn answer_token(&self, text: &str);
    /// The answer streamed so far was rejected and will be written again.
    fn answer_reset(&self);
    /// A backend's breaker after a call was admitted or its outcome recorded.
    fn breaker(&self, snapshot: BreakerSnapshot, transition: Option<BreakerTransition>);
    /// Progress of a task graph.
    fn graph(&self, _event: GraphEvent) {}
}

/// Set when the query is cancelled or its stage timed out; long offline work checks it and
/// stops, since a thread cannot be stopped from outside.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// `Err(Cancelled)` once cancelled: `cx.cancel.check()?` between steps of long work.
    pub fn check(&self) -> Result<(), StageError> {
        if self.is_cancelled() {
            Err(StageError::Cancelled)
        } else {
            Ok(())
        }
    }
}

/// Everything a stage may read besides its `Work`. Cheap to clone: offline stages run on a
/// blocking thread and take their own copy.
#[derive(Clone)]
pub struct StageCx {
    pub retriever: Arc<dyn Retriever>,
    /// The chat model, when one is configured (for stages that run others' model halves).
    pub chat: Option<Arc<ChatBackend>>,
    pub input: Arc<QueryInput>,
    /// What earlier stages wrote, plus `session_id` (read-only: the driver writes it).
    pub cached_state: Arc<CachedState>,
    pub sink: Arc<dyn StageSink>,
    pub cancel: CancelFlag,
    /// This run's dispatch id (what dispatches the stage makes itself depend on).
    pub dispatch_id: String,
    /// When the query started (for `react_log` times).
    pub started: Instant,
}

/// What a stage run reports.
#[derive(Debug, Clone, PartialEq)]
pub struct StageOutcome {
    /// The stage's documented slice of `cached_state`.
    pub slice: Value,
    /// Facts for routing.
    pub facts: Facts,
    /// The stage's confidence in its own result, where it has one.
    pub confidence: Option<f64>,
    /// Dispatches the stage made itself (a coordinator's tasks), recorded after its own.
    pub dispatches: Vec<DispatchRecord>,
}

impl StageOutcome {
    pub fn new(slice: Value) -> StageOutcome {
        StageOutcome {
            slice,
            facts: Facts::new(),
            confidence: None,
            dispatches: Vec::new(),
        }
    }

    pub fn flag(mut self, name: &str, value: bool) -> StageOutcome {
        self.facts.set_flag(name, value);
        self
    }

    pub fn number(mut self, name: &str, value: f64) -> StageOutcome {
        self.facts.set_number(name, value);
        self
    }

    pub fn confidence(mut self, c: f64) -> StageOutcome {
        self.confidence = Some(c);
        self
    }
}

/// Why a stage could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Other(String),
}

/// One stage of a topology.
pub trait Stage: Send + Sync {
    /// The node id the stage runs as (also its `cached_state` key).
    fn id(&self) -> NodeId;

    /// How long one dispatch of the stage may take before it is timed out.
    fn timeout(&self) -> Duration {
        DEFAULT_STAGE_TIMEOUT
    }

    /// The offline implementation: deterministic, no network.
    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError>;

    /// For a stage whose own work is asynchronous (running tasks concurrently): the driver runs
    /// this future, under the stage's timeout, instead of `run` on a blocking thread.
    fn run_async<'a>(
        &'a self,
        _cx: &'a StageCx,
        _work: &'a mut Work,
    ) -> Option<BoxFuture<'a, Result<StageOutcome, StageError>>> {
        None
    }

    /// The model half, for stages a chat model can do.
    fn model(&self) -> Option<&dyn ModelContract> {
        None
    }
}

/// Rounds to two decimals, as every score in `cached_state` is.
pub fn r2(x: f64) -> f64 {
    super::band::round2(x)
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A sink that drops everything.
    pub struct NullSink;

    impl StageSink for NullSink {
        fn answer_token(&self, _: &str) {}
        fn answer_reset(&self) {}
        fn breaker(&self, _: BreakerSnapshot, _: Option<BreakerTransition>) {}
    }

    /// A stage context for `query` over `retriever`.
    pub fn cx(retriever: Arc<dyn Retriever>, query: &str) -> StageCx {
        StageCx {
            retriever,
            chat: None,
            input: Arc::new(QueryInput {
                session_id: "sess_x".into(),
                query_id: "q".into(),
                query: query.into(),
                ..QueryInput::default()
            }),
            cached_state: Arc::new(CachedState::new()),
            sink: Arc::new(NullSink),
            cancel: CancelFlag::default(),
            dispatch_id: "disp_0000000000000000".into(),
            started: Instant::now(),
        }
    }
}
