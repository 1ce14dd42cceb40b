//! The citations panel: the selected answer's sources; with focus, a cursor and Enter to open
//! the cited passage.

use crate::orchestrator::api::Command;
use crate::tui::action::{Action, Dir, Effect};
use crate::tui::app::{App, Focus, Overlay};
use crate::tui::components::passage::PassageViewer;
use crate::tui::keymap::{Binding, Chord, KeyGroup, Scope, DOWN, UP};
use crate::tui::theme;
use crate::tui::widgets::panel;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Citations",
    scope: Scope::Citations,
    bindings: &[
        Binding::new(UP, "previous citation", Action::CitationCursor(Dir::Up)),
        Binding::new(DOWN, "next citation", Action::CitationCursor(Dir::Down)),
        Binding::new(
            &[Chord::key(KeyCode::Enter)],
            "open the cited passage",
            Action::OpenPassage,
        ),
    ],
};

pub fn key(app: &App, key: &KeyEvent) -> Option<Action> {
    KEYS.find(key, app.typing(), |g| app.holds(g))
}

pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::CitationCursor(dir) => {
            let n = app
                .current_turn()
                .and_then(|t| t.result.as_ref())
                .map_or(0, |r| r.citations.len());
            app.citation_cursor = dir.step(app.citation_cursor, n);
        }
        Action::OpenPassage => return open_passage(app),
        _ => {}
    }
    Vec::new()
}

/// Opens the viewer on the citation under the cursor, asking for its chunk unless it is here.
fn open_passage(app: &mut App) -> Vec<Effect> {
    let Some(turn) = app.current_turn_index() else {
        return Vec::new();
    };
    let chunk = app.turns[turn]
        .result
        .as_ref()
        .and_then(|r| r.citations.get(app.citation_cursor))
        .map(|c| c.chunk_id.clone());
    let Some(chunk_id) = chunk else {
        return Vec::new();
    };
    app.overlay = Overlay::Passage(PassageViewer::open(turn, app.citation_cursor));
    if app.passages.contains_key(&chunk_id) {
        Vec::new()
    } else {
        vec![Effect::Send(Command::Passage { chunk_id })]
    }
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Focus::Citations;
    let citations = app
        .current_turn()
        .and_then(|t| t.result.as_ref())
        .map(|r| r.citations.as_slice())
        .unwrap_or(&[]);
    let mut lines: Vec<Line> = Vec::new();
    for (i, c) in citations.iter().enumerate() {
        let date = c
            .date
            .map(|d| d.to_string())
            .unwrap_or_else(|| "undated".to_string());
        let mut detail = format!("    {date} · {:.2}", c.score);
        if let Some(s) = &c.section {
            detail.push_str(&format!(" · § {s}"));
        }
        let head = Line::from(vec![
            Span::styled(format!("[{}] ", c.n), theme::citation_marker()),
            Span::raw(c.document.clone()),
        ]);
        let detail = Line::from(Span::styled(detail, theme::dim()));
        if focused && i == app.citation_cursor {
            lines.push(head.style(theme::selected()));
            lines.push(detail.style(theme::selected()));
        } else {
            lines.push(head);
            lines.push(detail);
        }
    }
    let lines = if lines.is_empty() {
        vec![Line::from(Span::styled("no citations", theme::dim()))]
    } else {
        lines
    };
    let skip = if focused {
        (app.citation_cursor * 2).saturating_sub(area.height.saturating_sub(4) as usize)
    } else {
        0
    };
    let skip = u16::try_from(skip).unwrap_or(u16::MAX);
    frame.render_widget(
        Paragraph::new(lines)
            .block(panel("Citations (Enter: passage)", focused))
            .scroll((skip, 0)),
        area,
    );
}
