//! Validate: every `[n]` in the answer must name a citation whose chunk was retrieved. Invalid
//! markers are removed from the text and reported; unused citations are dropped.
//!
//! Slice: `valid` (the numbers kept), `invalid` (what was wrong), `dropped`.

use crate::orchestrator::citations::{numbers, retain_markers};
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use serde_json::json;
use std::collections::HashSet;

pub const ID: NodeId = NodeId::new("validate");

pub struct Validate;

impl Stage for Validate {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, _cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        Ok(StageOutcome::new(validate(work)))
    }
}

fn validate(work: &mut Work) -> serde_json::Value {
    let retrieved: HashSet<&str> = work
        .retrieval
        .hits
        .iter()
        .map(|h| h.chunk_id.as_str())
        .collect();
    let a = &mut work.answer;
    let valid: HashSet<usize> = a
        .citations
        .iter()
        .filter(|c| retrieved.contains(c.chunk_id.as_str()))
        .map(|c| c.n)
        .collect();
    let mut invalid: Vec<String> = Vec::new();
    for n in numbers(&a.text) {
        if !valid.contains(&n) {
            let what = match a.citations.iter().find(|c| c.n == n) {
                Some(c) => format!("[{n}] cites chunk {} which was not retrieved", c.chunk_id),
                None => format!("[{n}] has no source"),
            };
            if !invalid.contains(&what) {
                invalid.push(what);
            }
        }
    }
    a.text = retain_markers(&a.text, |n| valid.contains(&n));
    let used: HashSet<usize> = numbers(&a.text).into_iter().collect();
    let before = a.citations.len();
    a.citations
        .retain(|c| valid.contains(&c.n) && used.contains(&c.n));
    for s in &mut a.sentences {
        s.citations.retain(|n| valid.contains(n));
        s.display = retain_markers(&s.display, |n| valid.contains(&n));
    }
    a.invalid_citations = invalid.clone();
    json!({
        "valid": a.citations.iter().map(|c| c.n).collect::<Vec<_>>(),
        "invalid": invalid,
        "dropped": before - a.citations.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Hit;
    use crate::orchestrator::types::Citation;

    fn hit(id: &str) -> Hit {
        Hit {
            rank: 1,
            chunk_id: id.into(),
            document: "d.md".into(),
            title: "t".into(),
            date: None,
            year: None,
            section: None,
            dense_rank: None,
            dense_score: None,
            sparse_rank: None,
            sparse_score: None,
            fused_score: 0.0,
            rerank_score: 0.0,
            recency_boost: 0.0,
            date_bonus: 0.0,
            score: 0.0,
            snippet: String::new(),
        }
    }

    fn citation(n: usize, id: &str) -> Citation {
        Citation {
            n,
            chunk_id: id.into(),
            document: "d.md".into(),
            date: None,
            section: None,
            score: 0.5,
        }
    }

    #[test]
    fn citations_to_unretrieved_chunks_and_unknown_numbers_are_removed() {
        let mut w = Work::default();
        w.retrieval.hits = vec![hit("aaa"), hit("bbb")];
        w.answer.citations = vec![citation(1, "aaa"), citation(2, "zzz"), citation(4, "bbb")];
        w.answer.text = "First claim [1]. Invented claim [2]. Ghost claim [3].".into();
        let slice = validate(&mut w);
        assert_eq!(
            w.answer.text,
            "First claim [1]. Invented claim. Ghost claim."
        );
        assert_eq!(
            w.answer.citations.iter().map(|c| c.n).collect::<Vec<_>>(),
            vec![1],
            "unused [4] is dropped too"
        );
        assert_eq!(w.answer.invalid_citations.len(), 2);
        assert!(w.answer.invalid_citations[0].contains("zzz"));
        assert!(w.answer.invalid_citations[1].contains("[3]"));
        assert_eq!(slice["valid"], json!([1]));
        assert_eq!(slice["dropped"], json!(2));
    }
}
