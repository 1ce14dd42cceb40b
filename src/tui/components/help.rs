//! The help overlay.

use crate::tui::components::{centered, panel};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;

pub const HELP: &[(&str, &str)] = &[
    ("Enter", "send the question (input)"),
    ("Alt-Enter", "new line in the input"),
    ("Up/Down", "history (input) · select answer (chat)"),
    ("Tab", "next panel"),
    ("PgUp/PgDn", "scroll the chat (also mouse wheel)"),
    ("? / F1", "this help"),
    ("y / F2", "year picker: Space toggle, a all/none"),
    ("i / F3", "inspect the selected answer's state"),
    ("Enter", "open a citation (citations panel)"),
    ("s / F4", "saved sessions: Enter reopens one"),
    ("e / F5", "export this conversation as Markdown"),
    ("Esc", "cancel a running query, else close"),
    ("q / Ctrl-C", "quit (q when not typing)"),
];

pub fn render_help(frame: &mut Frame, area: Rect) {
    let rect = centered(area, 60, HELP.len() as u16 + 2);
    let lines: Vec<Line> = HELP
        .iter()
        .map(|(k, v)| Line::from(format!("{k:<12} {v}")))
        .collect();
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(panel("Help (Esc to close)", true)),
        rect,
    );
}
