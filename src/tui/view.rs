//! Draws the whole UI from the state.

use super::app::{App, Overlay};
use super::components::{chat, help, inspector, panels, passage, sessions, status, year_picker};
use ratatui::layout::{Constraint, Layout};
use ratatui::Frame;

/// Below this width the right column folds away.
pub const SIDE_MIN_WIDTH: u16 = 100;
pub const SIDE_WIDTH: u16 = 40;

pub fn view(app: &App, frame: &mut Frame) {
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let [main, status_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
    let (left, right) = if main.width >= SIDE_MIN_WIDTH {
        let [l, r] =
            Layout::horizontal([Constraint::Min(0), Constraint::Length(SIDE_WIDTH)]).areas(main);
        (l, Some(r))
    } else {
        (main, None)
    };
    let input_lines = app.input.lines().len().clamp(1, 5) as u16;
    let [chat_area, input_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(input_lines + 2)]).areas(left);
    chat::render_chat(app, frame, chat_area);
    chat::render_input(app, frame, input_area);
    if let Some(right) = right {
        let breakers = u16::try_from(panels::breaker_rows(app).0.len() + 2).unwrap_or(u16::MAX);
        let [topo, brk, conf, cites] = Layout::vertical([
            Constraint::Length(panels::topology_height(app)),
            Constraint::Length(breakers),
            Constraint::Length(7),
            Constraint::Min(0),
        ])
        .areas(right);
        panels::render_topology(app, frame, topo);
        panels::render_breakers(app, frame, brk);
        panels::render_confidence(app, frame, conf);
        panels::render_citations(app, frame, cites);
    }
    status::render_status(app, frame, status_area);
    match &app.overlay {
        Overlay::None => {}
        Overlay::Sessions { cursor, list } => sessions::render_sessions(list, *cursor, frame, area),
        Overlay::Help => help::render_help(frame, area),
        Overlay::YearPicker { cursor } => {
            year_picker::render_year_picker(app, *cursor, frame, area)
        }
        Overlay::Inspector {
            turn,
            stage,
            tree_cursor,
            folded,
        } => inspector::render_inspector(app, *turn, *stage, *tree_cursor, folded, frame, area),
        Overlay::Passage {
            turn,
            citation,
            scroll,
        } => passage::render_passage(app, *turn, *citation, *scroll, frame, area),
    }
}
