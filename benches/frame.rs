//! Time to draw one full frame of a realistic UI state into ratatui's `TestBackend`: an answered
//! question with a long answer and 5 citations, every stage finished, and a second turn running.
//! Target: ≤ 2 ms per frame at 120×40 and 80×24. Run with `cargo bench --bench frame`.

use criterion::{criterion_group, criterion_main, Criterion};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fathom::corpus::{Chunk, Date};
use fathom::index::retrieve::YearMode;
use fathom::orchestrator::band::{FinalReason, RetrievalConfidence};
use fathom::orchestrator::events::Event;
use fathom::orchestrator::topology::{StageId, Topology};
use fathom::orchestrator::types::{
    Citation, Coherence, ManagerState, OrchestrationResult, PlanSummary, RetrieveSummary,
    StageStatus, StageTrace,
};
use fathom::tui::{update, view, Action, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::collections::BTreeMap;
use std::hint::black_box;

const STAGES: [StageId; 9] = [
    StageId::Guardrail,
    StageId::Plan,
    StageId::Retrieve,
    StageId::Rerank,
    StageId::Evaluate,
    StageId::Synthesize,
    StageId::Validate,
    StageId::Reflect,
    StageId::Respond,
];

fn date(year: i32, month: u8) -> Date {
    Date {
        year,
        month,
        day: 15,
    }
}

fn citation(n: usize) -> Citation {
    Citation {
        n,
        chunk_id: format!("c{n}"),
        document: format!("monetary/{}-0{n}-15_statement.md", 2017 + n),
        date: Some(date(2017 + n as i32, n as u8)),
        section: Some("Policy decision".to_string()),
        score: 0.9 - 0.07 * n as f64,
    }
}

fn result(query_id: &str) -> OrchestrationResult {
    // About 1,500 characters over several paragraphs, every sentence cited: the wrapping and
    // marker-splitting work of a long real answer.
    let paragraph = "The Committee lowered the target range for the federal funds rate by 1/4 \
        percentage point to 1-3/4 to 2 percent [1], citing the implications of global \
        developments for the economic outlook and muted inflation pressures [2]. It said it \
        would continue to monitor incoming information and act as appropriate to sustain the \
        expansion [3], with a strong labor market and inflation near its symmetric 2 percent \
        objective [4]. Two members preferred to maintain the target range [5].";
    let answer = [paragraph; 3].join("\n\n");
    let mut cached_state = BTreeMap::new();
    cached_state.insert(
        "plan".to_string(),
        serde_json::json!({"revised_query": "federal funds rate target range 2019", "intent": "lookup"}),
    );
    cached_state.insert(
        "retrieve".to_string(),
        serde_json::json!({"year_mode": "explicit", "requested_years": [2019], "hits": (1..=5).map(|n| serde_json::json!({"chunk_id": format!("c{n}"), "score": 0.5})).collect::<Vec<_>>()}),
    );
    OrchestrationResult {
        session_id: "bench".to_string(),
        query_id: query_id.to_string(),
        state: ManagerState::Success,
        final_reason: FinalReason::ConfidenceHigh,
        confidence: Some(0.86),
        retrieval_confidence: Some(RetrievalConfidence::High),
        answer,
        citations: (1..=5).map(citation).collect(),
        applicability_note: Some("Applies to 2019.".to_string()),
        uncertainty_note: None,
        plan: Some(PlanSummary {
            original_query: "What did the Committee do to rates in 2019?".to_string(),
            revised_query: "federal funds rate target range 2019".to_string(),
            coherence: Coherence::Coherent,
            coherence_reason: None,
        }),
        retrieve: RetrieveSummary {
            year_mode: YearMode::Explicit,
            requested_years: vec![2019],
            recent_year_window: None,
        },
        stages: STAGES
            .iter()
            .map(|&id| StageTrace {
                id,
                status: StageStatus::Done,
                ms: 12.0,
                fallback: None,
                loop_index: 0,
            })
            .collect(),
        breakers: vec![],
        tokens_used: BTreeMap::new(),
        cached_state,
        dispatches: vec![],
    }
}

fn ask(app: &mut App, question: &str) {
    for c in question.chars() {
        update(
            app,
            Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        );
    }
    update(
        app,
        Action::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
}

fn fixture() -> App {
    let years = (2015..=2024).map(|y| (y, 20)).collect();
    let mut app = App::new(
        "offline · minilm",
        10_363,
        years,
        Topology::default_pipeline(),
        "bench",
    );
    for n in 1..=5 {
        app.add_chunk(Chunk {
            chunk_id: format!("c{n}"),
            document: citation(n).document,
            title: "FOMC statement".to_string(),
            date: Some(date(2017 + n as i32, n as u8)),
            year: Some(2017 + n as i32),
            section: Some("Policy decision".to_string()),
            text: "The Committee decided to lower the target range. ".repeat(20),
            byte_start: 0,
            byte_end: 1000,
            ordinal: 0,
        });
    }
    ask(&mut app, "What did the Committee do to rates in 2019?");
    let ev = |e| Action::Orchestrator(e);
    update(
        &mut app,
        ev(Event::QueryStarted {
            query_id: "q1".into(),
            query: "What did the Committee do to rates in 2019?".into(),
        }),
    );
    update(
        &mut app,
        ev(Event::Finished {
            result: Box::new(result("q1")),
        }),
    );
    // The second turn is mid-pipeline: three stages done, rerank running, an answer streaming.
    ask(&mut app, "And what did it say about inflation?");
    update(
        &mut app,
        ev(Event::QueryStarted {
            query_id: "q2".into(),
            query: "And what did it say about inflation?".into(),
        }),
    );
    for &stage in &STAGES[..3] {
        update(
            &mut app,
            ev(Event::StageStarted {
                query_id: "q2".into(),
                stage,
                loop_index: 0,
            }),
        );
        update(
            &mut app,
            ev(Event::StageFinished {
                query_id: "q2".into(),
                stage,
                ms: 8.0,
                status: StageStatus::Done,
                fallback: None,
                loop_index: 0,
            }),
        );
    }
    update(
        &mut app,
        ev(Event::StageStarted {
            query_id: "q2".into(),
            stage: StageId::Rerank,
            loop_index: 0,
        }),
    );
    update(
        &mut app,
        ev(Event::AnswerToken {
            query_id: "q2".into(),
            text: "Inflation was running below 2 percent [1]".into(),
        }),
    );
    assert!(
        app.running.is_some(),
        "the second turn must still be running"
    );
    app
}

fn bench_frames(c: &mut Criterion) {
    let app = fixture();
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let mut term = match Terminal::new(TestBackend::new(w, h)) {
            Ok(t) => t,
            Err(e) => panic!("TestBackend: {e}"),
        };
        c.bench_function(&format!("frame_{w}x{h}"), |b| {
            b.iter(|| {
                // A fresh back buffer each time: this measures a full redraw, not a no-op diff.
                term.clear().ok();
                term.draw(|f| view(black_box(&app), f)).ok();
            })
        });
    }
}

criterion_group!(benches, bench_frames);
criterion_main!(benches);
