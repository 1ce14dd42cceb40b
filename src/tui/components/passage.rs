//! The passage viewer: the cited chunk with the question's terms highlighted.

use crate::tui::app::App;
use crate::tui::components::{centered, highlight_terms, panel, query_terms};
use crate::tui::theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;

pub fn render_passage(
    app: &App,
    turn: usize,
    citation: usize,
    scroll: u16,
    frame: &mut Frame,
    area: Rect,
) {
    let rect = centered(
        area,
        area.width.saturating_sub(6).max(area.width.min(20)),
        area.height.saturating_sub(2).max(area.height.min(6)),
    );
    frame.render_widget(Clear, rect);
    let Some(t) = app.turns.get(turn) else { return };
    let Some(c) = t.result.as_ref().and_then(|r| r.citations.get(citation)) else {
        return;
    };
    let date = c
        .date
        .map(|d| d.to_string())
        .unwrap_or_else(|| "undated".to_string());
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("[{}] ", c.n), theme::citation_marker()),
            Span::raw(c.document.clone()),
        ]),
        Line::from(Span::styled(
            format!(
                "{date} · § {} · score {:.2}",
                c.section.as_deref().unwrap_or("-"),
                c.score
            ),
            theme::dim(),
        )),
        Line::default(),
    ];
    let terms = query_terms(&t.question);
    match app.passages.get(&c.chunk_id) {
        Some(Some(passage)) => {
            for para in passage.text.split('\n') {
                lines.push(Line::from(highlight_terms(
                    para,
                    &terms,
                    theme::highlight(),
                )));
            }
        }
        Some(None) => lines.push(Line::from(Span::styled(
            format!(
                "chunk {} is not in the current index (the documents changed since this answer)",
                c.chunk_id
            ),
            theme::dim(),
        ))),
        None => lines.push(Line::from(Span::styled(
            "loading the passage…".to_string(),
            theme::dim(),
        ))),
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .block(panel("Passage: ↑↓ scroll · Esc close", true)),
        rect,
    );
}
