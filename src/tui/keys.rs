//! Every key table of the UI, in the order the help shows them. The key handlers use the same
//! tables (each component's `KEYS`), so this list is also what the help test walks.

use crate::tui::action::Action;
use crate::tui::components::{
    chat, citations, global, help, input, inspector, passage, sessions, topology, year_picker,
};
use crate::tui::keymap::{Chord, KeyGroup};

pub fn groups() -> [&'static KeyGroup; 11] {
    [
        &global::ANYWHERE,
        &global::PANELS,
        &input::KEYS,
        &chat::KEYS,
        &citations::KEYS,
        &topology::KEYS,
        &year_picker::KEYS,
        &inspector::KEYS,
        &passage::KEYS,
        &sessions::KEYS,
        &help::KEYS,
    ]
}

/// The key to name for `action` in a one-line hint: the first chord, among the bindings that
/// produce it, that also works while typing (`F1` rather than `?`).
pub fn hint_chord(action: &Action) -> Option<Chord> {
    groups()
        .into_iter()
        .flat_map(|g| g.bindings.iter())
        .filter(|b| &b.action == action)
        .flat_map(|b| b.chords.iter())
        .find(|c| !c.is_text())
        .copied()
}
