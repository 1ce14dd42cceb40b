//! The driver runs any topology: a second topology, a stage defined outside the crate, and a
//! second retrieval backend, each one file or folder plus registration. Also the driver's
//! enforcement: stage timeouts, the query deadline, cancellation and a panicking stage. No model
//! and no index on disk: the retriever here is [`MemoryRetriever`], BM25 over passages in memory.

mod common;

use fathom::corpus::Date;
use fathom::index::memory::MemoryRetriever;
use fathom::index::{Passage, RetrievalSettings, Retriever};
use fathom::orchestrator::api::{
    validate_trace, DispatchStatus, Event, FinalReason, ManagerState, NodeId, OrchestrationResult,
    Priority, StageStatus,
};
use fathom::orchestrator::driver::Driver;
use fathom::orchestrator::registry::Registry;
use fathom::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use fathom::orchestrator::state::Work;
use fathom::orchestrator::topology::{qa, Condition, Edge, Facts, Op, Topology};
use serde_json::json;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn passage(id: &str, date: &str, text: &str) -> Passage {
    Passage {
        title: "FOMC statement".into(),
        ..Passage::whole(id, format!("{date}_statement.md"), Date::parse(date), text)
    }
}

fn retriever() -> Arc<dyn Retriever> {
    Arc::new(MemoryRetriever::new(
        vec![
            passage("a1", "2019-07-31", "The Committee decided to lower the target range for the federal funds rate to 2 to 2-1/4 percent. This action supports the view that sustained expansion of economic activity is the most likely outcome."),
            passage("a2", "2020-03-15", "The Committee decided to lower the target range for the federal funds rate to 0 to 1/4 percent. The coronavirus outbreak has harmed communities and disrupted economic activity."),
            passage("a3", "2020-03-03", "The Committee decided today to lower the target range for the federal funds rate by 1/2 percentage point, to 1 to 1-1/4 percent."),
            passage("a4", "2022-03-16", "The Committee decided to raise the target range for the federal funds rate to 1/4 to 1/2 percent and anticipates that ongoing increases will be appropriate."),
        ],
        RetrievalSettings {
            candidates: 50,
            rrf_k: 60.0,
            recency_boost: 0.0,
            recent_year_window: 3,
        },
    ))
}

/// Asks `query` of `driver` as a first turn, with no year filter.
async fn run(driver: &Driver, query: &str) -> (OrchestrationResult, Vec<Event>) {
    common::ask_of(driver, query, vec![], vec![]).await
}

fn path(r: &OrchestrationResult) -> Vec<String> {
    r.stages.iter().map(|s| s.id.to_string()).collect()
}

/// A stage defined here, outside the crate: it reports which years the retrieved passages span
/// and how many distinct documents they come from. One file, one registration, its edges.
struct Coverage;

impl Stage for Coverage {
    fn id(&self) -> NodeId {
        NodeId::new("coverage")
    }

    fn run(&self, _cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let mut years: Vec<i32> = work.retrieval.hits.iter().filter_map(|h| h.year).collect();
        years.sort_unstable();
        years.dedup();
        let documents = work
            .retrieval
            .hits
            .iter()
            .map(|h| h.document.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        Ok(
            StageOutcome::new(json!({"years": years, "documents": documents}))
                .number("documents", documents as f64),
        )
    }
}

/// A QA topology without rerank, evaluate's loop or reflection, with the coverage stage.
fn lean() -> Topology {
    use Priority::*;
    let nodes = [
        "guardrail",
        "plan",
        "retrieve",
        "coverage",
        "synthesize",
        "validate",
        "respond",
    ];
    Topology {
        name: Cow::Borrowed("lean"),
        entry: NodeId::new("guardrail"),
        entry_priority: High,
        nodes: nodes.into_iter().map(NodeId::new).collect(),
        edges: vec![
            Edge::new(
                "guardrail",
                "respond",
                Condition::flag("blocked"),
                "blocked",
                High,
            ),
            Edge::new("guardrail", "plan", Condition::Always, "allowed", High),
            Edge::new(
                "plan",
                "respond",
                Condition::not_flag("needs_retrieval"),
                "chat",
                Medium,
            ),
            Edge::new("plan", "retrieve", Condition::Always, "search", High),
            Edge::new(
                "retrieve",
                "coverage",
                Condition::Always,
                "measure_coverage",
                Low,
            ),
            Edge::new(
                "coverage",
                "respond",
                Condition::compare("documents", Op::Lt, 1.0),
                "nothing_found",
                Medium,
            ),
            Edge::new("coverage", "synthesize", Condition::Always, "answer", High),
            Edge::new("synthesize", "validate", Condition::Always, "check", High),
            Edge::new("validate", "respond", Condition::Always, "reply", High),
        ],
        initial_facts: Facts::new(),
        max_steps: 16,
    }
}

#[tokio::test]
async fn a_second_topology_with_a_new_stage_runs_through_the_same_driver() {
    let registry = Registry::builtin().with(Arc::new(Coverage));
    let driver = Driver::new(retriever(), None, registry, lean()).unwrap();
    let (r, events) = run(&driver, "What did the Committee decide in March 2022?").await;
    // Without rerank nothing turns retrieve's candidates into ranked hits, so the new stage finds
    // no documents and, by the lean topology's own rule on its fact, the run goes to respond.
    assert_eq!(
        path(&r),
        ["guardrail", "plan", "retrieve", "coverage", "respond"]
    );
    assert_eq!(r.topology, "lean");
    assert_eq!(r.cached_state["coverage"]["documents"], json!(0));
    assert!(
        r.cached_state["retrieve"]["sparse_candidates"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(r.final_reason, FinalReason::InsufficientEvidence);
    // The new stage's slice is in cached_state, its dispatch names the rule that chose it.
    let d = r
        .dispatches
        .iter()
        .find(|d| d.request.target == "coverage")
        .unwrap();
    assert_eq!(
        d.request.reason,
        "rule measure_coverage: retrieve → coverage"
    );
    assert_eq!(d.request.priority, Priority::Low);
    validate_trace(&r.dispatches).unwrap();
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::StageFinished { stage, .. } if *stage == "coverage")));
}

/// The lean topology with rerank put back between retrieve and coverage.
fn lean_with_rerank() -> Topology {
    let mut t = lean();
    t.nodes.insert(3, NodeId::new("rerank"));
    for e in &mut t.edges {
        if e.from == "retrieve" {
            e.to = NodeId::new("rerank");
        }
    }
    t.edges.push(Edge::new(
        "rerank",
        "coverage",
        Condition::Always,
        "measure_coverage",
        Priority::Low,
    ));
    t
}

#[tokio::test]
async fn routing_follows_the_new_stages_facts() {
    let registry = Registry::builtin().with(Arc::new(Coverage));
    let driver = Driver::new(retriever(), None, registry, lean_with_rerank()).unwrap();
    let (r, _) = run(&driver, "What did the Committee decide in March 2022?").await;
    assert_eq!(
        path(&r),
        [
            "guardrail",
            "plan",
            "retrieve",
            "rerank",
            "coverage",
            "synthesize",
            "validate",
            "respond"
        ]
    );
    assert!(r.cached_state["coverage"]["documents"].as_u64().unwrap() >= 1);
    assert!(
        r.citations
            .iter()
            .any(|c| c.document == "2022-03-16_statement.md"),
        "{:#?}",
        r.citations
    );
    // No reflection ran, so there is no confidence: the verdict says the evidence is thin.
    assert!(r.confidence.is_none());
    assert_eq!(r.state, ManagerState::Success);
    // A question with no matching passage takes the coverage stage's other edge.
    let (r, _) = run(&driver, "Tell me about sourdough bread crusts").await;
    assert_eq!(
        path(&r),
        [
            "guardrail",
            "plan",
            "retrieve",
            "rerank",
            "coverage",
            "respond"
        ]
    );
    assert_eq!(r.final_reason, FinalReason::InsufficientEvidence);
}

#[tokio::test]
async fn an_unregistered_node_is_refused_when_the_driver_is_built() {
    let err = Driver::new(retriever(), None, Registry::builtin(), lean())
        .err()
        .expect("coverage is not registered");
    assert!(err.to_string().contains("coverage"), "{err}");
}

#[tokio::test]
async fn the_qa_topology_runs_over_the_memory_retriever() {
    let driver = Driver::qa(retriever(), None, 2).unwrap();
    let (r, _) = run(
        &driver,
        "What did the Committee decide about the target range for the federal funds rate in March 2020?",
    )
    .await;
    assert_eq!(r.state, ManagerState::Success, "{}", r.answer);
    assert!(
        r.citations
            .iter()
            .all(|c| c.document.starts_with("2020-03-")),
        "the date hint puts March 2020 first: {:#?}",
        r.citations
    );
    assert!(r.answer.contains("target range"), "{}", r.answer);
    validate_trace(&r.dispatches).unwrap();
    // Evaluate takes the rank-weighted mean (0.5, 0.3, 0.2) of its three best relevances.
    let e = &r.cached_state["evaluate"];
    let top: Vec<f64> = e["top_relevance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let weighted: f64 = top.iter().zip([0.5, 0.3, 0.2]).map(|(r, w)| r * w).sum();
    assert!(
        (e["mean_relevance"].as_f64().unwrap() - weighted).abs() < 0.011,
        "{e}"
    );
}

/// Sleeps for `nap`, checking the cancel flag every 10 ms; records whether it was told to stop.
struct Sleepy {
    nap: Duration,
    timeout: Duration,
    stopped: Arc<AtomicBool>,
}

impl Stage for Sleepy {
    fn id(&self) -> NodeId {
        NodeId::new("sleepy")
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn run(&self, cx: &StageCx, _work: &mut Work) -> Result<StageOutcome, StageError> {
        let start = Instant::now();
        while start.elapsed() < self.nap {
            if cx.cancel.is_cancelled() {
                self.stopped.store(true, Ordering::SeqCst);
                return Err(StageError::Cancelled);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(StageOutcome::new(
            json!({"slept_ms": self.nap.as_millis() as u64}),
        ))
    }
}

struct Boom;

impl Stage for Boom {
    fn id(&self) -> NodeId {
        NodeId::new("boom")
    }

    fn run(&self, _cx: &StageCx, _work: &mut Work) -> Result<StageOutcome, StageError> {
        panic!("the boom stage always panics");
    }
}

/// guardrail → `middle` → respond.
fn around(middle: &'static str) -> Topology {
    Topology {
        name: Cow::Borrowed("around"),
        entry: NodeId::new("guardrail"),
        entry_priority: Priority::High,
        nodes: ["guardrail", middle, "respond"]
            .into_iter()
            .map(NodeId::new)
            .collect(),
        edges: vec![
            Edge::new(
                "guardrail",
                middle,
                Condition::Always,
                "go",
                Priority::Medium,
            ),
            Edge::new(
                middle,
                "respond",
                Condition::Always,
                "done",
                Priority::Medium,
            ),
        ],
        initial_facts: Facts::new(),
        max_steps: 8,
    }
}

#[tokio::test]
async fn a_stage_that_overruns_its_timeout_is_timed_out_and_told_to_stop() {
    let stopped = Arc::new(AtomicBool::new(false));
    let sleepy = Sleepy {
        nap: Duration::from_secs(5),
        timeout: Duration::from_millis(60),
        stopped: Arc::clone(&stopped),
    };
    let registry = Registry::builtin().with(Arc::new(sleepy));
    let driver = Driver::new(retriever(), None, registry, around("sleepy")).unwrap();
    let t = Instant::now();
    let (r, _) = run(&driver, "rates").await;
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // The default policy skips a timed-out stage: the run goes on to respond.
    assert_eq!(path(&r), ["guardrail", "sleepy", "respond"]);
    assert_eq!(r.stages[1].status, StageStatus::TimedOut);
    let d = &r.dispatches[1];
    assert_eq!(d.response.status, DispatchStatus::Timeout);
    assert_eq!(d.request.timeout_ms, 60);
    validate_trace(&r.dispatches).unwrap();
    // The blocking thread was told to stop and saw it.
    let waited = Instant::now();
    while !stopped.load(Ordering::SeqCst) && waited.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(stopped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn the_query_deadline_ends_a_slow_query_with_what_it_has() {
    let sleepy = Sleepy {
        nap: Duration::from_secs(5),
        timeout: Duration::from_secs(30),
        stopped: Arc::new(AtomicBool::new(false)),
    };
    let registry = Registry::builtin().with(Arc::new(sleepy));
    let driver = Driver::new(retriever(), None, registry, around("sleepy"))
        .unwrap()
        .with_deadline(Duration::from_millis(150));
    let t = Instant::now();
    let (r, _) = run(&driver, "rates").await;
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(r.state, ManagerState::Fail);
    assert_eq!(r.final_reason, FinalReason::Error);
    assert!(r.answer.contains("ran out of time"), "{}", r.answer);
    assert!(r.dispatches[1].request.timeout_ms < 200);
}

#[tokio::test]
async fn cancelling_records_the_running_dispatch_as_cancelled() {
    let sleepy = Sleepy {
        nap: Duration::from_secs(5),
        timeout: Duration::from_secs(30),
        stopped: Arc::new(AtomicBool::new(false)),
    };
    let registry = Registry::builtin().with(Arc::new(sleepy));
    let driver = Arc::new(Driver::new(retriever(), None, registry, around("sleepy")).unwrap());
    let mut h = fathom::orchestrator::runtime::spawn(driver);
    h.commands
        .send(fathom::orchestrator::api::Command::Ask {
            query: "rates".into(),
            requested_years: vec![],
            session_id: "sess_topologytest01".into(),
            context: vec![],
        })
        .unwrap();
    let mut result = None;
    while let Some(ev) = h.events.recv().await {
        match ev {
            Event::StageStarted { stage, .. } if stage == "sleepy" => h
                .commands
                .send(fathom::orchestrator::api::Command::Cancel)
                .unwrap(),
            Event::Finished { result: r } => {
                result = Some(*r);
                break;
            }
            _ => {}
        }
    }
    let r = result.unwrap();
    assert_eq!(r.final_reason, FinalReason::Cancelled);
    assert_eq!(
        r.stages.last().map(|s| s.status),
        Some(StageStatus::Cancelled)
    );
    assert_eq!(
        r.dispatches.last().map(|d| d.response.status),
        Some(DispatchStatus::Cancelled)
    );
    assert!(!path(&r).contains(&"respond".to_string()));
    let _ = h
        .commands
        .send(fathom::orchestrator::api::Command::Shutdown);
}

#[tokio::test]
async fn a_panicking_stage_fails_the_query_with_a_message() {
    let registry = Registry::builtin().with(Arc::new(Boom));
    let driver = Driver::new(retriever(), None, registry, around("boom")).unwrap();
    let (r, events) = run(&driver, "rates").await;
    assert_eq!(r.state, ManagerState::Fail);
    assert_eq!(r.final_reason, FinalReason::Error);
    assert!(r.answer.contains("always panics"), "{}", r.answer);
    assert_eq!(r.stages[1].status, StageStatus::Failed);
    assert!(matches!(events.last(), Some(Event::Finished { .. })));
}

#[test]
fn the_ui_and_the_sessions_never_import_the_index_or_the_corpus() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut offenders = Vec::new();
    for dir in ["src/tui", "src/session"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    for (i, line) in text.lines().enumerate() {
                        if line.contains("crate::index") || line.contains("crate::corpus") {
                            offenders.push(format!("{}:{}: {line}", p.display(), i + 1));
                        }
                    }
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn the_qa_topology_is_valid_and_its_nodes_are_registered() {
    let t = qa::topology(2);
    t.validate().unwrap();
    Registry::builtin().covers(&t).unwrap();
}
