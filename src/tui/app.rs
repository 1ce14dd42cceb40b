//! The UI state and the pure `update` function.

use super::action::{Action, Dir, Effect, Notice};
use super::json_tree::{json_lines, JsonLine};
use crate::orchestrator::api::{
    BreakerSnapshot, Command, ContextItem, Event, NodeId, OrchestrationResult, Passage,
    StageStatus, TopologyView,
};
use crate::session::{SessionSummary, TurnRecord};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind};
use ratatui_textarea::{CursorMove, TextArea};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Lines scrolled by one PageUp/PageDown or wheel notch.
pub const SCROLL_STEP: usize = 5;

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

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    None,
    Help,
    YearPicker {
        cursor: usize,
    },
    Inspector {
        turn: usize,
        stage: usize,
        tree_cursor: usize,
        /// JSON paths (e.g. `/plan/metadata_hints`) that are folded.
        folded: BTreeSet<String>,
    },
    Passage {
        turn: usize,
        citation: usize,
        scroll: u16,
    },
    /// Saved conversations; `list` is empty until the event loop has read them.
    Sessions {
        cursor: usize,
        list: Vec<SessionSummary>,
    },
}

/// The live state of one stage of a running (or finished) query.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveStage {
    Running {
        loop_index: u8,
    },
    Finished {
        status: StageStatus,
        ms: f64,
        fallback: Option<String>,
        loop_index: u8,
    },
}

/// One question and its answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    pub question: String,
    pub requested_years: Vec<i32>,
    pub query_id: Option<String>,
    /// The answer as streamed so far (replaced by the final answer when the result arrives).
    pub answer: String,
    pub result: Option<OrchestrationResult>,
    /// Latest state of each stage that has started.
    pub stages: BTreeMap<NodeId, LiveStage>,
    /// Stages in the order they started (the path taken), repeated per loop.
    pub path: Vec<NodeId>,
    pub cancelled: bool,
    pub rejected: Option<String>,
}

impl Turn {
    /// A finished turn as recorded, for a reopened session: everything the panels show comes
    /// from the record, nothing is re-run.
    pub fn from_record(record: &TurnRecord) -> Turn {
        let mut t = Turn {
            question: record.question.clone(),
            requested_years: record.requested_years.clone(),
            ..Turn::default()
        };
        t.finish(record.result.clone());
        t
    }

    /// Takes the final result: the answer, every stage's trace, the path taken.
    pub fn finish(&mut self, result: OrchestrationResult) {
        self.query_id = Some(result.query_id.clone());
        self.answer = result.answer.clone();
        for s in &result.stages {
            self.stages.insert(
                s.id.clone(),
                LiveStage::Finished {
                    status: s.status,
                    ms: s.ms,
                    fallback: s.fallback.clone(),
                    loop_index: s.loop_index,
                },
            );
        }
        // A stage cut short by a cancel has no trace: it must not spin on as running.
        for stage in self.stages.values_mut() {
            if let LiveStage::Running { loop_index } = *stage {
                *stage = LiveStage::Finished {
                    status: StageStatus::Cancelled,
                    ms: 0.0,
                    fallback: None,
                    loop_index,
                };
            }
        }
        self.path = result.stages.iter().map(|s| s.id.clone()).collect();
        self.result = Some(result);
    }

    /// Highest reformulation loop seen.
    pub fn loops(&self) -> u8 {
        let live = self
            .stages
            .values()
            .map(|s| match s {
                LiveStage::Running { loop_index } | LiveStage::Finished { loop_index, .. } => {
                    *loop_index
                }
            })
            .max()
            .unwrap_or(0);
        let done = self
            .result
            .as_ref()
            .and_then(|r| r.stages.iter().map(|s| s.loop_index).max())
            .unwrap_or(0);
        live.max(done)
    }
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
        if self.turns.is_empty() {
            return None;
        }
        Some(
            self.selected_turn
                .unwrap_or(self.turns.len() - 1)
                .min(self.turns.len() - 1),
        )
    }

    pub fn current_turn(&self) -> Option<&Turn> {
        self.current_turn_index().map(|i| &self.turns[i])
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

    /// Keys of the inspected turn's `cached_state`: the stages in the order they ran, then the
    /// session's own fields (`session_id`), apart.
    pub fn inspector_keys(&self, turn: usize) -> Vec<String> {
        let Some(r) = self.turns.get(turn).and_then(|t| t.result.as_ref()) else {
            return Vec::new();
        };
        let mut stages: Vec<String> = Vec::new();
        for s in &r.stages {
            let id = s.id.to_string();
            if r.cached_state.contains_key(&id) && !stages.contains(&id) {
                stages.push(id);
            }
        }
        // Stages without a trace entry (older records): after those with one, in topology order.
        let mut rest: Vec<&String> = r
            .cached_state
            .keys()
            .filter(|k| !stages.contains(k) && !is_session_field(k))
            .collect();
        rest.sort_by_key(|k| self.topology.position(k));
        stages.extend(rest.into_iter().cloned());
        stages.extend(
            r.cached_state
                .keys()
                .filter(|k| is_session_field(k))
                .cloned(),
        );
        stages
    }

    fn running_turn_mut(&mut self) -> Option<&mut Turn> {
        self.running.as_ref()?;
        self.turns.last_mut()
    }
}

/// `cached_state` keys that belong to the session, not to a stage.
pub fn is_session_field(key: &str) -> bool {
    key == "session_id"
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

fn is_typing(app: &App) -> bool {
    app.focus == Focus::Input && app.overlay == Overlay::None
}

/// Maps a key to a semantic action for the current state; `None` means "type it".
pub fn translate_key(app: &App, key: KeyEvent) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    if ctrl && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('C')) {
        return Some(Action::Quit);
    }
    let esc = || {
        if app.running.is_some() {
            Action::CancelQuery
        } else {
            Action::CloseOverlay
        }
    };
    match &app.overlay {
        Overlay::Help => {
            return match key.code {
                KeyCode::Esc => Some(esc()),
                KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::F(1) => {
                    Some(Action::CloseOverlay)
                }
                _ => None,
            };
        }
        Overlay::YearPicker { .. } => {
            return Some(match key.code {
                KeyCode::Esc => esc(),
                KeyCode::Up | KeyCode::Char('k') => Action::YearCursorUp,
                KeyCode::Down | KeyCode::Char('j') => Action::YearCursorDown,
                KeyCode::Char(' ') => Action::ToggleYear,
                KeyCode::Char('a') => Action::ToggleAllYears,
                KeyCode::Enter | KeyCode::Char('y') | KeyCode::Char('q') | KeyCode::F(2) => {
                    Action::CloseOverlay
                }
                _ => return None,
            });
        }
        Overlay::Inspector { .. } => {
            return Some(match key.code {
                KeyCode::Esc => esc(),
                KeyCode::Up => Action::InspectorStage(Dir::Up),
                KeyCode::Down => Action::InspectorStage(Dir::Down),
                KeyCode::Char('k') => Action::InspectorTree(Dir::Up),
                KeyCode::Char('j') => Action::InspectorTree(Dir::Down),
                KeyCode::Enter | KeyCode::Char(' ') => Action::ToggleFold,
                KeyCode::Char('i') | KeyCode::Char('q') | KeyCode::F(3) => Action::CloseOverlay,
                _ => return None,
            });
        }
        Overlay::Passage { .. } => {
            return Some(match key.code {
                KeyCode::Esc => esc(),
                KeyCode::Up | KeyCode::Char('k') => Action::PassageScroll(Dir::Up),
                KeyCode::Down | KeyCode::Char('j') => Action::PassageScroll(Dir::Down),
                KeyCode::Char('q') | KeyCode::Enter => Action::CloseOverlay,
                _ => return None,
            });
        }
        Overlay::Sessions { .. } => {
            return Some(match key.code {
                KeyCode::Esc => esc(),
                KeyCode::Up | KeyCode::Char('k') => Action::SessionCursor(Dir::Up),
                KeyCode::Down | KeyCode::Char('j') => Action::SessionCursor(Dir::Down),
                KeyCode::Enter => Action::OpenSelectedSession,
                KeyCode::Char('q') | KeyCode::F(4) => Action::CloseOverlay,
                _ => return None,
            });
        }
        Overlay::None => {}
    }
    match key.code {
        KeyCode::Esc => return Some(esc()),
        KeyCode::Tab => return Some(Action::FocusNext),
        KeyCode::PageUp => return Some(Action::ScrollUp),
        KeyCode::PageDown => return Some(Action::ScrollDown),
        KeyCode::F(1) => return Some(Action::ToggleHelp),
        KeyCode::F(2) => return Some(Action::OpenYearPicker),
        KeyCode::F(3) => return Some(Action::OpenInspector),
        KeyCode::F(4) => return Some(Action::OpenSessions),
        KeyCode::F(5) => return Some(Action::Export),
        _ => {}
    }
    if is_typing(app) {
        return match key.code {
            KeyCode::Enter if alt || shift => Some(Action::InsertNewline),
            KeyCode::Enter if !ctrl => Some(Action::Submit),
            KeyCode::Up if app.input.cursor().0 == 0 => Some(Action::HistoryUp),
            KeyCode::Down if app.input.cursor().0 + 1 >= app.input.lines().len() => {
                Some(Action::HistoryDown)
            }
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char('y') => Action::OpenYearPicker,
        KeyCode::Char('i') => Action::OpenInspector,
        KeyCode::Char('s') => Action::OpenSessions,
        KeyCode::Char('e') => Action::Export,
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Enter if app.focus == Focus::Citations => Action::OpenPassage,
        KeyCode::Up | KeyCode::Char('k') => match app.focus {
            Focus::Citations => Action::CitationCursor(Dir::Up),
            Focus::Topology => Action::ScrollUp,
            _ => Action::SelectTurn(Dir::Up),
        },
        KeyCode::Down | KeyCode::Char('j') => match app.focus {
            Focus::Citations => Action::CitationCursor(Dir::Down),
            Focus::Topology => Action::ScrollDown,
            _ => Action::SelectTurn(Dir::Down),
        },
        _ => return None,
    })
}

fn step(i: usize, dir: Dir, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    match dir {
        Dir::Up => i.saturating_sub(1),
        Dir::Down => (i + 1).min(len - 1),
    }
}

/// Applies one action to the state. No I/O: what must happen outside is returned as effects.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    let mut effects = Vec::new();
    if !matches!(action, Action::Tick) {
        app.dirty = true;
    }
    match action {
        Action::Key(key) => {
            if key.kind == KeyEventKind::Release {
                return effects;
            }
            app.notice = None;
            match translate_key(app, key) {
                Some(a) => return update(app, a),
                None => {
                    if is_typing(app) {
                        app.input.input(key);
                        app.history_pos = None;
                    }
                }
            }
        }
        Action::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => return update(app, Action::ScrollUp),
            MouseEventKind::ScrollDown => return update(app, Action::ScrollDown),
            _ => {}
        },
        Action::Submit => {
            if app.running.is_some() {
                return effects;
            }
            let text = app.input_text().trim().to_string();
            if text.is_empty() {
                return effects;
            }
            let years: Vec<i32> = app.selected_years.iter().copied().collect();
            app.turns.push(Turn {
                question: text.clone(),
                requested_years: years.clone(),
                ..Turn::default()
            });
            if app.history.last() != Some(&text) {
                app.history.push(text.clone());
            }
            app.history_pos = None;
            app.input = new_input();
            app.running = Some(String::new());
            app.selected_turn = None;
            app.citation_cursor = 0;
            app.chat_scroll = 0;
            effects.push(Effect::Send(Command::Ask {
                query: text,
                requested_years: years,
                session_id: app.session_id.clone(),
                context: app.chat_context(),
            }));
        }
        Action::InsertNewline => {
            if is_typing(app) {
                app.input.insert_newline();
            }
        }
        Action::HistoryUp => {
            if app.history.is_empty() {
                return effects;
            }
            let pos = match app.history_pos {
                None => app.history.len() - 1,
                Some(p) => p.saturating_sub(1),
            };
            app.history_pos = Some(pos);
            let text = app.history[pos].clone();
            app.set_input(&text);
        }
        Action::HistoryDown => match app.history_pos {
            None => {}
            Some(p) if p + 1 < app.history.len() => {
                app.history_pos = Some(p + 1);
                let text = app.history[p + 1].clone();
                app.set_input(&text);
            }
            Some(_) => {
                app.history_pos = None;
                app.input = new_input();
            }
        },
        Action::FocusNext => app.focus = app.focus.next(),
        Action::ScrollUp => app.chat_scroll = app.chat_scroll.saturating_add(SCROLL_STEP),
        Action::ScrollDown => app.chat_scroll = app.chat_scroll.saturating_sub(SCROLL_STEP),
        Action::ToggleHelp => {
            app.overlay = if app.overlay == Overlay::Help {
                Overlay::None
            } else {
                Overlay::Help
            }
        }
        Action::OpenYearPicker => app.overlay = Overlay::YearPicker { cursor: 0 },
        Action::YearCursorUp | Action::YearCursorDown => {
            let len = app.years.len();
            if let Overlay::YearPicker { cursor } = &mut app.overlay {
                let dir = if action == Action::YearCursorUp {
                    Dir::Up
                } else {
                    Dir::Down
                };
                *cursor = step(*cursor, dir, len);
            }
        }
        Action::ToggleYear => {
            if let Overlay::YearPicker { cursor } = app.overlay {
                if let Some(year) = app.years.keys().nth(cursor).copied() {
                    if !app.selected_years.remove(&year) {
                        app.selected_years.insert(year);
                    }
                }
            }
        }
        Action::ToggleAllYears => {
            if app.selected_years.len() == app.years.len() && !app.years.is_empty() {
                app.selected_years.clear();
            } else {
                app.selected_years = app.years.keys().copied().collect();
            }
        }
        Action::CloseOverlay => app.overlay = Overlay::None,
        Action::OpenInspector => {
            if let Some(turn) = app.current_turn_index() {
                app.overlay = Overlay::Inspector {
                    turn,
                    stage: 0,
                    tree_cursor: 0,
                    folded: BTreeSet::new(),
                };
            }
        }
        Action::InspectorStage(dir) => {
            if let Overlay::Inspector { turn, .. } = app.overlay {
                let len = app.inspector_keys(turn).len();
                if let Overlay::Inspector {
                    stage, tree_cursor, ..
                } = &mut app.overlay
                {
                    *stage = step(*stage, dir, len);
                    *tree_cursor = 0;
                }
            }
        }
        Action::InspectorTree(dir) => {
            let len = inspector_tree(app).map(|l| l.len()).unwrap_or(0);
            if let Overlay::Inspector { tree_cursor, .. } = &mut app.overlay {
                *tree_cursor = step(*tree_cursor, dir, len);
            }
        }
        Action::ToggleFold => {
            let path = inspector_tree(app).and_then(|lines| {
                let Overlay::Inspector { tree_cursor, .. } = &app.overlay else {
                    return None;
                };
                lines
                    .get(*tree_cursor)
                    .filter(|l| l.foldable)
                    .map(|l| l.path.clone())
            });
            if let (Some(path), Overlay::Inspector { folded, .. }) = (path, &mut app.overlay) {
                if !folded.remove(&path) {
                    folded.insert(path);
                }
            }
        }
        Action::OpenPassage => {
            if let Some(turn) = app.current_turn_index() {
                let chunk = app.turns[turn]
                    .result
                    .as_ref()
                    .and_then(|r| r.citations.get(app.citation_cursor))
                    .map(|c| c.chunk_id.clone());
                if let Some(chunk_id) = chunk {
                    app.overlay = Overlay::Passage {
                        turn,
                        citation: app.citation_cursor,
                        scroll: 0,
                    };
                    if !app.passages.contains_key(&chunk_id) {
                        effects.push(Effect::Send(Command::Passage { chunk_id }));
                    }
                }
            }
        }
        Action::CitationCursor(dir) => {
            let n = app
                .current_turn()
                .and_then(|t| t.result.as_ref())
                .map(|r| r.citations.len())
                .unwrap_or(0);
            app.citation_cursor = step(app.citation_cursor, dir, n);
        }
        Action::PassageScroll(dir) => {
            if let Overlay::Passage { scroll, .. } = &mut app.overlay {
                *scroll = match dir {
                    Dir::Up => scroll.saturating_sub(1),
                    Dir::Down => scroll.saturating_add(1),
                };
            }
        }
        Action::CancelQuery => {
            if app.running.is_some() {
                effects.push(Effect::Send(Command::Cancel));
            } else {
                app.overlay = Overlay::None;
            }
        }
        Action::Quit => {
            app.should_quit = true;
            if app.running.is_some() {
                effects.push(Effect::Send(Command::Cancel));
            }
            effects.push(Effect::Quit);
        }
        Action::Resize(w, h) => app.size = (w, h),
        Action::Tick => {
            app.spinner_tick = app.spinner_tick.wrapping_add(1);
            if app.running.is_some() {
                app.dirty = true;
            }
        }
        Action::Orchestrator(event) => on_event(app, event),
        Action::OpenSessions => {
            if app.running.is_some() {
                app.notice = Some(Notice::error(
                    "a query is running: wait for it or cancel it (Esc) first",
                ));
            } else {
                app.overlay = Overlay::Sessions {
                    cursor: 0,
                    list: Vec::new(),
                };
                effects.push(Effect::ListSessions);
            }
        }
        Action::SessionsListed(found) => {
            if let Overlay::Sessions { list, cursor } = &mut app.overlay {
                *list = found;
                *cursor = (*cursor).min(list.len().saturating_sub(1));
            }
        }
        Action::SessionCursor(dir) => {
            if let Overlay::Sessions { list, cursor } = &mut app.overlay {
                *cursor = step(*cursor, dir, list.len());
            }
        }
        Action::OpenSelectedSession => {
            if let Overlay::Sessions { list, cursor } = &app.overlay {
                if let Some(s) = list.get(*cursor) {
                    effects.push(Effect::OpenSession(s.session_id.clone()));
                }
            }
        }
        Action::SessionLoaded(loaded) => {
            if app.running.is_none() {
                app.session_id = loaded.session_id.clone();
                app.turns = loaded.turns.iter().map(Turn::from_record).collect();
                app.history = app.turns.iter().map(|t| t.question.clone()).collect();
                app.history_pos = None;
                app.selected_turn = None;
                app.citation_cursor = 0;
                app.chat_scroll = 0;
                app.overlay = Overlay::None;
                app.notice = Some(if loaded.damaged.is_empty() {
                    Notice::info(format!(
                        "reopened {} ({} turns)",
                        loaded.session_id,
                        loaded.turns.len()
                    ))
                } else {
                    Notice::error(format!(
                        "reopened {} ({} turns); {} damaged line(s) skipped, the file is left as it was",
                        loaded.session_id,
                        loaded.turns.len(),
                        loaded.damaged.len()
                    ))
                });
            }
        }
        Action::Export => {
            if app.turns.iter().any(|t| t.result.is_some()) {
                effects.push(Effect::ExportSession(app.session_id.clone()));
            } else {
                app.notice = Some(Notice::error("nothing to export yet: ask a question first"));
            }
        }
        Action::Notice(n) => app.notice = Some(n),
        Action::SelectTurn(dir) => {
            if app.turns.is_empty() {
                return effects;
            }
            let cur = app.current_turn_index().unwrap_or(0);
            let next = step(cur, dir, app.turns.len());
            app.selected_turn = if next + 1 == app.turns.len() {
                None
            } else {
                Some(next)
            };
            app.citation_cursor = 0;
        }
    }
    effects
}

fn inspector_tree(app: &App) -> Option<Vec<JsonLine>> {
    let Overlay::Inspector {
        turn,
        stage,
        folded,
        ..
    } = &app.overlay
    else {
        return None;
    };
    let result = app.turns.get(*turn)?.result.as_ref()?;
    let key = app.inspector_keys(*turn).into_iter().nth(*stage)?;
    Some(json_lines(result.cached_state.get(&key)?, folded))
}

fn on_event(app: &mut App, event: Event) {
    match event {
        Event::QueryStarted { query_id, .. } => {
            if app.running.is_some() {
                app.running = Some(query_id.clone());
                if let Some(t) = app.turns.last_mut() {
                    t.query_id = Some(query_id);
                }
            }
        }
        Event::StageStarted {
            stage, loop_index, ..
        } => {
            if let Some(t) = app.running_turn_mut() {
                t.stages
                    .insert(stage.clone(), LiveStage::Running { loop_index });
                t.path.push(stage);
            }
        }
        Event::StageFinished {
            stage,
            ms,
            status,
            fallback,
            loop_index,
            ..
        } => {
            if let Some(t) = app.running_turn_mut() {
                if !t.path.contains(&stage) {
                    t.path.push(stage.clone());
                }
                t.stages.insert(
                    stage,
                    LiveStage::Finished {
                        status,
                        ms,
                        fallback,
                        loop_index,
                    },
                );
            }
        }
        Event::AnswerToken { text, .. } => {
            if let Some(t) = app.running_turn_mut() {
                t.answer.push_str(&text);
            }
        }
        Event::AnswerReset { .. } => {
            if let Some(t) = app.running_turn_mut() {
                t.answer.clear();
            }
        }
        Event::Breaker { snapshot, .. } => app.set_breaker(snapshot),
        Event::Finished { result } => {
            let target = app
                .turns
                .iter()
                .rposition(|t| t.query_id.as_deref() == Some(result.query_id.as_str()))
                .or_else(|| app.running.as_ref().and(app.turns.len().checked_sub(1)));
            if let Some(i) = target {
                app.turns[i].finish(*result);
                if i + 1 == app.turns.len() {
                    app.running = None;
                }
            }
        }
        Event::Cancelled { .. } => {
            if let Some(t) = app.running_turn_mut() {
                t.cancelled = true;
            }
            app.running = None;
        }
        Event::Rejected { reason } => {
            if let Some(t) = app.running_turn_mut() {
                t.rejected = Some(reason);
            }
            app.running = None;
        }
        Event::Passage { chunk_id, passage } => app.add_passage(chunk_id, passage.map(|p| *p)),
        // The task graph is drawn from the finished result for now.
        Event::Graph { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> App {
        App::new(
            "offline",
            0,
            BTreeMap::new(),
            crate::orchestrator::topology::qa::topology(2).view(),
            "s",
        )
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
        a.overlay = Overlay::Help;
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
