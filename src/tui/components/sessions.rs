//! The sessions overlay: saved conversations, newest first, to reopen one.

use crate::session::SessionSummary;
use crate::tui::action::{Action, Dir, Effect};
use crate::tui::keymap::{Binding, Chord, KeyGroup, Scope, DOWN, UP};
use crate::tui::theme;
use crate::tui::widgets::{centered, panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Sessions",
    scope: Scope::Sessions,
    bindings: &[
        Binding::new(UP, "previous session", Action::SessionCursor(Dir::Up)),
        Binding::new(DOWN, "next session", Action::SessionCursor(Dir::Down)),
        Binding::new(
            &[Chord::key(KeyCode::Enter)],
            "reopen the selected session",
            Action::OpenSelectedSession,
        ),
        Binding::new(
            &[Chord::char('q'), Chord::key(KeyCode::F(4))],
            "close the list",
            Action::CloseOverlay,
        ),
    ],
};

/// Saved conversations; `list` is empty until the event loop has read them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sessions {
    pub cursor: usize,
    pub list: Vec<SessionSummary>,
}

impl Sessions {
    /// An empty list and the effect that fills it.
    pub fn open() -> (Sessions, Effect) {
        (Sessions::default(), Effect::ListSessions)
    }

    pub fn key(&self, key: &KeyEvent) -> Option<Action> {
        KEYS.find_always(key)
    }

    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::SessionsListed(found) => {
                self.list = found;
                self.cursor = self.cursor.min(self.list.len().saturating_sub(1));
            }
            Action::SessionCursor(dir) => self.cursor = dir.step(self.cursor, self.list.len()),
            Action::OpenSelectedSession => {
                if let Some(s) = self.list.get(self.cursor) {
                    return vec![Effect::OpenSession(s.session_id.clone())];
                }
            }
            _ => {}
        }
        Vec::new()
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect) {
        let (list, cursor) = (&self.list, self.cursor);
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
            let style = if i == cursor {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            };
            let (head, question) = row(s, inner_w);
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
}

/// A session's date, turns and damage, and its first question cut to the room left.
fn row(s: &SessionSummary, width: usize) -> (String, String) {
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
    let room = width.saturating_sub(head.chars().count());
    let question: String = s
        .first_question
        .as_deref()
        .unwrap_or("(no questions)")
        .chars()
        .take(room)
        .collect();
    (head, question)
}
