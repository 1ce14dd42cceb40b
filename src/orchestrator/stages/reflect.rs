//! Reflect (offline): how well the answer's cited sentences support the original and the
//! revised query; confidence = 0.7 · support(original) + 0.3 · support(revised), two decimals;
//! notes a user can act on.

use super::{r2, StageError};
use crate::index::retrieve::Retriever;
use crate::orchestrator::band::FinalReason;
use crate::orchestrator::relevance::{coverage, relevance};
use crate::orchestrator::state::QueryState;
use serde_json::json;
use std::collections::HashSet;

pub const W_ORIGINAL: f64 = 0.7;
pub const W_REVISED: f64 = 0.3;

/// The confidence formula of the contract.
pub fn confidence(support_original: f64, support_revised: f64) -> f64 {
    r2(W_ORIGINAL * support_original + W_REVISED * support_revised)
}

/// Support of the cited sentences for one query: the best sentence counts most, the rest a little.
fn support(retriever: &Retriever, query: &str, st: &QueryState) -> Result<f64, StageError> {
    let cited: Vec<usize> = st
        .answer_sentences
        .iter()
        .enumerate()
        .filter(|(_, (_, ns))| !ns.is_empty())
        .map(|(i, _)| i)
        .collect();
    if cited.is_empty() {
        return Ok(0.0);
    }
    let sparse = retriever.store().sparse();
    let q_terms = sparse.analyze(query);
    // The current search text was embedded by retrieve; embed only a different query.
    let qvec = match &st.query_vec {
        Some(v) if query == st.search_text() => Some(v.clone()),
        _ => retriever.embed_query(query)?,
    };
    let scores: Vec<f64> = cited
        .iter()
        .map(|&i| {
            let (text, _) = &st.answer_sentences[i];
            let terms: HashSet<String> = sparse.analyze(text).into_iter().collect();
            let cos = match (&qvec, st.answer_vectors.get(i)) {
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

pub fn run(retriever: &Retriever, st: &mut QueryState) -> Result<serde_json::Value, StageError> {
    let revised = st.search_text();
    let s_orig = support(retriever, &st.query, st)?;
    let s_rev = support(retriever, &revised, st)?;
    let c = confidence(s_orig, s_rev);
    st.support_original = Some(r2(s_orig));
    st.support_revised = Some(r2(s_rev));
    st.confidence = Some(c);
    st.applicability_note = Some(applicability(st));
    st.uncertainty_note = Some(uncertainty(FinalReason::from_confidence(c), st));
    Ok(json!({
        "support_original": r2(s_orig),
        "support_revised": r2(s_rev),
        "confidence": c,
        "band": FinalReason::from_confidence(c),
        "applicability_note": st.applicability_note,
        "uncertainty_note": st.uncertainty_note,
        "temperature": 0.0,
    }))
}

fn applicability(st: &QueryState) -> String {
    let mut dates: Vec<String> = st
        .citations
        .iter()
        .filter_map(|c| c.date.map(|d| d.to_string()))
        .collect();
    dates.sort();
    dates.dedup();
    let docs: HashSet<&str> = st.citations.iter().map(|c| c.document.as_str()).collect();
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
    if !st.requested_years.is_empty() {
        let years: Vec<String> = st.requested_years.iter().map(|y| y.to_string()).collect();
        note.push_str(&format!(
            " Only documents from {} were searched.",
            years.join(", ")
        ));
    }
    note
}

fn uncertainty(band: FinalReason, st: &QueryState) -> String {
    let removed = if st.invalid_citations.is_empty() {
        String::new()
    } else {
        format!(
            " {} citation(s) that did not match a retrieved passage were removed.",
            st.invalid_citations.len()
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
