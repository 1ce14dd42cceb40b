//! The UI state: one `App`. Panels keep their state here (focus, cursors, scroll, the input);
//! an open overlay keeps its own state in [`Overlay`], as the type its component defines.
//! Changing the state is `update`'s job (`crate::tui::update`); this module only answers
//! questions about it.

use crate::orchestrator::api::{BreakerSnapshot, ContextItem, Passage, TopologyView};
use crate::session::LoadedSession;
use crate::tui::action::Notice;
use crate::tui::components::help::Help;
use crate::tui::components::inspector::{self, Inspector};
use crate::tui::components::passage::PassageViewer;
use crate::tui::components::sessions::Sessions;
use crate::tui::components::year_picker::YearPicker;
use crate::tui::keymap::Guard;
use crate::tui::turn::Turn;
use ratatui_textarea::{CursorMove, TextArea};
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Input,
    Chat,
    Citations,
    Topology,
}

impl Focus {
    pub fn next(self) -> Focus {
        match self {
            Focus::Input => Focus::Chat,
            Focus::Chat => Focus::Citations,
            Focus::Citations => Focus::Topology,
            Focus::Topology => Focus::Input,
        }
    }
}

/// The overlay on top of the panels, with its state.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    None,
    Help(Help),
    YearPicker(YearPicker),
    Inspector(Inspector),
    Passage(PassageViewer),
    Sessions(Sessions),
}

/// A row of the backends panel.
#[derive(Debug, Clone, PartialEq)]
pub enum BackendRow {
    /// Runs in this process (embedder, reranker): nothing remote to break, so no breaker.
    InProcess { name: String, detail: String },
    /// A remote backend behind a circuit breaker, as last reported by the orchestrator.
    Remote(BreakerSnapshot),
}

impl BackendRow {
    pub fn name(&self) -> &str {
        match self {
            BackendRow::InProcess { name, .. } => name,
            BackendRow::Remote(s) => &s.backend,
        }
    }
}

#[derive(Clone)]
pub struct App {
    pub turns: Vec<Turn>,
    pub input: TextArea<'static>,
    pub history: Vec<String>,
    pub history_pos: Option<usize>,
    pub focus: Focus,
    pub overlay: Overlay,
    pub years: BTreeMap<i32, usize>,
    pub selected_years: BTreeSet<i32>,
    /// `Some` while a query runs; the id is empty until `QueryStarted` names it.
    pub running: Option<String>,
    pub backend: String,
    pub index_chunks: usize,
    pub session_id: String,
    pub topology: TopologyView,
    pub breakers: Vec<BackendRow>,
    /// Passages fetched for the passage viewer, by chunk id (`None`: not in the index).
    pub passages: HashMap<String, Option<Passage>>,
    /// Selected turn; `None` follows the latest.
    pub selected_turn: Option<usize>,
    pub citation_cursor: usize,
    /// Lines scrolled back from the bottom of the chat.
    pub chat_scroll: usize,
    pub size: (u16, u16),
    pub spinner_tick: u64,
    pub dirty: bool,
    pub should_quit: bool,
    /// The last notice (saved, exported, an error), shown until the next key.
    pub notice: Option<Notice>,
}

impl App {
    pub fn new(
        backend: impl Into<String>,
        index_chunks: usize,
        years: BTreeMap<i32, usize>,
        topology: TopologyView,
        session_id: impl Into<String>,
    ) -> App {
        App {
            turns: Vec::new(),
            input: new_input(),
            history: Vec::new(),
            history_pos: None,
            focus: Focus::Input,
            overlay: Overlay::None,
            years,
            selected_years: BTreeSet::new(),
            running: None,
            backend: backend.into(),
            index_chunks,
            session_id: session_id.into(),
            topology,
            breakers: vec![
                BackendRow::InProcess {
                    name: "embedder".into(),
                    detail: "in-process".into(),
                },
                BackendRow::InProcess {
                    name: "reranker".into(),
                    detail: "in-process".into(),
                },
            ],
            passages: HashMap::new(),
            selected_turn: None,
            citation_cursor: 0,
            chat_scroll: 0,
            size: (0, 0),
            spinner_tick: 0,
            dirty: true,
            should_quit: false,
            notice: None,
        }
    }

    /// Shows a remote backend's breaker, replacing its earlier row.
    pub fn set_breaker(&mut self, snapshot: BreakerSnapshot) {
        match self
            .breakers
            .iter_mut()
            .find(|b| b.name() == snapshot.backend)
        {
            Some(row) => *row = BackendRow::Remote(snapshot),
            None => self.breakers.push(BackendRow::Remote(snapshot)),
        }
    }

    /// The earlier answered turns, oldest first: what a follow-up question ("and in 2021?")
    /// is resolved against.
    pub fn chat_context(&self) -> Vec<ContextItem> {
        self.turns
            .iter()
            .filter_map(|t| {
                t.result
                    .as_ref()
                    .map(|r| ContextItem::from_result(&t.question, r))
            })
            .collect()
    }

    /// A fetched passage for the viewer (`None`: the index does not hold it).
    pub fn add_passage(&mut self, chunk_id: String, passage: Option<Passage>) {
        self.passages.insert(chunk_id, passage);
    }

    /// The turn the side panels describe: the selected one, or the latest.
    pub fn current_turn_index(&self) -> Option<usize> {
        let last = self.turns.len().checked_sub(1)?;
        Some(self.selected_turn.unwrap_or(last).min(last))
    }

    pub fn current_turn(&self) -> Option<&Turn> {
        self.current_turn_index().map(|i| &self.turns[i])
    }

    /// The last turn while a query runs (the one it answers).
    pub fn running_turn_mut(&mut self) -> Option<&mut Turn> {
        self.running.as_ref()?;
        self.turns.last_mut()
    }

    pub fn input_text(&self) -> String {
        self.input.lines().join("\n")
    }

    pub fn set_input(&mut self, text: &str) {
        let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let mut ta = TextArea::new(lines);
        style_input(&mut ta);
        ta.move_cursor(CursorMove::Bottom);
        ta.move_cursor(CursorMove::End);
        self.input = ta;
    }

    pub fn clear_input(&mut self) {
        self.input = new_input();
    }

    /// Keys typed go into the input: it has focus and no overlay covers it.
    pub fn typing(&self) -> bool {
        self.focus == Focus::Input && self.overlay == Overlay::None
    }

    /// Whether a key binding's condition holds now.
    pub fn holds(&self, guard: Guard) -> bool {
        match guard {
            Guard::Always => true,
            Guard::QueryRunning => self.running.is_some(),
            Guard::NoQueryRunning => self.running.is_none(),
            Guard::CursorOnFirstLine => self.input.cursor().0 == 0,
            Guard::CursorOnLastLine => self.input.cursor().0 + 1 >= self.input.lines().len(),
        }
    }

    /// Keys of the inspected turn's `cached_state`: the stages in the order they ran, then the
    /// session's own fields (`session_id`), apart.
    pub fn inspector_keys(&self, turn: usize) -> Vec<String> {
        self.turns
            .get(turn)
            .and_then(|t| t.result.as_ref())
            .map(|r| inspector::state_keys(r, &self.topology))
            .unwrap_or_default()
    }

    /// A session read from disk replaces the conversation on screen (not while a query runs:
    /// its answer would land in the wrong conversation).
    pub fn load_session(&mut self, loaded: &LoadedSession) {
        if self.running.is_some() {
            return;
        }
        self.session_id = loaded.session_id.clone();
        self.turns = loaded.turns.iter().map(Turn::from_record).collect();
        self.history = self.turns.iter().map(|t| t.question.clone()).collect();
        self.history_pos = None;
        self.selected_turn = None;
        self.citation_cursor = 0;
        self.chat_scroll = 0;
        self.overlay = Overlay::None;
        let turns = loaded.turns.len();
        self.notice = Some(if loaded.damaged.is_empty() {
            Notice::info(format!("reopened {} ({turns} turns)", loaded.session_id))
        } else {
            Notice::error(format!(
                "reopened {} ({turns} turns); {} damaged line(s) skipped, the file is left as it was",
                loaded.session_id,
                loaded.damaged.len()
            ))
        });
    }
}

fn style_input(ta: &mut TextArea<'static>) {
    ta.set_placeholder_text("Ask a question (Enter to send, Alt-Enter for a new line)");
    ta.set_cursor_line_style(ratatui::style::Style::default());
}

fn new_input() -> TextArea<'static> {
    let mut ta = TextArea::default();
    style_input(&mut ta);
    ta
}
