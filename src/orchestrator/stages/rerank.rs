//! Rerank: fuse the candidates with RRF, rescore with the reranker, add the recency boost, and
//! favour chunks dated inside the plan's date hints ([`DATE_HINT_BONUS`]).

use super::{r2, StageError};
use crate::index::retrieve::{apply_date_bonus, Retriever, Timings, DATE_HINT_BONUS};
use crate::orchestrator::state::QueryState;
use serde_json::json;

pub fn run(retriever: &Retriever, st: &mut QueryState) -> Result<serde_json::Value, StageError> {
    let k = st
        .plan
        .as_ref()
        .map_or(10, |p| p.top_k_hint as usize)
        .max(5);
    let mut t = Timings::default();
    let text = st.search_text();
    let mut hits = retriever.rank(
        &text,
        st.query_vec.as_deref(),
        &st.candidates,
        usize::MAX,
        true,
        &mut t,
    )?;
    apply_date_bonus(&mut hits, st.plan.as_ref().and_then(|p| p.metadata_hints));
    hits.truncate(k);
    retriever.fill_snippets(&mut hits, &text);
    st.retrieved_chunks = hits;
    Ok(json!({
        "reranker": retriever.reranker_name(),
        "recency_boost": retriever.recency().boost,
        "date_hint_bonus": if st.plan.as_ref().and_then(|p| p.metadata_hints).is_some() { Some(DATE_HINT_BONUS) } else { None },
        "top": st.retrieved_chunks.iter().take(10).map(|h| json!({
            "chunk_id": h.chunk_id, "document": h.document, "score": r2(h.score as f64)
        })).collect::<Vec<_>>(),
    }))
}
