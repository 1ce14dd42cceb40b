//! Aggregate: the answer of a decomposed question, shaped by its intent (a dated timeline for a
//! trend, one part per side and the difference for a comparison, one answer per part, a tally for
//! an aggregate), every line citing the passage that states it; conflicts between claims about
//! the same subject and date are found and settled by the configured strategy.
//!
//! Slice: the `AgentResultAggregation`. Confidence: the lowest of the parts'.

use crate::index::Hit;
use crate::orchestrator::graph::aggregate::aggregate;
use crate::orchestrator::graph::merge::ConflictResolution;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::{AnswerSentence, Work};
use crate::orchestrator::topology::NodeId;

pub const ID: NodeId = NodeId::new("aggregate");

#[derive(Default)]
pub struct Aggregate {
    pub conflicts: ConflictResolution,
}

impl Stage for Aggregate {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let question = crate::orchestrator::stages::decompose::question_of(cx, work);
        let Some(gw) = work.graph.as_mut() else {
            return Err(StageError::Other("no task graph to aggregate".into()));
        };
        let gw = &mut *gw;
        let Some(report) = gw.report.as_ref() else {
            return Err(StageError::Other("the task graph has not run".into()));
        };
        let mut agents: Vec<String> = vec!["decompose".into(), "coordinate".into()];
        for (a, _) in &gw.agents {
            if !agents.contains(a) {
                agents.push(a.clone());
            }
        }
        let agg = aggregate(
            &question,
            gw.intent,
            &gw.graph,
            report,
            self.conflicts,
            agents,
        );
        let record = agg.record.clone();
        gw.aggregation = Some(record.clone());
        // The passages the parts found are this query's retrieved passages: what validation
        // checks citations against.
        work.retrieval.hits = agg
            .citations
            .iter()
            .enumerate()
            .map(|(i, c)| Hit {
                rank: i + 1,
                chunk_id: c.chunk_id.clone(),
                document: c.document.clone(),
                title: String::new(),
                date: c.date,
                year: c.date.map(|d| d.year),
                section: c.section.clone(),
                dense_rank: None,
                dense_score: None,
                sparse_rank: None,
                sparse_score: None,
                fused_score: 0.0,
                rerank_score: c.score as f32,
                recency_boost: 0.0,
                date_bonus: 0.0,
                score: c.score as f32,
                snippet: String::new(),
            })
            .collect();
        let texts: Vec<&str> = agg.lines.iter().map(|(_, read, _)| read.as_str()).collect();
        let vectors = cx.retriever.embed_texts(&texts)?.unwrap_or_default();
        let a = &mut work.answer;
        a.text = agg.text;
        a.citations = agg.citations;
        a.sentences = agg
            .lines
            .into_iter()
            .map(|(display, text, citations)| AnswerSentence {
                display,
                text,
                citations,
            })
            .collect();
        a.vectors = vectors;
        let slice = serde_json::to_value(&record).map_err(|e| StageError::Other(e.to_string()))?;
        Ok(StageOutcome::new(slice).confidence(record.overall_confidence))
    }
}
