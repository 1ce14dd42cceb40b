//! Evaluate: retrieval confidence from the mean calibrated relevance of the top results.

use super::{r2, StageError};
use crate::index::dense::dot;
use crate::index::retrieve::Retriever;
use crate::orchestrator::band::RetrievalConfidence;
use crate::orchestrator::relevance::{coverage, relevance};
use crate::orchestrator::state::QueryState;
use serde_json::json;
use std::collections::HashSet;

/// Weights of the top results in the mean: the best passage counts most, because one passage
/// that answers the question is enough; the next two say whether the evidence is more than a
/// lucky match. (An unweighted mean of three would call a question answered by exactly one
/// passage "low" by construction.)
pub const TOP_WEIGHTS: [f64; 3] = [0.5, 0.3, 0.2];

/// Rank-weighted mean of the best relevances (missing ranks count as 0).
pub fn weighted_top_mean(relevance: &[f64]) -> f64 {
    let mut top = relevance.to_vec();
    top.sort_by(|a, b| b.total_cmp(a));
    TOP_WEIGHTS
        .iter()
        .enumerate()
        .map(|(i, w)| w * top.get(i).copied().unwrap_or(0.0))
        .sum()
}

/// Calibrated relevance of every retrieved chunk to `query`.
pub fn chunk_relevance(
    retriever: &Retriever,
    query: &str,
    qvec: Option<&[f32]>,
    st: &QueryState,
) -> Vec<f64> {
    let store = retriever.store();
    let q_terms = store.sparse().analyze(query);
    st.retrieved_chunks
        .iter()
        .map(|h| {
            let cos = match (qvec, store.vectors(), store.row_of(&h.chunk_id)) {
                (Some(q), Some(v), Some(row)) => Some(f64::from(dot(v.row(row), q))),
                _ => None,
            };
            let text = store
                .chunk(&h.chunk_id)
                .map(|c| c.text.as_str())
                .unwrap_or("");
            let terms: HashSet<String> = store.sparse().analyze(text).into_iter().collect();
            relevance(cos, coverage(&q_terms, &terms))
        })
        .collect()
}

pub fn run(retriever: &Retriever, st: &mut QueryState) -> Result<serde_json::Value, StageError> {
    let text = st.search_text();
    st.relevance = chunk_relevance(retriever, &text, st.query_vec.as_deref(), st);
    let mut top = st.relevance.clone();
    top.sort_by(|a, b| b.total_cmp(a));
    top.truncate(TOP_WEIGHTS.len());
    let mean = if top.is_empty() {
        0.0
    } else {
        top.iter().sum::<f64>() / top.len() as f64
    };
    let level = RetrievalConfidence::from_relevance(mean);
    st.mean_relevance = Some(r2(mean));
    st.retrieval_confidence = Some(level);
    Ok(json!({
        "mean_relevance": r2(mean),
        "retrieval_confidence": level,
        "top_relevance": top.iter().map(|r| r2(*r)).collect::<Vec<_>>(),
        "reformulation_attempts": st.reformulation_attempts,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_mean_of_the_top_three() {
        assert!((weighted_top_mean(&[0.2, 1.0, 0.5, 0.9]) - (0.5 + 0.27 + 0.1)).abs() < 1e-12);
        assert_eq!(weighted_top_mean(&[]), 0.0);
        assert!(
            (weighted_top_mean(&[0.8]) - 0.4).abs() < 1e-12,
            "missing results count as irrelevant"
        );
    }
}
