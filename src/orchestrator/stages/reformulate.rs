//! Reformulate: pseudo-relevance feedback. The strongest terms of the best chunks that the query
//! lacks are added to it; a second attempt also drops the date words so retrieval can range wider.

use super::StageError;
use crate::index::retrieve::Retriever;
use crate::orchestrator::state::QueryState;
use serde_json::json;
use std::collections::HashMap;

const FEEDBACK_CHUNKS: usize = 3;
const FEEDBACK_TERMS: usize = 5;

pub fn run(retriever: &Retriever, st: &mut QueryState) -> Result<serde_json::Value, StageError> {
    let sparse = retriever.store().sparse();
    let current = st.search_text();
    let have: Vec<String> = sparse.analyze(&current);
    let mut weight: HashMap<String, f64> = HashMap::new();
    // Feedback only from chunks that are at least weakly relevant: terms of unrelated chunks
    // would pull the next retrieval further off topic.
    let relevant = st
        .retrieved_chunks
        .iter()
        .zip(st.relevance.iter().chain(std::iter::repeat(&0.0)))
        .filter(|(_, r)| **r >= crate::orchestrator::band::RETRIEVAL_LOW)
        .map(|(h, _)| h);
    for (rank, h) in relevant.take(FEEDBACK_CHUNKS).enumerate() {
        let Some(chunk) = retriever.store().chunk(&h.chunk_id) else {
            continue;
        };
        for term in sparse.analyze(&chunk.text) {
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
    let base = if st.reformulation_attempts >= 1 {
        strip_dates(
            &st.plan
                .as_ref()
                .map_or(current.clone(), |p| p.revised_query.clone()),
        )
    } else {
        current.clone()
    };
    let new_query = format!("{base} {}", added.join(" ")).trim().to_string();
    st.reformulation_attempts += 1;
    st.reformulated_query = Some(new_query.clone());
    Ok(json!({
        "attempt": st.reformulation_attempts,
        "previous_query": current,
        "reformulated_query": new_query,
        "added_terms": added,
        "relaxed_dates": st.reformulation_attempts >= 2,
    }))
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
