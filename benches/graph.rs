//! A 6-task graph run by the coordinator: parallel groups (at most 4 at once) against one task
//! at a time. Tasks t1–t4 are independent; t5 needs t1 and t2, t6 needs t3 and t4, so the
//! parallel run is two groups. Each task waits 50 ms on the runtime, the shape of a model call
//! (the offline extractive path is CPU-bound instead; `docs/benchmarks.md` has that figure from
//! `fathom ask`). Run with `cargo bench --bench graph`.

use criterion::{criterion_group, criterion_main, Criterion};
use fathom::orchestrator::graph::coordinator::{
    coordinate, CoordinatorConfig, CoordinatorCx, TaskError, TaskOutput, TaskRunner,
};
use fathom::orchestrator::graph::merge::ClaimSet;
use fathom::orchestrator::graph::task::{set_task_graph, ReactLog, Task, TaskGraph};
use fathom::orchestrator::stage::CancelFlag;
use futures_util::future::BoxFuture;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

const TASK_WAIT: Duration = Duration::from_millis(50);

struct Waiting;

impl TaskRunner for Waiting {
    fn run<'a>(
        &'a self,
        task: &'a Task,
        _upstream: &'a BTreeMap<String, TaskOutput>,
        _cancel: &'a CancelFlag,
    ) -> BoxFuture<'a, Result<TaskOutput, TaskError>> {
        Box::pin(async move {
            tokio::time::sleep(TASK_WAIT).await;
            Ok(TaskOutput {
                answer: format!("{} answered", task.id),
                confidence: 0.8,
                claims: ClaimSet::default(),
                tokens: 0,
            })
        })
    }
}

fn six_tasks() -> TaskGraph {
    let raw = serde_json::json!({"tasks": [
        {"id": "t1", "question": "q1", "tools": ["search"]},
        {"id": "t2", "question": "q2", "tools": ["search"]},
        {"id": "t3", "question": "q3", "tools": ["search"]},
        {"id": "t4", "question": "q4", "tools": ["search"]},
        {"id": "t5", "question": "q5", "tools": ["search"], "depends_on": ["t1", "t2"]},
        {"id": "t6", "question": "q6", "tools": ["search"], "depends_on": ["t3", "t4"]},
    ]});
    set_task_graph(&raw, &mut ReactLog::default(), 0)
}

fn run(rt: &tokio::runtime::Runtime, max_concurrency: usize) -> usize {
    let cfg = CoordinatorConfig {
        max_concurrency,
        ..CoordinatorConfig::default()
    };
    let cancel = CancelFlag::default();
    let mut log = ReactLog::default();
    let on_event = |_| {};
    let report = rt.block_on(coordinate(
        six_tasks(),
        Arc::new(Waiting),
        &cfg,
        CoordinatorCx {
            session_id: "bench",
            query_id: "q",
            parent_dispatch: "d0",
            node: "coordinate",
            cancel: &cancel,
            on_event: &on_event,
            log: &mut log,
            started: Instant::now(),
        },
    ));
    assert_eq!(report.outputs.len(), 6, "every task ran");
    report.execution_order.len()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    assert_eq!(run(&rt, 4), 2, "two parallel groups");
    assert_eq!(run(&rt, 1), 6, "one task at a time");
    let mut g = c.benchmark_group("graph_6_tasks");
    g.sample_size(10);
    g.bench_function("parallel_groups_max_4", |b| b.iter(|| run(&rt, 4)));
    g.bench_function("one_task_at_a_time", |b| b.iter(|| run(&rt, 1)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
