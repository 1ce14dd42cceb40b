//! One question and its answer as the UI knows it: streamed text, the live state of each stage,
//! the path taken, and the final result once it arrives.

use crate::orchestrator::api::{NodeId, OrchestrationResult, StageStatus};
use crate::session::TurnRecord;
use std::collections::BTreeMap;

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
    /// A decomposed question's task graph, live.
    pub graph: Option<crate::tui::graph::LiveGraph>,
}

impl Turn {
    /// A question just sent.
    pub fn asked(question: String, requested_years: Vec<i32>) -> Turn {
        Turn {
            question,
            requested_years,
            ..Turn::default()
        }
    }

    /// A finished turn as recorded, for a reopened session: everything the panels show comes
    /// from the record, nothing is re-run.
    pub fn from_record(record: &TurnRecord) -> Turn {
        let mut t = Turn::asked(record.question.clone(), record.requested_years.clone());
        t.finish(record.result.clone());
        t
    }

    pub fn stage_started(&mut self, stage: NodeId, loop_index: u8) {
        self.stages
            .insert(stage.clone(), LiveStage::Running { loop_index });
        self.path.push(stage);
    }

    pub fn stage_finished(&mut self, stage: NodeId, finished: LiveStage) {
        if !self.path.contains(&stage) {
            self.path.push(stage.clone());
        }
        self.stages.insert(stage, finished);
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
        if let Some(g) = crate::tui::graph::LiveGraph::from_result(&result) {
            self.graph = Some(g);
        }
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
