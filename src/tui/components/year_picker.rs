//! The year picker overlay: years in the corpus with their document counts.

use crate::tui::app::App;
use crate::tui::components::{centered, panel};
use crate::tui::theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

const BAR: usize = 16;

pub fn render_year_picker(app: &App, cursor: usize, frame: &mut Frame, area: Rect) {
    let max = app.years.values().copied().max().unwrap_or(0).max(1);
    let mut lines: Vec<Line> = app
        .years
        .iter()
        .enumerate()
        .map(|(i, (year, count))| {
            let mark = if app.selected_years.contains(year) {
                "[x]"
            } else {
                "[ ]"
            };
            let bar = "█".repeat((count * BAR).div_ceil(max).min(BAR));
            let line = Line::from(vec![
                Span::raw(format!("{mark} {year} {count:>6} ")),
                Span::styled(bar, theme::citation_marker()),
            ]);
            if i == cursor {
                line.style(theme::selected())
            } else {
                line
            }
        })
        .collect();
    if app.years.is_empty() {
        lines.push(Line::from(Span::styled("no dated documents", theme::dim())));
    }
    lines.push(Line::from(Span::styled(
        if app.selected_years.is_empty() {
            "none selected: all years".to_string()
        } else {
            format!("{} selected", app.selected_years.len())
        },
        theme::dim(),
    )));
    let h = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let rect = centered(area, 44, h);
    let skip = cursor.saturating_sub(rect.height.saturating_sub(3) as usize);
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((u16::try_from(skip).unwrap_or(u16::MAX), 0))
            .block(panel("Years: Space toggle · a all · Esc", true)),
        rect,
    );
}
