//! The state of one query as it moves through the stages.

use super::band::RetrievalConfidence;
use super::dispatch::DispatchRecord;
use super::topology::RouteState;
use super::types::{Citation, ExecutionPlan, GuardrailsViolationError, StageTrace};
use crate::index::retrieve::{Candidates, Hit};
use std::collections::BTreeMap;

pub const MAX_REFORMULATIONS: u8 = 2;

#[derive(Debug, Clone, Default)]
pub struct QueryState {
    pub session_id: String,
    pub query_id: String,
    pub query: String,
    pub requested_years: Vec<i32>,
    pub plan: Option<ExecutionPlan>,
    /// How the question reads in the conversation (a follow-up rewritten as a standalone one).
    pub followup: Option<super::followup::Resolution>,
    pub guardrail: Option<GuardrailsViolationError>,
    /// The current search text: the reformulated query if any, else the plan's revised query.
    pub reformulated_query: Option<String>,
    pub queries_tried: Vec<String>,
    pub query_vec: Option<Vec<f32>>,
    pub candidates: Candidates,
    /// Retrieved and reranked chunks, best first.
    pub retrieved_chunks: Vec<Hit>,
    /// Calibrated relevance of each retrieved chunk (same order).
    pub relevance: Vec<f64>,
    pub retrieval_confidence: Option<RetrievalConfidence>,
    pub mean_relevance: Option<f64>,
    pub reformulation_attempts: u8,
    pub max_reformulations: u8,
    pub answer: String,
    /// The answer's sentences, each with its citation's date and section in front, and the
    /// citation numbers it carries (for reflection).
    pub answer_sentences: Vec<(String, Vec<usize>)>,
    /// Embeddings of `answer_sentences` (empty without a model).
    pub answer_vectors: Vec<Vec<f32>>,
    pub citations: Vec<Citation>,
    pub invalid_citations: Vec<String>,
    pub support_original: Option<f64>,
    pub support_revised: Option<f64>,
    pub confidence: Option<f64>,
    pub applicability_note: Option<String>,
    pub uncertainty_note: Option<String>,
    pub stages: Vec<StageTrace>,
    pub dispatches: Vec<DispatchRecord>,
    /// Model tokens per stage id.
    pub tokens_used: BTreeMap<String, u64>,
    pub cached_state: BTreeMap<String, serde_json::Value>,
}

impl QueryState {
    pub fn new(session_id: &str, query_id: &str, query: &str, requested_years: Vec<i32>) -> Self {
        let mut cached_state = BTreeMap::new();
        cached_state.insert(
            "session_id".to_string(),
            serde_json::Value::String(session_id.to_string()),
        );
        QueryState {
            session_id: session_id.to_string(),
            query_id: query_id.to_string(),
            query: query.to_string(),
            requested_years,
            max_reformulations: MAX_REFORMULATIONS,
            cached_state,
            ..QueryState::default()
        }
    }

    /// The text retrieval searches with now.
    pub fn search_text(&self) -> String {
        self.reformulated_query
            .clone()
            .or_else(|| self.plan.as_ref().map(|p| p.revised_query.clone()))
            .unwrap_or_else(|| self.query.clone())
    }

    pub fn route(&self) -> RouteState {
        RouteState {
            guardrail_blocked: self.guardrail.is_some(),
            incoherent: self
                .plan
                .as_ref()
                .is_some_and(|p| p.coherence == super::types::Coherence::Incoherent),
            needs_retrieval: self.plan.as_ref().is_none_or(|p| p.needs_retrieval),
            retrieval: self.retrieval_confidence,
            reformulation_attempts: self.reformulation_attempts,
            max_reformulations: self.max_reformulations.min(MAX_REFORMULATIONS),
        }
    }

    /// The loop pass the next retrieval belongs to.
    pub fn loop_index(&self) -> u8 {
        self.reformulation_attempts
    }
}
