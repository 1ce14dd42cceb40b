//! The keys that act whatever has focus, and the app-wide actions: quitting, cancelling,
//! opening and closing overlays, focus, scrolling the chat, ticks, resizes, notices, export,
//! a reopened session.

use crate::orchestrator::api::Command;
use crate::tui::action::{Action, Effect, Notice};
use crate::tui::app::{App, Overlay};
use crate::tui::components::help::Help;
use crate::tui::components::inspector::Inspector;
use crate::tui::components::sessions::Sessions;
use crate::tui::components::year_picker::YearPicker;
use crate::tui::keymap::{Binding, Chord, Guard, KeyGroup, Scope};
use crossterm::event::{KeyCode, KeyEvent, MouseEvent, MouseEventKind};

/// Lines scrolled by one PageUp/PageDown or wheel notch.
pub const SCROLL_STEP: usize = 5;

/// Checked first, overlays or not.
pub static ANYWHERE: KeyGroup = KeyGroup {
    title: "Anywhere",
    scope: Scope::Anywhere,
    bindings: &[
        Binding::new(&[Chord::ctrl('c')], "quit", Action::Quit),
        Binding::new(
            &[Chord::key(KeyCode::Esc)],
            "cancel the query",
            Action::CancelQuery,
        )
        .when(Guard::QueryRunning),
        Binding::new(
            &[Chord::key(KeyCode::Esc)],
            "close the overlay",
            Action::CloseOverlay,
        )
        .when(Guard::NoQueryRunning),
    ],
};

/// Checked when no overlay is open, before the focused panel's keys.
pub static PANELS: KeyGroup = KeyGroup {
    title: "Any panel (letters: when not typing)",
    scope: Scope::AnyPanel,
    bindings: &[
        Binding::new(
            &[Chord::key(KeyCode::Tab)],
            "focus the next panel",
            Action::FocusNext,
        ),
        Binding::new(
            &[Chord::key(KeyCode::PageUp)],
            "scroll the chat up (or the wheel)",
            Action::ScrollUp,
        ),
        Binding::new(
            &[Chord::key(KeyCode::PageDown)],
            "scroll the chat down (or the wheel)",
            Action::ScrollDown,
        ),
        Binding::new(
            &[Chord::char('?'), Chord::key(KeyCode::F(1))],
            "this help",
            Action::ToggleHelp,
        ),
        Binding::new(
            &[Chord::char('y'), Chord::key(KeyCode::F(2))],
            "pick the years to search",
            Action::OpenYearPicker,
        ),
        Binding::new(
            &[Chord::char('i'), Chord::key(KeyCode::F(3))],
            "inspect the answer's cached state",
            Action::OpenInspector,
        ),
        Binding::new(
            &[Chord::char('s'), Chord::key(KeyCode::F(4))],
            "saved sessions, to reopen one",
            Action::OpenSessions,
        ),
        Binding::new(
            &[Chord::char('e'), Chord::key(KeyCode::F(5))],
            "export the conversation as Markdown",
            Action::Export,
        ),
        Binding::new(&[Chord::char('q')], "quit", Action::Quit),
    ],
};

pub fn key_anywhere(app: &App, key: &KeyEvent) -> Option<Action> {
    ANYWHERE.find(key, app.typing(), |g| app.holds(g))
}

pub fn key(app: &App, key: &KeyEvent) -> Option<Action> {
    PANELS.find(key, app.typing(), |g| app.holds(g))
}

/// The app-wide actions.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Quit => return quit(app),
        Action::CancelQuery if app.running.is_some() => return vec![Effect::Send(Command::Cancel)],
        Action::CancelQuery | Action::CloseOverlay => app.overlay = Overlay::None,
        Action::OpenSessions => return open_sessions(app),
        Action::Export => return export(app),
        Action::Mouse(m) => scroll_wheel(app, m),
        Action::ScrollUp => app.chat_scroll = app.chat_scroll.saturating_add(SCROLL_STEP),
        Action::ScrollDown => app.chat_scroll = app.chat_scroll.saturating_sub(SCROLL_STEP),
        Action::FocusNext => app.focus = app.focus.next(),
        Action::ToggleHelp => {
            app.overlay = match app.overlay {
                Overlay::Help(_) => Overlay::None,
                _ => Overlay::Help(Help::default()),
            }
        }
        Action::OpenYearPicker => app.overlay = Overlay::YearPicker(YearPicker::default()),
        Action::OpenInspector => {
            if let Some(turn) = app.current_turn_index() {
                app.overlay = Overlay::Inspector(Inspector::open(turn));
            }
        }
        Action::Resize(w, h) => app.size = (w, h),
        Action::Tick => {
            app.spinner_tick = app.spinner_tick.wrapping_add(1);
            if app.running.is_some() {
                app.dirty = true;
            }
        }
        Action::Notice(n) => app.notice = Some(n),
        Action::SessionLoaded(loaded) => app.load_session(&loaded),
        _ => {}
    }
    Vec::new()
}

fn quit(app: &mut App) -> Vec<Effect> {
    app.should_quit = true;
    let mut effects = Vec::new();
    if app.running.is_some() {
        effects.push(Effect::Send(Command::Cancel));
    }
    effects.push(Effect::Quit);
    effects
}

fn open_sessions(app: &mut App) -> Vec<Effect> {
    if app.running.is_some() {
        app.notice = Some(Notice::error(
            "a query is running: wait for it or cancel it (Esc) first",
        ));
        return Vec::new();
    }
    let (sessions, list) = Sessions::open();
    app.overlay = Overlay::Sessions(sessions);
    vec![list]
}

fn export(app: &mut App) -> Vec<Effect> {
    if app.turns.iter().any(|t| t.result.is_some()) {
        vec![Effect::ExportSession(app.session_id.clone())]
    } else {
        app.notice = Some(Notice::error("nothing to export yet: ask a question first"));
        Vec::new()
    }
}

fn scroll_wheel(app: &mut App, m: MouseEvent) {
    match m.kind {
        MouseEventKind::ScrollUp => app.chat_scroll = app.chat_scroll.saturating_add(SCROLL_STEP),
        MouseEventKind::ScrollDown => app.chat_scroll = app.chat_scroll.saturating_sub(SCROLL_STEP),
        _ => {}
    }
}
