//! Evaluate: retrieval confidence from the mean calibrated relevance of the top results.

use super::{r2, StageError};
use crate::index::dense::dot;
use crate::index::retrieve::Retriever;
use crate::orchestrator::band::RetrievalConfidence;
use crate::orchestrator::relevance::{coverage, relevance};
use crate::orchestrator::state::QueryState;
use serde_json::json;
use std::collections::HashSet;

/// How many of the top results the mean is taken over.
pub const TOP_N: usize = 3;

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
    top.truncate(TOP_N);
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
