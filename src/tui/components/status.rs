//! The status bar: backend, index size, selected years, and a notice or the key hints.

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::keys;
use crate::tui::theme;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::sync::OnceLock;

/// The actions the status bar names, each with a word; the keys come from the key tables.
const HINTS: [(Action, &str); 8] = [
    (Action::ToggleHelp, "help"),
    (Action::OpenYearPicker, "years"),
    (Action::OpenInspector, "inspect"),
    (Action::OpenSessions, "sessions"),
    (Action::CancelQuery, "cancel"),
    (Action::Quit, "quit"),
    (Action::FocusNext, "focus"),
    (Action::InsertNewline, "newline"),
];

/// `F1 help · F2 years · …`, built once.
pub fn key_hints() -> &'static str {
    static HINT_LINE: OnceLock<String> = OnceLock::new();
    HINT_LINE.get_or_init(|| {
        let parts: Vec<String> = HINTS
            .iter()
            .filter_map(|(action, word)| {
                keys::hint_chord(action).map(|c| format!("{} {word}", c.short_label()))
            })
            .collect();
        parts.join(" · ")
    })
}

pub fn years_label(app: &App) -> String {
    if app.selected_years.is_empty() {
        "all".to_string()
    } else {
        let ys: Vec<String> = app.selected_years.iter().map(|y| y.to_string()).collect();
        ys.join(",")
    }
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    if app.running.is_some() {
        spans.push(Span::styled(
            format!("{} running ", theme::spinner(app.spinner_tick)),
            Style::default().fg(Color::Yellow),
        ));
    }
    spans.push(Span::raw(format!(
        "{} │ {} chunks │ years: {} │ ",
        app.backend,
        app.index_chunks,
        years_label(app)
    )));
    match &app.notice {
        Some(n) => spans.push(Span::styled(
            n.text.clone(),
            Style::default().fg(if n.error { Color::Red } else { Color::Green }),
        )),
        None => spans.push(Span::styled(key_hints(), theme::dim())),
    }
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(Style::default().bg(Color::Black)),
        area,
    );
}
