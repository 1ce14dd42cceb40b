//! Rerank: fuse the candidates with RRF, rescore them with the retriever's reranker, add the
//! recency boost, and favour chunks dated inside the plan's date hints (`DATE_HINT_BONUS`).
//!
//! Slice: the reranker, the boosts and the top ten hits with their scores.

use crate::index::retriever::{TopHits, DATE_HINT_BONUS};
use crate::index::Timings;
use crate::orchestrator::stage::{r2, Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use serde_json::json;

pub const ID: NodeId = NodeId::new("rerank");

pub struct Rerank;

impl Stage for Rerank {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let k = work
            .plan
            .as_ref()
            .map_or(10, |p| p.top_k_hint as usize)
            .max(5);
        let mut t = Timings::default();
        let text = work.search_text(&cx.input);
        let hint = work.date_hint();
        let cut = TopHits {
            hint,
            k,
            rerank: true,
        };
        let hits = cx.retriever.top_hits(
            &text,
            work.retrieval.query_vec.as_deref(),
            &work.retrieval.candidates,
            cut,
            &mut t,
        )?;
        work.retrieval.hits = hits;
        Ok(StageOutcome::new(json!({
            "reranker": cx.retriever.info().reranker,
            "recency_boost": cx.retriever.recency().boost,
            "date_hint_bonus": hint.map(|_| DATE_HINT_BONUS),
            "top": work.retrieval.hits.iter().take(10).map(|h| json!({
                "chunk_id": h.chunk_id, "document": h.document, "score": r2(f64::from(h.score))
            })).collect::<Vec<_>>(),
        })))
    }
}
