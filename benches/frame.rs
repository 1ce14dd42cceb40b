//! Time to draw one full frame of a realistic UI state into ratatui's `TestBackend`: an answered
//! question with a long answer and 5 citations, every stage finished, and a second turn running.
//! Target: ≤ 2 ms per frame at 120×40 and 80×24. Run with `cargo bench --bench frame`.

#[path = "support/fixture.rs"]
mod fixture;

use criterion::{criterion_group, criterion_main, Criterion};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fathom::orchestrator::api::{Event, NodeId, Passage, StageStatus};
use fathom::orchestrator::topology::qa;
use fathom::tui::{update, view, Action, App};
use fixture::{citation, date, result, STAGES};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::hint::black_box;

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
        qa::topology(2).view(),
        "bench",
    );
    for n in 1..=5 {
        app.add_passage(
            format!("c{n}"),
            Some(Passage {
                chunk_id: format!("c{n}"),
                document: citation(n).document,
                title: "FOMC statement".to_string(),
                date: Some(date(2017 + n as i32, n as u8)),
                year: Some(2017 + n as i32),
                section: Some("Policy decision".to_string()),
                text: "The Committee decided to lower the target range. ".repeat(20),
                byte_start: 0,
                byte_end: 1000,
            }),
        );
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
                stage: NodeId::new(stage),
                loop_index: 0,
            }),
        );
        update(
            &mut app,
            ev(Event::StageFinished {
                query_id: "q2".into(),
                stage: NodeId::new(stage),
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
            stage: NodeId::new("rerank"),
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
