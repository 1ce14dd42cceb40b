//! The driver: runs any topology by performing what the [`Machine`] decides. It looks each node's
//! stage up in the registry, runs the model half or the offline half under the stage's timeout
//! and the query's deadline, stops promptly on cancel, records a dispatch, a stage trace and the
//! stage's `cached_state` slice, and emits events. No stage is special to it.

use super::api::Event;
use super::chat::ChatBackend;
use super::contract::{run_model, ModelOutcome};
use super::dispatch::{
    new_dispatch_id, now_ms, validate_trace, DispatchRecord, DispatchRequest, DispatchResponse,
    DispatchStatus, ExecutionMode,
};
use super::followup::{self, ContextItem};
use super::graph::coordinator::GraphEvent;
use super::machine::{Dispatch, Ending, ErrorPolicy, Machine, Outcome, RunMode, Step};
use super::registry::Registry;
use super::stage::{CachedState, CancelFlag, Stage, StageCx, StageError, StageOutcome, StageSink};
use super::state::{QueryInput, Work};
use super::topology::{qa, Topology, TopologyError};
use super::types::{
    ManagerState, OrchestrationResult, PlanSummary, RetrieveSummary, StageStatus, StageTrace,
};
use super::verdict;
use crate::index::{Retriever, YearMode};
use crate::resilience::breaker::{BreakerSnapshot, BreakerTransition};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc::UnboundedSender, watch};

/// A query's overall deadline unless configured otherwise.
pub const DEFAULT_QUERY_DEADLINE: Duration = Duration::from_secs(300);

pub struct Driver {
    retriever: Arc<dyn Retriever>,
    /// The chat model, when one is configured; `None` runs every stage offline.
    chat: Option<Arc<ChatBackend>>,
    registry: Registry,
    topology: Topology,
    policy: ErrorPolicy,
    deadline: Duration,
}

/// One question to answer.
#[derive(Debug, Clone)]
pub struct AskRequest {
    pub query: String,
    pub requested_years: Vec<i32>,
    pub session_id: String,
    pub query_id: String,
    /// The earlier turns of the conversation, oldest first.
    pub context: Vec<ContextItem>,
    /// Synthesize records every candidate sentence in its `cached_state` slice (`fathom eval
    /// --candidates`, to train the ranker).
    pub record_candidates: bool,
}

/// Forwards what running stages report as orchestrator events.
struct EventSink {
    events: UnboundedSender<Event>,
    query_id: String,
}

impl StageSink for EventSink {
    fn answer_token(&self, text: &str) {
        let _ = self.events.send(Event::AnswerToken {
            query_id: self.query_id.clone(),
            text: text.to_string(),
        });
    }

    fn answer_reset(&self) {
        let _ = self.events.send(Event::AnswerReset {
            query_id: self.query_id.clone(),
        });
    }

    fn breaker(&self, snapshot: BreakerSnapshot, transition: Option<BreakerTransition>) {
        let _ = self.events.send(Event::Breaker {
            snapshot,
            transition,
        });
    }

    fn graph(&self, event: GraphEvent) {
        let _ = self.events.send(Event::Graph {
            query_id: self.query_id.clone(),
            update: event,
        });
    }
}

/// How one run of a node's stage went.
enum Attempt {
    Completed {
        outcome: StageOutcome,
        /// `(model, tokens, re-issues)` when the model did it.
        model: Option<(String, u64, u32)>,
    },
    ModelFellBack {
        reason: String,
        model: String,
        tokens: u64,
        reissues: u32,
    },
    Failed {
        error: String,
        critical: bool,
    },
    TimedOut,
    Cancelled,
}

/// A fallback in progress: the model attempt that failed, carried into the offline run's record.
struct Pending {
    reason: String,
    reissues: u32,
}

/// What the driver alone writes.
#[derive(Default)]
struct Trace {
    stages: Vec<StageTrace>,
    dispatches: Vec<DispatchRecord>,
    tokens: BTreeMap<String, u64>,
    cached: CachedState,
}

/// How the task graph of a decomposed question runs (`[agent]` in the config).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GraphSettings {
    pub coordinator: crate::orchestrator::graph::coordinator::CoordinatorConfig,
    pub conflicts: crate::orchestrator::graph::merge::ConflictResolution,
}

impl Driver {
    /// A driver for `topology`, whose every node must have a stage in `registry`.
    pub fn new(
        retriever: Arc<dyn Retriever>,
        chat: Option<Arc<ChatBackend>>,
        registry: Registry,
        topology: Topology,
    ) -> Result<Driver, TopologyError> {
        topology.validate()?;
        registry.covers(&topology)?;
        Ok(Driver {
            retriever,
            chat,
            registry,
            topology,
            policy: ErrorPolicy::default(),
            deadline: DEFAULT_QUERY_DEADLINE,
        })
    }

    /// The QA topology with the built-in stages.
    pub fn qa(
        retriever: Arc<dyn Retriever>,
        chat: Option<Arc<ChatBackend>>,
        max_reformulations: u8,
    ) -> Result<Driver, TopologyError> {
        Driver::qa_with(
            retriever,
            chat,
            max_reformulations,
            GraphSettings::default(),
        )
    }

    /// The QA topology with the built-in stages, task graphs run as `graph` says.
    pub fn qa_with(
        retriever: Arc<dyn Retriever>,
        chat: Option<Arc<ChatBackend>>,
        max_reformulations: u8,
        graph: GraphSettings,
    ) -> Result<Driver, TopologyError> {
        let registry = Registry::builtin()
            .with(Arc::new(
                crate::orchestrator::stages::coordinate::Coordinate {
                    config: graph.coordinator,
                },
            ))
            .with(Arc::new(
                crate::orchestrator::stages::aggregate::Aggregate {
                    conflicts: graph.conflicts,
                },
            ));
        Driver::new(retriever, chat, registry, qa::topology(max_reformulations))
    }

    pub fn with_policy(mut self, policy: ErrorPolicy) -> Driver {
        self.policy = policy;
        self
    }

    /// The longest a query may run before it ends with what it has.
    pub fn with_deadline(mut self, deadline: Duration) -> Driver {
        self.deadline = deadline;
        self
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    pub fn retriever(&self) -> &Arc<dyn Retriever> {
        &self.retriever
    }

    pub fn chat(&self) -> Option<&Arc<ChatBackend>> {
        self.chat.as_ref()
    }

    /// Every remote backend's breaker now (empty offline: in-process backends have none).
    pub fn breakers(&self) -> Vec<BreakerSnapshot> {
        self.chat.iter().map(|c| c.breaker_snapshot()).collect()
    }

    /// Runs the query to its end (or its cancellation), emitting events as it goes.
    pub async fn run(
        &self,
        req: AskRequest,
        mut cancel: watch::Receiver<bool>,
        events: &UnboundedSender<Event>,
    ) -> OrchestrationResult {
        // A follow-up ("and in 2021?") is planned as the standalone question it stands for; the
        // model stages also see the summary of earlier turns.
        let input = Arc::new(QueryInput {
            session_id: req.session_id.clone(),
            query_id: req.query_id.clone(),
            query: req.query.clone(),
            requested_years: req.requested_years.clone(),
            followup: Some(followup::resolve(&req.query, req.context.last())),
            chat_context: followup::chat_context_summary(&req.context),
            record_candidates: req.record_candidates,
        });
        let sink: Arc<dyn StageSink> = Arc::new(EventSink {
            events: events.clone(),
            query_id: req.query_id.clone(),
        });
        let _ = events.send(Event::QueryStarted {
            query_id: req.query_id.clone(),
            query: req.query.clone(),
        });
        let mut trace = Trace::default();
        trace
            .cached
            .insert("session_id".into(), json!(req.session_id));
        let mut work = Work::default();
        let started = Instant::now();
        let (mut machine, mut step) = Machine::start(&self.topology);
        let mut pending: Option<Pending> = None;
        loop {
            let d = match step {
                Step::Finish(ending) => return self.finish(&input, work, trace, ending, events),
                Step::Run(d) => d,
            };
            if *cancel.borrow() {
                step = machine.step(&self.topology, &self.policy, Outcome::Cancelled);
                continue;
            }
            let Some(stage) = self.registry.get(&d.node).cloned() else {
                // `new` checked every node; a fallback agent may still name an unknown one.
                let error = format!("no stage is registered for {}", d.node);
                step = machine.step(
                    &self.topology,
                    &self.policy,
                    Outcome::Failed {
                        error,
                        critical: true,
                    },
                );
                continue;
            };
            let remaining = self.deadline.saturating_sub(started.elapsed());
            if remaining.is_zero() {
                step = machine.step(
                    &self.topology,
                    &self.policy,
                    Outcome::TimedOut {
                        query_deadline: true,
                    },
                );
                continue;
            }
            let timeout = stage.timeout().min(remaining);
            let deadline_bound = timeout < stage.timeout();
            if pending.is_none() {
                let _ = events.send(Event::StageStarted {
                    query_id: input.query_id.clone(),
                    stage: d.node.clone(),
                    loop_index: d.loop_index,
                });
            }
            let cx = StageCx {
                retriever: Arc::clone(&self.retriever),
                chat: self.chat.clone(),
                input: Arc::clone(&input),
                cached_state: Arc::new(trace.cached.clone()),
                sink: Arc::clone(&sink),
                cancel: CancelFlag::default(),
                dispatch_id: new_dispatch_id(),
                started,
            };
            let dispatch_id = cx.dispatch_id.clone();
            let started_at = now_ms();
            let t = Instant::now();
            let (next_work, attempt) = self
                .attempt(stage, &d, cx, work, timeout, &mut cancel)
                .await;
            work = next_work;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            let outcome = self.record(
                &mut trace,
                &input,
                &d,
                &dispatch_id,
                attempt,
                pending.take(),
                timeout,
                ms,
                started_at,
                events,
            );
            let (outcome, carried) = outcome;
            pending = carried;
            let outcome = match outcome {
                Outcome::TimedOut { .. } => Outcome::TimedOut {
                    query_deadline: deadline_bound,
                },
                other => other,
            };
            step = machine.step(&self.topology, &self.policy, outcome);
        }
    }

    /// Runs a node's stage once: the model half when the dispatch, the configuration and the
    /// stage all want it, else the offline half on a blocking thread.
    async fn attempt(
        &self,
        stage: Arc<dyn Stage>,
        d: &Dispatch,
        cx: StageCx,
        work: Work,
        timeout: Duration,
        cancel: &mut watch::Receiver<bool>,
    ) -> (Work, Attempt) {
        let model = match (&d.mode, self.chat.as_ref(), stage.model()) {
            (RunMode::Primary, Some(chat), Some(contract)) if contract.wanted(chat, &cx, &work) => {
                Some((chat, contract))
            }
            _ => None,
        };
        if let Some((chat, contract)) = model {
            let mut next = work.clone();
            let run = tokio::time::timeout(timeout, run_model(chat, contract, &cx, &mut next));
            let ended = tokio::select! {
                r = run => r,
                _ = cancelled(cancel) => return (work, Attempt::Cancelled),
            };
            return match ended {
                Err(_) => (work, Attempt::TimedOut),
                Ok(ModelOutcome::Done {
                    outcome,
                    tokens,
                    reissues,
                }) => (
                    next,
                    Attempt::Completed {
                        outcome,
                        model: Some((chat.model.clone(), tokens, reissues)),
                    },
                ),
                Ok(ModelOutcome::FellBack {
                    reason,
                    tokens,
                    reissues,
                }) => {
                    tracing::info!(stage = %d.node, %reason, "the model could not do the stage");
                    (
                        work,
                        Attempt::ModelFellBack {
                            reason,
                            model: chat.model.clone(),
                            tokens,
                            reissues,
                        },
                    )
                }
                Ok(ModelOutcome::Failed(error)) => (
                    work,
                    Attempt::Failed {
                        error,
                        critical: true,
                    },
                ),
            };
        }
        let mut next = work.clone();
        let flag = cx.cancel.clone();
        let ran = match stage.run_async(&cx, &mut next) {
            Some(fut) => Some(tokio::select! {
                r = tokio::time::timeout(timeout, fut) => r,
                _ = cancelled(cancel) => {
                    flag.cancel();
                    return (work, Attempt::Cancelled);
                }
            }),
            None => None,
        };
        if let Some(ran) = ran {
            return match ran {
                Err(_) => {
                    flag.cancel();
                    (work, Attempt::TimedOut)
                }
                Ok(Ok(outcome)) => (
                    next,
                    Attempt::Completed {
                        outcome,
                        model: None,
                    },
                ),
                Ok(Err(StageError::Cancelled)) => (work, Attempt::Cancelled),
                Ok(Err(e)) => (
                    work,
                    Attempt::Failed {
                        error: e.to_string(),
                        critical: false,
                    },
                ),
            };
        }
        drop(next);
        let snapshot = work.clone();
        let task = tokio::task::spawn_blocking(move || {
            let mut w = work;
            let r = stage.run(&cx, &mut w);
            (w, r)
        });
        let ended = tokio::select! {
            r = tokio::time::timeout(timeout, task) => r,
            _ = cancelled(cancel) => {
                flag.cancel();
                return (snapshot, Attempt::Cancelled);
            }
        };
        match ended {
            Err(_) => {
                // The thread cannot be stopped from here: it stops at its next check.
                flag.cancel();
                (snapshot, Attempt::TimedOut)
            }
            Ok(Err(join)) => (
                snapshot,
                Attempt::Failed {
                    error: format!("the {} stage panicked: {}", d.node, panic_message(join)),
                    critical: false,
                },
            ),
            Ok(Ok((w, Ok(outcome)))) => (
                w,
                Attempt::Completed {
                    outcome,
                    model: None,
                },
            ),
            Ok(Ok((_, Err(StageError::Cancelled)))) => (snapshot, Attempt::Cancelled),
            Ok(Ok((_, Err(e)))) => (
                snapshot,
                Attempt::Failed {
                    error: e.to_string(),
                    critical: false,
                },
            ),
        }
    }

    /// Writes the dispatch record, the stage trace and the slice of one attempt, emits
    /// `StageFinished` (not for a model attempt that falls back: the offline run finishes the
    /// stage), and turns the attempt into the machine's outcome.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        trace: &mut Trace,
        input: &QueryInput,
        d: &Dispatch,
        dispatch_id: &str,
        attempt: Attempt,
        pending: Option<Pending>,
        timeout: Duration,
        ms: f64,
        started_at: u64,
        events: &UnboundedSender<Event>,
    ) -> (Outcome, Option<Pending>) {
        let node = d.node.as_str().to_string();
        let fallback = pending.as_ref().map(|p| p.reason.clone());
        let mut warnings: Vec<String> = fallback
            .iter()
            .map(|f| format!("fell back to the offline stage: {f}"))
            .collect();
        let mut sub_dispatches = Vec::new();
        let (status, dispatch_status, result, errors, confidence, tokens, model_used, outcome) =
            match attempt {
                Attempt::Completed { mut outcome, model } => {
                    sub_dispatches = std::mem::take(&mut outcome.dispatches);
                    let (model_used, tokens) = match model {
                        Some((name, tokens, _)) => (name, tokens),
                        None => ("offline".to_string(), 0),
                    };
                    let mut slice = outcome.slice.clone();
                    if let Some(obj) = slice.as_object_mut() {
                        obj.insert("loop".into(), json!(d.loop_index));
                        if let Some(p) = &pending {
                            obj.insert("fallback".into(), json!(p.reason));
                            obj.insert("reissues".into(), json!(p.reissues));
                        }
                    }
                    trace.cached.insert(node.clone(), slice.clone());
                    let status = if pending.is_some() {
                        StageStatus::FellBack
                    } else {
                        StageStatus::Done
                    };
                    (
                        status,
                        DispatchStatus::Completed,
                        Some(slice),
                        Vec::new(),
                        outcome.confidence,
                        tokens,
                        model_used,
                        Outcome::Completed {
                            facts: outcome.facts,
                        },
                    )
                }
                Attempt::ModelFellBack {
                    reason,
                    model,
                    tokens,
                    reissues,
                } => {
                    // Recorded as its own failed dispatch; the offline run that follows is the
                    // stage's trace entry.
                    self.push_dispatch(
                        trace,
                        input,
                        d,
                        dispatch_id,
                        timeout,
                        DispatchResponseParts {
                            status: DispatchStatus::Failed,
                            result: None,
                            confidence: None,
                            errors: vec![reason.clone()],
                            warnings: Vec::new(),
                            ms,
                            tokens,
                            model_used: model,
                            started_at,
                        },
                    );
                    add_tokens(trace, &node, tokens);
                    let carried = Pending {
                        reason: reason.clone(),
                        reissues,
                    };
                    return (Outcome::ModelFellBack { reason }, Some(carried));
                }
                Attempt::Failed { error, critical } => (
                    StageStatus::Failed,
                    DispatchStatus::Failed,
                    None,
                    vec![error.clone()],
                    None,
                    0,
                    "offline".to_string(),
                    Outcome::Failed { error, critical },
                ),
                Attempt::TimedOut => {
                    warnings.push(format!(
                        "timed out after {} ms; the error policy decides what follows",
                        timeout.as_millis()
                    ));
                    (
                        StageStatus::TimedOut,
                        DispatchStatus::Timeout,
                        None,
                        Vec::new(),
                        None,
                        0,
                        "offline".to_string(),
                        Outcome::TimedOut {
                            query_deadline: false,
                        },
                    )
                }
                Attempt::Cancelled => (
                    StageStatus::Cancelled,
                    DispatchStatus::Cancelled,
                    None,
                    Vec::new(),
                    None,
                    0,
                    "offline".to_string(),
                    Outcome::Cancelled,
                ),
            };
        self.push_dispatch(
            trace,
            input,
            d,
            dispatch_id,
            timeout,
            DispatchResponseParts {
                status: dispatch_status,
                result,
                confidence,
                errors,
                warnings,
                ms,
                tokens,
                model_used,
                started_at,
            },
        );
        add_tokens(trace, &node, tokens);
        let sub_tokens: u64 = sub_dispatches.iter().map(|r| r.response.tokens_used).sum();
        add_tokens(trace, &node, sub_tokens);
        trace.dispatches.extend(sub_dispatches);
        trace.stages.push(StageTrace {
            id: d.node.clone(),
            status,
            ms: super::band::round2(ms),
            fallback: fallback.clone(),
            loop_index: d.loop_index,
        });
        let _ = events.send(Event::StageFinished {
            query_id: input.query_id.clone(),
            stage: d.node.clone(),
            ms,
            status,
            fallback,
            loop_index: d.loop_index,
        });
        (outcome, None)
    }

    #[allow(clippy::too_many_arguments)]
    fn push_dispatch(
        &self,
        trace: &mut Trace,
        input: &QueryInput,
        d: &Dispatch,
        dispatch_id: &str,
        timeout: Duration,
        r: DispatchResponseParts,
    ) {
        let max_cost = match (&d.mode, &self.chat) {
            // What the model may still spend on this query; offline stages spend no tokens.
            (RunMode::Primary, Some(chat)) => {
                let spent: u64 = trace.tokens.values().sum();
                u64::from(chat.budget.budget).saturating_sub(spent) as f64
            }
            _ => 0.0,
        };
        // A model attempt that fell back and the offline run after it are two dispatches.
        let dispatch_id = if trace
            .dispatches
            .iter()
            .any(|p| p.request.dispatch_id == dispatch_id)
        {
            new_dispatch_id()
        } else {
            dispatch_id.to_string()
        };
        let request = DispatchRequest {
            dispatch_id,
            session_id: input.session_id.clone(),
            query_id: input.query_id.clone(),
            target: d.node.clone(),
            reason: d.reason.clone(),
            priority: d.priority,
            execution_mode: ExecutionMode::Sequential,
            // The previous stage's dispatch (not the tasks a coordinator ran under it).
            depends_on: trace
                .dispatches
                .iter()
                .rev()
                .find(|p| !p.request.target.as_str().contains('/'))
                .map(|p| vec![p.request.dispatch_id.clone()])
                .unwrap_or_default(),
            upstream_results: Default::default(),
            timeout_ms: u64::try_from(timeout.as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
            max_cost,
        };
        let response = DispatchResponse {
            dispatch_id: request.dispatch_id.clone(),
            status: r.status,
            result: r.result,
            confidence: r.confidence,
            errors: r.errors,
            warnings: r.warnings,
            execution_time_ms: r.ms.max(0.0),
            tokens_used: r.tokens,
            model_used: r.model_used,
            started_at: r.started_at,
            completed_at: now_ms().max(r.started_at),
        };
        trace.dispatches.push(DispatchRecord { request, response });
    }

    fn finish(
        &self,
        input: &QueryInput,
        work: Work,
        trace: Trace,
        ending: Ending,
        events: &UnboundedSender<Event>,
    ) -> OrchestrationResult {
        let (state, reason, answer) = match &ending {
            Ending::Completed => match work.verdict {
                Some(v) => (v.state, v.reason, work.answer.text.clone()),
                None => {
                    let (v, text) = verdict::decide(&work);
                    (v.state, v.reason, text)
                }
            },
            Ending::Failed { node, error } => (
                ManagerState::Fail,
                super::band::FinalReason::Error,
                format!("Something went wrong in the {node} stage: {error}"),
            ),
            Ending::Cancelled => {
                let _ = events.send(Event::Cancelled {
                    query_id: input.query_id.clone(),
                });
                (
                    ManagerState::Fail,
                    super::band::FinalReason::Cancelled,
                    "Cancelled.".to_string(),
                )
            }
            Ending::StepLimit { steps } => (
                ManagerState::Fail,
                super::band::FinalReason::Error,
                format!("The query was stopped after {steps} stage runs: the {} topology went round without finishing.", self.topology.name),
            ),
            Ending::DeadlineExceeded { node } => (
                ManagerState::Fail,
                super::band::FinalReason::Error,
                format!(
                    "The query ran out of time: its {} s deadline passed during the {node} stage.",
                    self.deadline.as_secs()
                ),
            ),
        };
        let mut result = OrchestrationResult {
            session_id: input.session_id.clone(),
            query_id: input.query_id.clone(),
            state,
            final_reason: reason,
            confidence: work.reflection.confidence,
            retrieval_confidence: work.retrieval.confidence,
            answer,
            citations: work.answer.citations.clone(),
            applicability_note: work.reflection.applicability_note.clone(),
            uncertainty_note: work.reflection.uncertainty_note.clone(),
            plan: work.plan.as_ref().map(|p| PlanSummary {
                original_query: p.original_query.clone(),
                revised_query: p.revised_query.clone(),
                coherence: p.coherence,
                coherence_reason: p.coherence_reason.clone(),
                intent: p.intent,
            }),
            retrieve: RetrieveSummary {
                year_mode: if input.requested_years.is_empty() {
                    YearMode::None
                } else {
                    YearMode::Explicit
                },
                requested_years: input.requested_years.clone(),
                recent_year_window: self.retriever.recency().window_years(),
            },
            stages: trace.stages,
            breakers: self.breakers(),
            tokens_used: trace.tokens,
            cached_state: trace.cached,
            dispatches: trace.dispatches,
            topology: self.topology.name.to_string(),
            task_graph: work.graph.as_ref().map(|g| g.graph.clone()),
            react_log: work
                .graph
                .as_ref()
                .map(|g| g.react_log.clone())
                .unwrap_or_default(),
            aggregation: work.graph.as_ref().and_then(|g| g.aggregation.clone()),
            warnings: work.warnings.clone(),
        };
        // A trace that claims the impossible is a bug: say so rather than present it as fine.
        if let Err(e) = validate_trace(&result.dispatches) {
            tracing::error!(error = %e, "invalid dispatch record");
            result.state = ManagerState::Fail;
            result.final_reason = super::band::FinalReason::Error;
            result.answer = format!("Internal error: an invalid dispatch record ({e}).");
        }
        let _ = events.send(Event::Finished {
            result: Box::new(result.clone()),
        });
        result
    }
}

/// The response half of a dispatch record, before its id and end time are known.
struct DispatchResponseParts {
    status: DispatchStatus,
    result: Option<serde_json::Value>,
    confidence: Option<f64>,
    errors: Vec<String>,
    warnings: Vec<String>,
    ms: f64,
    tokens: u64,
    model_used: String,
    started_at: u64,
}

fn add_tokens(trace: &mut Trace, node: &str, tokens: u64) {
    if tokens > 0 {
        let t = trace.tokens.entry(node.to_string()).or_insert(0);
        *t = t.saturating_add(tokens);
    }
}

/// Resolves once the query is cancelled; never, if the canceller is gone.
async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    loop {
        if *cancel.borrow_and_update() {
            return;
        }
        if cancel.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// The message a panicking stage left, if it left one.
pub(crate) fn panic_message(join: tokio::task::JoinError) -> String {
    match join.try_into_panic() {
        Ok(payload) => panic_payload(payload.as_ref()),
        Err(e) => e.to_string(),
    }
}

pub(crate) fn panic_payload(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string())
}
