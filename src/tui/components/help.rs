//! The help overlay, generated from the components' key tables (`crate::tui::keys::groups`):
//! one heading per component, one row per binding. Two columns when the terminal is wide
//! enough; it scrolls when it does not fit.

use crate::tui::action::{Action, Dir, Effect};
use crate::tui::keymap::{Binding, Chord, KeyGroup, Scope, DOWN, UP};
use crate::tui::theme;
use crate::tui::widgets::{centered, panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

/// From this terminal width on, the help is laid out in two columns.
const TWO_COLUMNS_FROM: u16 = 110;
const COLUMN_GAP: u16 = 2;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Help",
    scope: Scope::Help,
    bindings: &[
        Binding::new(UP, "scroll up", Action::HelpScroll(Dir::Up)),
        Binding::new(DOWN, "scroll down", Action::HelpScroll(Dir::Down)),
        Binding::new(
            &[
                Chord::char('?'),
                Chord::char('q'),
                Chord::key(KeyCode::F(1)),
            ],
            "close the help",
            Action::CloseOverlay,
        ),
    ],
};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Help {
    /// Rows scrolled past.
    pub scroll: u16,
}

impl Help {
    pub fn key(&self, key: &KeyEvent) -> Option<Action> {
        KEYS.find_always(key)
    }

    /// `max_scroll`: how far the help can scroll at the current size ([`max_scroll`]).
    pub fn update(&mut self, action: &Action, max_scroll: u16) -> Vec<Effect> {
        if let Action::HelpScroll(dir) = action {
            self.scroll = match dir {
                Dir::Up => self.scroll.saturating_sub(1).min(max_scroll),
                Dir::Down => self.scroll.saturating_add(1).min(max_scroll),
            };
        }
        Vec::new()
    }

    pub fn draw(&self, groups: &[&KeyGroup], frame: &mut Frame, area: Rect) {
        let page = Page::new(groups, area);
        frame.render_widget(Clear, page.rect);
        let block = panel("Help (Esc to close)", true);
        let inner = block.inner(page.rect);
        frame.render_widget(block, page.rect);
        let scroll = self.scroll.min(page.max_scroll());
        match page.columns.as_slice() {
            [one] => frame.render_widget(Paragraph::new(one.clone()).scroll((scroll, 0)), inner),
            [left, right] => {
                let [l, _, r] = Layout::horizontal([
                    Constraint::Length(page.left_width),
                    Constraint::Length(COLUMN_GAP),
                    Constraint::Min(0),
                ])
                .areas(inner);
                frame.render_widget(Paragraph::new(left.clone()).scroll((scroll, 0)), l);
                frame.render_widget(Paragraph::new(right.clone()).scroll((scroll, 0)), r);
            }
            _ => {}
        }
    }
}

/// How far the help scrolls in a `width` x `height` terminal (unknown size: as far as it has
/// rows).
pub fn max_scroll(groups: &[&KeyGroup], (width, height): (u16, u16)) -> u16 {
    if width == 0 || height == 0 {
        return u16::try_from(join(&rows(groups)).len()).unwrap_or(u16::MAX);
    }
    Page::new(groups, Rect::new(0, 0, width, height)).max_scroll()
}

/// The help laid out for one terminal size.
struct Page {
    rect: Rect,
    columns: Vec<Vec<Line<'static>>>,
    left_width: u16,
}

impl Page {
    fn new(groups: &[&KeyGroup], area: Rect) -> Page {
        let width = |ls: &[Line]| ls.iter().map(Line::width).max().unwrap_or(0);
        let split = if area.width >= TWO_COLUMNS_FROM {
            balanced_split(groups)
        } else {
            groups.len()
        };
        // Each column aligns its own labels.
        let mut columns: Vec<Vec<Line<'static>>> = vec![join(&rows(&groups[..split]))];
        if split < groups.len() {
            columns.push(join(&rows(&groups[split..])));
        }
        let left_width = u16::try_from(width(&columns[0])).unwrap_or(u16::MAX);
        let content_width = match columns.get(1) {
            Some(right) => left_width
                .saturating_add(COLUMN_GAP)
                .saturating_add(u16::try_from(width(right)).unwrap_or(u16::MAX)),
            None => left_width,
        };
        let height = columns.iter().map(Vec::len).max().unwrap_or(0);
        let rect = centered(
            area,
            content_width.saturating_add(2),
            u16::try_from(height + 2).unwrap_or(u16::MAX),
        );
        Page {
            rect,
            columns,
            left_width,
        }
    }

    fn max_scroll(&self) -> u16 {
        let height = self.columns.iter().map(Vec::len).max().unwrap_or(0);
        let visible = usize::from(self.rect.height.saturating_sub(2));
        u16::try_from(height.saturating_sub(visible)).unwrap_or(u16::MAX)
    }
}

/// Each group as lines: its heading, then a row per binding (keys, what they do, when).
fn rows(groups: &[&KeyGroup]) -> Vec<Vec<Line<'static>>> {
    let label_width = groups
        .iter()
        .flat_map(|g| g.bindings.iter())
        .map(|b| b.label().chars().count())
        .max()
        .unwrap_or(0);
    let heading = Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD);
    groups
        .iter()
        .map(|g| {
            let mut lines = vec![Line::from(Span::styled(g.title, heading))];
            for b in g.bindings {
                let when = b
                    .when
                    .describe()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                lines.push(Line::from(vec![
                    Span::styled(
                        format!(" {:<label_width$}  ", b.label()),
                        theme::citation_marker(),
                    ),
                    Span::raw(b.does),
                    Span::styled(when, theme::dim()),
                ]));
            }
            lines
        })
        .collect()
}

/// Groups one after another, a blank line between them.
fn join(blocks: &[Vec<Line<'static>>]) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(Line::default());
        }
        out.extend(b.iter().cloned());
    }
    out
}

/// Where to cut the groups into two columns so that the taller one is as short as can be.
fn balanced_split(groups: &[&KeyGroup]) -> usize {
    // A group is its heading and its rows; groups are a blank line apart.
    let height = |gs: &[&KeyGroup]| {
        gs.iter().map(|g| g.bindings.len() + 1).sum::<usize>() + gs.len().saturating_sub(1)
    };
    (1..groups.len())
        .min_by_key(|&i| height(&groups[..i]).max(height(&groups[i..])))
        .unwrap_or(groups.len())
}
