//! Question-answer evaluation: does retrieval put the cited document at the top?
//!
//! Input: JSON lines with `question`, `cites` (file names) and an optional `year`.

use super::metrics::{dedup_documents, median};
use super::EvalError;
use crate::index::{Retriever, SearchMode, SearchRequest};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct QaItem {
    #[serde(default)]
    pub id: String,
    pub question: String,
    pub cites: Vec<String>,
    #[serde(default)]
    pub year: Option<i32>,
    #[serde(default)]
    pub answer: Option<String>,
    #[serde(default)]
    pub answer_value_lower: Option<f64>,
    #[serde(default)]
    pub answer_value_upper: Option<f64>,
    #[serde(default)]
    pub change_bp: Option<i32>,
    #[serde(default)]
    pub evidence: Option<String>,
}

pub fn load(path: &Path) -> Result<Vec<QaItem>, EvalError> {
    super::read_jsonl(path)
}

/// Whether a retrieved document path is one of the cited file names.
pub fn is_cited(document: &str, cites: &[String]) -> bool {
    let name = document.rsplit('/').next().unwrap_or(document);
    cites.iter().any(|c| c == name || c == document)
}

#[derive(Debug, Clone, Serialize)]
pub struct QaRetrievalScores {
    /// `"none"`: no year filter; `"item year"`: filtered to the item's `year`.
    pub year_filter: String,
    pub items: usize,
    pub hit_at_1: f64,
    pub hit_at_5: f64,
    pub median_ms: f64,
    /// Items whose cited document was not in the top 5.
    pub misses: Vec<String>,
}

/// Hit@1 and hit@5 of the cited document, once without a year filter and once with the item's year.
pub fn evaluate_retrieval(
    retriever: &dyn Retriever,
    items: &[QaItem],
) -> Result<Vec<QaRetrievalScores>, EvalError> {
    let mut out = Vec::new();
    for use_year in [false, true] {
        let (mut h1, mut h5) = (0usize, 0usize);
        let mut times = Vec::with_capacity(items.len());
        let mut misses = Vec::new();
        for item in items {
            let years = match (use_year, item.year) {
                (true, Some(y)) => vec![y],
                _ => Vec::new(),
            };
            let req = SearchRequest {
                query: item.question.clone(),
                years,
                k: 20,
            };
            let t = Instant::now();
            let resp = retriever.search(&req, SearchMode::HybridRerank)?;
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            let docs = dedup_documents(resp.hits.iter().map(|h| h.document.clone()));
            let pos = docs.iter().position(|d| is_cited(d, &item.cites));
            h1 += usize::from(pos == Some(0));
            if pos.is_some_and(|p| p < 5) {
                h5 += 1;
            } else {
                misses.push(if item.id.is_empty() {
                    item.question.clone()
                } else {
                    item.id.clone()
                });
            }
        }
        let n = items.len().max(1) as f64;
        out.push(QaRetrievalScores {
            year_filter: if use_year { "item year" } else { "none" }.to_string(),
            items: items.len(),
            hit_at_1: h1 as f64 / n,
            hit_at_5: h5 as f64 / n,
            median_ms: median(&times),
            misses,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cited_matches_by_file_name() {
        let cites = vec!["2020-03-15_statement.md".to_string()];
        assert!(is_cited("2020-03-15_statement.md", &cites));
        assert!(is_cited("fomc/2020-03-15_statement.md", &cites));
        assert!(!is_cited("2020-03-03_statement.md", &cites));
    }

    #[test]
    fn items_parse_with_optional_fields() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("qa.jsonl");
        std::fs::write(&p, "{\"question\":\"q?\",\"cites\":[\"a.md\"],\"year\":2020}\n\n{\"question\":\"r\",\"cites\":[]}\n").unwrap();
        let items = load(&p).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].year, Some(2020));
        std::fs::write(&p, "{\"question\":1}\n").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains(":1:"));
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct QaAnswerScores {
    pub items: usize,
    /// Share of items whose cited file is among the answer's citations.
    pub cited: f64,
    /// Share of checkable items whose answer states the expected rate or action (`None` when
    /// no item carries an expected value).
    pub correct: Option<f64>,
    pub median_ms: f64,
    pub p95_ms: f64,
    /// How many items ended with each final reason.
    pub final_reasons: std::collections::BTreeMap<String, usize>,
    /// Quantiles (p10, p50, p90) of the evaluate stage's mean relevance and of the confidence.
    pub relevance_quantiles: [f64; 3],
    pub confidence_quantiles: [f64; 3],
    /// Items answered wrongly or without the cited file: `id: what was wrong`.
    pub failures: Vec<String>,
}

/// Whether an answer states what the item expects; `None` when the item expects nothing checkable.
pub fn answer_is_correct(item: &QaItem, answer: &str) -> Option<bool> {
    let body = answer;
    if let Some(bp) = item.change_bp {
        return Some(super::answer_check::first_action(body) == Some(bp));
    }
    match (item.answer_value_lower, item.answer_value_upper) {
        (Some(lo), Some(hi)) => Some(super::answer_check::states_value(body, lo, hi)),
        _ => None,
    }
}

/// Runs the whole pipeline on every item and checks citations and answers.
pub async fn evaluate_answers(
    engine: &crate::orchestrator::api::Engine,
    items: &[QaItem],
) -> QaAnswerScores {
    use crate::orchestrator::driver::AskRequest;
    let (mut cited, mut correct, mut checkable) = (0usize, 0usize, 0usize);
    let mut times = Vec::with_capacity(items.len());
    let mut failures = Vec::new();
    let mut reasons = std::collections::BTreeMap::new();
    let (mut relevances, mut confidences) = (Vec::new(), Vec::new());
    for (i, item) in items.iter().enumerate() {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let req = AskRequest {
            query: item.question.clone(),
            requested_years: Vec::new(),
            session_id: "eval".into(),
            query_id: format!("eval{i}"),
            context: Vec::new(),
        };
        let t = Instant::now();
        let result = engine.ask(req, &tx).await;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        *reasons
            .entry(result.final_reason.as_str().to_string())
            .or_insert(0) += 1;
        if let Some(r) = result
            .cached_state
            .get("evaluate")
            .and_then(|e| e["mean_relevance"].as_f64())
        {
            relevances.push(r);
        }
        if let Some(c) = result.confidence {
            confidences.push(c);
        }
        // Items without cited files are questions the documents do not answer: citing nothing is right.
        let has_cite = if item.cites.is_empty() {
            result.citations.is_empty()
        } else {
            result
                .citations
                .iter()
                .any(|c| is_cited(&c.document, &item.cites))
        };
        cited += usize::from(has_cite);
        let ok = answer_is_correct(item, &result.answer);
        if let Some(ok) = ok {
            checkable += 1;
            correct += usize::from(ok);
        }
        if !has_cite || ok == Some(false) {
            let first = result
                .answer
                .replace('\n', " ")
                .chars()
                .take(160)
                .collect::<String>();
            failures.push(format!(
                "{}: cited={has_cite} correct={ok:?} answer: {first}",
                if item.id.is_empty() {
                    &item.question
                } else {
                    &item.id
                }
            ));
        }
    }
    let n = items.len().max(1) as f64;
    let q = |v: &[f64]| {
        [
            super::metrics::percentile(v, 0.1),
            median(v),
            super::metrics::percentile(v, 0.9),
        ]
    };
    QaAnswerScores {
        final_reasons: reasons,
        relevance_quantiles: q(&relevances),
        confidence_quantiles: q(&confidences),
        items: items.len(),
        cited: cited as f64 / n,
        correct: (checkable > 0).then(|| correct as f64 / checkable as f64),
        median_ms: median(&times),
        p95_ms: super::metrics::percentile(&times, 0.95),
        failures,
    }
}
