//! The orchestrator as a tokio task: commands in, events out, one query at a time.

use super::events::{Command, Event};
use super::manager::{AskRequest, Manager};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

pub struct OrchestratorHandle {
    pub commands: mpsc::UnboundedSender<Command>,
    pub events: mpsc::UnboundedReceiver<Event>,
    pub task: tokio::task::JoinHandle<()>,
}

/// Starts the orchestrator task on the current tokio runtime.
pub fn spawn(manager: Arc<Manager>) -> OrchestratorHandle {
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
                    let m = Arc::clone(&manager);
                    let tx = ev_tx.clone();
                    let req = AskRequest {
                        query,
                        requested_years,
                        session_id,
                        query_id,
                        context,
                    };
                    let h = tokio::spawn(async move {
                        m.run(req, cancel_rx, &tx).await;
                    });
                    running = Some((h, cancel_tx));
                }
                Command::Cancel => {
                    if let Some((_, cancel)) = &running {
                        let _ = cancel.send(true);
                    }
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
