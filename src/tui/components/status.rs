//! The status bar.

use crate::tui::app::App;
use crate::tui::theme;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub fn years_label(app: &App) -> String {
    if app.selected_years.is_empty() {
        "all".to_string()
    } else {
        let ys: Vec<String> = app.selected_years.iter().map(|y| y.to_string()).collect();
        ys.join(",")
    }
}

pub fn render_status(app: &App, frame: &mut Frame, area: Rect) {
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
        None => spans.push(Span::styled(
            "F1 help · F2 years · F3 inspect · F4 sessions · Esc cancel · ^C quit · Tab focus · Alt-Enter newline",
            theme::dim(),
        )),
    }
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(Style::default().bg(Color::Black)),
        area,
    );
}
