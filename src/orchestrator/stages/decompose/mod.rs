//! Decompose: turns a question that needs several documents into a task graph — offline by the
//! planner's rules (one task per side, per meeting of a period, per part), or by the model under
//! its contract ([`contract`]) with the offline graph as the fallback — normalised by
//! `set_task_graph`, with the planner's prompt, reply and graph in the `react_log`.
//!
//! Slice: intent, agents selected, the graph, the planned execution order, the normalisation
//! log. Fact: `tasks` (how many; fewer than two sends the question down the single path).

mod contract;

use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::graph::plan_rules::{complexity, read_question, DatedDocument};
use crate::orchestrator::graph::routing::{
    default_rules, get_execution_order, select_agents, AgentSelectionCriteria, IntentType,
};
use crate::orchestrator::graph::task::{record_planner_trace, set_task_graph, ReactLog, TaskGraph};
use crate::orchestrator::graph::GraphWork;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub const ID: NodeId = NodeId::new("decompose");

pub struct Decompose;

impl Stage for Decompose {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let question = question_of(cx, work);
        let documents = dated_documents(cx);
        let reading = read_question(&question, &documents);
        let mut log = ReactLog::default();
        let at = cx.started.elapsed().as_millis() as u64;
        let graph = match &reading.graph {
            Some(raw) => {
                let g = set_task_graph(raw, &mut log, at);
                let prompt = format!("offline planner rules ({})", reading.rationale);
                record_planner_trace(&mut log, at, &prompt, &raw.to_string(), &g);
                g
            }
            None => TaskGraph::default(),
        };
        let intent = work
            .plan
            .as_ref()
            .map(|p| p.intent)
            .unwrap_or(reading.intent);
        Ok(install(work, intent, graph, log, &reading.rationale))
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::DecomposeContract)
    }
}

/// The question as it reads in the conversation.
pub(crate) fn question_of(cx: &StageCx, work: &Work) -> String {
    match (&cx.input.followup, &work.plan) {
        (Some(f), _) if f.carried_topic || f.carried_dates => f.query.clone(),
        _ => cx.input.query.clone(),
    }
}

/// Every dated document of the collection, for sweeps over a period.
pub(crate) fn dated_documents(cx: &StageCx) -> Vec<DatedDocument> {
    cx.retriever
        .documents()
        .into_iter()
        .filter_map(|d| {
            Some(DatedDocument {
                date: d.date?,
                document: d.document,
            })
        })
        .collect()
}

/// Records the graph in the work and reports it.
pub(crate) fn install(
    work: &mut Work,
    intent: IntentType,
    graph: TaskGraph,
    mut log: ReactLog,
    rationale: &str,
) -> StageOutcome {
    let criteria = {
        let mut c = AgentSelectionCriteria::new(intent, complexity(intent, graph.tasks.len()));
        c.entities = work
            .plan
            .as_ref()
            .and_then(|p| p.metadata_hints)
            .map(|h| vec![format!("{} to {}", h.date_start, h.date_end)])
            .unwrap_or_default();
        c
    };
    let agents = select_agents(&default_rules(), &criteria);
    let deps: BTreeMap<String, Vec<String>> = graph
        .tasks
        .iter()
        .map(|t| (t.id.clone(), t.depends_on.clone()))
        .collect();
    let planned = get_execution_order(&deps);
    log.push(
        "router.select_agents",
        0,
        json!({"criteria": criteria, "agents": agents, "planned_groups": planned}),
    );
    let tasks = graph.tasks.len();
    let slice = json!({
        "intent": intent,
        "rationale": rationale,
        "agents": agents,
        "tasks": graph.tasks,
        "planned_groups": planned,
        "normalization": log.of("planner.normalization").map(|e| e.detail.clone()).collect::<Vec<Value>>(),
    });
    work.graph = (tasks >= 2).then_some(GraphWork {
        intent,
        graph,
        react_log: log,
        agents,
        report: None,
        aggregation: None,
    });
    StageOutcome::new(slice).number("tasks", tasks as f64)
}
