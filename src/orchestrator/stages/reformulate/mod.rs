//! Reformulate: pseudo-relevance feedback. The strongest terms of the best chunks that the query
//! lacks are added to it; a second attempt also drops the date words so retrieval can range wider.
//!
//! Slice: the attempt, the previous and new query, the added terms. Fact: `reformulations`.

mod contract;

use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use serde_json::json;
use std::collections::HashMap;

pub const ID: NodeId = NodeId::new("reformulate");

pub struct Reformulate;

impl Stage for Reformulate {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        run(cx, work)
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::ReformulateContract)
    }
}

const FEEDBACK_CHUNKS: usize = 3;
const FEEDBACK_TERMS: usize = 5;

fn run(cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
    let retriever = &cx.retriever;
    let current = work.search_text(&cx.input);
    let have: Vec<String> = retriever.analyze(&current);
    let mut weight: HashMap<String, f64> = HashMap::new();
    // Feedback only from chunks that are at least weakly relevant: terms of unrelated chunks
    // would pull the next retrieval further off topic.
    let r = &work.retrieval;
    let relevant = r
        .hits
        .iter()
        .zip(r.relevance.iter().chain(std::iter::repeat(&0.0)))
        .filter(|(_, r)| **r >= crate::orchestrator::band::RETRIEVAL_LOW)
        .map(|(h, _)| h);
    for (rank, h) in relevant.take(FEEDBACK_CHUNKS).enumerate() {
        let Some(passage) = retriever.passage(&h.chunk_id) else {
            continue;
        };
        for term in retriever.analyze(&passage.text) {
            if !have.contains(&term) && term.chars().any(char::is_alphabetic) && term.len() > 2 {
                *weight.entry(term).or_insert(0.0) += 1.0 / (rank as f64 + 1.0);
            }
        }
    }
    let mut terms: Vec<(String, f64)> = weight.into_iter().collect();
    terms.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let added: Vec<String> = terms
        .into_iter()
        .take(FEEDBACK_TERMS)
        .map(|(t, _)| t)
        .collect();
    let base = if r.reformulation_attempts >= 1 {
        strip_dates(
            &work
                .plan
                .as_ref()
                .map_or(current.clone(), |p| p.revised_query.clone()),
        )
    } else {
        current.clone()
    };
    let new_query = format!("{base} {}", added.join(" ")).trim().to_string();
    let attempts = record_attempt(work, new_query.clone());
    Ok(StageOutcome::new(json!({
        "attempt": attempts,
        "previous_query": current,
        "reformulated_query": new_query,
        "added_terms": added,
        "relaxed_dates": attempts >= 2,
    }))
    .number("reformulations", f64::from(attempts)))
}

/// Counts an attempt and sets the new search text; returns the attempts so far.
fn record_attempt(work: &mut Work, query: String) -> u8 {
    let r = &mut work.retrieval;
    r.reformulation_attempts = r.reformulation_attempts.saturating_add(1);
    r.reformulated_query = Some(query);
    r.reformulation_attempts
}

fn strip_dates(q: &str) -> String {
    q.split_whitespace()
        .filter(|w| {
            !w.trim_matches(|c: char| !c.is_alphanumeric())
                .parse::<u32>()
                .is_ok_and(|n| n >= 1900)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_dropped_when_relaxing() {
        assert_eq!(
            super::strip_dates("rate decision march 2020"),
            "rate decision march"
        );
    }
}
