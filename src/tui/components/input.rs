//! The input box: typing, sending the question, multi-line input, history recall.

use crate::orchestrator::api::Command;
use crate::tui::action::{Action, Effect};
use crate::tui::app::App;
use crate::tui::keymap::{Binding, Chord, Guard, KeyGroup, Scope};
use crate::tui::turn::Turn;
use crate::tui::widgets::panel;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::Frame;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Input",
    scope: Scope::Input,
    bindings: &[
        // Before Enter alone: a modified Enter is a new line, not a send.
        Binding::new(
            &[Chord::alt_or_shift(KeyCode::Enter)],
            "new line in the question",
            Action::InsertNewline,
        ),
        Binding::new(
            &[Chord::no_ctrl(KeyCode::Enter)],
            "send the question",
            Action::Submit,
        ),
        Binding::new(
            &[Chord::key(KeyCode::Up)],
            "the previous question",
            Action::HistoryUp,
        )
        .when(Guard::CursorOnFirstLine),
        Binding::new(
            &[Chord::key(KeyCode::Down)],
            "the next question",
            Action::HistoryDown,
        )
        .when(Guard::CursorOnLastLine),
    ],
};

pub fn key(app: &App, key: &KeyEvent) -> Option<Action> {
    KEYS.find(key, app.typing(), |g| app.holds(g))
}

/// A key no binding took: text for the input, if it is taking text.
pub fn type_key(app: &mut App, key: KeyEvent) {
    if app.typing() {
        app.input.input(key);
        app.history_pos = None;
    }
}

pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Submit => return submit(app),
        Action::InsertNewline if app.typing() => app.input.insert_newline(),
        Action::HistoryUp => {
            let Some(last) = app.history.len().checked_sub(1) else {
                return Vec::new();
            };
            let pos = app.history_pos.map_or(last, |p| p.saturating_sub(1));
            recall(app, Some(pos));
        }
        Action::HistoryDown => match app.history_pos {
            Some(p) if p + 1 < app.history.len() => recall(app, Some(p + 1)),
            Some(_) => recall(app, None),
            None => {}
        },
        _ => {}
    }
    Vec::new()
}

/// Shows history entry `pos` in the input, or an empty input past the newest.
fn recall(app: &mut App, pos: Option<usize>) {
    app.history_pos = pos;
    match pos.and_then(|p| app.history.get(p)).cloned() {
        Some(text) => app.set_input(&text),
        None => app.clear_input(),
    }
}

/// Sends the typed question (not while another runs) as a new turn.
fn submit(app: &mut App) -> Vec<Effect> {
    if app.running.is_some() {
        return Vec::new();
    }
    let text = app.input_text().trim().to_string();
    if text.is_empty() {
        return Vec::new();
    }
    let years: Vec<i32> = app.selected_years.iter().copied().collect();
    app.turns.push(Turn::asked(text.clone(), years.clone()));
    if app.history.last() != Some(&text) {
        app.history.push(text.clone());
    }
    app.history_pos = None;
    app.clear_input();
    app.running = Some(String::new());
    app.selected_turn = None;
    app.citation_cursor = 0;
    app.chat_scroll = 0;
    vec![Effect::Send(Command::Ask {
        query: text,
        requested_years: years,
        session_id: app.session_id.clone(),
        context: app.chat_context(),
    })]
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.typing();
    let mut ta = app.input.clone();
    let title = if app.running.is_some() {
        "Input (query running, Esc cancels)"
    } else {
        "Input"
    };
    ta.set_block(panel(title, focused));
    if !focused {
        ta.set_cursor_style(Style::default());
    } else {
        ta.set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
    }
    frame.render_widget(&ta, area);
}
