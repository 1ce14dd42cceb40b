//! Draws the whole UI from the state: the panels where the layout puts them, then the open
//! overlay on top.

use crate::tui::app::{App, Overlay};
use crate::tui::components::{breakers, chat, citations, confidence, input, status, topology};
use crate::tui::keys;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::Frame;

/// Below this width the right column folds away.
pub const SIDE_MIN_WIDTH: u16 = 100;
pub const SIDE_WIDTH: u16 = 40;
/// Height of the confidence panel.
const CONFIDENCE_HEIGHT: u16 = 7;

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
    chat::draw(app, frame, chat_area);
    input::draw(app, frame, input_area);
    if let Some(right) = right {
        side_column(app, frame, right);
    }
    status::draw(app, frame, status_area);
    overlay(app, frame, area);
}

/// Topology, breakers, confidence and citations, top to bottom.
fn side_column(app: &App, frame: &mut Frame, area: Rect) {
    let breakers_height =
        u16::try_from(breakers::breaker_rows(app).0.len() + 2).unwrap_or(u16::MAX);
    let [topo, brk, conf, cites] = Layout::vertical([
        Constraint::Length(topology::height(app)),
        Constraint::Length(breakers_height),
        Constraint::Length(CONFIDENCE_HEIGHT),
        Constraint::Min(0),
    ])
    .areas(area);
    topology::draw(app, frame, topo);
    breakers::draw(app, frame, brk);
    confidence::draw(app, frame, conf);
    citations::draw(app, frame, cites);
}

fn overlay(app: &App, frame: &mut Frame, area: Rect) {
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help(h) => h.draw(&keys::groups(), frame, area),
        Overlay::YearPicker(p) => p.draw(&app.years, &app.selected_years, frame, area),
        Overlay::Inspector(i) => {
            let result = app.turns.get(i.turn).and_then(|t| t.result.as_ref());
            i.draw(result, &app.topology, frame, area)
        }
        Overlay::Passage(p) => p.draw(app.turns.get(p.turn), &app.passages, frame, area),
        Overlay::Sessions(s) => s.draw(frame, area),
    }
}
