//! The sessions overlay: saved conversations, newest first, to reopen one.

use crate::session::SessionSummary;
use crate::tui::components::{centered, panel};
use crate::tui::theme;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub fn render_sessions(list: &[SessionSummary], cursor: usize, frame: &mut Frame, area: Rect) {
    let rect = centered(area, 90, (list.len() as u16).clamp(1, 20) + 3);
    let inner_w = rect.width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    if list.is_empty() {
        lines.push(Line::from(Span::styled(
            "No saved sessions yet: every answered question is saved as you go.",
            theme::dim(),
        )));
    }
    // Keep the cursor in view when the list is longer than the box.
    let visible = rect.height.saturating_sub(3) as usize;
    let first = cursor.saturating_sub(visible.saturating_sub(1));
    for (i, s) in list.iter().enumerate().skip(first).take(visible.max(1)) {
        let date: String = s
            .created_at
            .as_deref()
            .unwrap_or("undated")
            .chars()
            .take(16)
            .collect::<String>()
            .replace('T', " ");
        let damaged = if s.damaged_lines > 0 {
            format!(" ⚠{}", s.damaged_lines)
        } else {
            String::new()
        };
        let head = format!("{date}  {:>3} turns{damaged}  ", s.turns);
        let room = inner_w.saturating_sub(head.chars().count());
        let question: String = s
            .first_question
            .as_deref()
            .unwrap_or("(no questions)")
            .chars()
            .take(room)
            .collect();
        let style = if i == cursor {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        lines.push(Line::from(vec![
            Span::styled(head, style),
            Span::styled(question, style),
        ]));
    }
    lines.push(Line::from(Span::styled(
        "Enter reopen · ↑/↓ move · Esc close",
        theme::dim(),
    )));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(panel("Sessions", true)), rect);
}
