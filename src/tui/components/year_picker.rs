//! The year picker overlay: years in the corpus with their document counts; the selection
//! filters the next questions.
//!
//! An overlay's state lives in [`crate::tui::app::Overlay`] while it is open, so this module
//! sits below `app` and takes the years it shows as arguments.

use crate::tui::action::{Action, Dir, Effect};
use crate::tui::keymap::{Binding, Chord, KeyGroup, Scope, DOWN, UP};
use crate::tui::theme;
use crate::tui::widgets::{centered, panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use std::collections::{BTreeMap, BTreeSet};

const BAR: usize = 16;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Year picker",
    scope: Scope::YearPicker,
    bindings: &[
        Binding::new(UP, "previous year", Action::YearCursorUp),
        Binding::new(DOWN, "next year", Action::YearCursorDown),
        Binding::new(
            &[Chord::char(' ')],
            "select or unselect the year",
            Action::ToggleYear,
        ),
        Binding::new(
            &[Chord::char('a')],
            "select every year, or none",
            Action::ToggleAllYears,
        ),
        Binding::new(
            &[
                Chord::key(KeyCode::Enter),
                Chord::char('y'),
                Chord::char('q'),
                Chord::key(KeyCode::F(2)),
            ],
            "close the year picker",
            Action::CloseOverlay,
        ),
    ],
};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct YearPicker {
    pub cursor: usize,
}

impl YearPicker {
    pub fn key(&self, key: &KeyEvent) -> Option<Action> {
        KEYS.find_always(key)
    }

    /// The picker's own actions, over the corpus's years and the selection.
    pub fn update(
        &mut self,
        action: &Action,
        years: &BTreeMap<i32, usize>,
        selected: &mut BTreeSet<i32>,
    ) -> Vec<Effect> {
        match action {
            Action::YearCursorUp => self.cursor = Dir::Up.step(self.cursor, years.len()),
            Action::YearCursorDown => self.cursor = Dir::Down.step(self.cursor, years.len()),
            Action::ToggleYear => {
                if let Some(year) = years.keys().nth(self.cursor).copied() {
                    if !selected.remove(&year) {
                        selected.insert(year);
                    }
                }
            }
            Action::ToggleAllYears => {
                if selected.len() == years.len() && !years.is_empty() {
                    selected.clear();
                } else {
                    *selected = years.keys().copied().collect();
                }
            }
            _ => {}
        }
        Vec::new()
    }

    pub fn draw(
        &self,
        years: &BTreeMap<i32, usize>,
        selected: &BTreeSet<i32>,
        frame: &mut Frame,
        area: Rect,
    ) {
        let max = years.values().copied().max().unwrap_or(0).max(1);
        let mut lines: Vec<Line> = years
            .iter()
            .enumerate()
            .map(|(i, (year, count))| {
                let mark = if selected.contains(year) {
                    "[x]"
                } else {
                    "[ ]"
                };
                let bar = "█".repeat((count * BAR).div_ceil(max).min(BAR));
                let line = Line::from(vec![
                    Span::raw(format!("{mark} {year} {count:>6} ")),
                    Span::styled(bar, theme::citation_marker()),
                ]);
                if i == self.cursor {
                    line.style(theme::selected())
                } else {
                    line
                }
            })
            .collect();
        if years.is_empty() {
            lines.push(Line::from(Span::styled("no dated documents", theme::dim())));
        }
        lines.push(Line::from(Span::styled(
            if selected.is_empty() {
                "none selected: all years".to_string()
            } else {
                format!("{} selected", selected.len())
            },
            theme::dim(),
        )));
        let h = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
        let rect = centered(area, 44, h);
        let skip = self
            .cursor
            .saturating_sub(rect.height.saturating_sub(3) as usize);
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(lines)
                .scroll((u16::try_from(skip).unwrap_or(u16::MAX), 0))
                .block(panel("Years: Space toggle · a all · Esc", true)),
            rect,
        );
    }
}
