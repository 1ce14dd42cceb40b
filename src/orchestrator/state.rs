//! The state of one query. Three parts with different owners:
//!
//! - [`QueryInput`]: what was asked (ids, question, years, conversation). Set once, read-only
//!   for every stage.
//! - [`Work`]: what the stages produce for each other, grouped by concern. A stage gets `&mut
//!   Work` and nothing else mutable.
//! - the trace (stage traces, dispatch records, tokens, `cached_state`): written by the driver
//!   alone, from what each stage returns, so no stage can forge another's record.

use super::band::FinalReason;
use super::band::RetrievalConfidence;
use super::followup::Resolution;
use super::types::{Citation, ExecutionPlan, GuardrailsViolationError, ManagerState};
use crate::index::{Candidates, Hit};

/// What was asked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryInput {
    pub session_id: String,
    pub query_id: String,
    pub query: String,
    pub requested_years: Vec<i32>,
    /// How the question reads in the conversation (a follow-up rewritten as a standalone one).
    pub followup: Option<Resolution>,
    /// One line per earlier turn, for the model-backed stages.
    pub chat_context: Vec<String>,
    /// Synthesize records every candidate sentence in its slice (for training the ranker).
    pub record_candidates: bool,
}

/// Retrieval's progress: queries, candidates, ranked hits and their relevance.
#[derive(Debug, Clone, Default)]
pub struct RetrievalWork {
    /// The reformulated search text, once reformulation ran.
    pub reformulated_query: Option<String>,
    pub queries_tried: Vec<String>,
    /// The vector of the text last searched with.
    pub query_vec: Option<Vec<f32>>,
    pub candidates: Candidates,
    /// Retrieved and reranked chunks, best first.
    pub hits: Vec<Hit>,
    /// Calibrated relevance of each hit (same order).
    pub relevance: Vec<f64>,
    pub confidence: Option<RetrievalConfidence>,
    pub mean_relevance: Option<f64>,
    pub reformulation_attempts: u8,
}

/// One sentence of the answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnswerSentence {
    /// As it stands in the answer, with its markers.
    pub display: String,
    /// As the reader takes it with its citation: the passage's date and section in front, no
    /// markers (what reflection scores).
    pub text: String,
    pub citations: Vec<usize>,
}

/// The answer and its citations.
#[derive(Debug, Clone, Default)]
pub struct AnswerWork {
    /// The answer text with `[n]` markers (no Sources block: citations are data).
    pub text: String,
    pub sentences: Vec<AnswerSentence>,
    /// Embeddings of `sentences` (empty without a model).
    pub vectors: Vec<Vec<f32>>,
    pub citations: Vec<Citation>,
    pub invalid_citations: Vec<String>,
}

/// Reflection's judgement of the answer.
#[derive(Debug, Clone, Default)]
pub struct ReflectionWork {
    pub support_original: Option<f64>,
    pub support_revised: Option<f64>,
    pub confidence: Option<f64>,
    pub applicability_note: Option<String>,
    pub uncertainty_note: Option<String>,
}

/// How the query ends, decided by the terminal stage (or, in a topology without one, by
/// [`super::verdict::decide`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub state: ManagerState,
    pub reason: FinalReason,
}

/// What stages produce for each other.
#[derive(Debug, Clone, Default)]
pub struct Work {
    pub guardrail: Option<GuardrailsViolationError>,
    /// Small talk or an inquiry, and the direct reply to small talk.
    pub judgement: Option<super::stages::judgement::Judgement>,
    /// The offline judgement of the input, read once per query (it may embed and search).
    pub offline_judgement: super::stages::judgement::OfflineMemo,
    pub plan: Option<ExecutionPlan>,
    pub retrieval: RetrievalWork,
    pub answer: AnswerWork,
    pub reflection: ReflectionWork,
    pub verdict: Option<Verdict>,
    /// A decomposed question's task graph and what became of it.
    pub graph: Option<super::graph::GraphWork>,
    /// What the user should know about how the answer was made (parts that failed, …).
    pub warnings: Vec<String>,
}

impl Work {
    /// The text retrieval searches with now: the reformulated query if any, else the plan's
    /// revised query, else the question.
    pub fn search_text(&self, input: &QueryInput) -> String {
        self.retrieval
            .reformulated_query
            .clone()
            .or_else(|| self.plan.as_ref().map(|p| p.revised_query.clone()))
            .unwrap_or_else(|| input.query.clone())
    }

    /// The date range the plan read from the question.
    pub fn date_hint(&self) -> Option<crate::query::MetadataHints> {
        self.plan.as_ref().and_then(|p| p.metadata_hints)
    }
}
