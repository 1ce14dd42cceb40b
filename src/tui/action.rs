//! Semantic actions and the effects `update` asks the caller to perform.

use crate::orchestrator::api::{Command, Event};
use crate::session::{LoadedSession, SessionSummary};
use crossterm::event::{KeyEvent, MouseEvent};

/// A direction for list cursors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Up,
    Down,
}

impl Dir {
    /// Moves a cursor at `i` one step in a list of `len` items, staying inside it.
    pub fn step(self, i: usize, len: usize) -> usize {
        match self {
            _ if len == 0 => 0,
            Dir::Up => i.saturating_sub(1),
            Dir::Down => (i + 1).min(len - 1),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A raw key: translated into one of the semantic actions below (or typed into the input).
    Key(KeyEvent),
    /// A raw mouse event: the wheel scrolls the chat.
    Mouse(MouseEvent),
    Submit,
    InsertNewline,
    HistoryUp,
    HistoryDown,
    FocusNext,
    ScrollUp,
    ScrollDown,
    ToggleHelp,
    /// Scrolls the help overlay.
    HelpScroll(Dir),
    OpenYearPicker,
    YearCursorUp,
    YearCursorDown,
    ToggleYear,
    ToggleAllYears,
    CloseOverlay,
    OpenInspector,
    /// Moves the stage cursor of the inspector.
    InspectorStage(Dir),
    /// Moves the cursor in the inspector's JSON tree.
    InspectorTree(Dir),
    /// Folds or unfolds the JSON node under the inspector's tree cursor.
    ToggleFold,
    OpenPassage,
    /// Moves the cursor of the citations panel.
    CitationCursor(Dir),
    /// Scrolls the passage viewer.
    PassageScroll(Dir),
    CancelQuery,
    Quit,
    Resize(u16, u16),
    Tick,
    Orchestrator(Event),
    SelectTurn(Dir),
    /// Opens the sessions overlay (the list arrives as `SessionsListed`).
    OpenSessions,
    SessionsListed(Vec<SessionSummary>),
    SessionCursor(Dir),
    /// Reopens the session under the sessions cursor.
    OpenSelectedSession,
    /// A session read from disk replaces the conversation on screen.
    SessionLoaded(Box<LoadedSession>),
    /// Writes the conversation as Markdown into the data dir.
    Export,
    /// A message for the status line: saved, exported, or what went wrong.
    Notice(Notice),
}

/// A one-line message under the chat until the next key.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

impl Notice {
    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            text: text.into(),
            error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Notice {
        Notice {
            text: text.into(),
            error: true,
        }
    }
}

/// What `update` asks the caller to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Send(Command),
    Quit,
    /// Read the list of saved sessions.
    ListSessions,
    /// Read this session from disk.
    OpenSession(String),
    /// Write this session as Markdown.
    ExportSession(String),
}
