//! Right-column panels: topology, breakers, confidence, citations.

use crate::orchestrator::api::{BreakerStateKind, StageStatus};
use crate::tui::app::{App, BackendRow, Focus, LiveStage};
use crate::tui::components::panel;
use crate::tui::theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};
use ratatui::Frame;

/// Height the topology panel wants (one line per stage, a loop line, borders).
pub fn topology_height(app: &App) -> u16 {
    u16::try_from(app.topology.nodes.len() + 3).unwrap_or(u16::MAX)
}

pub fn topology_lines(app: &App) -> Vec<Line<'static>> {
    let turn = app.current_turn();
    let mut lines = Vec::new();
    for node in &app.topology.nodes {
        let name = node.as_str();
        let on_path = turn.is_some_and(|t| t.path.contains(node));
        let state = turn.and_then(|t| t.stages.get(node));
        let (sym, label, color) = match state {
            None => {
                let finished = turn.is_some_and(|t| t.result.is_some());
                (
                    "·",
                    if finished {
                        "not run".to_string()
                    } else {
                        "pending".to_string()
                    },
                    Color::DarkGray,
                )
            }
            Some(LiveStage::Running { .. }) => (
                theme::spinner(app.spinner_tick),
                "running".to_string(),
                Color::Yellow,
            ),
            Some(LiveStage::Finished { status, ms, .. }) => match status {
                StageStatus::Done => ("✓", format!("{ms:.0} ms"), Color::Green),
                StageStatus::TimedOut => ("⧗", format!("timed out {ms:.0} ms"), Color::Red),
                StageStatus::Failed => ("✗", "failed".to_string(), Color::Red),
                StageStatus::FellBack => ("↺", format!("fell back {ms:.0} ms"), Color::Yellow),
                StageStatus::Cancelled => ("■", "cancelled".to_string(), Color::DarkGray),
            },
        };
        let name_style = if on_path {
            Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD)
        } else {
            theme::dim()
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{sym} "), Style::default().fg(color)),
            Span::styled(format!("{name:<12}"), name_style),
            Span::styled(label, Style::default().fg(color)),
        ]));
    }
    let loops = turn.map(|t| t.loops()).unwrap_or(0);
    lines.push(Line::from(Span::styled(
        format!("loops: {loops}"),
        theme::dim(),
    )));
    lines
}

pub fn render_topology(app: &App, frame: &mut Frame, area: Rect) {
    let para =
        Paragraph::new(topology_lines(app)).block(panel("Topology", app.focus == Focus::Topology));
    frame.render_widget(para, area);
}

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

pub fn render_breakers(app: &App, frame: &mut Frame, area: Rect) {
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

pub fn render_confidence(app: &App, frame: &mut Frame, area: Rect) {
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

pub fn render_citations(app: &App, frame: &mut Frame, area: Rect) {
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
