//! The pure `update`: routes a key to the component that owns it, and an action to the
//! component whose state it changes. No I/O: what must happen outside comes back as effects.

use crate::tui::action::{Action, Effect};
use crate::tui::app::{App, Focus, Overlay};
use crate::tui::components::{chat, citations, global, help, input, topology};
use crate::tui::events;
use crate::tui::keys;
use crossterm::event::{KeyEvent, KeyEventKind};

/// Maps a key to a semantic action for the current state; `None` means "type it". The keys of
/// `Anywhere` first, then an open overlay's (and nothing else), then the keys of any panel,
/// then the focused panel's.
pub fn translate_key(app: &App, key: KeyEvent) -> Option<Action> {
    if let Some(action) = global::key_anywhere(app, &key) {
        return Some(action);
    }
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help(h) => return h.key(&key),
        Overlay::YearPicker(p) => return p.key(&key),
        Overlay::Inspector(i) => return i.key(&key),
        Overlay::Passage(p) => return p.key(&key),
        Overlay::Sessions(s) => return s.key(&key),
    }
    global::key(app, &key).or_else(|| match app.focus {
        Focus::Input => input::key(app, &key),
        Focus::Chat => chat::key(app, &key),
        Focus::Citations => citations::key(app, &key),
        Focus::Topology => topology::key(app, &key),
    })
}

/// Applies one action to the state. No I/O: what must happen outside is returned as effects.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    if !matches!(action, Action::Tick) {
        app.dirty = true;
    }
    match action {
        Action::Key(key) => on_key(app, key),
        Action::Orchestrator(event) => {
            events::apply(app, event);
            Vec::new()
        }
        Action::Submit | Action::InsertNewline | Action::HistoryUp | Action::HistoryDown => {
            input::update(app, action)
        }
        Action::SelectTurn(_) => chat::update(app, action),
        Action::CitationCursor(_) | Action::OpenPassage => citations::update(app, action),
        Action::HelpScroll(_)
        | Action::YearCursorUp
        | Action::YearCursorDown
        | Action::ToggleYear
        | Action::ToggleAllYears
        | Action::InspectorStage(_)
        | Action::InspectorTree(_)
        | Action::ToggleFold
        | Action::PassageScroll(_)
        | Action::SessionsListed(_)
        | Action::SessionCursor(_)
        | Action::OpenSelectedSession => overlay_update(app, action),
        _ => global::update(app, action),
    }
}

fn on_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    app.notice = None;
    match translate_key(app, key) {
        Some(action) => update(app, action),
        None => {
            input::type_key(app, key);
            Vec::new()
        }
    }
}

/// An overlay's own action goes to the open overlay (and is dropped if another one is open).
fn overlay_update(app: &mut App, action: Action) -> Vec<Effect> {
    let size = app.size;
    let App {
        overlay,
        years,
        selected_years,
        turns,
        topology,
        ..
    } = app;
    match overlay {
        Overlay::None => Vec::new(),
        Overlay::Help(h) => h.update(&action, help::max_scroll(&keys::groups(), size)),
        Overlay::YearPicker(p) => p.update(&action, years, selected_years),
        Overlay::Inspector(i) => {
            let result = turns.get(i.turn).and_then(|t| t.result.as_ref());
            i.update(&action, result, topology)
        }
        Overlay::Passage(p) => p.update(&action),
        Overlay::Sessions(s) => s.update(action),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::api::{Command, NodeId, TopologyView};
    use crossterm::event::{KeyCode, KeyModifiers};
    use std::collections::BTreeMap;

    fn app() -> App {
        let topology = TopologyView {
            name: "t".into(),
            entry: NodeId::new("plan"),
            nodes: vec![NodeId::new("plan"), NodeId::new("retrieve")],
            edges: vec![],
        };
        App::new("offline", 0, BTreeMap::new(), topology, "s")
    }

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn letters_are_typed_in_the_input_but_are_commands_elsewhere() {
        let mut a = app();
        assert_eq!(translate_key(&a, k(KeyCode::Char('?'))), None);
        assert_eq!(translate_key(&a, k(KeyCode::Char('q'))), None);
        a.focus = Focus::Chat;
        assert_eq!(
            translate_key(&a, k(KeyCode::Char('?'))),
            Some(Action::ToggleHelp)
        );
        assert_eq!(translate_key(&a, k(KeyCode::Char('q'))), Some(Action::Quit));
        a.focus = Focus::Citations;
        assert_eq!(
            translate_key(&a, k(KeyCode::Enter)),
            Some(Action::OpenPassage)
        );
    }

    #[test]
    fn esc_depends_on_running() {
        let mut a = app();
        assert_eq!(
            translate_key(&a, k(KeyCode::Esc)),
            Some(Action::CloseOverlay)
        );
        a.running = Some(String::new());
        assert_eq!(
            translate_key(&a, k(KeyCode::Esc)),
            Some(Action::CancelQuery)
        );
        a.overlay = Overlay::Help(help::Help::default());
        assert_eq!(
            translate_key(&a, k(KeyCode::Esc)),
            Some(Action::CancelQuery)
        );
        assert_eq!(
            translate_key(&a, k(KeyCode::Char('q'))),
            Some(Action::CloseOverlay)
        );
    }

    #[test]
    fn an_open_overlay_takes_the_keys_of_the_panels() {
        let mut a = app();
        a.focus = Focus::Chat;
        a.overlay = Overlay::Help(help::Help::default());
        // Tab and F2 do nothing under the help; Ctrl-C still quits.
        assert_eq!(translate_key(&a, k(KeyCode::Tab)), None);
        assert_eq!(translate_key(&a, k(KeyCode::F(2))), None);
        assert_eq!(
            translate_key(&a, KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
    }

    #[test]
    fn quit_while_running_cancels_first() {
        let mut a = app();
        a.running = Some("q".into());
        assert_eq!(
            update(&mut a, Action::Quit),
            vec![Effect::Send(Command::Cancel), Effect::Quit]
        );
        assert!(a.should_quit);
    }
}
