//! Evaluate: retrieval confidence from the calibrated relevance of the top results — the
//! rank-weighted mean (0.5, 0.3, 0.2) of the three best, banded high ≥ 0.55, medium ≥ 0.40,
//! low ≥ 0.25, insufficient below; a question naming one day whose best passage is of that
//! day (or one month) and shares a word with it besides the date is at least medium.
//!
//! Slice: `mean_relevance`, `retrieval_confidence`, `top_relevance`, `reformulation_attempts`.
//! Fact: `retrieval_level` (0–3). Confidence: the mean relevance.

use crate::index::Hit;
use crate::index::Retriever;
use crate::orchestrator::band::RetrievalConfidence;
use crate::orchestrator::relevance::{coverage, relevance};
use crate::orchestrator::stage::{r2, Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use serde_json::json;
use std::collections::HashSet;

pub const ID: NodeId = NodeId::new("evaluate");

/// Weights of the top results in the mean: the best passage counts most, because one passage
/// that answers the question is enough; the next two say whether the evidence is more than a
/// lucky match. (An unweighted mean of three would call a question answered by exactly one
/// passage "low" by construction.)
pub const TOP_WEIGHTS: [f64; 3] = [0.5, 0.3, 0.2];

pub struct Evaluate;

impl Stage for Evaluate {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let text = work.search_text(&cx.input);
        let rel = chunk_relevance(
            cx.retriever.as_ref(),
            &text,
            work.retrieval.query_vec.as_deref(),
            &work.retrieval.hits,
        );
        let mut top = rel.clone();
        top.sort_by(|a, b| b.total_cmp(a));
        top.truncate(TOP_WEIGHTS.len());
        let mean = weighted_top_mean(&top);
        let named = named_meeting_found(cx.retriever.as_ref(), &text, work);
        let level = match RetrievalConfidence::from_relevance(mean) {
            RetrievalConfidence::Insufficient | RetrievalConfidence::Low if named => {
                RetrievalConfidence::Medium
            }
            l => l,
        };
        let r = &mut work.retrieval;
        r.relevance = rel;
        r.mean_relevance = Some(r2(mean));
        r.confidence = Some(level);
        Ok(StageOutcome::new(json!({
            "mean_relevance": r2(mean),
            "retrieval_confidence": level,
            "top_relevance": top.iter().map(|x| r2(*x)).collect::<Vec<_>>(),
            "reformulation_attempts": r.reformulation_attempts,
            "named_meeting_found": named,
        }))
        .number("retrieval_level", level.level())
        .confidence(r2(mean)))
    }
}

/// Whether the question names one day or one month ("why did they cut on jan 3, 2001?", "who
/// dissented in December 2017?") and the best passage is of it and shares a word with the
/// question besides the date's. Such a question is about that meeting's documents, however few
/// of its words they use: its retrieval is at least medium, so they are read and the answer's
/// own confidence says how well they answer. The shared word keeps "what was the weather on 3
/// January 2001?" insufficient.
fn named_meeting_found(retriever: &dyn Retriever, query: &str, work: &Work) -> bool {
    let (Some(hint), Some(best)) = (work.date_hint(), work.retrieval.hits.first()) else {
        return false;
    };
    let (start, end) = (hint.date_start, hint.date_end);
    let one_month = (start.year, start.month) == (end.year, end.month);
    if !one_month || !best.date.is_some_and(|d| (start..=end).contains(&d)) {
        return false;
    }
    let words: String = query
        .split_whitespace()
        .filter(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            !w.chars().any(|c| c.is_ascii_digit()) && crate::calendar::month_from_name(w).is_none()
        })
        .collect::<Vec<_>>()
        .join(" ");
    let q_terms = retriever.analyze(&words);
    let Some(passage) = retriever.passage(&best.chunk_id) else {
        return false;
    };
    let terms: HashSet<String> = retriever.analyze(&passage.text).into_iter().collect();
    q_terms.iter().any(|t| terms.contains(t))
}

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

/// Calibrated relevance of every hit to `query`.
pub fn chunk_relevance(
    retriever: &dyn Retriever,
    query: &str,
    qvec: Option<&[f32]>,
    hits: &[Hit],
) -> Vec<f64> {
    let q_terms = retriever.analyze(query);
    hits.iter()
        .map(|h| {
            let cos = qvec
                .and_then(|q| retriever.similarity(q, &h.chunk_id))
                .map(f64::from);
            let text = retriever
                .passage(&h.chunk_id)
                .map(|p| p.text)
                .unwrap_or_default();
            let terms: HashSet<String> = retriever.analyze(&text).into_iter().collect();
            relevance(cos, coverage(&q_terms, &terms))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::memory::MemoryRetriever;
    use crate::index::retriever::TopHits;
    use crate::index::{Passage, RetrievalSettings, Timings};
    use crate::orchestrator::stage::testing::cx;
    use std::sync::Arc;

    fn settings() -> RetrievalSettings {
        RetrievalSettings {
            candidates: 10,
            rrf_k: 60.0,
            recency_boost: 0.0,
            recent_year_window: 3,
        }
    }

    fn passage(id: &str, text: &str) -> Passage {
        Passage {
            title: "t".into(),
            ..Passage::whole(id, format!("{id}.md"), None, text)
        }
    }

    #[test]
    fn the_stage_scores_retrieval_with_the_weighted_mean() {
        // Passages covering 4, 2 and 1 of the query's four terms: relevance 1, 0.5, 0.25.
        let r: Arc<dyn Retriever> = Arc::new(MemoryRetriever::new(
            vec![
                passage("a", "budget council approved spending"),
                passage("b", "budget council met"),
                passage("c", "budget only"),
            ],
            settings(),
        ));
        let cx = cx(Arc::clone(&r), "budget council approved spending");
        let mut work = Work::default();
        let mut t = Timings::default();
        let c = r
            .candidates(&cx.input.query, None, &[], 10, &mut t)
            .unwrap();
        let cut = TopHits {
            hint: None,
            k: 10,
            rerank: true,
        };
        work.retrieval.hits = r.top_hits(&cx.input.query, None, &c, cut, &mut t).unwrap();
        let out = Evaluate.run(&cx, &mut work).unwrap();
        // 0.5·1 + 0.3·0.5 + 0.2·0.25 = 0.7 (the unweighted mean would be 0.58).
        assert_eq!(out.slice["mean_relevance"], json!(0.7));
        assert_eq!(out.confidence, Some(0.7));
        assert_eq!(out.facts.get_number("retrieval_level"), Some(3.0));
        assert_eq!(work.retrieval.relevance.len(), 3);
    }

    #[test]
    fn a_named_day_or_month_whose_meeting_was_found_is_read() {
        let date = crate::corpus::Date::parse("2017-12-13");
        let r: Arc<dyn Retriever> = Arc::new(MemoryRetriever::new(
            vec![Passage::whole(
                "m",
                "2017-12-13_minutes.md",
                date,
                "Mr. Evans dissented because he preferred to pause the process of normalization.",
            )],
            settings(),
        ));
        for (question, named) in [
            ("Why did Evans dissent on December 13, 2017?", true),
            ("One dissenter in December 2017 was Evans. Why?", true),
            ("Why did Evans dissent in mid-December 2017?", true),
            // A year is not a meeting, a passage of another month (or of the month's first
            // half, asked about its end) is not the one named, and a question sharing no word
            // with the passage is not about it.
            ("Why did Evans dissent in 2017?", false),
            ("Why did Evans dissent in late December 2017?", false),
            ("Why did Evans dissent in November 2017?", false),
            ("What was the weather in December 2017?", false),
        ] {
            let cx = cx(Arc::clone(&r), question);
            let mut work = Work {
                plan: Some(crate::orchestrator::stages::plan::plan_for(&cx.input)),
                ..Work::default()
            };
            work.retrieval.hits = vec![Hit {
                chunk_id: "m".into(),
                date,
                ..Hit::default()
            }];
            assert_eq!(
                named_meeting_found(r.as_ref(), question, &work),
                named,
                "{question}"
            );
        }
    }

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
