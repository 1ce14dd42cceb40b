//! The `cached_state` inspector: the stages on the left in the order they ran (the session's own
//! fields under a separator), a folding JSON tree of the selected one on the right.

use crate::orchestrator::api::{OrchestrationResult, TopologyView};
use crate::tui::action::{Action, Dir, Effect};
use crate::tui::json_tree::{json_lines, JsonLine};
use crate::tui::keymap::{Binding, Chord, KeyGroup, Scope};
use crate::tui::theme;
use crate::tui::widgets::{centered, panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use std::collections::BTreeSet;

/// Width of the left column (stage names).
const STAGES_WIDTH: u16 = 16;

pub static KEYS: KeyGroup = KeyGroup {
    title: "Inspector",
    scope: Scope::Inspector,
    bindings: &[
        Binding::new(
            &[Chord::key(KeyCode::Up)],
            "previous stage",
            Action::InspectorStage(Dir::Up),
        ),
        Binding::new(
            &[Chord::key(KeyCode::Down)],
            "next stage",
            Action::InspectorStage(Dir::Down),
        ),
        Binding::new(
            &[Chord::char('k')],
            "up the tree",
            Action::InspectorTree(Dir::Up),
        ),
        Binding::new(
            &[Chord::char('j')],
            "down the tree",
            Action::InspectorTree(Dir::Down),
        ),
        Binding::new(
            &[Chord::key(KeyCode::Enter), Chord::char(' ')],
            "fold or unfold the node",
            Action::ToggleFold,
        ),
        Binding::new(
            &[
                Chord::char('i'),
                Chord::char('q'),
                Chord::key(KeyCode::F(3)),
            ],
            "close the inspector",
            Action::CloseOverlay,
        ),
    ],
};

/// The inspector entry that shows the result's `react_log`.
pub const REACT_LOG: &str = "react_log";

/// What the inspector shows for `key`: a stage's slice, or the `react_log`.
fn entry(result: &OrchestrationResult, key: &str) -> Option<serde_json::Value> {
    match result.cached_state.get(key) {
        Some(v) => Some(v.clone()),
        None if key == REACT_LOG => serde_json::to_value(&result.react_log).ok(),
        None => None,
    }
}

/// `cached_state` keys that belong to the session, not to a stage.
pub fn is_session_field(key: &str) -> bool {
    key == "session_id"
}

/// Keys of a result's `cached_state`: the stages in the order they ran, then the session's own
/// fields (`session_id`), apart.
pub fn state_keys(result: &OrchestrationResult, topology: &TopologyView) -> Vec<String> {
    let mut stages: Vec<String> = Vec::new();
    for s in &result.stages {
        let id = s.id.to_string();
        if result.cached_state.contains_key(&id) && !stages.contains(&id) {
            stages.push(id);
        }
    }
    // Stages without a trace entry (older records): after those with one, in topology order.
    let mut rest: Vec<&String> = result
        .cached_state
        .keys()
        .filter(|k| !stages.contains(k) && !is_session_field(k))
        .collect();
    rest.sort_by_key(|k| topology.position(k));
    stages.extend(rest.into_iter().cloned());
    // A decomposed question's record of how its graph was planned and run, replayable here.
    if !result.react_log.is_empty() {
        stages.push(REACT_LOG.to_string());
    }
    stages.extend(
        result
            .cached_state
            .keys()
            .filter(|k| is_session_field(k))
            .cloned(),
    );
    stages
}

#[derive(Debug, Clone, PartialEq)]
pub struct Inspector {
    /// The inspected turn.
    pub turn: usize,
    /// Index into [`state_keys`].
    pub stage: usize,
    pub tree_cursor: usize,
    /// JSON paths (e.g. `/plan/metadata_hints`) that are folded.
    pub folded: BTreeSet<String>,
}

impl Inspector {
    pub fn open(turn: usize) -> Inspector {
        Inspector {
            turn,
            stage: 0,
            tree_cursor: 0,
            folded: BTreeSet::new(),
        }
    }

    pub fn key(&self, key: &KeyEvent) -> Option<Action> {
        KEYS.find_always(key)
    }

    /// The inspector's own actions; `result` is the inspected turn's.
    pub fn update(
        &mut self,
        action: &Action,
        result: Option<&OrchestrationResult>,
        topology: &TopologyView,
    ) -> Vec<Effect> {
        let keys = result.map(|r| state_keys(r, topology)).unwrap_or_default();
        match action {
            Action::InspectorStage(dir) => {
                self.stage = dir.step(self.stage, keys.len());
                self.tree_cursor = 0;
            }
            Action::InspectorTree(dir) => {
                let len = self.tree(result, &keys).len();
                self.tree_cursor = dir.step(self.tree_cursor, len);
            }
            Action::ToggleFold => {
                let path = self
                    .tree(result, &keys)
                    .get(self.tree_cursor)
                    .filter(|l| l.foldable)
                    .map(|l| l.path.clone());
                if let Some(path) = path {
                    if !self.folded.remove(&path) {
                        self.folded.insert(path);
                    }
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// The visible lines of the selected stage's JSON tree.
    fn tree(&self, result: Option<&OrchestrationResult>, keys: &[String]) -> Vec<JsonLine> {
        keys.get(self.stage)
            .and_then(|k| entry(result?, k))
            .map(|v| json_lines(&v, &self.folded))
            .unwrap_or_default()
    }

    pub fn draw(
        &self,
        result: Option<&OrchestrationResult>,
        topology: &TopologyView,
        frame: &mut Frame,
        area: Rect,
    ) {
        let rect = centered(
            area,
            area.width.saturating_sub(4).max(area.width.min(20)),
            area.height.saturating_sub(2).max(area.height.min(6)),
        );
        frame.render_widget(Clear, rect);
        let block = panel("Inspector: ↑↓ stage · j/k tree · Space fold · Esc", true);
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        let keys = result.map(|r| state_keys(r, topology)).unwrap_or_default();
        if keys.is_empty() {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    "no cached state (query not finished)",
                    theme::dim(),
                )),
                inner,
            );
            return;
        }
        let [left, right] =
            Layout::horizontal([Constraint::Length(STAGES_WIDTH), Constraint::Min(0)]).areas(inner);
        frame.render_widget(Paragraph::new(self.stage_lines(&keys)), left);
        let tree: Vec<Line> = self
            .tree(result, &keys)
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let marker = match (l.foldable, l.folded) {
                    (false, _) => "  ",
                    (true, true) => "▸ ",
                    (true, false) => "▾ ",
                };
                let line = Line::from(format!("{}{marker}{}", "  ".repeat(l.depth), l.text));
                if i == self.tree_cursor {
                    line.style(theme::selected())
                } else {
                    line
                }
            })
            .collect();
        let skip = self
            .tree_cursor
            .saturating_sub(right.height.saturating_sub(1) as usize);
        frame.render_widget(
            Paragraph::new(tree).scroll((u16::try_from(skip).unwrap_or(u16::MAX), 0)),
            right,
        );
    }

    /// The left column: stages, then a separator, then the session's fields.
    fn stage_lines(&self, keys: &[String]) -> Vec<Line<'static>> {
        let mut lines = Vec::with_capacity(keys.len() + 1);
        for (i, k) in keys.iter().enumerate() {
            let first_session_field =
                is_session_field(k) && (i == 0 || !is_session_field(&keys[i - 1]));
            if first_session_field {
                lines.push(Line::from(Span::styled(
                    format!("{:─<width$}", "── session ", width = STAGES_WIDTH as usize),
                    theme::dim(),
                )));
            }
            let line = Line::from(k.clone());
            lines.push(if i == self.stage {
                line.style(theme::selected())
            } else {
                line
            });
        }
        lines
    }
}
