//! The typed replies of the model-backed stages, as they arrive after validation.

use super::ModelStage;
use crate::corpus::Date;
use crate::orchestrator::types::{
    Coherence, ExecutionPlan, Intent, MetadataHints, DEFAULT_TOP_K, MAX_TOP_K,
};
use serde::{Deserialize, Serialize};

/// Guardrail: may the query go on, and if not, what to tell the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuardrailOutput {
    pub session_id: String,
    pub response_id: String,
    pub allowed: bool,
    pub reason: Option<String>,
    /// Required when `allowed` is false.
    pub safe_reply: Option<String>,
}

/// Plan: the revised query, coherence, whether to retrieve, intent and hints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanOutput {
    pub session_id: String,
    pub response_id: String,
    pub revised_query: String,
    pub coherence: Coherence,
    pub coherence_reason: Option<String>,
    pub needs_retrieval: bool,
    pub intent: Intent,
    pub date_start: Option<Date>,
    pub date_end: Option<Date>,
    /// 1–50.
    pub top_k_hint: Option<u8>,
    /// A direct reply when no retrieval is needed or the query is incoherent.
    pub reply: Option<String>,
}

impl PlanOutput {
    /// The date range, when the plan gives both ends.
    pub fn metadata_hints(&self) -> Option<MetadataHints> {
        Some(MetadataHints {
            date_start: self.date_start?,
            date_end: self.date_end?,
        })
    }

    /// The pipeline's plan for `original_query`, with the defaults the offline planner uses.
    pub fn to_execution_plan(&self, original_query: &str) -> ExecutionPlan {
        let hints = self.metadata_hints();
        ExecutionPlan {
            original_query: original_query.to_string(),
            revised_query: self.revised_query.clone(),
            coherence: self.coherence,
            coherence_reason: self.coherence_reason.clone(),
            needs_retrieval: self.needs_retrieval,
            metadata_hints: hints,
            top_k_hint: self.top_k_hint.unwrap_or(DEFAULT_TOP_K).clamp(1, MAX_TOP_K),
            intent: self.intent,
            suggested_years: hints.map(|h| h.years()).unwrap_or_default(),
            reply: self.reply.clone(),
        }
    }
}

/// Reformulate: a new search text after a low-confidence retrieval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReformulateOutput {
    pub session_id: String,
    pub response_id: String,
    pub reformulated_query: String,
    pub rationale: String,
}

/// One `[n]` marker of an answer and the retrieved chunk it points to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CitationRef {
    pub n: usize,
    pub chunk_id: String,
}

/// Synthesize: the grounded answer with `[n]` markers and what they cite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynthesizeOutput {
    pub session_id: String,
    pub response_id: String,
    pub answer: String,
    pub citations: Vec<CitationRef>,
}

/// Reflect: how well the answer supports the original and the revised query. The confidence is
/// computed from these by the orchestrator ([`super::reflect_confidence`]), not by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReflectOutput {
    pub session_id: String,
    pub response_id: String,
    pub support_original: f64,
    pub support_revised: f64,
    pub applicability_note: String,
    pub uncertainty_note: String,
}

/// A validated reply of one model-backed stage.
#[derive(Debug, Clone, PartialEq)]
pub enum StageOutput {
    Guardrail(GuardrailOutput),
    Plan(PlanOutput),
    Reformulate(ReformulateOutput),
    Synthesize(SynthesizeOutput),
    Reflect(ReflectOutput),
}

impl StageOutput {
    pub fn stage(&self) -> ModelStage {
        match self {
            StageOutput::Guardrail(_) => ModelStage::Guardrail,
            StageOutput::Plan(_) => ModelStage::Plan,
            StageOutput::Reformulate(_) => ModelStage::Reformulate,
            StageOutput::Synthesize(_) => ModelStage::Synthesize,
            StageOutput::Reflect(_) => ModelStage::Reflect,
        }
    }

    /// The reply's id; the caller adds it to the seen set so the next reply must bring a new one.
    pub fn response_id(&self) -> &str {
        match self {
            StageOutput::Guardrail(o) => &o.response_id,
            StageOutput::Plan(o) => &o.response_id,
            StageOutput::Reformulate(o) => &o.response_id,
            StageOutput::Synthesize(o) => &o.response_id,
            StageOutput::Reflect(o) => &o.response_id,
        }
    }
}
