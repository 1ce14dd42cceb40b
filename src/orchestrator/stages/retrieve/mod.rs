//! Retrieve: hybrid candidates for the current search text. With date hints from the plan it
//! runs two passes, one filtered to the hinted years and one unfiltered, and merges them by
//! `chunk_id`. The caller's `requested_years` restrict both passes.
//!
//! Slice: the query, year mode, passes and candidate counts, and how far dense vectors are while
//! a progressive build is still computing them (the answer's warnings say so too).

use crate::index::{Timings, YearMode};
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use serde_json::json;

pub const ID: NodeId = NodeId::new("retrieve");

pub struct Retrieve;

impl Stage for Retrieve {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let retriever = &cx.retriever;
        let text = work.search_text(&cx.input);
        let qvec = retriever.embed_query(&text)?;
        cx.cancel.check()?;
        let n = retriever
            .settings()
            .candidates
            .max(work.plan.as_ref().map_or(10, |p| p.top_k_hint as usize) * 3);
        let years = &cx.input.requested_years;
        let mut t = Timings::default();
        let (candidates, passes) = retriever.candidates_with_hint(
            &text,
            qvec.as_deref(),
            years,
            work.date_hint(),
            n,
            &mut t,
        )?;
        let pending = retriever.info().dense_pending;
        if let Some(p) = pending {
            let note = format!(
                "dense vectors are incomplete ({} of {} chunks; `fathom index` or the app completes them): retrieval was BM25 alone",
                p.embedded, p.total
            );
            if !work.warnings.contains(&note) {
                work.warnings.push(note);
            }
        }
        let r = &mut work.retrieval;
        r.candidates = candidates;
        r.query_vec = qvec;
        r.queries_tried.push(text.clone());
        Ok(StageOutcome::new(json!({
            "query": text,
            "year_mode": if years.is_empty() { YearMode::None } else { YearMode::Explicit },
            "requested_years": years,
            "recent_year_window": retriever.recency().window_years(),
            "passes": passes,
            "dense_candidates": r.candidates.dense.len(),
            "sparse_candidates": r.candidates.sparse.len(),
            "dense": retriever.dense_enabled(),
            "dense_pending": pending,
        })))
    }
}
