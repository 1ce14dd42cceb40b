//! Key bindings as data. Each component declares its keys once, as a [`KeyGroup`]; its key
//! handler looks keys up in that table ([`find`]) and the help overlay is drawn from the same
//! tables, so what the help says is what the keys do.

use crate::tui::action::Action;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Which modifiers a chord asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mods {
    /// Any modifiers (a terminal may add Shift to `?`, for one). A plain character never acts
    /// while the user is typing into the input: there it is text.
    Any,
    /// With Control (the letter in either case).
    Ctrl,
    /// With Alt or Shift.
    AltOrShift,
    /// Without Control.
    NoCtrl,
}

/// One key combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chord {
    pub code: KeyCode,
    pub mods: Mods,
}

impl Chord {
    pub const fn key(code: KeyCode) -> Chord {
        Chord {
            code,
            mods: Mods::Any,
        }
    }

    pub const fn char(c: char) -> Chord {
        Chord::key(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Chord {
        Chord {
            code: KeyCode::Char(c),
            mods: Mods::Ctrl,
        }
    }

    pub const fn alt_or_shift(code: KeyCode) -> Chord {
        Chord {
            code,
            mods: Mods::AltOrShift,
        }
    }

    pub const fn no_ctrl(code: KeyCode) -> Chord {
        Chord {
            code,
            mods: Mods::NoCtrl,
        }
    }

    /// Whether `key` is this chord; `typing` is true while the input takes text.
    pub fn matches(&self, key: &KeyEvent, typing: bool) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt_or_shift = key
            .modifiers
            .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT);
        match self.mods {
            Mods::Any => key.code == self.code && !(typing && self.is_text()),
            Mods::Ctrl => ctrl && same_letter(key.code, self.code),
            Mods::AltOrShift => alt_or_shift && key.code == self.code,
            Mods::NoCtrl => !ctrl && key.code == self.code,
        }
    }

    /// A plain character: a command outside the input, text inside it.
    pub fn is_text(&self) -> bool {
        self.mods == Mods::Any && matches!(self.code, KeyCode::Char(_))
    }

    /// A key event that is this chord (what a user presses).
    pub fn example(&self) -> KeyEvent {
        let mods = match self.mods {
            Mods::Ctrl => KeyModifiers::CONTROL,
            Mods::AltOrShift => KeyModifiers::ALT,
            Mods::Any | Mods::NoCtrl => KeyModifiers::NONE,
        };
        KeyEvent::new(self.code, mods)
    }

    /// The chord as the help writes it: `Ctrl-C`, `Alt/Shift-Enter`, `↑`, `Space`.
    pub fn label(&self) -> String {
        let key = code_label(self.code);
        match self.mods {
            Mods::Ctrl => format!("Ctrl-{}", key.to_uppercase()),
            Mods::AltOrShift => format!("Alt/Shift-{key}"),
            Mods::Any | Mods::NoCtrl => key,
        }
    }

    /// The chord as the status bar writes it, short: `^C`, `Alt-Enter`.
    pub fn short_label(&self) -> String {
        let key = code_label(self.code);
        match self.mods {
            Mods::Ctrl => format!("^{}", key.to_uppercase()),
            Mods::AltOrShift => format!("Alt-{key}"),
            Mods::Any | Mods::NoCtrl => key,
        }
    }
}

fn same_letter(a: KeyCode, b: KeyCode) -> bool {
    match (a, b) {
        (KeyCode::Char(x), KeyCode::Char(y)) => x.eq_ignore_ascii_case(&y),
        _ => a == b,
    }
}

fn code_label(code: KeyCode) -> String {
    match code {
        KeyCode::Char(' ') => "Space".into(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::F(n) => format!("F{n}"),
        KeyCode::Esc => "Esc".into(),
        other => other.to_string(),
    }
}

/// When a binding acts, beyond its chord: a condition on the app's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    Always,
    QueryRunning,
    NoQueryRunning,
    /// The input's cursor is on its first line (else ↑ moves the cursor).
    CursorOnFirstLine,
    /// The input's cursor is on its last line (else ↓ moves the cursor).
    CursorOnLastLine,
}

impl Guard {
    /// How the help says it.
    pub fn describe(self) -> Option<&'static str> {
        match self {
            Guard::Always => None,
            Guard::QueryRunning => Some("while a query runs"),
            Guard::NoQueryRunning => Some("when no query runs"),
            Guard::CursorOnFirstLine => Some("on the first line"),
            Guard::CursorOnLastLine => Some("on the last line"),
        }
    }
}

/// One line of the keymap: these chords do this, producing this action.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub chords: &'static [Chord],
    /// What it does, for the help.
    pub does: &'static str,
    pub action: Action,
    pub when: Guard,
}

impl Binding {
    pub const fn new(chords: &'static [Chord], does: &'static str, action: Action) -> Binding {
        Binding {
            chords,
            does,
            action,
            when: Guard::Always,
        }
    }

    pub const fn when(mut self, when: Guard) -> Binding {
        self.when = when;
        self
    }

    /// The chords as the help writes them: `? / F1`.
    pub fn label(&self) -> String {
        let labels: Vec<String> = self.chords.iter().map(Chord::label).collect();
        labels.join(" / ")
    }
}

/// Where a group of keys acts: the global keys, a focused panel, or an open overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Whatever is on screen, overlays included.
    Anywhere,
    /// Whatever panel has focus, with no overlay open.
    AnyPanel,
    Input,
    Chat,
    Citations,
    Topology,
    YearPicker,
    Inspector,
    Passage,
    Sessions,
    Help,
}

/// A component's keys: a heading for the help, where they act, the bindings in the order tried.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyGroup {
    pub title: &'static str,
    pub scope: Scope,
    pub bindings: &'static [Binding],
}

impl KeyGroup {
    /// The action of the first binding that matches `key` and whose guard holds.
    pub fn find(
        &self,
        key: &KeyEvent,
        typing: bool,
        holds: impl Fn(Guard) -> bool,
    ) -> Option<Action> {
        self.bindings
            .iter()
            .find(|b| b.chords.iter().any(|c| c.matches(key, typing)) && holds(b.when))
            .map(|b| b.action.clone())
    }

    /// For an overlay: no typing, no guards.
    pub fn find_always(&self, key: &KeyEvent) -> Option<Action> {
        self.find(key, false, |g| g == Guard::Always)
    }
}

/// `↑`/`k` and `↓`/`j`, the cursor keys every list uses.
pub const UP: &[Chord] = &[Chord::key(KeyCode::Up), Chord::char('k')];
pub const DOWN: &[Chord] = &[Chord::key(KeyCode::Down), Chord::char('j')];

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    #[test]
    fn plain_characters_are_text_while_typing() {
        let q = Chord::char('q');
        assert!(q.matches(&ev(KeyCode::Char('q'), KeyModifiers::NONE), false));
        assert!(!q.matches(&ev(KeyCode::Char('q'), KeyModifiers::NONE), true));
        // A terminal may report `?` with Shift: still the chord.
        assert!(Chord::char('?').matches(&ev(KeyCode::Char('?'), KeyModifiers::SHIFT), false));
        // Non-character keys act while typing.
        assert!(Chord::key(KeyCode::F(1)).matches(&ev(KeyCode::F(1), KeyModifiers::NONE), true));
    }

    #[test]
    fn modifier_chords() {
        let c = Chord::ctrl('c');
        assert!(c.matches(&ev(KeyCode::Char('C'), KeyModifiers::CONTROL), true));
        assert!(!c.matches(&ev(KeyCode::Char('c'), KeyModifiers::NONE), false));
        let nl = Chord::alt_or_shift(KeyCode::Enter);
        assert!(nl.matches(&ev(KeyCode::Enter, KeyModifiers::SHIFT), true));
        assert!(!nl.matches(&ev(KeyCode::Enter, KeyModifiers::NONE), true));
        let send = Chord::no_ctrl(KeyCode::Enter);
        assert!(send.matches(&ev(KeyCode::Enter, KeyModifiers::ALT), true));
        assert!(!send.matches(&ev(KeyCode::Enter, KeyModifiers::CONTROL), true));
        for chord in [c, nl, send, Chord::char('x'), Chord::key(KeyCode::Up)] {
            assert!(chord.matches(&chord.example(), false), "{chord:?}");
        }
    }

    #[test]
    fn labels() {
        assert_eq!(Chord::ctrl('c').label(), "Ctrl-C");
        assert_eq!(Chord::ctrl('c').short_label(), "^C");
        assert_eq!(
            Chord::alt_or_shift(KeyCode::Enter).short_label(),
            "Alt-Enter"
        );
        assert_eq!(Chord::char(' ').label(), "Space");
        const HELP: &[Chord] = &[Chord::char('?'), Chord::key(KeyCode::F(1))];
        let b = Binding::new(HELP, "help", Action::ToggleHelp);
        assert_eq!(b.label(), "? / F1");
    }

    #[test]
    fn the_first_binding_whose_guard_holds_wins() {
        static GROUP: KeyGroup = KeyGroup {
            title: "t",
            scope: Scope::Anywhere,
            bindings: &[
                Binding::new(&[Chord::key(KeyCode::Esc)], "cancel", Action::CancelQuery)
                    .when(Guard::QueryRunning),
                Binding::new(&[Chord::key(KeyCode::Esc)], "close", Action::CloseOverlay),
            ],
        };
        let esc = ev(KeyCode::Esc, KeyModifiers::NONE);
        assert_eq!(GROUP.find(&esc, false, |_| true), Some(Action::CancelQuery));
        assert_eq!(
            GROUP.find(&esc, false, |g| g != Guard::QueryRunning),
            Some(Action::CloseOverlay)
        );
        assert_eq!(
            GROUP.find_always(&ev(KeyCode::Tab, KeyModifiers::NONE)),
            None
        );
    }
}
