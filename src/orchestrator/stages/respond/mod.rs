//! Respond: the terminal stage. Decides how the query ends ([`verdict::decide`]) and composes
//! the text the user sees for every way a query can end.
//!
//! Slice: `state`, `final_reason`, `confidence`, `diagnostics` (`low_coverage` when retrieval was
//! below medium: a diagnostic, never the decision).

use crate::orchestrator::band::RETRIEVAL_MEDIUM;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use crate::orchestrator::verdict;
use serde_json::json;

pub const ID: NodeId = NodeId::new("respond");

pub struct Respond;

impl Stage for Respond {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, _cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let (v, text) = verdict::decide(work);
        let low_coverage = work
            .retrieval
            .mean_relevance
            .is_some_and(|m| m < RETRIEVAL_MEDIUM);
        work.answer.text = text;
        work.verdict = Some(v);
        Ok(StageOutcome::new(json!({
            "state": v.state,
            "final_reason": v.reason,
            "confidence": work.reflection.confidence,
            "diagnostics": if low_coverage { vec!["low_coverage"] } else { vec![] },
        })))
    }
}
