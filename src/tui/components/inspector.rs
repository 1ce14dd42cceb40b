//! The `cached_state` inspector: stages on the left, a folding JSON tree on the right.

use crate::tui::app::App;
use crate::tui::components::{centered, panel};
use crate::tui::theme;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use serde_json::Value;
use std::collections::BTreeSet;

/// One visible line of a JSON tree.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonLine {
    /// JSON-pointer-like path of the node (`""` for the root).
    pub path: String,
    pub depth: usize,
    pub text: String,
    pub foldable: bool,
    pub folded: bool,
}

/// The visible lines of `value`, with the paths in `folded` collapsed.
pub fn json_lines(value: &Value, folded: &BTreeSet<String>) -> Vec<JsonLine> {
    let mut out = Vec::new();
    walk(value, None, String::new(), 0, folded, &mut out);
    out
}

fn scalar(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        let cut: String = s.chars().take(200).collect();
        format!("{cut}…")
    } else {
        s
    }
}

fn walk(
    value: &Value,
    key: Option<&str>,
    path: String,
    depth: usize,
    folded: &BTreeSet<String>,
    out: &mut Vec<JsonLine>,
) {
    let prefix = key.map(|k| format!("{k}: ")).unwrap_or_default();
    let children: Vec<(String, &Value)> = match value {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => {
            out.push(JsonLine {
                path,
                depth,
                text: format!("{prefix}{}", scalar(value)),
                foldable: false,
                folded: false,
            });
            return;
        }
    };
    let (open, close) = if value.is_object() {
        ("{", "}")
    } else {
        ("[", "]")
    };
    let is_folded = folded.contains(&path);
    let text = if is_folded || children.is_empty() {
        format!("{prefix}{open}…{} {close}", children.len())
    } else {
        format!("{prefix}{open}")
    };
    out.push(JsonLine {
        path: path.clone(),
        depth,
        text,
        foldable: !children.is_empty(),
        folded: is_folded,
    });
    if is_folded {
        return;
    }
    for (k, v) in children {
        walk(v, Some(&k), format!("{path}/{k}"), depth + 1, folded, out);
    }
}

pub fn render_inspector(
    app: &App,
    turn: usize,
    stage: usize,
    tree_cursor: usize,
    folded: &BTreeSet<String>,
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
    let keys = app.inspector_keys(turn);
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
        Layout::horizontal([Constraint::Length(16), Constraint::Min(0)]).areas(inner);
    let stage_lines: Vec<Line> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let l = Line::from(k.clone());
            if i == stage {
                l.style(theme::selected())
            } else {
                l
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(stage_lines), left);
    let value = app.turns[turn]
        .result
        .as_ref()
        .and_then(|r| keys.get(stage).and_then(|k| r.cached_state.get(k)));
    let Some(value) = value else { return };
    let tree: Vec<Line> = json_lines(value, folded)
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let marker = if !l.foldable {
                "  "
            } else if l.folded {
                "▸ "
            } else {
                "▾ "
            };
            let line = Line::from(format!("{}{marker}{}", "  ".repeat(l.depth), l.text));
            if i == tree_cursor {
                line.style(theme::selected())
            } else {
                line
            }
        })
        .collect();
    let skip = tree_cursor.saturating_sub(right.height.saturating_sub(1) as usize);
    frame.render_widget(
        Paragraph::new(tree).scroll((u16::try_from(skip).unwrap_or(u16::MAX), 0)),
        right,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folding_hides_children() {
        let v = json!({"a": {"b": 1, "c": [1, 2]}, "d": "x"});
        let open = json_lines(&v, &BTreeSet::new());
        assert_eq!(open.len(), 7);
        let folded: BTreeSet<String> = ["/a".to_string()].into();
        let lines = json_lines(&v, &folded);
        assert_eq!(lines.len(), 3);
        assert!(lines[1].folded);
        assert_eq!(lines[1].text, "a: {…2 }");
    }
}
