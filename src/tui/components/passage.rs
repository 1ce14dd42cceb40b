//! The passage viewer: the cited chunk with the question's terms highlighted.

use crate::orchestrator::api::{Citation, Passage};
use crate::tui::action::{Action, Dir, Effect};
use crate::tui::keymap::{Binding, Chord, KeyGroup, Scope, DOWN, UP};
use crate::tui::theme;
use crate::tui::turn::Turn;
use crate::tui::widgets::{centered, highlight_terms, panel, query_terms};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;
use std::collections::HashMap;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Passage viewer",
    scope: Scope::Passage,
    bindings: &[
        Binding::new(UP, "scroll up", Action::PassageScroll(Dir::Up)),
        Binding::new(DOWN, "scroll down", Action::PassageScroll(Dir::Down)),
        Binding::new(
            &[Chord::char('q'), Chord::key(KeyCode::Enter)],
            "close the passage",
            Action::CloseOverlay,
        ),
    ],
};

#[derive(Debug, Clone, PartialEq)]
pub struct PassageViewer {
    pub turn: usize,
    /// Index into the turn's citations.
    pub citation: usize,
    pub scroll: u16,
}

impl PassageViewer {
    pub fn open(turn: usize, citation: usize) -> PassageViewer {
        PassageViewer {
            turn,
            citation,
            scroll: 0,
        }
    }

    pub fn key(&self, key: &KeyEvent) -> Option<Action> {
        KEYS.find_always(key)
    }

    pub fn update(&mut self, action: &Action) -> Vec<Effect> {
        if let Action::PassageScroll(dir) = action {
            self.scroll = match dir {
                Dir::Up => self.scroll.saturating_sub(1),
                Dir::Down => self.scroll.saturating_add(1),
            };
        }
        Vec::new()
    }

    /// Draws the citation of `turn` (the viewer's turn) with its chunk from `passages`.
    pub fn draw(
        &self,
        turn: Option<&Turn>,
        passages: &HashMap<String, Option<Passage>>,
        frame: &mut Frame,
        area: Rect,
    ) {
        let rect = centered(
            area,
            area.width.saturating_sub(6).max(area.width.min(20)),
            area.height.saturating_sub(2).max(area.height.min(6)),
        );
        frame.render_widget(Clear, rect);
        let Some(t) = turn else { return };
        let Some(c) = t
            .result
            .as_ref()
            .and_then(|r| r.citations.get(self.citation))
        else {
            return;
        };
        let mut lines = heading(c);
        let terms = query_terms(&t.question);
        match passages.get(&c.chunk_id) {
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
                .scroll((self.scroll, 0))
                .block(panel("Passage: ↑↓ scroll · Esc close", true)),
            rect,
        );
    }
}

/// The citation's number, document, date, section and score, then a blank line.
fn heading(c: &Citation) -> Vec<Line<'static>> {
    let date = c
        .date
        .map(|d| d.to_string())
        .unwrap_or_else(|| "undated".to_string());
    vec![
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
    ]
}
