//! Retrieve: hybrid candidates for the current query. With date hints from the plan it runs two
//! passes, one filtered to the hinted years and one unfiltered, and merges them by `chunk_id`.
//! The caller's `requested_years` restrict both passes.

use super::StageError;
use crate::index::retrieve::{Retriever, Timings, YearMode};
use crate::orchestrator::state::QueryState;
use serde_json::json;

pub fn run(retriever: &Retriever, st: &mut QueryState) -> Result<serde_json::Value, StageError> {
    let text = st.search_text();
    let qvec = retriever.embed_query(&text)?;
    let n = retriever
        .settings()
        .candidates
        .max(st.plan.as_ref().map_or(10, |p| p.top_k_hint as usize) * 3);
    let hint = st.plan.as_ref().and_then(|p| p.metadata_hints);
    let mut t = Timings::default();
    let (candidates, passes) = retriever.candidates_with_hint(
        &text,
        qvec.as_deref(),
        &st.requested_years,
        hint,
        n,
        &mut t,
    )?;
    st.candidates = candidates;
    st.query_vec = qvec;
    st.queries_tried.push(text.clone());
    Ok(json!({
        "query": text,
        "year_mode": if st.requested_years.is_empty() { YearMode::None } else { YearMode::Explicit },
        "requested_years": st.requested_years,
        "recent_year_window": retriever.recency().window_years(),
        "passes": passes,
        "dense_candidates": st.candidates.dense.len(),
        "sparse_candidates": st.candidates.sparse.len(),
        "dense": retriever.dense_enabled(),
    }))
}
