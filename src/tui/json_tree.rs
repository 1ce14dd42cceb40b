//! A JSON value as the lines of a folding tree, for the inspector.

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
