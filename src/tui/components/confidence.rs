//! The confidence panel: the answer's band as a gauge, its final reason, the retrieval
//! confidence and the notes. No keys.

use crate::tui::app::App;
use crate::tui::theme;
use crate::tui::widgets::panel;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};
use ratatui::Frame;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let block = panel("Confidence", false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(result) = app.current_turn().and_then(|t| t.result.as_ref()) else {
        frame.render_widget(
            Paragraph::new(Span::styled("no answer yet", theme::dim())),
            inner,
        );
        return;
    };
    let [gauge_area, text_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let color = theme::band_color(result.final_reason);
    let ratio = result.confidence.unwrap_or(0.0).clamp(0.0, 1.0);
    let label = match result.confidence {
        Some(c) => format!("{c:.2}"),
        None => "n/a".to_string(),
    };
    frame.render_widget(
        Gauge::default()
            .gauge_style(Style::default().fg(color))
            .ratio(ratio)
            .label(label),
        gauge_area,
    );
    let mut lines = vec![Line::from(Span::styled(
        result.final_reason.as_str().to_string(),
        Style::default().fg(color).add_modifier(Modifier::BOLD),
    ))];
    if let Some(rc) = result.retrieval_confidence {
        lines.push(Line::from(vec![
            Span::raw("retrieval: "),
            Span::styled(
                format!("{rc:?}").to_lowercase(),
                Style::default().fg(theme::retrieval_color(rc)),
            ),
        ]));
    }
    if let Some(n) = &result.applicability_note {
        lines.push(Line::from(format!("applies: {n}")));
    }
    if let Some(n) = &result.uncertainty_note {
        lines.push(Line::from(format!("uncertain: {n}")));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), text_area);
}
