//! The backends panel: in-process backends, and each remote backend's circuit breaker (live, or
//! as recorded with an earlier answer). No keys.

use crate::orchestrator::api::BreakerStateKind;
use crate::tui::app::{App, BackendRow};
use crate::tui::theme;
use crate::tui::widgets::panel;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// The backend rows to show: live, or for an earlier answer the breakers recorded with it
/// (`true`).
pub fn breaker_rows(app: &App) -> (Vec<BackendRow>, bool) {
    let recorded = app
        .selected_turn
        .and_then(|i| app.turns.get(i))
        .and_then(|t| t.result.as_ref())
        .filter(|r| !r.breakers.is_empty());
    match recorded {
        Some(r) => {
            let mut rows: Vec<BackendRow> = app
                .breakers
                .iter()
                .filter(|b| matches!(b, BackendRow::InProcess { .. }))
                .cloned()
                .collect();
            rows.extend(r.breakers.iter().cloned().map(BackendRow::Remote));
            (rows, true)
        }
        None => (app.breakers.clone(), false),
    }
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let (rows, recorded) = breaker_rows(app);
    let title = if recorded {
        "Breakers (as recorded)"
    } else {
        "Breakers"
    };
    let lines: Vec<Line> = rows
        .iter()
        .map(|row| match row {
            BackendRow::InProcess { name, detail } => Line::from(vec![
                Span::raw(format!("{name:<11}")),
                Span::styled(detail.clone(), theme::dim()),
            ]),
            BackendRow::Remote(b) => {
                let color = match b.state {
                    BreakerStateKind::Closed => Color::Green,
                    BreakerStateKind::HalfOpen => Color::Yellow,
                    BreakerStateKind::Open => Color::Red,
                };
                let cooldown = if b.cooldown_remaining_ms > 0 {
                    format!(" · {}s", b.cooldown_remaining_ms.div_ceil(1000))
                } else {
                    String::new()
                };
                Line::from(vec![
                    Span::raw(format!("{:<11}", b.backend)),
                    Span::styled(
                        format!("{:<10}", b.state.as_str()),
                        Style::default().fg(color),
                    ),
                    Span::styled(
                        format!("{:.1}/{:.0}{cooldown}", b.failures, b.threshold),
                        theme::dim(),
                    ),
                ])
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(panel(title, false)), area);
}
