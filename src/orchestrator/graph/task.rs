//! Task graphs (ARCHITECTURE §8): the sub-questions a question is decomposed into, their tools,
//! dependencies and tool affinities, and the `react_log` that records how the graph was made and
//! run. [`set_task_graph`] normalises any graph — from the offline planner or from a model — into
//! one the coordinator can run, logging each adjustment.

use crate::corpus::Date;
use crate::query::MetadataHints;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Most tasks a graph may hold; more are dropped (and logged).
pub const MAX_TASKS: usize = 16;

/// What a task looks for: the dates its sub-question is about, and the document series to
/// prefer (`statement`, `minutes`, … as they appear in file names), when given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskCriteria {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dates: Option<MetadataHints>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<String>,
    /// The one document the task is about, when the planner found it (a sweep over meetings
    /// picks each meeting's statement): the task answers from it when the search finds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// A label for the answer line this task produces ("March 2018", "June 2004 side").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
}

/// One sub-question of a decomposed question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub question: String,
    /// Tools the task runs (`search`, `extract`).
    pub tools: Vec<String>,
    /// Ids of tasks that must finish first.
    pub depends_on: Vec<String>,
    pub criteria: TaskCriteria,
    /// How well each tool suits the task, 0..1; the coordinator runs high-affinity tasks first.
    pub affinity: BTreeMap<String, f64>,
}

impl Task {
    /// The task's highest tool affinity (0 without any).
    pub fn max_affinity(&self) -> f64 {
        self.affinity.values().copied().fold(0.0, f64::max)
    }
}

/// The tasks of one question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskGraph {
    pub tasks: Vec<Task>,
}

impl TaskGraph {
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Dependency depth of every task: 0 without dependencies, else one more than its deepest
    /// dependency. (The graph is acyclic after [`set_task_graph`].)
    pub fn depths(&self) -> BTreeMap<String, usize> {
        let mut depth: BTreeMap<String, usize> = BTreeMap::new();
        // At most |tasks| rounds settle every depth in a DAG.
        for _ in 0..=self.tasks.len() {
            let mut changed = false;
            for t in &self.tasks {
                let d = t
                    .depends_on
                    .iter()
                    .map(|p| depth.get(p).copied().unwrap_or(0) + 1)
                    .max()
                    .unwrap_or(0);
                if depth.get(&t.id) != Some(&d) {
                    depth.insert(t.id.clone(), d);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        depth
    }
}

/// One entry of the `react_log`: what happened, when (ms since the query started), the details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReactEntry {
    pub kind: String,
    pub at_ms: u64,
    pub detail: Value,
}

/// The record of how a task graph was planned and run, replayable without re-running it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReactLog(pub Vec<ReactEntry>);

impl ReactLog {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn push(&mut self, kind: &str, at_ms: u64, detail: Value) {
        self.0.push(ReactEntry {
            kind: kind.to_string(),
            at_ms,
            detail,
        });
    }

    /// Entries of one kind.
    pub fn of<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a ReactEntry> + 'a {
        self.0.iter().filter(move |e| e.kind == kind)
    }
}

/// Records what the planner was asked, what it answered and the graph made of it.
pub fn record_planner_trace(
    log: &mut ReactLog,
    at_ms: u64,
    prompt: &str,
    raw: &str,
    graph: &TaskGraph,
) {
    log.push(
        "planner.trace",
        at_ms,
        json!({"prompt": prompt, "raw_response": raw, "graph": graph}),
    );
}

/// Turns a planner's graph (any JSON: `{"tasks": [...]}` or a bare array) into a runnable
/// [`TaskGraph`]: strings where lists belong become one-item lists, tasks without a question
/// are dropped, duplicate ids renamed, dependencies on unknown tasks pruned, cycles broken, the
/// size capped at [`MAX_TASKS`]. Every adjustment is a `planner.normalization` entry in `log`.
pub fn set_task_graph(raw: &Value, log: &mut ReactLog, at_ms: u64) -> TaskGraph {
    let mut note = |what: &str, detail: Value| {
        let mut d = Map::new();
        d.insert("adjustment".into(), json!(what));
        if let Value::Object(m) = detail {
            d.extend(m);
        }
        log.push("planner.normalization", at_ms, Value::Object(d));
    };
    let items: Vec<Value> = match raw {
        Value::Array(a) => a.clone(),
        Value::Object(o) => match o.get("tasks") {
            Some(Value::Array(a)) => a.clone(),
            Some(other) => {
                note(
                    "tasks was not a list; taken as one task",
                    json!({"value": other}),
                );
                vec![other.clone()]
            }
            None => {
                note("no tasks given", json!({}));
                Vec::new()
            }
        },
        other => {
            note(
                "the graph was not an object or a list; ignored",
                json!({"value": other}),
            );
            Vec::new()
        }
    };
    let mut tasks: Vec<Task> = Vec::new();
    let mut ids: BTreeSet<String> = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        let Some(obj) = item.as_object() else {
            note(
                "a task that is not an object was dropped",
                json!({"index": i, "value": item}),
            );
            continue;
        };
        let question = obj
            .get("question")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("");
        if question.is_empty() {
            note("a task without a question was dropped", json!({"index": i}));
            continue;
        }
        let mut id = match obj.get("id") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            Some(Value::Number(n)) => format!("t{n}"),
            _ => {
                let id = format!("t{}", i + 1);
                note(
                    "a task without an id was given one",
                    json!({"index": i, "id": id}),
                );
                id
            }
        };
        if ids.contains(&id) {
            let mut k = 2;
            while ids.contains(&format!("{id}_{k}")) {
                k += 1;
            }
            let renamed = format!("{id}_{k}");
            note(
                "a repeated task id was renamed",
                json!({"id": id, "renamed": renamed}),
            );
            id = renamed;
        }
        ids.insert(id.clone());
        let list = |key: &str, note: &mut dyn FnMut(&str, Value)| -> Vec<String> {
            match obj.get(key) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::String(s)) => {
                    note(
                        &format!("{key} was a string; made a list"),
                        json!({"task": id, "value": s}),
                    );
                    s.split(',')
                        .map(str::trim)
                        .filter(|x| !x.is_empty())
                        .map(str::to_string)
                        .collect()
                }
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|v| match v {
                        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
                        Value::Number(n) => Some(format!("t{n}")),
                        _ => None,
                    })
                    .collect(),
                Some(other) => {
                    note(
                        &format!("{key} was neither a string nor a list; ignored"),
                        json!({"task": id, "value": other}),
                    );
                    Vec::new()
                }
            }
        };
        let mut tools = list("tools", &mut note);
        if tools.is_empty() {
            tools = vec!["search".into(), "extract".into()];
        }
        let depends_on = list("depends_on", &mut note);
        let criteria = criteria_of(obj);
        let affinity = obj
            .get("affinity")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?.clamp(0.0, 1.0))))
                    .collect()
            })
            .unwrap_or_else(|| tools.iter().map(|t| (t.clone(), 0.5)).collect());
        tasks.push(Task {
            id,
            question: question.to_string(),
            tools,
            depends_on,
            criteria,
            affinity,
        });
    }
    if tasks.len() > MAX_TASKS {
        let dropped: Vec<String> = tasks[MAX_TASKS..].iter().map(|t| t.id.clone()).collect();
        note(
            "the graph was cut to its size cap",
            json!({"cap": MAX_TASKS, "dropped": dropped}),
        );
        tasks.truncate(MAX_TASKS);
    }
    let known: BTreeSet<String> = tasks.iter().map(|t| t.id.clone()).collect();
    for t in &mut tasks {
        let before = t.depends_on.clone();
        let mut seen = BTreeSet::new();
        t.depends_on
            .retain(|d| d != &t.id && known.contains(d) && seen.insert(d.clone()));
        // What was removed, repeats included.
        let mut kept = t.depends_on.clone();
        let pruned: Vec<&String> = before
            .iter()
            .filter(|d| match kept.iter().position(|k| k == *d) {
                Some(at) => {
                    kept.remove(at);
                    false
                }
                None => true,
            })
            .collect();
        if !pruned.is_empty() {
            note(
                "dependencies on missing tasks, on itself or repeated were pruned",
                json!({"task": t.id, "pruned": pruned}),
            );
        }
    }
    break_cycles(&mut tasks, &mut note);
    TaskGraph { tasks }
}

/// The task's criteria: a date range from `date_start`/`date_end` (or `criteria.dates`), the
/// series, the label.
fn criteria_of(obj: &Map<String, Value>) -> TaskCriteria {
    let nested = obj.get("criteria").and_then(Value::as_object);
    let get = |k: &str| {
        obj.get(k)
            .or_else(|| nested.and_then(|n| n.get(k)))
            .and_then(Value::as_str)
    };
    let dates = match (
        get("date_start").and_then(Date::parse),
        get("date_end").and_then(Date::parse),
    ) {
        (Some(s), Some(e)) if s <= e => Some(MetadataHints {
            date_start: s,
            date_end: e,
        }),
        (Some(s), None) => Some(MetadataHints {
            date_start: s,
            date_end: s,
        }),
        _ => nested
            .and_then(|n| n.get("dates"))
            .and_then(|d| serde_json::from_value(d.clone()).ok()),
    };
    TaskCriteria {
        dates,
        series: get("series").map(str::to_string),
        document: get("document").map(str::to_string),
        label: get("label").unwrap_or("").to_string(),
    }
}

/// Removes the dependency edges that close cycles (found by depth-first search in task order),
/// so the graph runs; each removed edge is logged.
fn break_cycles(tasks: &mut [Task], note: &mut dyn FnMut(&str, Value)) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let index: BTreeMap<String, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    let mut marks = vec![Mark::New; tasks.len()];
    let mut removed: Vec<(usize, String)> = Vec::new();
    fn visit(
        i: usize,
        tasks: &[Task],
        index: &BTreeMap<String, usize>,
        marks: &mut [Mark],
        removed: &mut Vec<(usize, String)>,
    ) {
        marks[i] = Mark::Open;
        for dep in &tasks[i].depends_on {
            let Some(&j) = index.get(dep) else { continue };
            if removed.iter().any(|(a, b)| *a == i && b == dep) {
                continue;
            }
            match marks[j] {
                Mark::Open => removed.push((i, dep.clone())),
                Mark::New => visit(j, tasks, index, marks, removed),
                Mark::Done => {}
            }
        }
        marks[i] = Mark::Done;
    }
    for i in 0..tasks.len() {
        if marks[i] == Mark::New {
            visit(i, tasks, &index, &mut marks, &mut removed);
        }
    }
    for (i, dep) in removed {
        note(
            "a dependency that closed a cycle was removed",
            json!({"task": tasks[i].id, "depended_on": dep}),
        );
        tasks[i].depends_on.retain(|d| d != &dep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(v: Value) -> (TaskGraph, ReactLog) {
        let mut log = ReactLog::default();
        let g = set_task_graph(&v, &mut log, 0);
        (g, log)
    }

    fn adjustments(log: &ReactLog) -> Vec<String> {
        log.of("planner.normalization")
            .map(|e| e.detail["adjustment"].as_str().unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn strings_become_lists_and_defaults_fill_in() {
        let (g, log) = norm(json!({"tasks": [
            {"id": "a", "question": "Q1?", "tools": "search", "depends_on": ""},
            {"id": "b", "question": "Q2?", "depends_on": "a"},
        ]}));
        assert_eq!(g.tasks[0].tools, vec!["search"]);
        assert!(g.tasks[0].depends_on.is_empty());
        assert_eq!(g.tasks[1].depends_on, vec!["a"]);
        assert_eq!(g.tasks[1].tools, vec!["search", "extract"], "default tools");
        assert_eq!(g.tasks[1].affinity.get("search"), Some(&0.5));
        let a = adjustments(&log);
        assert!(
            a.contains(&"tools was a string; made a list".to_string()),
            "{a:?}"
        );
        assert!(
            a.contains(&"depends_on was a string; made a list".to_string()),
            "{a:?}"
        );
    }

    #[test]
    fn missing_dependencies_and_self_loops_are_pruned() {
        let (g, log) = norm(json!([
            {"id": "a", "question": "Q1?", "depends_on": ["ghost", "a"]},
            {"id": "b", "question": "Q2?", "depends_on": ["a", "a"]},
        ]));
        assert!(g.tasks[0].depends_on.is_empty());
        assert_eq!(g.tasks[1].depends_on, vec!["a"], "duplicates dropped too");
        assert_eq!(
            adjustments(&log)
                .iter()
                .filter(|a| a.starts_with("dependencies on missing"))
                .count(),
            2
        );
    }

    #[test]
    fn cycles_are_broken_and_logged() {
        let (g, log) = norm(json!([
            {"id": "a", "question": "Q1?", "depends_on": ["c"]},
            {"id": "b", "question": "Q2?", "depends_on": ["a"]},
            {"id": "c", "question": "Q3?", "depends_on": ["b"]},
        ]));
        let depths = g.depths();
        assert_eq!(
            depths.len(),
            3,
            "every task gets a depth: the graph is acyclic"
        );
        let edges: usize = g.tasks.iter().map(|t| t.depends_on.len()).sum();
        assert_eq!(edges, 2, "one edge of the cycle removed");
        assert!(
            adjustments(&log).contains(&"a dependency that closed a cycle was removed".to_string())
        );
    }

    #[test]
    fn bad_tasks_are_dropped_ids_fixed_and_size_capped() {
        let mut items = vec![
            json!("not a task"),
            json!({"question": "  "}),
            json!({"question": "No id?"}),
            json!({"id": "x", "question": "First x"}),
            json!({"id": "x", "question": "Second x"}),
        ];
        for i in 0..20 {
            items.push(json!({"id": format!("n{i}"), "question": format!("Q{i}?")}));
        }
        let (g, log) = norm(Value::Array(items));
        assert_eq!(g.tasks.len(), MAX_TASKS);
        assert_eq!(g.tasks[0].id, "t3");
        assert_eq!(g.tasks[2].id, "x_2");
        let a = adjustments(&log);
        for expected in [
            "a task that is not an object was dropped",
            "a task without a question was dropped",
            "a task without an id was given one",
            "a repeated task id was renamed",
            "the graph was cut to its size cap",
        ] {
            assert!(a.contains(&expected.to_string()), "{expected}: {a:?}");
        }
    }

    #[test]
    fn criteria_read_dates_from_either_place() {
        let (g, _) = norm(json!([
            {"id": "a", "question": "Q?", "date_start": "2018-03-01", "date_end": "2018-03-31"},
            {"id": "b", "question": "Q?", "criteria": {"date_start": "2018-06-13", "label": "June"}},
            {"id": "c", "question": "Q?", "date_start": "2018-07-01", "date_end": "2018-06-01"},
        ]));
        assert_eq!(g.tasks[0].criteria.dates.map(|d| d.date_end.day), Some(31));
        assert_eq!(g.tasks[1].criteria.label, "June");
        assert_eq!(
            g.tasks[1].criteria.dates.map(|d| d.date_start),
            Date::parse("2018-06-13")
        );
        assert_eq!(
            g.tasks[2].criteria.dates, None,
            "a reversed range is no range"
        );
    }

    #[test]
    fn depths_follow_the_longest_dependency_chain() {
        let (g, _) = norm(json!([
            {"id": "a", "question": "Q?"},
            {"id": "b", "question": "Q?", "depends_on": ["a"]},
            {"id": "c", "question": "Q?", "depends_on": ["a", "b"]},
            {"id": "d", "question": "Q?"},
        ]));
        let d = g.depths();
        assert_eq!((d["a"], d["b"], d["c"], d["d"]), (0, 1, 2, 0));
    }
}
