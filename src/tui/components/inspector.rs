//! The `cached_state` inspector: stages on the left, a folding JSON tree on the right.

use crate::tui::app::App;
use crate::tui::components::{centered, panel};
use crate::tui::json_tree::json_lines;
use crate::tui::theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use std::collections::BTreeSet;

pub fn render_inspector(
    app: &App,
    turn: usize,
    stage: usize,
    tree_cursor: usize,
    folded: &BTreeSet<String>,
    frame: &mut Frame,
    area: Rect,
) {
    let rect = centered(
        area,
        area.width.saturating_sub(4).max(area.width.min(20)),
        area.height.saturating_sub(2).max(area.height.min(6)),
    );
    frame.render_widget(Clear, rect);
    let block = panel("Inspector: ↑↓ stage · j/k tree · Space fold · Esc", true);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let keys = app.inspector_keys(turn);
    if keys.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled(
                "no cached state (query not finished)",
                theme::dim(),
            )),
            inner,
        );
        return;
    }
    let [left, right] =
        Layout::horizontal([Constraint::Length(16), Constraint::Min(0)]).areas(inner);
    let stage_lines: Vec<Line> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let l = Line::from(k.clone());
            if i == stage {
                l.style(theme::selected())
            } else {
                l
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(stage_lines), left);
    let value = app.turns[turn]
        .result
        .as_ref()
        .and_then(|r| keys.get(stage).and_then(|k| r.cached_state.get(k)));
    let Some(value) = value else { return };
    let tree: Vec<Line> = json_lines(value, folded)
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let marker = if !l.foldable {
                "  "
            } else if l.folded {
                "▸ "
            } else {
                "▾ "
            };
            let line = Line::from(format!("{}{marker}{}", "  ".repeat(l.depth), l.text));
            if i == tree_cursor {
                line.style(theme::selected())
            } else {
                line
            }
        })
        .collect();
    let skip = tree_cursor.saturating_sub(right.height.saturating_sub(1) as usize);
    frame.render_widget(
        Paragraph::new(tree).scroll((u16::try_from(skip).unwrap_or(u16::MAX), 0)),
        right,
    );
}
