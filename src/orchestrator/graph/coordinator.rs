//! The coordinator (ARCHITECTURE §8): runs a task graph in parallel groups.
//!
//! [`Schedule`] is pure: ready tasks are ordered by dependency depth, then by descending tool
//! affinity, with a max-heap tie-break on task id, so the order is deterministic; a completion
//! records its unlock event (every task whose dependencies are now all resolved, running ones
//! included), its depth and its affinity delta. [`coordinate`] performs a schedule: each group of
//! independent ready tasks runs concurrently on the tokio runtime (at most `max_concurrency` at
//! once) under a per-task timeout, with retries and backoff, and the group's success rate is
//! checked against `min_success_rate`. Each task is a dispatch record.

use super::merge::{ClaimSet, Merged};
use super::task::{ReactLog, Task, TaskGraph};
use crate::orchestrator::dispatch::{
    new_dispatch_id, now_ms, DispatchRecord, DispatchRequest, DispatchResponse, DispatchStatus,
    ExecutionMode, Priority,
};
use crate::orchestrator::machine::OnTimeout;
use crate::orchestrator::stage::CancelFlag;
use crate::orchestrator::topology::NodeId;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    Running,
    Done,
    Failed,
    TimedOut,
    /// Not run: a task it depends on did not finish, or the query was cancelled.
    Skipped,
}

impl TaskStatus {
    /// Finished one way or another: its dependents may be decided.
    pub fn resolved(self) -> bool {
        !matches!(self, TaskStatus::Pending | TaskStatus::Running)
    }
}

/// What completing one task changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnlockEvent {
    pub task_id: String,
    pub status: TaskStatus,
    /// Every unfinished task whose dependencies are now all resolved, running ones included.
    pub unlocked: Vec<String>,
    pub task_depth: usize,
    /// Highest affinity among the tasks this completion newly made ready, minus the completed
    /// task's own (0 when it readied none).
    pub affinity_delta: f64,
}

/// Ready-task ordering key: shallow first, then high affinity, then (max-heap) larger id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ReadyKey {
    depth: Reverse<usize>,
    /// Affinity in thousandths, so the key is totally ordered.
    affinity: i64,
    id: String,
}

/// The pure scheduling state of one graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    graph: TaskGraph,
    depths: BTreeMap<String, usize>,
    status: BTreeMap<String, TaskStatus>,
}

impl Schedule {
    pub fn new(graph: TaskGraph) -> Schedule {
        let depths = graph.depths();
        let status = graph
            .tasks
            .iter()
            .map(|t| (t.id.clone(), TaskStatus::Pending))
            .collect();
        Schedule {
            graph,
            depths,
            status,
        }
    }

    pub fn graph(&self) -> &TaskGraph {
        &self.graph
    }

    pub fn status(&self, id: &str) -> Option<TaskStatus> {
        self.status.get(id).copied()
    }

    pub fn depth(&self, id: &str) -> usize {
        self.depths.get(id).copied().unwrap_or(0)
    }

    fn deps_resolved(&self, t: &Task) -> bool {
        t.depends_on
            .iter()
            .all(|d| self.status.get(d).is_none_or(|s| s.resolved()))
    }

    fn deps_done(&self, t: &Task) -> bool {
        t.depends_on
            .iter()
            .all(|d| self.status.get(d).is_none_or(|s| *s == TaskStatus::Done))
    }

    /// Pending tasks whose dependencies are all resolved, in run order.
    pub fn ready(&self) -> Vec<String> {
        let mut heap: BinaryHeap<ReadyKey> = self
            .graph
            .tasks
            .iter()
            .filter(|t| self.status[&t.id] == TaskStatus::Pending && self.deps_resolved(t))
            .map(|t| ReadyKey {
                depth: Reverse(self.depth(&t.id)),
                affinity: (t.max_affinity() * 1000.0).round() as i64,
                id: t.id.clone(),
            })
            .collect();
        let mut out = Vec::with_capacity(heap.len());
        while let Some(k) = heap.pop() {
            out.push(k.id);
        }
        out
    }

    /// Takes the next group: up to `max` ready tasks, marked running. Ready tasks whose
    /// dependencies did not all finish are skipped instead (and reported).
    pub fn next_group(&mut self, max: usize) -> (Vec<String>, Vec<UnlockEvent>) {
        let mut skipped = Vec::new();
        loop {
            let ready = self.ready();
            let doomed: Vec<String> = ready
                .iter()
                .filter(|id| self.graph.get(id).is_some_and(|t| !self.deps_done(t)))
                .cloned()
                .collect();
            if doomed.is_empty() {
                let group: Vec<String> = ready.into_iter().take(max.max(1)).collect();
                for id in &group {
                    self.status.insert(id.clone(), TaskStatus::Running);
                }
                return (group, skipped);
            }
            for id in doomed {
                skipped.push(self.complete(&id, TaskStatus::Skipped));
            }
        }
    }

    /// Records that `id` ended with `status`.
    pub fn complete(&mut self, id: &str, status: TaskStatus) -> UnlockEvent {
        let ready_before: Vec<String> = self.ready();
        self.status.insert(id.to_string(), status);
        let unlocked: Vec<String> = self
            .graph
            .tasks
            .iter()
            .filter(|t| !self.status[&t.id].resolved() && self.deps_resolved(t))
            .map(|t| t.id.clone())
            .collect();
        let own = self.graph.get(id).map(Task::max_affinity).unwrap_or(0.0);
        let newly = self
            .graph
            .tasks
            .iter()
            .filter(|t| {
                t.depends_on.iter().any(|d| d == id)
                    && unlocked.contains(&t.id)
                    && !ready_before.contains(&t.id)
            })
            .map(Task::max_affinity)
            .fold(None, |m: Option<f64>, a| Some(m.map_or(a, |m| m.max(a))));
        UnlockEvent {
            task_id: id.to_string(),
            status,
            unlocked,
            task_depth: self.depth(id),
            affinity_delta: newly.map_or(0.0, |a| ((a - own) * 100.0).round() / 100.0),
        }
    }

    /// Tasks not resolved yet.
    pub fn unfinished(&self) -> Vec<String> {
        self.status
            .iter()
            .filter(|(_, s)| !s.resolved())
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Share of tasks that finished successfully.
    pub fn success_rate(&self) -> f64 {
        if self.status.is_empty() {
            return 1.0;
        }
        let done = self
            .status
            .values()
            .filter(|s| **s == TaskStatus::Done)
            .count();
        done as f64 / self.status.len() as f64
    }
}

/// What a task produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskOutput {
    /// The task's answer text (with its own `[n]` markers).
    pub answer: String,
    /// The task's confidence in its answer, 0..1.
    pub confidence: f64,
    pub claims: ClaimSet,
    pub tokens: u64,
}

/// Why a task did not produce an output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TaskError {
    /// Worth another try (a cut stream, a busy server).
    #[error("{0}")]
    Transient(String),
    #[error("{0}")]
    Failed(String),
    #[error("cancelled")]
    Cancelled,
}

/// Runs one task: the coordinator's seam to the stages (and, in tests, to scripted runs).
pub trait TaskRunner: Send + Sync {
    /// `upstream` holds the outputs of the tasks this one depends on, by task id.
    fn run<'a>(
        &'a self,
        task: &'a Task,
        upstream: &'a BTreeMap<String, TaskOutput>,
        cancel: &'a CancelFlag,
    ) -> BoxFuture<'a, Result<TaskOutput, TaskError>>;
}

/// Live progress of a graph, for the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "graph_event", rename_all = "snake_case")]
pub enum GraphEvent {
    Planned {
        graph: TaskGraph,
    },
    GroupStarted {
        group: usize,
        tasks: Vec<String>,
    },
    TaskFinished {
        task_id: String,
        status: TaskStatus,
        ms: f64,
        unlocked: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CoordinatorConfig {
    pub max_concurrency: usize,
    pub task_timeout: Duration,
    /// Retries of a task that failed transiently.
    pub retries: u32,
    /// First retry delay; doubled each time.
    pub backoff: Duration,
    pub on_timeout: OnTimeout,
    /// Below this share of successful tasks, the result is partial (and says so).
    pub min_success_rate: f64,
}

impl Default for CoordinatorConfig {
    fn default() -> Self {
        CoordinatorConfig {
            max_concurrency: 4,
            task_timeout: Duration::from_secs(30),
            retries: 1,
            backoff: Duration::from_millis(100),
            on_timeout: OnTimeout::Skip,
            min_success_rate: 0.5,
        }
    }
}

/// What running a graph produced.
#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorReport {
    pub outputs: BTreeMap<String, TaskOutput>,
    pub status: BTreeMap<String, TaskStatus>,
    pub merged: Merged,
    /// The groups as they ran.
    pub execution_order: Vec<Vec<String>>,
    pub unlock_events: Vec<UnlockEvent>,
    pub dispatches: Vec<DispatchRecord>,
    pub success_rate: f64,
    /// Below `min_success_rate`.
    pub partial: bool,
    pub warnings: Vec<String>,
    pub total_tokens: u64,
    pub ms: f64,
}

/// Where the coordinator reports, and what its dispatches hang from.
pub struct CoordinatorCx<'a> {
    pub session_id: &'a str,
    pub query_id: &'a str,
    /// The dispatch of the stage that runs the coordinator: first tasks depend on it.
    pub parent_dispatch: &'a str,
    /// Node id prefix of task dispatches (`coordinate` → `coordinate/t1`).
    pub node: &'a str,
    pub cancel: &'a CancelFlag,
    pub on_event: &'a (dyn Fn(GraphEvent) + Send + Sync),
    pub log: &'a mut ReactLog,
    /// The query's start, for `react_log` times.
    pub started: Instant,
}

/// Runs `graph` to its end: groups of ready tasks in parallel, each task under the timeout, with
/// retries; dependents of failed tasks are skipped; results are merged as tasks finish.
pub async fn coordinate(
    graph: TaskGraph,
    runner: Arc<dyn TaskRunner>,
    cfg: &CoordinatorConfig,
    cx: CoordinatorCx<'_>,
) -> CoordinatorReport {
    let t0 = Instant::now();
    let at = |started: Instant| started.elapsed().as_millis() as u64;
    (cx.on_event)(GraphEvent::Planned {
        graph: graph.clone(),
    });
    let mut schedule = Schedule::new(graph);
    let mut outputs: BTreeMap<String, TaskOutput> = BTreeMap::new();
    let mut merged = Merged::default();
    let mut execution_order = Vec::new();
    let mut unlock_events = Vec::new();
    let mut dispatches: Vec<DispatchRecord> = Vec::new();
    let mut dispatch_of: BTreeMap<String, String> = BTreeMap::new();
    let mut warnings = Vec::new();
    loop {
        if cx.cancel.is_cancelled() {
            for id in schedule.unfinished() {
                unlock_events.push(schedule.complete(&id, TaskStatus::Skipped));
            }
            warnings.push("cancelled: the remaining tasks were not run".to_string());
            break;
        }
        let (group, skipped) = schedule.next_group(cfg.max_concurrency);
        for e in skipped {
            warnings.push(format!(
                "task {} was skipped: a task it depends on did not finish",
                e.task_id
            ));
            cx.log.push("coordinator.skip", at(cx.started), json!(e));
            (cx.on_event)(GraphEvent::TaskFinished {
                task_id: e.task_id.clone(),
                status: TaskStatus::Skipped,
                ms: 0.0,
                unlocked: e.unlocked.clone(),
            });
            unlock_events.push(e);
        }
        if group.is_empty() {
            break;
        }
        let index = execution_order.len();
        execution_order.push(group.clone());
        (cx.on_event)(GraphEvent::GroupStarted {
            group: index,
            tasks: group.clone(),
        });
        cx.log.push(
            "coordinator.group",
            at(cx.started),
            json!({"group": index, "tasks": group}),
        );
        let mode = if group.len() > 1 {
            ExecutionMode::Parallel
        } else {
            ExecutionMode::Sequential
        };
        let mut running = Vec::new();
        for id in &group {
            let Some(task) = schedule.graph().get(id).cloned() else {
                continue;
            };
            let upstream: BTreeMap<String, TaskOutput> = task
                .depends_on
                .iter()
                .filter_map(|d| outputs.get(d).map(|o| (d.clone(), o.clone())))
                .collect();
            let depends_on: Vec<String> = if task.depends_on.is_empty() {
                vec![cx.parent_dispatch.to_string()]
            } else {
                task.depends_on
                    .iter()
                    .filter_map(|d| dispatch_of.get(d).cloned())
                    .collect()
            };
            let request = DispatchRequest {
                dispatch_id: new_dispatch_id(),
                session_id: cx.session_id.to_string(),
                query_id: cx.query_id.to_string(),
                target: NodeId::owned(format!("{}/{}", cx.node, task.id)),
                reason: format!(
                    "task {} of the graph, group {index}, depth {}",
                    task.id,
                    schedule.depth(&task.id)
                ),
                priority: if task.max_affinity() >= 0.8 {
                    Priority::High
                } else {
                    Priority::Medium
                },
                execution_mode: mode,
                depends_on,
                upstream_results: upstream
                    .iter()
                    .map(|(k, o)| {
                        (
                            k.clone(),
                            json!({"answer": o.answer, "confidence": o.confidence}),
                        )
                    })
                    .collect(),
                timeout_ms: u64::try_from(cfg.task_timeout.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1),
                max_cost: 0.0,
            };
            dispatch_of.insert(task.id.clone(), request.dispatch_id.clone());
            let runner = Arc::clone(&runner);
            let cfg = *cfg;
            let cancel = cx.cancel.clone();
            running.push(async move {
                let started_at = now_ms();
                let t = Instant::now();
                let out = run_with_retries(runner.as_ref(), &task, &upstream, &cancel, &cfg).await;
                (
                    task,
                    request,
                    out,
                    started_at,
                    t.elapsed().as_secs_f64() * 1000.0,
                )
            });
        }
        // The group runs concurrently; `max_concurrency` already bounded its size.
        let finished = futures_util::future::join_all(running).await;
        for (task, request, out, started_at, ms) in finished {
            let (status, response_status, result, errors, confidence, tokens) = match &out {
                Ok(o) => (
                    TaskStatus::Done,
                    DispatchStatus::Completed,
                    Some(json!({"answer": o.answer, "claims": o.claims.claims.len()})),
                    Vec::new(),
                    Some(o.confidence),
                    o.tokens,
                ),
                Err(RunEnd::TimedOut) => (
                    TaskStatus::TimedOut,
                    DispatchStatus::Timeout,
                    None,
                    Vec::new(),
                    None,
                    0,
                ),
                Err(RunEnd::Cancelled) => (
                    TaskStatus::Skipped,
                    DispatchStatus::Cancelled,
                    None,
                    Vec::new(),
                    None,
                    0,
                ),
                Err(RunEnd::Failed(e)) => (
                    TaskStatus::Failed,
                    DispatchStatus::Failed,
                    None,
                    vec![e.clone()],
                    None,
                    0,
                ),
            };
            let mut task_warnings = Vec::new();
            if status == TaskStatus::TimedOut {
                task_warnings.push(format!(
                    "timed out after {} ms ({})",
                    cfg.task_timeout.as_millis(),
                    match cfg.on_timeout {
                        OnTimeout::FailFast => "fail_fast",
                        OnTimeout::Skip => "skipped",
                        OnTimeout::UsePartial => "use_partial",
                    }
                ));
                warnings.push(format!("task {} timed out", task.id));
            }
            if let Err(RunEnd::Failed(e)) = &out {
                warnings.push(format!("task {} failed: {e}", task.id));
            }
            dispatches.push(DispatchRecord {
                response: DispatchResponse {
                    dispatch_id: request.dispatch_id.clone(),
                    status: response_status,
                    result,
                    confidence,
                    errors,
                    warnings: task_warnings,
                    execution_time_ms: ms,
                    tokens_used: tokens,
                    model_used: "offline".into(),
                    started_at,
                    completed_at: now_ms().max(started_at),
                },
                request,
            });
            if let Ok(o) = out {
                // U = U ∪ C_i, once per task.
                merged.union(&task.id, &o.claims);
                outputs.insert(task.id.clone(), o);
            }
            let e = schedule.complete(&task.id, status);
            cx.log.push("coordinator.unlock", at(cx.started), json!(e));
            (cx.on_event)(GraphEvent::TaskFinished {
                task_id: task.id.clone(),
                status,
                ms,
                unlocked: e.unlocked.clone(),
            });
            unlock_events.push(e);
        }
        if cfg.on_timeout == OnTimeout::FailFast
            && schedule
                .graph()
                .tasks
                .iter()
                .any(|t| schedule.status(&t.id) == Some(TaskStatus::TimedOut))
        {
            for id in schedule.unfinished() {
                unlock_events.push(schedule.complete(&id, TaskStatus::Skipped));
            }
            warnings
                .push("a task timed out and the policy is fail_fast: the rest were not run".into());
            break;
        }
    }
    let success_rate = schedule.success_rate();
    let partial = success_rate < cfg.min_success_rate;
    if partial {
        warnings.push(format!(
            "only {:.0} % of the tasks succeeded (minimum {:.0} %): the answer is partial",
            success_rate * 100.0,
            cfg.min_success_rate * 100.0
        ));
    }
    let status = schedule
        .graph()
        .tasks
        .iter()
        .map(|t| {
            (
                t.id.clone(),
                schedule.status(&t.id).unwrap_or(TaskStatus::Skipped),
            )
        })
        .collect();
    let total_tokens = outputs
        .values()
        .map(|o| o.tokens)
        .fold(0u64, u64::saturating_add);
    CoordinatorReport {
        outputs,
        status,
        merged,
        execution_order,
        unlock_events,
        dispatches,
        success_rate,
        partial,
        warnings,
        total_tokens,
        ms: t0.elapsed().as_secs_f64() * 1000.0,
    }
}

enum RunEnd {
    TimedOut,
    Cancelled,
    Failed(String),
}

/// One task under its timeout, retried with exponential backoff after a transient failure.
async fn run_with_retries(
    runner: &dyn TaskRunner,
    task: &Task,
    upstream: &BTreeMap<String, TaskOutput>,
    cancel: &CancelFlag,
    cfg: &CoordinatorConfig,
) -> Result<TaskOutput, RunEnd> {
    let mut attempt = 0u32;
    loop {
        match tokio::time::timeout(cfg.task_timeout, runner.run(task, upstream, cancel)).await {
            Err(_) => return Err(RunEnd::TimedOut),
            Ok(Ok(o)) => return Ok(o),
            Ok(Err(TaskError::Cancelled)) => return Err(RunEnd::Cancelled),
            Ok(Err(TaskError::Transient(e))) if attempt < cfg.retries => {
                attempt += 1;
                let wait = cfg.backoff.saturating_mul(1 << (attempt - 1).min(10));
                tracing::info!(task = %task.id, error = %e, attempt, "retrying a task");
                tokio::time::sleep(wait).await;
            }
            Ok(Err(TaskError::Transient(e) | TaskError::Failed(e))) => {
                return Err(RunEnd::Failed(if attempt > 0 {
                    format!("{e} (after {attempt} retries)")
                } else {
                    e
                }))
            }
        }
    }
}

/// Every task's status and output as one JSON value, for `cached_state`.
pub fn report_slice(r: &CoordinatorReport) -> Value {
    json!({
        "execution_order": r.execution_order,
        "status": r.status,
        "unlock_events": r.unlock_events,
        "success_rate": (r.success_rate * 100.0).round() / 100.0,
        "partial": r.partial,
        "warnings": r.warnings,
        "claims": r.merged.claims.len(),
        "passages": r.merged.passages.len(),
        "ms": (r.ms * 100.0).round() / 100.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::graph::merge::{claim_id, Claim, ClaimSet};
    use crate::orchestrator::graph::task::{set_task_graph, ReactLog};
    use std::collections::BTreeSet;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    fn graph(v: Value) -> TaskGraph {
        set_task_graph(&v, &mut ReactLog::default(), 0)
    }

    /// What a scripted task does.
    #[derive(Clone)]
    enum Script {
        Ok {
            ms: u64,
        },
        /// Fails transiently this many times, then succeeds.
        Flaky {
            failures: usize,
        },
        Fail,
        Hang,
    }

    struct Scripted {
        scripts: BTreeMap<String, Script>,
        running: AtomicUsize,
        max_running: AtomicUsize,
        attempts: Mutex<BTreeMap<String, usize>>,
        finished: Mutex<Vec<String>>,
    }

    impl Scripted {
        fn new(scripts: &[(&str, Script)]) -> Arc<Scripted> {
            Arc::new(Scripted {
                scripts: scripts
                    .iter()
                    .map(|(k, s)| (k.to_string(), s.clone()))
                    .collect(),
                running: AtomicUsize::new(0),
                max_running: AtomicUsize::new(0),
                attempts: Mutex::new(BTreeMap::new()),
                finished: Mutex::new(Vec::new()),
            })
        }
    }

    fn output(task: &Task) -> TaskOutput {
        // Each task states one claim about its own label; tasks a and b also state a shared one.
        let mut claims = ClaimSet::default();
        for (i, sentence) in [format!("{} happened.", task.id), "Shared fact.".to_string()]
            .into_iter()
            .enumerate()
        {
            if i == 1 && !["a", "b"].contains(&task.id.as_str()) {
                continue;
            }
            let id = claim_id("s", None, &sentence);
            claims.claims.insert(
                id.clone(),
                Claim {
                    id,
                    task_id: task.id.clone(),
                    subject: "s".into(),
                    date: None,
                    value: String::new(),
                    sentence,
                    chunk_id: format!("c_{}", task.id),
                    document: "d.md".into(),
                    section: None,
                    confidence: 0.5,
                    rank: i,
                },
            );
        }
        TaskOutput {
            answer: format!("{} answered", task.id),
            confidence: 0.5,
            claims,
            tokens: 3,
        }
    }

    impl TaskRunner for Scripted {
        fn run<'a>(
            &'a self,
            task: &'a Task,
            _upstream: &'a BTreeMap<String, TaskOutput>,
            _cancel: &'a CancelFlag,
        ) -> BoxFuture<'a, Result<TaskOutput, TaskError>> {
            Box::pin(async move {
                let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
                self.max_running.fetch_max(now, Ordering::SeqCst);
                let attempt = {
                    let mut a = self.attempts.lock().unwrap();
                    let n = a.entry(task.id.clone()).or_insert(0);
                    *n += 1;
                    *n
                };
                let script = self
                    .scripts
                    .get(&task.id)
                    .cloned()
                    .unwrap_or(Script::Ok { ms: 1 });
                let out = match script {
                    Script::Ok { ms } => {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        Ok(output(task))
                    }
                    Script::Flaky { failures } if attempt <= failures => {
                        Err(TaskError::Transient("busy".into()))
                    }
                    Script::Flaky { .. } => Ok(output(task)),
                    Script::Fail => Err(TaskError::Failed("no passage".into())),
                    Script::Hang => {
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                        Ok(output(task))
                    }
                };
                self.running.fetch_sub(1, Ordering::SeqCst);
                self.finished.lock().unwrap().push(task.id.clone());
                out
            })
        }
    }

    async fn run(
        g: TaskGraph,
        runner: Arc<Scripted>,
        cfg: CoordinatorConfig,
    ) -> (CoordinatorReport, ReactLog, Vec<GraphEvent>) {
        let mut log = ReactLog::default();
        let events = Mutex::new(Vec::new());
        let on_event = |e: GraphEvent| events.lock().unwrap().push(e);
        let cancel = CancelFlag::default();
        let report = coordinate(
            g,
            runner,
            &cfg,
            CoordinatorCx {
                session_id: "sess_x",
                query_id: "q",
                parent_dispatch: "disp_0000000000000000",
                node: "coordinate",
                cancel: &cancel,
                on_event: &on_event,
                log: &mut log,
                started: Instant::now(),
            },
        )
        .await;
        let events = events.into_inner().unwrap();
        (report, log, events)
    }

    #[test]
    fn ready_tasks_go_by_depth_then_affinity_then_the_larger_id() {
        let g = graph(json!([
            {"id": "a", "question": "?", "affinity": {"search": 0.5}},
            {"id": "b", "question": "?", "affinity": {"search": 0.9}},
            {"id": "c", "question": "?", "affinity": {"search": 0.5}},
            {"id": "d", "question": "?", "depends_on": ["a"], "affinity": {"search": 1.0}},
        ]));
        let mut s = Schedule::new(g);
        assert_eq!(
            s.ready(),
            vec!["b", "c", "a"],
            "affinity first, then max-heap on id"
        );
        let (group, _) = s.next_group(2);
        assert_eq!(group, vec!["b", "c"]);
        assert_eq!(s.ready(), vec!["a"]);
        let e = s.complete("b", TaskStatus::Done);
        assert_eq!(e.unlocked, vec!["a", "c"], "running c counts as unlocked");
        assert_eq!(e.affinity_delta, 0.0, "b readied nothing new");
        s.status.insert("a".into(), TaskStatus::Running);
        let e = s.complete("a", TaskStatus::Done);
        assert_eq!(e.unlocked, vec!["c", "d"]);
        assert_eq!(e.task_depth, 0);
        assert_eq!(e.affinity_delta, 0.5, "d (1.0) readied by a (0.5)");
        assert_eq!(s.depth("d"), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn independent_tasks_run_together_bounded_by_max_concurrency() {
        let g = graph(json!([
            {"id": "a", "question": "?"}, {"id": "b", "question": "?"}, {"id": "c", "question": "?"},
            {"id": "d", "question": "?"}, {"id": "e", "question": "?"},
            {"id": "f", "question": "?", "depends_on": ["a", "b"]},
        ]));
        let runner = Scripted::new(&[("a", Script::Ok { ms: 50 }), ("b", Script::Ok { ms: 50 })]);
        let cfg = CoordinatorConfig {
            max_concurrency: 3,
            ..CoordinatorConfig::default()
        };
        let (r, log, events) = run(g, Arc::clone(&runner), cfg).await;
        assert_eq!(runner.max_running.load(Ordering::SeqCst), 3);
        assert_eq!(r.execution_order.len(), 3);
        assert!(r.execution_order.iter().all(|g| g.len() <= 3));
        assert_eq!(r.execution_order[2], vec!["f"]);
        assert_eq!(r.success_rate, 1.0);
        assert!(!r.partial);
        // Six task dispatches: parallel in groups of several, sequential alone, chained.
        assert_eq!(r.dispatches.len(), 6);
        let f = r
            .dispatches
            .iter()
            .find(|d| d.request.target == "coordinate/f")
            .unwrap();
        assert_eq!(f.request.execution_mode, ExecutionMode::Sequential);
        assert_eq!(f.request.depends_on.len(), 2);
        assert_eq!(f.request.upstream_results.len(), 2);
        assert!(r.dispatches[0].request.execution_mode == ExecutionMode::Parallel);
        assert_eq!(
            r.dispatches[0].request.depends_on,
            vec!["disp_0000000000000000"]
        );
        // Every completion is an unlock event in the log and an event for the UI.
        assert_eq!(log.of("coordinator.unlock").count(), 6);
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, GraphEvent::TaskFinished { .. }))
                .count(),
            6
        );
        assert!(matches!(events[0], GraphEvent::Planned { .. }));
        assert_eq!(r.total_tokens, 18);
    }

    #[tokio::test(start_paused = true)]
    async fn a_hanging_task_times_out_and_its_dependents_are_skipped() {
        let g = graph(json!([
            {"id": "a", "question": "?"}, {"id": "b", "question": "?"},
            {"id": "c", "question": "?", "depends_on": ["a"]},
        ]));
        let runner = Scripted::new(&[("a", Script::Hang)]);
        let cfg = CoordinatorConfig {
            task_timeout: Duration::from_millis(200),
            ..CoordinatorConfig::default()
        };
        let (r, _, _) = run(g, runner, cfg).await;
        assert_eq!(r.status["a"], TaskStatus::TimedOut);
        assert_eq!(r.status["b"], TaskStatus::Done);
        assert_eq!(r.status["c"], TaskStatus::Skipped);
        let a = r
            .dispatches
            .iter()
            .find(|d| d.request.target == "coordinate/a")
            .unwrap();
        assert_eq!(a.response.status, DispatchStatus::Timeout);
        assert_eq!(a.request.timeout_ms, 200);
        assert!(r.warnings.iter().any(|w| w.contains("task a timed out")));
        assert!(r.warnings.iter().any(|w| w.contains("task c was skipped")));
        assert!(r.partial, "1 of 3 succeeded, below 0.5");
    }

    #[tokio::test(start_paused = true)]
    async fn transient_failures_are_retried_with_backoff_and_min_success_rate_holds() {
        let g = graph(json!([
            {"id": "a", "question": "?"}, {"id": "b", "question": "?"},
            {"id": "c", "question": "?"}, {"id": "d", "question": "?"},
        ]));
        let runner = Scripted::new(&[
            ("a", Script::Flaky { failures: 1 }),
            ("b", Script::Flaky { failures: 5 }),
            ("c", Script::Fail),
        ]);
        let (r, _, _) = run(g, Arc::clone(&runner), CoordinatorConfig::default()).await;
        assert_eq!(r.status["a"], TaskStatus::Done, "one retry was enough");
        assert_eq!(r.status["b"], TaskStatus::Failed);
        assert_eq!(r.status["c"], TaskStatus::Failed);
        assert_eq!(runner.attempts.lock().unwrap()["a"], 2);
        assert_eq!(
            runner.attempts.lock().unwrap()["b"],
            2,
            "retries are capped"
        );
        assert_eq!(
            runner.attempts.lock().unwrap()["c"],
            1,
            "a hard failure is not retried"
        );
        assert_eq!(r.success_rate, 0.5);
        assert!(!r.partial, "exactly the minimum is enough");
        let b = r
            .dispatches
            .iter()
            .find(|d| d.request.target == "coordinate/b")
            .unwrap();
        assert!(
            b.response.errors[0].contains("after 1 retries"),
            "{:?}",
            b.response.errors
        );
    }

    /// Every permutation of `items`.
    fn permutations(items: &[u64]) -> Vec<Vec<u64>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut out = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let x = rest.remove(i);
            for mut p in permutations(&rest) {
                p.insert(0, x);
                out.push(p);
            }
        }
        out
    }

    #[tokio::test(start_paused = true)]
    async fn every_completion_order_merges_to_the_same_result() {
        let g = graph(json!([
            {"id": "a", "question": "?"}, {"id": "b", "question": "?"},
            {"id": "c", "question": "?"}, {"id": "d", "question": "?"},
            {"id": "e", "question": "?", "depends_on": ["a"]},
        ]));
        let mut reference: Option<(Merged, BTreeMap<String, TaskStatus>)> = None;
        let mut orders = BTreeSet::new();
        for delays in permutations(&[10, 20, 30, 40]) {
            let scripts: Vec<(&str, Script)> = ["a", "b", "c", "d"]
                .iter()
                .zip(&delays)
                .map(|(id, ms)| (*id, Script::Ok { ms: *ms }))
                .collect();
            let runner = Scripted::new(&scripts);
            let (r, _, _) = run(g.clone(), Arc::clone(&runner), CoordinatorConfig::default()).await;
            orders.insert(runner.finished.lock().unwrap().clone());
            match &reference {
                None => reference = Some((r.merged.clone(), r.status.clone())),
                Some((m, s)) => {
                    assert_eq!(&r.merged, m);
                    assert_eq!(&r.status, s);
                }
            }
        }
        assert_eq!(
            orders.len(),
            24,
            "all 24 completion orders of the first group were run"
        );
        let (m, _) = reference.unwrap();
        assert_eq!(m.tasks.len(), 5);
        assert_eq!(
            m.claims.len(),
            6,
            "five own claims and one shared by a and b"
        );
    }
}
