//! The Manager: walks the topology for one query, runs each stage off the async runtime,
//! records traces, dispatches and `cached_state`, emits events, and stops promptly on cancel.

use super::backend::ChatBackend;
use super::band::FinalReason;
use super::breaker::{BreakerSnapshot, BreakerTransition};
use super::contract::ModelStage;
use super::dispatch::{
    new_dispatch_id, now_ms, DispatchRecord, DispatchRequest, DispatchResponse, DispatchStatus,
    ExecutionMode,
};
use super::events::Event;
use super::followup::{self, ContextItem};
use super::model_stage::{self, ModelOutcome, StageSink};
use super::stages::{self, StageError};
use super::state::QueryState;
use super::topology::{StageId, Topology};
use super::types::{
    ManagerState, OrchestrationResult, PlanSummary, RetrieveSummary, StageStatus, StageTrace,
};
use crate::index::retrieve::{Retriever, YearMode};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{mpsc::UnboundedSender, watch};

const STAGE_TIMEOUT_MS: u64 = 60_000;

pub struct Manager {
    retriever: Arc<Retriever>,
    /// The chat model, when one is configured; `None` runs every stage offline.
    chat: Option<Arc<ChatBackend>>,
    topology: Topology,
    max_reformulations: u8,
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
}

/// Forwards what a model-backed stage reports as orchestrator events.
struct EventSink<'a> {
    events: &'a UnboundedSender<Event>,
    query_id: String,
}

impl StageSink for EventSink<'_> {
    fn breaker(&mut self, snapshot: BreakerSnapshot, transition: Option<BreakerTransition>) {
        let _ = self.events.send(Event::Breaker {
            snapshot,
            transition,
        });
    }

    fn answer_token(&mut self, text: &str) {
        let _ = self.events.send(Event::AnswerToken {
            query_id: self.query_id.clone(),
            text: text.to_string(),
        });
    }

    fn answer_reset(&mut self) {
        let _ = self.events.send(Event::AnswerReset {
            query_id: self.query_id.clone(),
        });
    }
}

/// How one stage run ended, for its trace and dispatch record.
struct StageRun {
    outcome: Result<serde_json::Value, StageError>,
    fallback: Option<String>,
    model_used: String,
    tokens: u64,
    /// Re-issues the model needed (recorded also when the stage fell back).
    reissues: u32,
    streamed: bool,
}

impl Manager {
    pub fn new(retriever: Arc<Retriever>, max_reformulations: u8) -> Manager {
        Manager {
            retriever,
            chat: None,
            topology: Topology::default_pipeline(),
            max_reformulations,
        }
    }

    /// Uses `chat` for the model-backed stages (plan, reformulate, synthesize, reflect).
    pub fn with_chat(mut self, chat: Option<Arc<ChatBackend>>) -> Manager {
        self.chat = chat;
        self
    }

    pub fn chat(&self) -> Option<&Arc<ChatBackend>> {
        self.chat.as_ref()
    }

    /// Every backend breaker's state now (empty offline: in-process backends have none).
    pub fn breakers(&self) -> Vec<BreakerSnapshot> {
        self.chat.iter().map(|c| c.breaker_snapshot()).collect()
    }

    /// The chat model and its stage, when `stage` is to be run by the model. The guardrail's
    /// offline rules always run; the model screens only what they let through, and only when
    /// `llm.guardrail` asks for it.
    fn model_stage(
        &self,
        stage: StageId,
        st: &QueryState,
    ) -> Option<(&Arc<ChatBackend>, ModelStage)> {
        let chat = self.chat.as_ref()?;
        let ms = ModelStage::from_stage_id(stage)?;
        let wanted = ms != ModelStage::Guardrail
            || (chat.guardrail && stages::guardrail::check(&st.query).is_ok());
        wanted.then_some((chat, ms))
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    pub fn retriever(&self) -> &Arc<Retriever> {
        &self.retriever
    }

    /// Runs the query to its end (or its cancellation), emitting events as it goes.
    pub async fn run(
        &self,
        req: AskRequest,
        mut cancel: watch::Receiver<bool>,
        events: &UnboundedSender<Event>,
    ) -> OrchestrationResult {
        let mut st = QueryState::new(
            &req.session_id,
            &req.query_id,
            &req.query,
            req.requested_years.clone(),
        );
        st.max_reformulations = self.max_reformulations;
        // A follow-up ("and in 2021?") is planned as the standalone question it stands for; the
        // model stages also see the summary of earlier turns.
        let chat_context = followup::chat_context_summary(&req.context);
        st.followup = Some(followup::resolve(&req.query, req.context.last()));
        let _ = events.send(Event::QueryStarted {
            query_id: req.query_id.clone(),
            query: req.query.clone(),
        });
        let mut stage = StageId::Guardrail;
        loop {
            if *cancel.borrow() {
                return self.cancelled(st, events);
            }
            let loop_index = st.loop_index();
            let _ = events.send(Event::StageStarted {
                query_id: st.query_id.clone(),
                stage,
                loop_index,
            });
            let started_at = now_ms();
            let t = Instant::now();
            // The model's run, or why the offline stage runs instead (a fallback reason, or
            // none when the stage is offline by configuration) and the tokens already spent.
            let model_run: Result<StageRun, (Option<String>, u64, u32)> = match self
                .model_stage(stage, &st)
            {
                Some((chat, ms)) => {
                    let mut sink = EventSink {
                        events,
                        query_id: st.query_id.clone(),
                    };
                    let fut = model_stage::run(
                        chat,
                        &self.retriever,
                        ms,
                        &mut st,
                        &chat_context,
                        &mut sink,
                    );
                    let ended = tokio::select! {
                        r = fut => Some(r),
                        _ = cancel.changed() => None,
                    };
                    let Some(ended) = ended else {
                        return self.cancelled(st, events);
                    };
                    match ended {
                        ModelOutcome::Done {
                            slice,
                            tokens,
                            streamed,
                        } => Ok(StageRun {
                            outcome: Ok(slice),
                            fallback: None,
                            model_used: chat.model.clone(),
                            tokens,
                            reissues: 0,
                            streamed,
                        }),
                        ModelOutcome::Failed(msg) => Ok(StageRun {
                            outcome: Err(StageError::Other(msg)),
                            fallback: None,
                            model_used: chat.model.clone(),
                            tokens: 0,
                            reissues: 0,
                            streamed: false,
                        }),
                        ModelOutcome::FellBack {
                            reason,
                            tokens,
                            reissues,
                        } => {
                            tracing::info!(%stage, %reason, "falling back to the offline stage");
                            Err((Some(reason), tokens, reissues))
                        }
                    }
                }
                None => Err((None, 0, 0)),
            };
            let run = match model_run {
                Ok(run) => run,
                Err((fallback, tokens, reissues)) => {
                    let (next, outcome) = match self.offline(stage, st, &mut cancel).await {
                        Ok(done) => done,
                        Err(before) => return self.cancelled(before, events),
                    };
                    st = next;
                    StageRun {
                        outcome,
                        fallback,
                        model_used: "offline".into(),
                        tokens,
                        reissues,
                        streamed: false,
                    }
                }
            };
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            let status = match (&run.outcome, &run.fallback) {
                (Err(_), _) => StageStatus::Failed,
                (Ok(_), Some(_)) => StageStatus::FellBack,
                (Ok(_), None) => StageStatus::Done,
            };
            self.record(&mut st, stage, &run, status, ms, started_at, loop_index);
            let _ = events.send(Event::StageFinished {
                query_id: st.query_id.clone(),
                stage,
                ms,
                status,
                fallback: run.fallback.clone(),
                loop_index,
            });
            if stage == StageId::Synthesize && run.outcome.is_ok() && !run.streamed {
                for (sentence, _) in &st.answer_sentences {
                    let _ = events.send(Event::AnswerToken {
                        query_id: st.query_id.clone(),
                        text: sentence.clone(),
                    });
                }
            }
            let outcome = run.outcome;
            if let Err(e) = outcome {
                return self.failed(st, stage, &e, events);
            }
            match self.topology.next(stage, &st.route()) {
                Some(next) => stage = next,
                None => break,
            }
        }
        let result = self.result(st, None);
        let _ = events.send(Event::Finished {
            result: Box::new(result.clone()),
        });
        result
    }

    /// Runs the offline implementation of `stage` off the async runtime. Cancelled first, it
    /// gives back the state as it was before the stage.
    async fn offline(
        &self,
        stage: StageId,
        st: QueryState,
        cancel: &mut watch::Receiver<bool>,
    ) -> Result<(QueryState, Result<serde_json::Value, StageError>), QueryState> {
        let snapshot = st.clone();
        let retriever = Arc::clone(&self.retriever);
        let task = tokio::task::spawn_blocking(move || {
            let mut st = st;
            let out = execute(stage, &retriever, &mut st);
            (st, out)
        });
        tokio::select! {
            joined = task => Ok(match joined {
                Ok(pair) => pair,
                Err(e) => (snapshot, Err(StageError::Other(format!("stage panicked: {e}")))),
            }),
            _ = cancel.changed() => Err(snapshot),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        st: &mut QueryState,
        stage: StageId,
        run: &StageRun,
        status: StageStatus,
        ms: f64,
        started_at: u64,
        loop_index: u8,
    ) {
        let outcome = &run.outcome;
        let request = DispatchRequest {
            dispatch_id: new_dispatch_id(),
            session_id: st.session_id.clone(),
            query_id: st.query_id.clone(),
            target: stage,
            reason: format!("pipeline step {}", st.stages.len() + 1),
            priority: 1,
            execution_mode: ExecutionMode::Sequential,
            depends_on: st
                .dispatches
                .last()
                .map(|d| vec![d.request.dispatch_id.clone()])
                .unwrap_or_default(),
            timeout_ms: STAGE_TIMEOUT_MS,
            max_cost: 1.0,
        };
        let completed_at = now_ms().max(started_at);
        let response = DispatchResponse {
            dispatch_id: request.dispatch_id.clone(),
            status: if outcome.is_ok() {
                DispatchStatus::Completed
            } else {
                DispatchStatus::Failed
            },
            result: outcome.as_ref().ok().cloned(),
            confidence: None,
            errors: outcome
                .as_ref()
                .err()
                .map(|e| vec![e.to_string()])
                .unwrap_or_default(),
            warnings: run
                .fallback
                .iter()
                .map(|f| format!("fell back to the offline stage: {f}"))
                .collect(),
            execution_time_ms: ms.max(0.0),
            tokens_used: run.tokens,
            model_used: run.model_used.clone(),
            started_at,
            completed_at,
        };
        debug_assert!(request.validate().is_ok() && response.validate_for(&request).is_ok());
        if let Ok(slice) = outcome {
            let mut slice = slice.clone();
            if let Some(obj) = slice.as_object_mut() {
                obj.insert("loop".into(), json!(loop_index));
                if let Some(f) = &run.fallback {
                    obj.insert("fallback".into(), json!(f));
                    obj.insert("reissues".into(), json!(run.reissues));
                }
            }
            st.cached_state.insert(stage.as_str().to_string(), slice);
        }
        if run.tokens > 0 {
            *st.tokens_used
                .entry(stage.as_str().to_string())
                .or_insert(0) += run.tokens;
        }
        st.stages.push(StageTrace {
            id: stage,
            status,
            ms: super::band::round2(ms),
            fallback: run.fallback.clone(),
            loop_index,
        });
        st.dispatches.push(DispatchRecord { request, response });
    }

    fn cancelled(
        &self,
        mut st: QueryState,
        events: &UnboundedSender<Event>,
    ) -> OrchestrationResult {
        let _ = events.send(Event::Cancelled {
            query_id: st.query_id.clone(),
        });
        st.answer = "Cancelled.".into();
        let result = self.result(st, Some((ManagerState::Fail, FinalReason::Cancelled)));
        let _ = events.send(Event::Finished {
            result: Box::new(result.clone()),
        });
        result
    }

    fn failed(
        &self,
        mut st: QueryState,
        stage: StageId,
        e: &StageError,
        events: &UnboundedSender<Event>,
    ) -> OrchestrationResult {
        st.answer = format!("Something went wrong in the {stage} stage: {e}");
        let result = self.result(st, Some((ManagerState::Fail, FinalReason::Error)));
        let _ = events.send(Event::Finished {
            result: Box::new(result.clone()),
        });
        result
    }

    fn result(
        &self,
        st: QueryState,
        forced: Option<(ManagerState, FinalReason)>,
    ) -> OrchestrationResult {
        let (state, reason) = match forced {
            Some(f) => f,
            None => {
                let (s, r, _) = stages::respond::decide(&st);
                (s, r)
            }
        };
        OrchestrationResult {
            session_id: st.session_id.clone(),
            query_id: st.query_id.clone(),
            state,
            final_reason: reason,
            confidence: st.confidence,
            retrieval_confidence: st.retrieval_confidence,
            answer: st.answer.clone(),
            citations: st.citations.clone(),
            applicability_note: st.applicability_note.clone(),
            uncertainty_note: st.uncertainty_note.clone(),
            plan: st.plan.as_ref().map(|p| PlanSummary {
                original_query: p.original_query.clone(),
                revised_query: p.revised_query.clone(),
                coherence: p.coherence,
                coherence_reason: p.coherence_reason.clone(),
            }),
            retrieve: RetrieveSummary {
                year_mode: if st.requested_years.is_empty() {
                    YearMode::None
                } else {
                    YearMode::Explicit
                },
                requested_years: st.requested_years.clone(),
                recent_year_window: self.retriever.recency().window_years(),
            },
            stages: st.stages,
            breakers: self.breakers(),
            tokens_used: st.tokens_used,
            cached_state: st.cached_state,
            dispatches: st.dispatches,
        }
    }
}

/// Runs one stage on the state.
fn execute(
    stage: StageId,
    retriever: &Retriever,
    st: &mut QueryState,
) -> Result<serde_json::Value, StageError> {
    match stage {
        StageId::Guardrail => Ok(match stages::guardrail::check(&st.query) {
            Ok(()) => json!({"blocked": false}),
            Err(g) => {
                let slice =
                    json!({"blocked": true, "reason": g.reason, "safe_reply": g.safe_reply});
                st.guardrail = Some(g);
                slice
            }
        }),
        StageId::Plan => {
            let plan = match &st.followup {
                Some(f) if f.carried_topic || f.carried_dates => {
                    let mut p = stages::plan::plan(&f.query);
                    p.original_query = st.query.clone();
                    p
                }
                _ => stages::plan::plan(&st.query),
            };
            let slice =
                serde_json::to_value(&plan).map_err(|e| StageError::Other(e.to_string()))?;
            st.plan = Some(plan);
            Ok(slice)
        }
        StageId::Retrieve => stages::retrieve::run(retriever, st),
        StageId::Rerank => stages::rerank::run(retriever, st),
        StageId::Evaluate => stages::evaluate::run(retriever, st),
        StageId::Reformulate => stages::reformulate::run(retriever, st),
        StageId::Synthesize => stages::synthesize::run(retriever, st),
        StageId::Validate => stages::validate::run(st),
        StageId::Reflect => stages::reflect::run(retriever, st),
        StageId::Respond => stages::respond::run(st),
    }
}
