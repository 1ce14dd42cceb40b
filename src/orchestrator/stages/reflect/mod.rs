//! Reflect: how well the answer's cited sentences support the original and the revised query;
//! confidence = 0.7 · support(original) + 0.3 · support(revised), two decimals, computed by the
//! orchestrator even when a model gives the supports; notes a user can act on.
//!
//! Slice: the two supports, `confidence`, `band`, `applicability_note`, `uncertainty_note`.
//! Confidence: the answer's.

mod contract;

use crate::orchestrator::band::FinalReason;
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::relevance::{coverage, relevance};
use crate::orchestrator::stage::{r2, Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::{QueryInput, Work};
use crate::orchestrator::topology::NodeId;
use serde_json::json;
use std::collections::HashSet;

pub const ID: NodeId = NodeId::new("reflect");

pub struct Reflect;

impl Stage for Reflect {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let revised = work.search_text(&cx.input);
        let s_orig = support(cx, &cx.input.query, work)?;
        let s_rev = support(cx, &revised, work)?;
        let slice = record(&cx.input, work, s_orig, s_rev, None);
        let c = work.reflection.confidence.unwrap_or(0.0);
        Ok(StageOutcome::new(slice).confidence(c))
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::ReflectContract)
    }
}

/// Sets the reflection from the two supports (and the model's notes, when it gave them) and
/// returns the slice.
fn record(
    input: &QueryInput,
    work: &mut Work,
    s_orig: f64,
    s_rev: f64,
    notes: Option<(String, String)>,
) -> serde_json::Value {
    let c = confidence(s_orig, s_rev);
    let (applicability, uncertainty) = notes.unwrap_or_else(|| {
        (
            applicability(input, work),
            uncertainty(FinalReason::from_confidence(c), work),
        )
    });
    let r = &mut work.reflection;
    r.support_original = Some(r2(s_orig));
    r.support_revised = Some(r2(s_rev));
    r.confidence = Some(c);
    r.applicability_note = Some(applicability);
    r.uncertainty_note = Some(uncertainty);
    json!({
        "support_original": r2(s_orig),
        "support_revised": r2(s_rev),
        "confidence": c,
        "band": FinalReason::from_confidence(c),
        "applicability_note": r.applicability_note,
        "uncertainty_note": r.uncertainty_note,
    })
}

pub const W_ORIGINAL: f64 = 0.7;
pub const W_REVISED: f64 = 0.3;

/// The confidence formula of the contract.
pub fn confidence(support_original: f64, support_revised: f64) -> f64 {
    r2(W_ORIGINAL * support_original + W_REVISED * support_revised)
}

/// Support of the cited sentences for one query: the best sentence counts most, the rest a little.
fn support(cx: &StageCx, query: &str, work: &Work) -> Result<f64, StageError> {
    let a = &work.answer;
    let cited: Vec<usize> = a
        .sentences
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.citations.is_empty())
        .map(|(i, _)| i)
        .collect();
    if cited.is_empty() {
        return Ok(0.0);
    }
    let retriever = &cx.retriever;
    let q_terms = retriever.analyze(query);
    // The current search text was embedded by retrieve; embed only a different query.
    let qvec = match &work.retrieval.query_vec {
        Some(v) if query == work.search_text(&cx.input) => Some(v.clone()),
        _ => retriever.embed_query(query)?,
    };
    let scores: Vec<f64> = cited
        .iter()
        .map(|&i| {
            let text = &a.sentences[i].text;
            let terms: HashSet<String> = retriever.analyze(text).into_iter().collect();
            let cos = match (&qvec, a.vectors.get(i)) {
                (Some(q), Some(v)) => Some(f64::from(crate::index::dense::dot(v, q))),
                _ => None,
            };
            relevance(cos, coverage(&q_terms, &terms))
        })
        .collect();
    let max = scores.iter().cloned().fold(0.0, f64::max);
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    Ok((0.6 * max + 0.4 * mean).clamp(0.0, 1.0))
}

fn applicability(input: &QueryInput, work: &Work) -> String {
    let citations = &work.answer.citations;
    let mut dates: Vec<String> = citations
        .iter()
        .filter_map(|c| c.date.map(|d| d.to_string()))
        .collect();
    dates.sort();
    dates.dedup();
    let docs: HashSet<&str> = citations.iter().map(|c| c.document.as_str()).collect();
    let span = match (dates.first(), dates.last()) {
        (Some(a), Some(b)) if a == b => format!("dated {a}"),
        (Some(a), Some(b)) => format!("dated {a} to {b}"),
        _ => "without dates".to_string(),
    };
    let mut note = format!(
        "This answer rests on {} document{} {span}; it describes the situation as of then, and later documents may supersede it.",
        docs.len(),
        if docs.len() == 1 { "" } else { "s" }
    );
    if !input.requested_years.is_empty() {
        let years: Vec<String> = input
            .requested_years
            .iter()
            .map(|y| y.to_string())
            .collect();
        note.push_str(&format!(
            " Only documents from {} were searched.",
            years.join(", ")
        ));
    }
    note
}

fn uncertainty(band: FinalReason, work: &Work) -> String {
    let invalid = &work.answer.invalid_citations;
    let removed = if invalid.is_empty() {
        String::new()
    } else {
        format!(
            " {} citation(s) that did not match a retrieved passage were removed.",
            invalid.len()
        )
    };
    let base = match band {
        FinalReason::ConfidenceHigh => "The cited passages state this directly; open them to confirm the wording.".to_string(),
        FinalReason::ConfidenceMediumCaveated => {
            "The cited passages support most of this answer but not every detail; check them before relying on specifics.".to_string()
        }
        FinalReason::ConfidenceLowPartial => {
            "The cited passages answer only part of the question; the rest may not be in the documents, or may need a more specific question (a date, a document, exact terms).".to_string()
        }
        _ => "The passages found do not clearly answer this question. Rephrase it with a date, a document or more specific terms, or narrow the years.".to_string(),
    };
    base + &removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_weights_original_seventy_percent() {
        assert_eq!(confidence(1.0, 0.0), 0.7);
        assert_eq!(confidence(0.0, 1.0), 0.3);
        assert_eq!(confidence(0.8, 0.6), 0.74);
        assert_eq!(confidence(0.123, 0.456), 0.22);
    }
}
