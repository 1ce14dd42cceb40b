//! The terminal UI as plain functions: `update` flows, snapshots on a `TestBackend`, and a
//! property test that random action sequences never panic at any size.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use fathom::orchestrator::api::{
    BreakerSnapshot, BreakerStateKind, Citation, Command, Date, Event, FinalReason, ManagerState,
    NodeId, OrchestrationResult, Passage, PlanSummary, RetrievalConfidence, RetrieveSummary,
    StageStatus, StageTrace, YearMode,
};
use fathom::orchestrator::topology::qa;
use fathom::orchestrator::types::Coherence;
use fathom::session::{LoadedSession, SessionSummary, TurnRecord};
use fathom::tui::action::Notice;
use fathom::tui::components::inspector::Inspector;
use fathom::tui::components::passage::PassageViewer;
use fathom::tui::components::status;
use fathom::tui::components::year_picker::YearPicker;
use fathom::tui::keymap::{Guard, Scope};
use fathom::tui::keys;
use fathom::tui::update::translate_key;
use fathom::tui::{update, view, Action, App, BackendRow, Dir, Effect, Focus, LiveStage, Overlay};
use proptest::prelude::*;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::collections::BTreeMap;

fn key(code: KeyCode) -> Action {
    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn key_mod(code: KeyCode, m: KeyModifiers) -> Action {
    Action::Key(KeyEvent::new(code, m))
}

fn years() -> BTreeMap<i32, usize> {
    BTreeMap::from([(2019, 12), (2020, 40), (2021, 7)])
}

fn app() -> App {
    App::new("offline", 1234, years(), qa::topology(2).view(), "s1")
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        update(app, key(KeyCode::Char(c)));
    }
}

fn trace(id: &str, ms: f64, status: StageStatus, loop_index: u8) -> StageTrace {
    StageTrace {
        id: NodeId::owned(id),
        status,
        ms,
        fallback: None,
        loop_index,
    }
}

fn fixture_result(query_id: &str) -> OrchestrationResult {
    let mut cached_state = BTreeMap::new();
    cached_state.insert(
        "plan".to_string(),
        serde_json::json!({"revised_query": "council budget 2020", "intent": "factual", "top_k_hint": 10}),
    );
    cached_state.insert(
        "retrieve".to_string(),
        serde_json::json!({"year_mode": "explicit", "requested_years": [2020], "hits": [{"chunk_id": "c1", "score": 0.82}]}),
    );
    cached_state.insert("session_id".to_string(), serde_json::json!("s1"));
    OrchestrationResult {
        session_id: "s1".to_string(),
        query_id: query_id.to_string(),
        state: ManagerState::Success,
        final_reason: FinalReason::ConfidenceHigh,
        confidence: Some(0.86),
        retrieval_confidence: Some(RetrievalConfidence::High),
        answer: "The council approved a budget of 4.2M [1], up from 3.9M the year before [2]."
            .to_string(),
        citations: vec![
            Citation {
                n: 1,
                chunk_id: "c1".to_string(),
                document: "minutes/2020-03-01.md".to_string(),
                date: Some(Date {
                    year: 2020,
                    month: 3,
                    day: 1,
                }),
                section: Some("Budget".to_string()),
                score: 0.82,
            },
            Citation {
                n: 2,
                chunk_id: "c2".to_string(),
                document: "minutes/2019-03-04.md".to_string(),
                date: Some(Date {
                    year: 2019,
                    month: 3,
                    day: 4,
                }),
                section: None,
                score: 0.64,
            },
        ],
        applicability_note: Some("Applies to 2020.".to_string()),
        uncertainty_note: None,
        plan: Some(PlanSummary {
            original_query: "What budget did the council approve?".to_string(),
            revised_query: "council budget 2020".to_string(),
            coherence: Coherence::Coherent,
            coherence_reason: None,
            intent: fathom::orchestrator::api::IntentType::Factual,
        }),
        retrieve: RetrieveSummary {
            year_mode: YearMode::Explicit,
            requested_years: vec![2020],
            recent_year_window: None,
        },
        stages: vec![
            trace("guardrail", 1.0, StageStatus::Done, 0),
            trace("plan", 3.0, StageStatus::Done, 0),
            trace("retrieve", 41.0, StageStatus::Done, 0),
            trace("rerank", 120.0, StageStatus::FellBack, 0),
            trace("evaluate", 2.0, StageStatus::Done, 0),
            trace("synthesize", 15.0, StageStatus::Done, 0),
            trace("validate", 4.0, StageStatus::Done, 0),
            trace("reflect", 1.0, StageStatus::TimedOut, 0),
            trace("respond", 1.0, StageStatus::Done, 0),
        ],
        breakers: vec![],
        tokens_used: BTreeMap::new(),
        cached_state,
        dispatches: vec![],
        topology: "qa".to_string(),
        task_graph: None,
        react_log: Default::default(),
        aggregation: None,
        warnings: vec![],
    }
}

fn passage(id: &str, text: &str) -> Passage {
    let date = Date {
        year: 2020,
        month: 3,
        day: 1,
    };
    Passage {
        title: "Minutes".to_string(),
        section: Some("Budget".to_string()),
        ..Passage::whole(id, "minutes/2020-03-01.md", Some(date), text)
    }
}

/// An app with one finished answer (and its chunk loaded).
fn answered_app(question: &str, query_id: &str) -> App {
    let mut a = app();
    ask_and_finish(&mut a, question, query_id);
    a.add_passage(
        "c1".into(),
        Some(passage(
            "c1",
            "The council approved the budget of 4.2M for 2020.\nThe vote was 7 to 2.",
        )),
    );
    a
}

fn ask_and_finish(a: &mut App, question: &str, query_id: &str) {
    type_text(a, question);
    let eff = update(a, key(KeyCode::Enter));
    assert_eq!(eff.len(), 1);
    update(
        a,
        Action::Orchestrator(Event::QueryStarted {
            query_id: query_id.to_string(),
            query: question.to_string(),
        }),
    );
    let mut r = fixture_result(query_id);
    r.answer = format!("{} ({question})", r.answer);
    update(
        a,
        Action::Orchestrator(Event::Finished {
            result: Box::new(r),
        }),
    );
}

fn render(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view(app, f)).unwrap();
    t
}

// ---- update flows ----

#[test]
fn submit_sends_ask_with_selected_years() {
    let mut a = app();
    update(&mut a, key(KeyCode::F(2)));
    update(&mut a, key(KeyCode::Down));
    update(&mut a, key(KeyCode::Char(' ')));
    update(&mut a, key(KeyCode::Esc));
    assert_eq!(a.overlay, Overlay::None);
    type_text(&mut a, "budget?");
    let eff = update(&mut a, key(KeyCode::Enter));
    assert_eq!(
        eff,
        vec![Effect::Send(Command::Ask {
            query: "budget?".to_string(),
            requested_years: vec![2020],
            session_id: "s1".to_string(),
            context: vec![],
        })]
    );
    assert!(a.running.is_some());
    assert_eq!(a.turns.len(), 1);
    assert_eq!(a.input_text(), "");
}

#[test]
fn empty_input_does_not_submit() {
    let mut a = app();
    type_text(&mut a, "   ");
    assert!(update(&mut a, key(KeyCode::Enter)).is_empty());
    assert!(a.turns.is_empty());
}

#[test]
fn typing_while_running_does_not_submit_twice() {
    let mut a = app();
    type_text(&mut a, "first");
    assert_eq!(update(&mut a, key(KeyCode::Enter)).len(), 1);
    type_text(&mut a, "second");
    assert!(update(&mut a, key(KeyCode::Enter)).is_empty());
    assert_eq!(a.turns.len(), 1);
    assert_eq!(a.input_text(), "second");
}

#[test]
fn alt_enter_inserts_a_newline() {
    let mut a = app();
    type_text(&mut a, "a");
    assert!(update(&mut a, key_mod(KeyCode::Enter, KeyModifiers::ALT)).is_empty());
    type_text(&mut a, "b");
    assert_eq!(a.input_text(), "a\nb");
    let eff = update(&mut a, key(KeyCode::Enter));
    assert!(matches!(&eff[0], Effect::Send(Command::Ask { query, .. }) if query == "a\nb"));
}

#[test]
fn esc_while_running_cancels_else_closes_overlay() {
    let mut a = app();
    update(&mut a, key(KeyCode::F(1)));
    assert!(matches!(a.overlay, Overlay::Help(_)));
    assert!(update(&mut a, key(KeyCode::Esc)).is_empty());
    assert_eq!(a.overlay, Overlay::None);
    type_text(&mut a, "q");
    update(&mut a, key(KeyCode::Enter));
    assert_eq!(
        update(&mut a, key(KeyCode::Esc)),
        vec![Effect::Send(Command::Cancel)]
    );
    update(
        &mut a,
        Action::Orchestrator(Event::Cancelled {
            query_id: String::new(),
        }),
    );
    assert!(a.running.is_none());
    assert!(a.turns[0].cancelled);
}

#[test]
fn quit_keys() {
    let mut a = app();
    // typing: q is a character
    assert!(update(&mut a, key(KeyCode::Char('q'))).is_empty());
    assert_eq!(a.input_text(), "q");
    update(&mut a, key(KeyCode::Tab));
    assert_eq!(a.focus, Focus::Chat);
    assert_eq!(update(&mut a, key(KeyCode::Char('q'))), vec![Effect::Quit]);
    let mut b = app();
    assert_eq!(
        update(&mut b, key_mod(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        vec![Effect::Quit]
    );
}

#[test]
fn toggle_years_and_all() {
    let mut a = app();
    update(&mut a, Action::OpenYearPicker);
    update(&mut a, key(KeyCode::Char(' ')));
    assert_eq!(
        a.selected_years.iter().copied().collect::<Vec<_>>(),
        vec![2019]
    );
    update(&mut a, key(KeyCode::Char(' ')));
    assert!(a.selected_years.is_empty());
    update(&mut a, key(KeyCode::Char('a')));
    assert_eq!(a.selected_years.len(), 3);
    update(&mut a, key(KeyCode::Char('a')));
    assert!(a.selected_years.is_empty());
    for _ in 0..10 {
        update(&mut a, key(KeyCode::Down));
    }
    assert_eq!(a.overlay, Overlay::YearPicker(YearPicker { cursor: 2 }));
    update(&mut a, key(KeyCode::Char(' ')));
    assert_eq!(
        a.selected_years.iter().copied().collect::<Vec<_>>(),
        vec![2021]
    );
}

#[test]
fn open_and_close_overlays() {
    let mut a = answered_app("budget?", "q1");
    update(&mut a, key(KeyCode::Tab)); // chat
    update(&mut a, key(KeyCode::Char('?')));
    assert!(matches!(a.overlay, Overlay::Help(_)));
    update(&mut a, key(KeyCode::Char('?')));
    assert_eq!(a.overlay, Overlay::None);
    update(&mut a, key(KeyCode::Char('y')));
    assert!(matches!(a.overlay, Overlay::YearPicker { .. }));
    update(&mut a, key(KeyCode::Esc));
    assert_eq!(a.overlay, Overlay::None);
    update(&mut a, key(KeyCode::Char('i')));
    assert!(matches!(
        a.overlay,
        Overlay::Inspector(Inspector {
            turn: 0,
            stage: 0,
            ..
        })
    ));
    update(&mut a, key(KeyCode::Down));
    assert!(matches!(
        a.overlay,
        Overlay::Inspector(Inspector { stage: 1, .. })
    ));
    // fold the root of the `retrieve` slice
    update(&mut a, key(KeyCode::Char(' ')));
    match &a.overlay {
        Overlay::Inspector(i) => assert!(i.folded.contains("")),
        o => panic!("{o:?}"),
    }
    update(&mut a, key(KeyCode::Esc));
    assert_eq!(a.overlay, Overlay::None);
}

#[test]
fn enter_on_citations_opens_the_passage() {
    let mut a = answered_app("budget?", "q1");
    update(&mut a, Action::FocusNext);
    update(&mut a, Action::FocusNext);
    assert_eq!(a.focus, Focus::Citations);
    update(&mut a, key(KeyCode::Down));
    update(&mut a, key(KeyCode::Enter));
    assert_eq!(
        a.overlay,
        Overlay::Passage(PassageViewer {
            turn: 0,
            citation: 1,
            scroll: 0
        })
    );
    update(&mut a, key(KeyCode::Esc));
    assert_eq!(a.overlay, Overlay::None);
}

#[test]
fn selecting_an_earlier_answer() {
    let mut a = answered_app("first question", "q1");
    ask_and_finish(&mut a, "second question", "q2");
    assert_eq!(a.current_turn_index(), Some(1));
    update(&mut a, Action::FocusNext);
    update(&mut a, key(KeyCode::Up));
    assert_eq!(a.current_turn_index(), Some(0));
    update(&mut a, key(KeyCode::Char('i')));
    assert!(matches!(
        a.overlay,
        Overlay::Inspector(Inspector { turn: 0, .. })
    ));
    update(&mut a, Action::CloseOverlay);
    update(&mut a, Action::SelectTurn(Dir::Down));
    assert_eq!(a.selected_turn, None);
    assert_eq!(a.current_turn_index(), Some(1));
}

#[test]
fn history_recalls_previous_questions() {
    let mut a = answered_app("first", "q1");
    ask_and_finish(&mut a, "second", "q2");
    update(&mut a, key(KeyCode::Up));
    assert_eq!(a.input_text(), "second");
    update(&mut a, key(KeyCode::Up));
    assert_eq!(a.input_text(), "first");
    update(&mut a, key(KeyCode::Down));
    assert_eq!(a.input_text(), "second");
    update(&mut a, key(KeyCode::Down));
    assert_eq!(a.input_text(), "");
}

#[test]
fn orchestrator_events_update_the_turn() {
    let mut a = app();
    type_text(&mut a, "budget?");
    update(&mut a, key(KeyCode::Enter));
    let ev = |e| Action::Orchestrator(e);
    update(
        &mut a,
        ev(Event::QueryStarted {
            query_id: "q9".into(),
            query: "budget?".into(),
        }),
    );
    assert_eq!(a.running.as_deref(), Some("q9"));
    update(
        &mut a,
        ev(Event::StageStarted {
            query_id: "q9".into(),
            stage: NodeId::new("retrieve"),
            loop_index: 1,
        }),
    );
    assert_eq!(
        a.turns[0].stages.get(&NodeId::new("retrieve")),
        Some(&LiveStage::Running { loop_index: 1 })
    );
    assert_eq!(a.turns[0].loops(), 1);
    update(
        &mut a,
        ev(Event::StageFinished {
            query_id: "q9".into(),
            stage: NodeId::new("retrieve"),
            ms: 12.0,
            status: StageStatus::Done,
            fallback: None,
            loop_index: 1,
        }),
    );
    assert!(matches!(
        a.turns[0].stages.get(&NodeId::new("retrieve")),
        Some(LiveStage::Finished {
            status: StageStatus::Done,
            ..
        })
    ));
    update(
        &mut a,
        ev(Event::AnswerToken {
            query_id: "q9".into(),
            text: "The ".into(),
        }),
    );
    update(
        &mut a,
        ev(Event::AnswerToken {
            query_id: "q9".into(),
            text: "budget.".into(),
        }),
    );
    assert_eq!(a.turns[0].answer, "The budget.");
    update(
        &mut a,
        ev(Event::Finished {
            result: Box::new(fixture_result("q9")),
        }),
    );
    assert!(a.running.is_none());
    assert!(a.turns[0].result.is_some());
    assert!(a.turns[0].answer.starts_with("The council"));
    assert_eq!(a.turns[0].path.len(), 9);
}

#[test]
fn rejected_ends_the_run() {
    let mut a = app();
    type_text(&mut a, "x?");
    update(&mut a, key(KeyCode::Enter));
    update(
        &mut a,
        Action::Orchestrator(Event::Rejected {
            reason: "busy".into(),
        }),
    );
    assert!(a.running.is_none());
    assert_eq!(a.turns[0].rejected.as_deref(), Some("busy"));
}

#[test]
fn scrolling_and_ticks() {
    let mut a = answered_app("budget?", "q1");
    update(&mut a, key(KeyCode::PageUp));
    assert_eq!(a.chat_scroll, 5);
    update(
        &mut a,
        Action::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(a.chat_scroll, 0);
    a.dirty = false;
    update(&mut a, Action::Tick);
    assert!(!a.dirty, "an idle tick must not force a redraw");
    assert_eq!(a.spinner_tick, 1);
}

// ---- snapshots ----

fn snapshot_app() -> App {
    let mut a = answered_app("What budget did the council approve?", "q1");
    a.selected_years.insert(2020);
    a
}

#[test]
fn snapshot_layout_120x40() {
    insta::assert_snapshot!(render(&snapshot_app(), 120, 40).backend());
}

#[test]
fn snapshot_layout_80x24() {
    insta::assert_snapshot!(render(&snapshot_app(), 80, 24).backend());
}

#[test]
fn snapshot_layout_40x12() {
    insta::assert_snapshot!(render(&snapshot_app(), 40, 12).backend());
}

#[test]
fn snapshot_running_query_120x40() {
    let mut a = app();
    type_text(&mut a, "What changed in 2021?");
    update(&mut a, key(KeyCode::Enter));
    update(
        &mut a,
        Action::Orchestrator(Event::StageFinished {
            query_id: String::new(),
            stage: NodeId::new("guardrail"),
            ms: 1.0,
            status: StageStatus::Done,
            fallback: None,
            loop_index: 0,
        }),
    );
    update(
        &mut a,
        Action::Orchestrator(Event::StageStarted {
            query_id: String::new(),
            stage: NodeId::new("plan"),
            loop_index: 0,
        }),
    );
    insta::assert_snapshot!(render(&a, 120, 40).backend());
}

#[test]
fn snapshot_help_overlay() {
    let mut a = snapshot_app();
    update(&mut a, Action::ToggleHelp);
    insta::assert_snapshot!(render(&a, 120, 40).backend());
}

#[test]
fn snapshot_year_picker_overlay() {
    let mut a = snapshot_app();
    update(&mut a, Action::OpenYearPicker);
    update(&mut a, Action::YearCursorDown);
    insta::assert_snapshot!(render(&a, 80, 24).backend());
}

#[test]
fn snapshot_inspector_overlay() {
    let mut a = snapshot_app();
    update(&mut a, Action::OpenInspector);
    update(&mut a, Action::InspectorStage(Dir::Down));
    insta::assert_snapshot!(render(&a, 100, 24).backend());
}

#[test]
fn snapshot_passage_overlay() {
    let mut a = snapshot_app();
    update(&mut a, Action::OpenPassage);
    insta::assert_snapshot!(render(&a, 80, 20).backend());
}

// ---- model backends, sessions, replay ----

fn snapshot(state: BreakerStateKind, failures: f64, cooldown_remaining_ms: u64) -> BreakerSnapshot {
    BreakerSnapshot {
        backend: "chat model".into(),
        state,
        failures,
        threshold: 3.0,
        cooldown_remaining_ms,
    }
}

fn screen_text(t: &Terminal<TestBackend>) -> String {
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn breaker_events_update_the_backend_panel() {
    let mut a = app();
    update(
        &mut a,
        Action::Orchestrator(Event::Breaker {
            snapshot: snapshot(BreakerStateKind::Closed, 1.5, 0),
            transition: None,
        }),
    );
    update(
        &mut a,
        Action::Orchestrator(Event::Breaker {
            snapshot: snapshot(BreakerStateKind::Open, 3.0, 29_500),
            transition: None,
        }),
    );
    // One row per backend: the second event replaced the first.
    let remote: Vec<&BackendRow> = a
        .breakers
        .iter()
        .filter(|b| matches!(b, BackendRow::Remote(_)))
        .collect();
    assert_eq!(remote.len(), 1);
    let text = screen_text(&render(&a, 120, 40));
    assert!(text.contains("chat model"), "{text}");
    assert!(text.contains("open"), "{text}");
    assert!(text.contains("3.0/3 · 30s"), "{text}");
    assert!(text.contains("in-process"), "{text}");
}

#[test]
fn a_rejected_stream_clears_the_partial_answer() {
    let mut a = app();
    type_text(&mut a, "q?");
    update(&mut a, key(KeyCode::Enter));
    for t in ["The Comm", "ittee"] {
        update(
            &mut a,
            Action::Orchestrator(Event::AnswerToken {
                query_id: String::new(),
                text: t.into(),
            }),
        );
    }
    assert_eq!(a.turns[0].answer, "The Committee");
    update(
        &mut a,
        Action::Orchestrator(Event::AnswerReset {
            query_id: String::new(),
        }),
    );
    assert_eq!(a.turns[0].answer, "");
}

#[test]
fn a_cancelled_stage_stops_spinning() {
    let mut a = app();
    type_text(&mut a, "q?");
    update(&mut a, key(KeyCode::Enter));
    update(
        &mut a,
        Action::Orchestrator(Event::StageStarted {
            query_id: String::new(),
            stage: NodeId::new("synthesize"),
            loop_index: 0,
        }),
    );
    let mut r = fixture_result("q1");
    r.stages.retain(|s| s.id != "synthesize");
    r.final_reason = FinalReason::Cancelled;
    update(
        &mut a,
        Action::Orchestrator(Event::Finished {
            result: Box::new(r),
        }),
    );
    assert!(matches!(
        a.turns[0].stages[&NodeId::new("synthesize")],
        LiveStage::Finished {
            status: StageStatus::Cancelled,
            ..
        }
    ));
}

#[test]
fn follow_up_context_goes_with_the_next_question() {
    let mut a = answered_app("What budget did the council approve?", "q1");
    type_text(&mut a, "and in 2021?");
    let eff = update(&mut a, key(KeyCode::Enter));
    let Effect::Send(Command::Ask { context, .. }) = &eff[0] else {
        panic!("{eff:?}")
    };
    assert_eq!(context.len(), 1);
    assert_eq!(context[0].question, "What budget did the council approve?");
}

fn summary(id: &str, question: &str) -> SessionSummary {
    SessionSummary {
        session_id: id.into(),
        created_at: Some("2026-11-20T09:15:00Z".into()),
        first_question: Some(question.into()),
        turns: 3,
        damaged_lines: 0,
    }
}

#[test]
fn sessions_overlay_lists_and_reopens() {
    let mut a = app();
    a.focus = Focus::Chat;
    assert_eq!(
        update(&mut a, key(KeyCode::Char('s'))),
        vec![Effect::ListSessions]
    );
    update(
        &mut a,
        Action::SessionsListed(vec![
            summary("sess_aaaaaaaaaaaaaaaa", "What budget?"),
            summary("sess_bbbbbbbbbbbbbbbb", "Who voted against?"),
        ]),
    );
    update(&mut a, key(KeyCode::Down));
    assert_eq!(
        update(&mut a, key(KeyCode::Enter)),
        vec![Effect::OpenSession("sess_bbbbbbbbbbbbbbbb".into())]
    );
    // The session arrives from disk: its turns replace the screen, exactly as recorded.
    let recorded = fixture_result("q9");
    let loaded = LoadedSession {
        session_id: "sess_bbbbbbbbbbbbbbbb".into(),
        created_at: Some("2026-11-20T09:15:00Z".into()),
        turns: vec![TurnRecord {
            index: 0,
            question: "Who voted against?".into(),
            requested_years: vec![2020],
            asked_at: "2026-11-20T09:15:00Z".into(),
            finished_at: "2026-11-20T09:15:02Z".into(),
            result: recorded.clone(),
        }],
        damaged: vec![],
    };
    update(&mut a, Action::SessionLoaded(Box::new(loaded)));
    assert_eq!(a.overlay, Overlay::None);
    assert_eq!(a.session_id, "sess_bbbbbbbbbbbbbbbb");
    assert_eq!(a.turns.len(), 1);
    assert_eq!(a.turns[0].result.as_ref(), Some(&recorded));
    assert_eq!(
        a.turns[0].path,
        recorded
            .stages
            .iter()
            .map(|s| s.id.clone())
            .collect::<Vec<_>>()
    );
    assert_eq!(a.history, vec!["Who voted against?".to_string()]);
    assert!(a.notice.as_ref().is_some_and(|n| !n.error));
    // Export asks for the session's file to be written; with nothing answered it says why not.
    assert_eq!(
        update(&mut a, Action::Export),
        vec![Effect::ExportSession("sess_bbbbbbbbbbbbbbbb".into())]
    );
    let mut empty = app();
    assert!(update(&mut empty, Action::Export).is_empty());
    assert!(empty.notice.as_ref().is_some_and(|n| n.error));
}

#[test]
fn sessions_cannot_be_switched_while_a_query_runs() {
    let mut a = app();
    type_text(&mut a, "q?");
    update(&mut a, key(KeyCode::Enter));
    assert!(update(&mut a, Action::OpenSessions).is_empty());
    assert_eq!(a.overlay, Overlay::None);
    assert!(a.notice.as_ref().is_some_and(|n| n.error));
}

#[test]
fn a_notice_shows_in_the_status_bar_until_the_next_key() {
    let mut a = app();
    update(
        &mut a,
        Action::Notice(Notice::error("this answer was not saved: disk full")),
    );
    let text = screen_text(&render(&a, 120, 40));
    assert!(
        text.contains("this answer was not saved: disk full"),
        "{text}"
    );
    update(&mut a, key(KeyCode::Char('x')));
    assert_eq!(a.notice, None);
}

#[test]
fn an_earlier_answer_shows_the_breakers_recorded_with_it() {
    let mut a = app();
    let mut r = fixture_result("q1");
    r.breakers = vec![snapshot(BreakerStateKind::Open, 3.0, 12_000)];
    type_text(&mut a, "first?");
    update(&mut a, key(KeyCode::Enter));
    update(
        &mut a,
        Action::Orchestrator(Event::Finished {
            result: Box::new(r),
        }),
    );
    ask_and_finish(&mut a, "second?", "q2");
    // Live: the latest answer, no remote breaker reported.
    assert!(!screen_text(&render(&a, 120, 40)).contains("as recorded"));
    a.focus = Focus::Chat;
    update(&mut a, key(KeyCode::Up));
    assert_eq!(a.selected_turn, Some(0));
    let text = screen_text(&render(&a, 120, 40));
    assert!(text.contains("Breakers (as recorded)"), "{text}");
    assert!(text.contains("open"), "{text}");
}

#[test]
fn snapshot_sessions_overlay() {
    let mut a = snapshot_app();
    update(&mut a, Action::OpenSessions);
    update(
        &mut a,
        Action::SessionsListed(vec![
            summary(
                "sess_aaaaaaaaaaaaaaaa",
                "What budget did the council approve for 2020?",
            ),
            summary("sess_bbbbbbbbbbbbbbbb", "Who voted against the budget?"),
        ]),
    );
    insta::assert_snapshot!(render(&a, 100, 24).backend());
}

// ---- keys as data: the help is the key tables, and each row does what it says ----

/// An app in which every binding of `scope` acts and changes something: three answered turns
/// (the middle one selected, three citations each, the cursor on the second), history, the chat
/// scrolled back, and the scope's panel focused or overlay open with its cursor mid-list.
fn context(scope: Scope, guard: Guard) -> App {
    let mut a = answered_app("first?", "q1");
    ask_and_finish(&mut a, "second?", "q2");
    ask_and_finish(&mut a, "third?", "q3");
    for t in &mut a.turns {
        if let Some(r) = &mut t.result {
            let mut third = r.citations[1].clone();
            third.n = 3;
            third.chunk_id = "c3".into();
            r.citations.push(third);
        }
    }
    update(&mut a, Action::Resize(80, 24));
    a.focus = Focus::Chat;
    a.selected_turn = Some(1);
    a.citation_cursor = 1;
    a.chat_scroll = 5;
    match scope {
        Scope::Anywhere => {
            update(&mut a, Action::ToggleHelp);
        }
        Scope::AnyPanel | Scope::Chat => {}
        Scope::Input => {
            a.focus = Focus::Input;
            update(&mut a, Action::HistoryUp);
        }
        Scope::Citations => a.focus = Focus::Citations,
        Scope::Topology => a.focus = Focus::Topology,
        Scope::YearPicker => {
            update(&mut a, Action::OpenYearPicker);
            update(&mut a, Action::YearCursorDown);
        }
        Scope::Inspector => {
            update(&mut a, Action::OpenInspector);
            update(&mut a, Action::InspectorStage(Dir::Down));
            update(&mut a, Action::InspectorTree(Dir::Down));
        }
        Scope::Passage => {
            update(&mut a, Action::OpenPassage);
            update(&mut a, Action::PassageScroll(Dir::Down));
            update(&mut a, Action::PassageScroll(Dir::Down));
        }
        Scope::Sessions => {
            update(&mut a, Action::OpenSessions);
            update(
                &mut a,
                Action::SessionsListed(vec![
                    summary("sess_a", "a?"),
                    summary("sess_b", "b?"),
                    summary("sess_c", "c?"),
                ]),
            );
            update(&mut a, Action::SessionCursor(Dir::Down));
        }
        Scope::Help => {
            update(&mut a, Action::ToggleHelp);
            update(&mut a, Action::HelpScroll(Dir::Down));
            update(&mut a, Action::HelpScroll(Dir::Down));
        }
    }
    if guard == Guard::QueryRunning {
        a.running = Some("q4".into());
    }
    a
}

/// What an action can change that a user sees.
fn fingerprint(a: &App) -> String {
    format!(
        "{:?}",
        (
            &a.overlay,
            a.focus,
            &a.selected_years,
            a.chat_scroll,
            a.citation_cursor,
            a.selected_turn,
            a.input_text(),
            a.history_pos,
            a.should_quit,
            &a.notice,
            a.turns.len(),
            &a.running,
        )
    )
}

#[test]
fn every_binding_in_the_help_produces_its_action_through_update() {
    let mut checked = 0;
    for group in keys::groups() {
        for b in group.bindings {
            for chord in b.chords {
                let what = format!("{} · {} ({})", group.title, chord.label(), b.does);
                let base = context(group.scope, b.when);
                let key = chord.example();
                assert_eq!(translate_key(&base, key), Some(b.action.clone()), "{what}");
                let (mut by_key, mut by_action) = (base.clone(), base.clone());
                let effects = update(&mut by_key, Action::Key(key));
                assert_eq!(effects, update(&mut by_action, b.action.clone()), "{what}");
                assert_eq!(fingerprint(&by_key), fingerprint(&by_action), "{what}");
                assert!(
                    !effects.is_empty() || fingerprint(&by_key) != fingerprint(&base),
                    "{what} changed nothing"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 50, "only {checked} chords checked");
}

#[test]
fn the_help_lists_every_binding() {
    let mut a = snapshot_app();
    update(&mut a, Action::ToggleHelp);
    let text = screen_text(&render(&a, 120, 40));
    for group in keys::groups() {
        assert!(text.contains(group.title), "{}:\n{text}", group.title);
        for b in group.bindings {
            let row = format!("{}  ", b.label());
            assert!(text.contains(&row), "{row}:\n{text}");
            assert!(text.contains(b.does), "{}:\n{text}", b.does);
        }
    }
}

#[test]
fn the_help_scrolls_when_it_does_not_fit() {
    let mut a = snapshot_app();
    update(&mut a, Action::Resize(80, 24));
    update(&mut a, Action::ToggleHelp);
    let top = screen_text(&render(&a, 80, 24));
    assert!(
        top.contains("Anywhere") && !top.contains("close the help"),
        "{top}"
    );
    // Far past the end: it stops at the last row, and one step up moves it at once.
    for _ in 0..200 {
        update(&mut a, key(KeyCode::Down));
    }
    let Overlay::Help(h) = &a.overlay else {
        panic!("{:?}", a.overlay)
    };
    let bottom_scroll = h.scroll;
    let bottom = screen_text(&render(&a, 80, 24));
    assert!(bottom.contains("close the help"), "{bottom}");
    assert!(!bottom.contains("Anywhere"), "{bottom}");
    update(&mut a, key(KeyCode::Char('k')));
    assert!(matches!(&a.overlay, Overlay::Help(h) if h.scroll + 1 == bottom_scroll));
}

#[test]
fn the_status_bar_names_the_keys_of_the_tables() {
    let hints = status::key_hints();
    assert_eq!(
        hints,
        "F1 help · F2 years · F3 inspect · F4 sessions · Esc cancel · ^C quit · Tab focus · Alt-Enter newline"
    );
}

/// The short key reminders in overlay titles and placeholders are text; they must stay true.
#[test]
fn the_key_reminders_on_screen_match_the_key_tables() {
    let cases: &[(Scope, &str, KeyEvent, Action)] = &[
        (
            Scope::YearPicker,
            "Space toggle",
            KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE),
            Action::ToggleYear,
        ),
        (
            Scope::YearPicker,
            "a all",
            KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE),
            Action::ToggleAllYears,
        ),
        (
            Scope::Inspector,
            "↑↓ stage",
            KeyEvent::new(KeyCode::Up, KeyModifiers::NONE),
            Action::InspectorStage(Dir::Up),
        ),
        (
            Scope::Inspector,
            "j/k tree",
            KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE),
            Action::InspectorTree(Dir::Down),
        ),
        (
            Scope::Inspector,
            "Space fold",
            KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE),
            Action::ToggleFold,
        ),
        (
            Scope::Passage,
            "↑↓ scroll",
            KeyEvent::new(KeyCode::Down, KeyModifiers::NONE),
            Action::PassageScroll(Dir::Down),
        ),
        (
            Scope::Sessions,
            "Enter reopen",
            KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
            Action::OpenSelectedSession,
        ),
        (
            Scope::Sessions,
            "↑/↓ move",
            KeyEvent::new(KeyCode::Up, KeyModifiers::NONE),
            Action::SessionCursor(Dir::Up),
        ),
        (
            Scope::Citations,
            "Enter: passage",
            KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
            Action::OpenPassage,
        ),
        (
            Scope::Input,
            "Enter to send",
            KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
            Action::Submit,
        ),
        (
            Scope::Input,
            "Alt-Enter for a new line",
            KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT),
            Action::InsertNewline,
        ),
    ];
    for (scope, reminder, key, action) in cases {
        let mut a = context(*scope, Guard::Always);
        if *scope == Scope::Input {
            a.clear_input();
            a.history_pos = None;
        }
        let size = if *scope == Scope::Citations {
            (120, 40)
        } else {
            (100, 30)
        };
        let text = screen_text(&render(&a, size.0, size.1));
        assert!(text.contains(reminder), "{reminder}:\n{text}");
        assert_eq!(translate_key(&a, *key), Some(action.clone()), "{reminder}");
    }
    let mut running = context(Scope::Input, Guard::QueryRunning);
    running.clear_input();
    assert!(screen_text(&render(&running, 100, 30)).contains("Esc cancels"));
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(translate_key(&running, esc), Some(Action::CancelQuery));
}

#[test]
fn the_inspector_shows_the_session_fields_under_a_separator() {
    let mut a = snapshot_app();
    update(&mut a, Action::OpenInspector);
    let rows: Vec<String> = screen_text(&render(&a, 100, 24))
        .lines()
        .map(str::to_string)
        .collect();
    let row_of = |needle: &str| {
        rows.iter()
            .position(|r| r.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not on screen:\n{}", rows.join("\n")))
    };
    let (retrieve, separator, session) = (
        row_of("│retrieve"),
        row_of("── session"),
        row_of("│session_id"),
    );
    assert!(
        retrieve < separator && separator < session,
        "{}",
        rows.join("\n")
    );
    // The separator is drawn, not selectable: two steps down from `plan` select `session_id`.
    update(&mut a, Action::InspectorStage(Dir::Down));
    update(&mut a, Action::InspectorStage(Dir::Down));
    assert!(matches!(&a.overlay, Overlay::Inspector(i) if i.stage == 2));
    assert_eq!(a.inspector_keys(0)[2], "session_id");
}

/// The modules of `src/tui` that a file names through `crate::tui::…` paths (and `super::`
/// other than a test module's `super::*`, which this refuses so every import is checked).
fn tui_imports(root: &std::path::Path, text: &str) -> Vec<String> {
    fn parse(chars: &[char], pos: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut segs = prefix;
        loop {
            while *pos < chars.len() && chars[*pos].is_whitespace() {
                *pos += 1;
            }
            if chars.get(*pos) == Some(&'{') {
                *pos += 1;
                loop {
                    while *pos < chars.len() && (chars[*pos].is_whitespace() || chars[*pos] == ',')
                    {
                        *pos += 1;
                    }
                    if *pos >= chars.len() || chars[*pos] == '}' {
                        *pos += 1;
                        return;
                    }
                    parse(chars, pos, segs.clone(), out);
                }
            }
            let start = *pos;
            while *pos < chars.len() && (chars[*pos].is_alphanumeric() || chars[*pos] == '_') {
                *pos += 1;
            }
            if *pos == start {
                out.push(segs);
                return;
            }
            segs.push(chars[start..*pos].iter().collect());
            if chars.get(*pos) == Some(&':') && chars.get(*pos + 1) == Some(&':') {
                *pos += 2;
            } else {
                out.push(segs);
                return;
            }
        }
    }
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        !code.replace("use super::*;", "").contains("super::"),
        "name tui modules by crate::tui:: paths"
    );
    let mut modules = Vec::new();
    for (at, _) in code.match_indices("crate::tui::") {
        let chars: Vec<char> = code[at + "crate::tui::".len()..].chars().collect();
        let mut paths = Vec::new();
        parse(&chars, &mut 0, Vec::new(), &mut paths);
        for segs in paths {
            // The deepest prefix of the path that is a module file.
            let mut module = None;
            for n in 1..=segs.len() {
                let rel = segs[..n].join("/");
                if root.join(format!("{rel}.rs")).is_file()
                    || root.join(&rel).join("mod.rs").is_file()
                {
                    module = Some(rel);
                }
            }
            let module =
                module.unwrap_or_else(|| panic!("crate::tui::{} names no module", segs.join("::")));
            modules.push(module);
        }
    }
    modules
}

#[test]
fn the_tui_modules_import_each_other_without_cycles() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut graph: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap().with_extension("");
            let mut module = rel.to_string_lossy().replace('\\', "/");
            if module == "mod" {
                continue; // the facade re-exports; nothing inside imports through it
            }
            module = module.trim_end_matches("/mod").to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            // Outside the UI: only the orchestrator's api, the sessions and the config.
            for (at, _) in text.match_indices("crate::") {
                let rest = &text[at + "crate::".len()..];
                assert!(
                    ["tui::", "orchestrator::api", "session", "config"]
                        .iter()
                        .any(|ok| rest.starts_with(ok)),
                    "{module} names crate::{}",
                    rest.chars().take(30).collect::<String>()
                );
            }
            let deps = tui_imports(&root, &text)
                .into_iter()
                .filter(|m| *m != module)
                .collect();
            graph.insert(module, deps);
        }
    }
    assert!(graph.len() > 20, "{graph:?}");
    // Depth-first search for a back edge.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, std::collections::BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) {
        if done.contains(m) {
            return;
        }
        if let Some(i) = path.iter().position(|p| p == m) {
            panic!("import cycle: {} → {m}", path[i..].join(" → "));
        }
        path.push(m.to_string());
        for d in graph.get(m).into_iter().flatten() {
            visit(d, graph, path, done);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let mut done = std::collections::BTreeSet::new();
    for m in graph.keys() {
        visit(m, &graph, &mut Vec::new(), &mut done);
    }
    // The overlays sit below the state that holds them; the state never reaches up to a panel.
    assert!(graph["app"].contains("components/year_picker"));
    assert!(!graph["components/year_picker"].contains("app"));
}

// ---- never panics ----

fn arb_key() -> impl Strategy<Value = Action> {
    let codes = prop_oneof![
        any::<char>().prop_map(KeyCode::Char),
        Just(KeyCode::Char('q')),
        Just(KeyCode::Char('?')),
        Just(KeyCode::Char('y')),
        Just(KeyCode::Char('i')),
        Just(KeyCode::Char(' ')),
        Just(KeyCode::Char('a')),
        Just(KeyCode::Enter),
        Just(KeyCode::Esc),
        Just(KeyCode::Tab),
        Just(KeyCode::Up),
        Just(KeyCode::Down),
        Just(KeyCode::Left),
        Just(KeyCode::Right),
        Just(KeyCode::PageUp),
        Just(KeyCode::PageDown),
        Just(KeyCode::Backspace),
        (1u8..4).prop_map(KeyCode::F),
    ];
    let mods = prop_oneof![
        4 => Just(KeyModifiers::NONE),
        1 => Just(KeyModifiers::ALT),
        1 => Just(KeyModifiers::SHIFT),
    ];
    (codes, mods).prop_map(|(c, m)| Action::Key(KeyEvent::new(c, m)))
}

fn arb_event() -> impl Strategy<Value = Action> {
    let stage = proptest::sample::select(qa::topology(2).nodes);
    let status = proptest::sample::select(vec![
        StageStatus::Done,
        StageStatus::TimedOut,
        StageStatus::Failed,
        StageStatus::FellBack,
        StageStatus::Cancelled,
    ]);
    prop_oneof![
        (stage.clone(), 0u8..3).prop_map(|(stage, loop_index)| Event::StageStarted {
            query_id: "q".into(),
            stage,
            loop_index,
        }),
        (stage, status, 0.0f64..1e6, 0u8..3).prop_map(|(stage, status, ms, loop_index)| {
            Event::StageFinished {
                query_id: "q".into(),
                stage,
                ms,
                status,
                fallback: None,
                loop_index,
            }
        }),
        "[a-z \\[\\]0-9\n]{0,40}".prop_map(|text| Event::AnswerToken {
            query_id: "q".into(),
            text,
        }),
        Just(Event::Finished {
            result: Box::new(fixture_result("q")),
        }),
        Just(Event::Cancelled {
            query_id: "q".into()
        }),
        Just(Event::QueryStarted {
            query_id: "q".into(),
            query: "x".into()
        }),
    ]
    .prop_map(Action::Orchestrator)
}

fn arb_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        6 => arb_key(),
        2 => (1u16..200, 1u16..60).prop_map(|(w, h)| Action::Resize(w, h)),
        1 => Just(Action::Tick),
        3 => arb_event(),
        1 => Just(Action::OpenInspector),
        1 => Just(Action::OpenPassage),
        1 => Just(Action::ToggleFold),
        1 => Just(Action::InspectorTree(Dir::Down)),
        1 => Just(Action::SelectTurn(Dir::Up)),
        1 => Just(Action::ScrollUp),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_actions_never_panic(actions in proptest::collection::vec(arb_action(), 1..60)) {
        let mut a = answered_app("budget?", "q0");
        let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
        for action in actions {
            if let Action::Resize(w, h) = action {
                term.backend_mut().resize(w, h);
                term.resize(ratatui::layout::Rect::new(0, 0, w, h)).unwrap();
            }
            update(&mut a, action);
            term.draw(|f| view(&a, f)).unwrap();
        }
    }

    #[test]
    fn every_size_renders(w in 1u16..200, h in 1u16..60, overlay in 0usize..5) {
        let mut a = snapshot_app();
        match overlay {
            1 => { update(&mut a, Action::ToggleHelp); }
            2 => { update(&mut a, Action::OpenYearPicker); }
            3 => { update(&mut a, Action::OpenInspector); }
            4 => { update(&mut a, Action::OpenPassage); }
            _ => {}
        }
        render(&a, w, h);
    }
}
