//! The chat transcript and the input box.

use crate::orchestrator::api::source_line;
use crate::tui::app::App;
use crate::tui::components::{marker_spans, panel};
use crate::tui::theme;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// All lines of the transcript.
pub fn chat_lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let current = app.current_turn_index();
    for (i, turn) in app.turns.iter().enumerate() {
        let selected = app.selected_turn.is_some() && current == Some(i);
        let marker = if selected { "▌" } else { " " };
        let mut q = turn.question.split('\n');
        let mut first = vec![
            Span::styled(marker.to_string(), theme::focused_border()),
            Span::styled("You: ".to_string(), theme::question()),
            Span::raw(q.next().unwrap_or("").to_string()),
        ];
        if !turn.requested_years.is_empty() {
            let ys: Vec<String> = turn.requested_years.iter().map(|y| y.to_string()).collect();
            first.push(Span::styled(
                format!("  (years {})", ys.join(", ")),
                theme::dim(),
            ));
        }
        lines.push(Line::from(first));
        for extra in q {
            lines.push(Line::from(vec![
                Span::raw(format!("{marker}     ")),
                Span::raw(extra.to_string()),
            ]));
        }
        let is_running = app.running.is_some() && i + 1 == app.turns.len();
        if turn.answer.is_empty() && is_running {
            lines.push(Line::from(Span::styled(
                format!(" {} thinking…", theme::spinner(app.spinner_tick)),
                theme::dim(),
            )));
        }
        for text in turn.answer.split('\n').filter(|_| !turn.answer.is_empty()) {
            let mut spans = vec![Span::raw(" ".to_string())];
            spans.extend(marker_spans(text, theme::citation_marker()));
            lines.push(Line::from(spans));
        }
        if let Some(r) = turn.result.as_ref().filter(|r| !r.citations.is_empty()) {
            lines.push(Line::from(Span::styled(
                " Sources:".to_string(),
                theme::dim(),
            )));
            for c in &r.citations {
                lines.push(Line::from(Span::styled(
                    format!(" {}", source_line(c)),
                    theme::dim(),
                )));
            }
        }
        if let Some(r) = &turn.result {
            let conf = r
                .confidence
                .map(|c| format!(" · {c:.2}"))
                .unwrap_or_default();
            lines.push(Line::from(Span::styled(
                format!(" ── {}{conf}", r.final_reason.as_str()),
                Style::default().fg(theme::band_color(r.final_reason)),
            )));
        }
        if turn.cancelled {
            lines.push(Line::from(Span::styled(
                " (cancelled)".to_string(),
                theme::dim(),
            )));
        }
        if let Some(reason) = &turn.rejected {
            lines.push(Line::from(Span::styled(
                format!(" (rejected: {reason})"),
                theme::dim(),
            )));
        }
        if i + 1 < app.turns.len() {
            lines.push(Line::default());
        }
    }
    lines
}

pub fn render_chat(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == crate::tui::app::Focus::Chat;
    let block = panel("Chat", focused);
    let inner = block.inner(area);
    let lines = chat_lines(app);
    let para = Paragraph::new(lines).wrap(Wrap { trim: false });
    let total = para.line_count(inner.width.max(1));
    let bottom = total.saturating_sub(inner.height as usize);
    let top = bottom.saturating_sub(app.chat_scroll);
    let top = u16::try_from(top).unwrap_or(u16::MAX);
    frame.render_widget(para.block(block).scroll((top, 0)), area);
}

pub fn render_input(app: &App, frame: &mut Frame, area: Rect) {
    let focused =
        app.focus == crate::tui::app::Focus::Input && app.overlay == crate::tui::app::Overlay::None;
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
