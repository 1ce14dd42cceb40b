//! A decomposed question's task graph as the topology panel draws it: each task with its depth,
//! the parallel group it ran in, its status and time, and the order its completion came in —
//! live from graph events, or rebuilt from a finished result's `react_log` (a reopened session).

use crate::orchestrator::api::{GraphEvent, OrchestrationResult, TaskGraph, TaskStatus};

/// One task as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveTask {
    pub id: String,
    pub label: String,
    pub depth: usize,
    pub status: TaskStatus,
    pub ms: f64,
    /// The parallel group it ran in.
    pub group: Option<usize>,
    /// 1 for the first task to finish, 2 for the next…
    pub finished_as: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LiveGraph {
    pub tasks: Vec<LiveTask>,
    pub groups: usize,
    finished: usize,
}

impl LiveGraph {
    pub fn planned(graph: &TaskGraph) -> LiveGraph {
        let depths = graph.depths();
        LiveGraph {
            tasks: graph
                .tasks
                .iter()
                .map(|t| LiveTask {
                    id: t.id.clone(),
                    label: if t.criteria.label.is_empty() {
                        t.question.clone()
                    } else {
                        t.criteria.label.clone()
                    },
                    depth: depths.get(&t.id).copied().unwrap_or(0),
                    status: TaskStatus::Pending,
                    ms: 0.0,
                    group: None,
                    finished_as: None,
                })
                .collect(),
            groups: 0,
            finished: 0,
        }
    }

    fn task(&mut self, id: &str) -> Option<&mut LiveTask> {
        self.tasks.iter_mut().find(|t| t.id == id)
    }

    pub fn apply(&mut self, event: &GraphEvent) {
        match event {
            GraphEvent::Planned { graph } => *self = LiveGraph::planned(graph),
            GraphEvent::GroupStarted { group, tasks } => {
                self.groups = self.groups.max(group + 1);
                for id in tasks {
                    if let Some(t) = self.task(id) {
                        t.status = TaskStatus::Running;
                        t.group = Some(*group);
                    }
                }
            }
            GraphEvent::TaskFinished {
                task_id,
                status,
                ms,
                ..
            } => {
                self.finished += 1;
                let order = self.finished;
                if let Some(t) = self.task(task_id) {
                    t.status = *status;
                    t.ms = *ms;
                    t.finished_as = Some(order);
                }
            }
        }
    }

    /// The graph of a finished result, replayed from its `react_log`.
    pub fn from_result(r: &OrchestrationResult) -> Option<LiveGraph> {
        let graph = r.task_graph.as_ref()?;
        let mut g = LiveGraph::planned(graph);
        for e in &r.react_log.0 {
            match e.kind.as_str() {
                "coordinator.group" => {
                    let group = e.detail["group"].as_u64().unwrap_or(0) as usize;
                    let tasks: Vec<String> = e.detail["tasks"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    g.apply(&GraphEvent::GroupStarted { group, tasks });
                }
                "coordinator.unlock" | "coordinator.skip" => {
                    let id = e.detail["task_id"].as_str().unwrap_or_default().to_string();
                    let status = serde_json::from_value(e.detail["status"].clone())
                        .unwrap_or(TaskStatus::Skipped);
                    let ms = r
                        .dispatches
                        .iter()
                        .find(|d| d.request.target.as_str().ends_with(&format!("/{id}")))
                        .map(|d| d.response.execution_time_ms)
                        .unwrap_or(0.0);
                    g.apply(&GraphEvent::TaskFinished {
                        task_id: id,
                        status,
                        ms,
                        unlocked: Vec::new(),
                    });
                }
                _ => {}
            }
        }
        Some(g)
    }

    /// Tasks in drawing order: by depth, then group, then id.
    pub fn ordered(&self) -> Vec<&LiveTask> {
        let mut v: Vec<&LiveTask> = self.tasks.iter().collect();
        v.sort_by(|a, b| {
            (a.depth, a.group.unwrap_or(usize::MAX), &a.id).cmp(&(
                b.depth,
                b.group.unwrap_or(usize::MAX),
                &b.id,
            ))
        });
        v
    }
}
