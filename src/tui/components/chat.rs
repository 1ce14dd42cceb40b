//! The chat transcript: questions, streamed and final answers with their `[n]` markers and
//! sources, the band each answer ended in; ↑/↓ select an earlier answer for the side panels.

use crate::orchestrator::api::source_line;
use crate::tui::action::{Action, Dir, Effect};
use crate::tui::app::{App, Focus};
use crate::tui::keymap::{Binding, KeyGroup, Scope, DOWN, UP};
use crate::tui::theme;
use crate::tui::turn::Turn;
use crate::tui::widgets::{marker_spans, panel};
use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Chat",
    scope: Scope::Chat,
    bindings: &[
        Binding::new(
            UP,
            "select the previous answer",
            Action::SelectTurn(Dir::Up),
        ),
        Binding::new(
            DOWN,
            "select the next answer",
            Action::SelectTurn(Dir::Down),
        ),
    ],
};

pub fn key(app: &App, key: &KeyEvent) -> Option<Action> {
    KEYS.find(key, app.typing(), |g| app.holds(g))
}

pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    if let Action::SelectTurn(dir) = action {
        if let Some(current) = app.current_turn_index() {
            let next = dir.step(current, app.turns.len());
            // The latest turn is selected by following it, so new answers stay in view.
            app.selected_turn = (next + 1 < app.turns.len()).then_some(next);
            app.citation_cursor = 0;
        }
    }
    Vec::new()
}

/// All lines of the transcript.
pub fn chat_lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let current = app.current_turn_index();
    for (i, turn) in app.turns.iter().enumerate() {
        let selected = app.selected_turn.is_some() && current == Some(i);
        question_lines(turn, selected, &mut lines);
        let is_running = app.running.is_some() && i + 1 == app.turns.len();
        if turn.answer.is_empty() && is_running {
            lines.push(Line::from(Span::styled(
                format!(" {} thinking…", theme::spinner(app.spinner_tick)),
                theme::dim(),
            )));
        }
        answer_lines(turn, &mut lines);
        if i + 1 < app.turns.len() {
            lines.push(Line::default());
        }
    }
    lines
}

/// `You: …` (a bar in front when the turn is selected), the years asked for, further lines.
fn question_lines(turn: &Turn, selected: bool, lines: &mut Vec<Line<'static>>) {
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
}

/// The answer with its markers, its sources, the band it ended in, or why it did not end.
fn answer_lines(turn: &Turn, lines: &mut Vec<Line<'static>>) {
    for text in turn.answer.split('\n').filter(|_| !turn.answer.is_empty()) {
        let mut spans = vec![Span::raw(" ".to_string())];
        spans.extend(marker_spans(text, theme::citation_marker()));
        lines.push(Line::from(spans));
    }
    if let Some(r) = &turn.result {
        if !r.citations.is_empty() {
            lines.push(Line::from(Span::styled(
                " Sources:".to_string(),
                theme::dim(),
            )));
        }
        for c in &r.citations {
            lines.push(Line::from(Span::styled(
                format!(" {}", source_line(c)),
                theme::dim(),
            )));
        }
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
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Focus::Chat;
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
