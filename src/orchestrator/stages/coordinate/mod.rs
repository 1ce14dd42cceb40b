//! Coordinate: runs the task graph — independent tasks together in parallel groups on the tokio
//! runtime, bounded by `max_concurrency`, each under its timeout with retries — and merges what
//! each task finds into one claim set. Tasks run the single-question stages as their tools.
//!
//! Slice: the groups as they ran, every task's status, unlock events, success rate, warnings.
//! Facts: `partial` (fewer tasks succeeded than `min_success_rate` asks). Confidence: the success
//! rate.

use crate::orchestrator::graph::coordinator::{
    coordinate, report_slice, CoordinatorConfig, CoordinatorCx,
};
use crate::orchestrator::graph::runner::StageTaskRunner;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::stages::{evaluate, rerank, retrieve, synthesize};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use futures_util::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

pub const ID: NodeId = NodeId::new("coordinate");

#[derive(Default)]
pub struct Coordinate {
    pub config: CoordinatorConfig,
}

impl Stage for Coordinate {
    fn id(&self) -> NodeId {
        ID
    }

    /// Long enough for every group at the task timeout (16 tasks, 4 at a time).
    fn timeout(&self) -> Duration {
        self.config.task_timeout.saturating_mul(5)
    }

    fn run(&self, _cx: &StageCx, _work: &mut Work) -> Result<StageOutcome, StageError> {
        Err(StageError::Other(
            "the coordinator runs tasks concurrently and has no blocking half".into(),
        ))
    }

    fn run_async<'a>(
        &'a self,
        cx: &'a StageCx,
        work: &'a mut Work,
    ) -> Option<BoxFuture<'a, Result<StageOutcome, StageError>>> {
        Some(Box::pin(async move {
            let Some(gw) = work.graph.as_mut() else {
                return Err(StageError::Other("no task graph to run".into()));
            };
            let runner = Arc::new(StageTaskRunner {
                cx: cx.clone(),
                search: vec![
                    Arc::new(retrieve::Retrieve),
                    Arc::new(rerank::Rerank),
                    Arc::new(evaluate::Evaluate),
                ],
                extract: Arc::new(synthesize::Synthesize),
            });
            let sink = Arc::clone(&cx.sink);
            let on_event = move |e| sink.graph(e);
            let report = coordinate(
                gw.graph.clone(),
                runner,
                &self.config,
                CoordinatorCx {
                    session_id: &cx.input.session_id,
                    query_id: &cx.input.query_id,
                    parent_dispatch: &cx.dispatch_id,
                    node: ID.as_str(),
                    cancel: &cx.cancel,
                    on_event: &on_event,
                    log: &mut gw.react_log,
                    started: cx.started,
                },
            )
            .await;
            if cx.cancel.is_cancelled() {
                return Err(StageError::Cancelled);
            }
            let slice = report_slice(&report);
            let rate = report.success_rate;
            let partial = report.partial;
            let dispatches = report.dispatches.clone();
            work.warnings.extend(report.warnings.iter().cloned());
            if let Some(gw) = work.graph.as_mut() {
                gw.report = Some(report);
            }
            let mut out = StageOutcome::new(slice)
                .flag("partial", partial)
                .confidence((rate * 100.0).round() / 100.0);
            out.dispatches = dispatches;
            Ok(out)
        }))
    }
}
