//! The topology panel: every node of the running topology with its live state and timing, the
//! path taken highlighted, the reformulation loops counted. With focus, ↑/↓ scroll the chat.

use crate::orchestrator::api::StageStatus;
use crate::tui::action::Action;
use crate::tui::app::{App, Focus};
use crate::tui::keymap::{Binding, KeyGroup, Scope, DOWN, UP};
use crate::tui::theme;
use crate::tui::turn::LiveStage;
use crate::tui::widgets::panel;
use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Topology",
    scope: Scope::Topology,
    bindings: &[
        Binding::new(UP, "scroll the chat up", Action::ScrollUp),
        Binding::new(DOWN, "scroll the chat down", Action::ScrollDown),
    ],
};

pub fn key(app: &App, key: &KeyEvent) -> Option<Action> {
    KEYS.find(key, app.typing(), |g| app.holds(g))
}

/// Height the topology panel wants (one line per stage, a loop line, borders, and the task
/// graph's header and tasks when the question was decomposed).
pub fn height(app: &App) -> u16 {
    let graph = app
        .current_turn()
        .and_then(|t| t.graph.as_ref())
        .map_or(0, |g| g.tasks.len() + 1);
    u16::try_from(app.topology.nodes.len() + 3 + graph).unwrap_or(u16::MAX)
}

/// The task graph: one line per task by depth and group, its state, time and finishing order.
fn graph_lines(app: &App, g: &crate::tui::graph::LiveGraph, lines: &mut Vec<Line<'static>>) {
    use crate::orchestrator::api::TaskStatus;
    lines.push(Line::from(Span::styled(
        format!("task graph: {} tasks, {} groups", g.tasks.len(), g.groups),
        Style::default().add_modifier(Modifier::BOLD),
    )));
    for t in g.ordered() {
        let (sym, color) = match t.status {
            TaskStatus::Pending => ("·", Color::DarkGray),
            TaskStatus::Running => (theme::spinner(app.spinner_tick), Color::Yellow),
            TaskStatus::Done => ("✓", Color::Green),
            TaskStatus::Failed => ("✗", Color::Red),
            TaskStatus::TimedOut => ("⧗", Color::Red),
            TaskStatus::Skipped => ("–", Color::DarkGray),
        };
        let group = t
            .group
            .map(|g| format!("g{}", g + 1))
            .unwrap_or_else(|| "  ".into());
        let order = t.finished_as.map(|n| format!(" #{n}")).unwrap_or_default();
        let time = if t.ms > 0.0 {
            format!(" {:.0} ms", t.ms)
        } else {
            String::new()
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{}{sym} ", "  ".repeat(t.depth + 1)),
                Style::default().fg(color),
            ),
            Span::styled(format!("{group} "), theme::dim()),
            Span::raw(t.label.clone()),
            Span::styled(format!("{time}{order}"), Style::default().fg(color)),
        ]));
    }
}

pub fn lines(app: &App) -> Vec<Line<'static>> {
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
    if let Some(g) = turn.and_then(|t| t.graph.as_ref()) {
        graph_lines(app, g, &mut lines);
    }
    lines
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let para = Paragraph::new(lines(app)).block(panel("Topology", app.focus == Focus::Topology));
    frame.render_widget(para, area);
}
