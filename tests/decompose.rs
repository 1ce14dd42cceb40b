//! Questions that need several documents, end to end through the real driver and stages over a
//! small dated collection in memory (BM25, no model): intent routing, the task graph, the
//! coordinator's parallel groups, the merge and the shape of the aggregated answer.

use fathom::corpus::Date;
use fathom::eval::support::{citation_pairs, supports};
use fathom::index::memory::MemoryRetriever;
use fathom::index::{Passage, RetrievalSettings, Retriever};
use fathom::orchestrator::api::{
    validate_trace, Event, ExecutionMode, GraphEvent, IntentType, ManagerState,
    OrchestrationResult, TaskStatus,
};
use fathom::orchestrator::driver::{AskRequest, Driver};
use std::sync::Arc;

/// 2018 in six statements: four raises and two holds of the target range.
const MEETINGS: [(&str, &str); 6] = [
    (
        "2018-01-31",
        "decided to maintain the target range for the federal funds rate at 1-1/4 to 1-1/2 percent",
    ),
    (
        "2018-03-21",
        "decided to raise the target range for the federal funds rate to 1-1/2 to 1-3/4 percent",
    ),
    (
        "2018-06-13",
        "decided to raise the target range for the federal funds rate to 1-3/4 to 2 percent",
    ),
    (
        "2018-08-01",
        "decided to maintain the target range for the federal funds rate at 1-3/4 to 2 percent",
    ),
    (
        "2018-09-26",
        "decided to raise the target range for the federal funds rate to 2 to 2-1/4 percent",
    ),
    (
        "2018-12-19",
        "decided to raise the target range for the federal funds rate to 2-1/4 to 2-1/2 percent",
    ),
];

fn corpus() -> Arc<dyn Retriever> {
    let mut passages = Vec::new();
    for (date, decision) in MEETINGS {
        let text = format!(
            "Information received since the Federal Open Market Committee met indicates that the labor market has continued to strengthen. In view of realized and expected labor market conditions and inflation, the Committee {decision}. Voting for the monetary policy action were Jerome H. Powell, Chairman; John C. Williams, Vice Chairman."
        );
        passages.push(Passage {
            title: "Federal Reserve issues FOMC statement".into(),
            ..Passage::whole(
                format!("c{date}"),
                format!("{date}_statement.md"),
                Date::parse(date),
                text,
            )
        });
    }
    Arc::new(MemoryRetriever::new(
        passages,
        RetrievalSettings {
            candidates: 50,
            rrf_k: 60.0,
            recency_boost: 0.0,
            recent_year_window: 3,
        },
    ))
}

async fn ask(driver: &Driver, q: &str) -> (OrchestrationResult, Vec<Event>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (_c, cancel) = tokio::sync::watch::channel(false);
    let r = driver
        .run(
            AskRequest {
                query: q.into(),
                requested_years: vec![],
                session_id: "sess_decomposetest0".into(),
                query_id: "q1".into(),
                context: vec![],
                record_candidates: false,
            },
            cancel,
            &tx,
        )
        .await;
    drop(tx);
    let mut events = Vec::new();
    while let Some(e) = rx.recv().await {
        events.push(e);
    }
    (r, events)
}

fn path(r: &OrchestrationResult) -> Vec<String> {
    r.stages.iter().map(|s| s.id.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trend_is_answered_meeting_by_meeting_with_a_citation_per_line() {
    let retriever = corpus();
    let driver = Driver::qa(Arc::clone(&retriever), None, 2).unwrap();
    let (r, events) = ask(
        &driver,
        "How did the target range for the federal funds rate change during 2018?",
    )
    .await;
    assert_eq!(r.state, ManagerState::Success, "{}", r.answer);
    assert_eq!(r.plan.as_ref().map(|p| p.intent), Some(IntentType::Trend));
    assert_eq!(
        path(&r),
        [
            "guardrail",
            "judgement",
            "plan",
            "decompose",
            "coordinate",
            "aggregate",
            "validate",
            "reflect",
            "respond"
        ]
    );
    // One task per meeting the index holds in 2018, run in parallel groups of at most four.
    let g = r.task_graph.as_ref().unwrap();
    assert_eq!(g.tasks.len(), 6);
    let agg = r.aggregation.as_ref().unwrap();
    assert_eq!(
        agg.execution_order.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![4, 2]
    );
    assert!(agg
        .combined_results
        .iter()
        .all(|p| p.status == TaskStatus::Done));
    let min = agg
        .combined_results
        .iter()
        .filter_map(|p| p.confidence)
        .fold(f64::INFINITY, f64::min);
    assert_eq!(agg.overall_confidence, min);
    // Every meeting is cited, in date order, each line by the statement that states it.
    let docs: Vec<&str> = r.citations.iter().map(|c| c.document.as_str()).collect();
    assert_eq!(docs.len(), 6, "{}", r.answer);
    let mut sorted = docs.clone();
    sorted.sort();
    assert_eq!(docs, sorted);
    for range in [
        "1-1/2 to 1-3/4 percent",
        "1-3/4 to 2 percent",
        "2 to 2-1/4 percent",
        "2-1/4 to 2-1/2 percent",
    ] {
        assert!(r.answer.contains(range), "{range}: {}", r.answer);
    }
    let passage = |id: &str| retriever.passage(id);
    let pairs = citation_pairs(&r.answer, &r.citations, &passage);
    assert_eq!(pairs.len(), 6);
    assert!(pairs.iter().all(|p| p.supported), "{pairs:#?}");
    assert!(
        agg.key_insights[0].contains("1-1/4 to 1-1/2 percent"),
        "{:?}",
        agg.key_insights
    );
    // The coordinator's tasks are dispatches of their own: parallel in a group, after the stage.
    validate_trace(&r.dispatches).unwrap();
    let tasks: Vec<_> = r
        .dispatches
        .iter()
        .filter(|d| d.request.target.as_str().starts_with("coordinate/"))
        .collect();
    assert_eq!(tasks.len(), 6);
    assert!(tasks
        .iter()
        .all(|d| d.request.execution_mode == ExecutionMode::Parallel));
    // The react log records the planner's trace, the routing and every unlock.
    assert_eq!(r.react_log.of("planner.trace").count(), 1);
    assert_eq!(r.react_log.of("router.select_agents").count(), 1);
    assert_eq!(r.react_log.of("coordinator.unlock").count(), 6);
    // The UI saw the graph planned and every task finish.
    let graph_events: Vec<&GraphEvent> = events
        .iter()
        .filter_map(|e| match e {
            Event::Graph { update, .. } => Some(update),
            _ => None,
        })
        .collect();
    assert!(matches!(graph_events[0], GraphEvent::Planned { .. }));
    assert_eq!(
        graph_events
            .iter()
            .filter(|e| matches!(e, GraphEvent::TaskFinished { .. }))
            .count(),
        6
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comparison_gets_one_cited_part_per_side_and_the_difference() {
    let retriever = corpus();
    let driver = Driver::qa(Arc::clone(&retriever), None, 2).unwrap();
    let (r, _) = ask(
        &driver,
        "Compare the target range decisions of March 2018 and December 2018",
    )
    .await;
    assert_eq!(
        r.plan.as_ref().map(|p| p.intent),
        Some(IntentType::Comparative)
    );
    assert_eq!(r.task_graph.as_ref().map(|g| g.tasks.len()), Some(2));
    let docs: Vec<&str> = r.citations.iter().map(|c| c.document.as_str()).collect();
    assert_eq!(
        docs,
        vec!["2018-03-21_statement.md", "2018-12-19_statement.md"],
        "{}",
        r.answer
    );
    assert!(r.answer.contains("Difference:"), "{}", r.answer);
    assert!(r.answer.contains("3/4 percentage point"), "{}", r.answer);
    for c in &r.citations {
        let p = retriever.passage(&c.chunk_id).unwrap();
        assert!(p.date == c.date);
    }
    let passage = |id: &str| retriever.passage(id);
    assert!(citation_pairs(&r.answer, &r.citations, &passage)
        .iter()
        .all(|p| p.supported));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_fact_question_never_visits_the_graph() {
    let driver = Driver::qa(corpus(), None, 2).unwrap();
    let (r, events) = ask(
        &driver,
        "What did the Committee decide about the target range in June 2018?",
    )
    .await;
    assert_eq!(r.plan.as_ref().map(|p| p.intent), Some(IntentType::Factual));
    assert!(!path(&r).contains(&"decompose".to_string()));
    assert!(r.task_graph.is_none() && r.aggregation.is_none() && r.react_log.is_empty());
    assert!(!events.iter().any(|e| matches!(e, Event::Graph { .. })));
    let p = corpus().passage("c2018-06-13").unwrap();
    assert!(supports(&p, "the Committee decided to raise the target range for the federal funds rate to 1-3/4 to 2 percent."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_part_question_gets_one_numbered_cited_answer_per_part() {
    let retriever = corpus();
    let driver = Driver::qa(Arc::clone(&retriever), None, 2).unwrap();
    let (r, _) = ask(
        &driver,
        "What did the Committee decide in March 2018, and what did it decide in September 2018?",
    )
    .await;
    assert_eq!(
        r.plan.as_ref().map(|p| p.intent),
        Some(IntentType::MultiPart)
    );
    assert_eq!(r.task_graph.as_ref().map(|g| g.tasks.len()), Some(2));
    // "1. …[1]" then "2. …[2]": each part answered from its own meeting.
    let numbered: Vec<&str> = r
        .answer
        .lines()
        .filter(|l| l.starts_with("1. ") || l.starts_with("2. "))
        .collect();
    assert_eq!(numbered.len(), 2, "{}", r.answer);
    assert!(
        numbered[0].contains("1-1/2 to 1-3/4 percent"),
        "{}",
        r.answer
    );
    assert!(numbered[1].contains("2 to 2-1/4 percent"), "{}", r.answer);
    let docs: Vec<&str> = r.citations.iter().map(|c| c.document.as_str()).collect();
    assert_eq!(
        docs,
        vec!["2018-03-21_statement.md", "2018-09-26_statement.md"],
        "{}",
        r.answer
    );
    let passage = |id: &str| retriever.passage(id);
    assert!(citation_pairs(&r.answer, &r.citations, &passage)
        .iter()
        .all(|p| p.supported));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sentence_that_answers_two_parts_is_shown_once() {
    let retriever = corpus();
    let driver = Driver::qa(Arc::clone(&retriever), None, 2).unwrap();
    // Both parts are answered by the June 2018 decision sentence.
    let (r, _) = ask(
        &driver,
        "What did the Committee decide in June 2018, and what range did it set in June 2018?",
    )
    .await;
    assert_eq!(
        r.plan.as_ref().map(|p| p.intent),
        Some(IntentType::MultiPart),
        "{}",
        r.answer
    );
    let decision = "1-3/4 to 2 percent";
    assert_eq!(r.answer.matches(decision).count(), 1, "{}", r.answer);
    let second = r
        .answer
        .lines()
        .find(|l| l.starts_with("2. "))
        .unwrap_or_default();
    assert_eq!(second, "2. Answered by part 1 above.", "{}", r.answer);
    assert_eq!(r.citations.len(), 1, "{}", r.answer);
}
