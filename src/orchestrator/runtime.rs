//! The orchestrator as a tokio task: commands in, events out, one query at a time. A panic in a
//! query becomes a failed query with a message, never a silent hang.

use super::api::{Command, EngineInfo, Event};
use super::band::FinalReason;
use super::driver::{panic_payload, AskRequest, Driver};
use super::types::{ManagerState, OrchestrationResult, RetrieveSummary};
use crate::index::YearMode;
use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

pub struct OrchestratorHandle {
    pub commands: mpsc::UnboundedSender<Command>,
    pub events: mpsc::UnboundedReceiver<Event>,
    pub task: tokio::task::JoinHandle<()>,
}

/// A ready orchestrator: what the UI and the CLI start queries on.
#[derive(Clone)]
pub struct Engine {
    driver: Arc<Driver>,
    info: EngineInfo,
}

impl Engine {
    pub fn new(driver: Arc<Driver>, backend: String) -> Engine {
        let r = driver.retriever().info();
        let info = EngineInfo {
            backend,
            documents: r.documents,
            chunks: r.chunks,
            years: driver.retriever().years(),
            dense: r.dense,
            topology: driver.topology().view(),
        };
        Engine { driver, info }
    }

    pub fn info(&self) -> &EngineInfo {
        &self.info
    }

    pub fn driver(&self) -> &Arc<Driver> {
        &self.driver
    }

    /// Starts the orchestrator task on the current tokio runtime.
    pub fn spawn(&self) -> OrchestratorHandle {
        spawn(Arc::clone(&self.driver))
    }

    /// Runs one query to its end on the current runtime, with no canceller.
    pub async fn ask(
        &self,
        req: AskRequest,
        events: &mpsc::UnboundedSender<Event>,
    ) -> OrchestrationResult {
        let (_keep, cancel) = watch::channel(false);
        run_guarded(&self.driver, req, cancel, events).await
    }
}

/// Runs a query; a panic anywhere in it ends the query as failed, with the panic's message.
async fn run_guarded(
    driver: &Driver,
    req: AskRequest,
    cancel: watch::Receiver<bool>,
    events: &mpsc::UnboundedSender<Event>,
) -> OrchestrationResult {
    let ids = (req.session_id.clone(), req.query_id.clone());
    let years = req.requested_years.clone();
    match AssertUnwindSafe(driver.run(req, cancel, events))
        .catch_unwind()
        .await
    {
        Ok(result) => result,
        Err(payload) => {
            let message = panic_payload(payload.as_ref());
            tracing::error!(%message, "a query panicked");
            let result = OrchestrationResult {
                session_id: ids.0,
                query_id: ids.1,
                state: ManagerState::Fail,
                final_reason: FinalReason::Error,
                confidence: None,
                retrieval_confidence: None,
                answer: format!("The query failed on an internal error ({message}); the details are in the log."),
                citations: Vec::new(),
                applicability_note: None,
                uncertainty_note: None,
                plan: None,
                retrieve: RetrieveSummary {
                    year_mode: if years.is_empty() { YearMode::None } else { YearMode::Explicit },
                    requested_years: years,
                    recent_year_window: driver.retriever().recency().window_years(),
                },
                stages: Vec::new(),
                breakers: driver.breakers(),
                tokens_used: Default::default(),
                cached_state: Default::default(),
                dispatches: Vec::new(),
                topology: driver.topology().name.to_string(),
                task_graph: None,
                react_log: Default::default(),
                aggregation: None,
                warnings: vec![format!("internal error: {message}")],
            };
            let _ = events.send(Event::Finished {
                result: Box::new(result.clone()),
            });
            result
        }
    }
}

/// Starts the orchestrator task for `driver` on the current tokio runtime.
pub fn spawn(driver: Arc<Driver>) -> OrchestratorHandle {
    let (cmd_tx, mut cmd_rx) = mpsc::unbounded_channel::<Command>();
    let (ev_tx, ev_rx) = mpsc::unbounded_channel::<Event>();
    let task = tokio::spawn(async move {
        let mut running: Option<(tokio::task::JoinHandle<()>, watch::Sender<bool>)> = None;
        let mut counter: u64 = 0;
        while let Some(cmd) = cmd_rx.recv().await {
            if running.as_ref().is_some_and(|(h, _)| h.is_finished()) {
                running = None;
            }
            match cmd {
                Command::Ask {
                    query,
                    requested_years,
                    session_id,
                    context,
                } => {
                    if running.is_some() {
                        let _ = ev_tx.send(Event::Rejected {
                            reason: "a query is already running; cancel it first".into(),
                        });
                        continue;
                    }
                    counter += 1;
                    let query_id = format!(
                        "q{counter:04}_{}",
                        &super::dispatch::new_dispatch_id()[5..13]
                    );
                    let (cancel_tx, cancel_rx) = watch::channel(false);
                    let d = Arc::clone(&driver);
                    let tx = ev_tx.clone();
                    let req = AskRequest {
                        query,
                        requested_years,
                        session_id,
                        query_id,
                        context,
                        record_candidates: false,
                    };
                    let h = tokio::spawn(async move {
                        run_guarded(&d, req, cancel_rx, &tx).await;
                    });
                    running = Some((h, cancel_tx));
                }
                Command::Cancel => {
                    if let Some((_, cancel)) = &running {
                        let _ = cancel.send(true);
                    }
                }
                Command::Passage { chunk_id } => {
                    let passage = driver.retriever().passage(&chunk_id).map(Box::new);
                    let _ = ev_tx.send(Event::Passage { chunk_id, passage });
                }
                Command::Shutdown => break,
            }
        }
        if let Some((h, cancel)) = running {
            let _ = cancel.send(true);
            let _ = h.await;
        }
    });
    OrchestratorHandle {
        commands: cmd_tx,
        events: ev_rx,
        task,
    }
}
