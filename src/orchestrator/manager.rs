//! The Manager: walks the topology for one query, runs each stage off the async runtime,
//! records traces, dispatches and `cached_state`, emits events, and stops promptly on cancel.

use super::band::FinalReason;
use super::dispatch::{
    new_dispatch_id, now_ms, DispatchRecord, DispatchRequest, DispatchResponse, DispatchStatus,
    ExecutionMode,
};
use super::events::Event;
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
}

impl Manager {
    pub fn new(retriever: Arc<Retriever>, max_reformulations: u8) -> Manager {
        Manager {
            retriever,
            topology: Topology::default_pipeline(),
            max_reformulations,
        }
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
            let snapshot = st.clone();
            let retriever = Arc::clone(&self.retriever);
            let task = tokio::task::spawn_blocking(move || {
                let mut st = st;
                let out = execute(stage, &retriever, &mut st);
                (st, out)
            });
            let (next_st, outcome) = tokio::select! {
                joined = task => match joined {
                    Ok(pair) => pair,
                    Err(e) => (snapshot, Err(StageError::Other(format!("stage panicked: {e}")))),
                },
                _ = cancel.changed() => {
                    return self.cancelled(snapshot, events);
                }
            };
            st = next_st;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            let status = if outcome.is_ok() {
                StageStatus::Done
            } else {
                StageStatus::Failed
            };
            self.record(&mut st, stage, &outcome, ms, started_at, loop_index);
            let _ = events.send(Event::StageFinished {
                query_id: st.query_id.clone(),
                stage,
                ms,
                status,
                fallback: None,
                loop_index,
            });
            if stage == StageId::Synthesize && outcome.is_ok() {
                for (sentence, _) in &st.answer_sentences {
                    let _ = events.send(Event::AnswerToken {
                        query_id: st.query_id.clone(),
                        text: sentence.clone(),
                    });
                }
            }
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

    fn record(
        &self,
        st: &mut QueryState,
        stage: StageId,
        outcome: &Result<serde_json::Value, StageError>,
        ms: f64,
        started_at: u64,
        loop_index: u8,
    ) {
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
            warnings: Vec::new(),
            execution_time_ms: ms.max(0.0),
            tokens_used: 0,
            model_used: "offline".into(),
            started_at,
            completed_at,
        };
        debug_assert!(request.validate().is_ok() && response.validate_for(&request).is_ok());
        if let Ok(slice) = outcome {
            let mut slice = slice.clone();
            if let Some(obj) = slice.as_object_mut() {
                obj.insert("loop".into(), json!(loop_index));
            }
            st.cached_state.insert(stage.as_str().to_string(), slice);
        }
        st.stages.push(StageTrace {
            id: stage,
            status: if outcome.is_ok() {
                StageStatus::Done
            } else {
                StageStatus::Failed
            },
            ms: super::band::round2(ms),
            fallback: None,
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
            let plan = stages::plan::plan(&st.query);
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
