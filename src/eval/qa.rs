//! Question sets and retrieval evaluation: does retrieval put the cited document at the top?
//! The whole-pipeline evaluation of the same items is [`super::answers`].
//!
//! Input: JSON lines with `question`, `cites` (file names) and an optional `year`; answer sets
//! add `kind`, `source`, `expect_all`/`expect_any` phrases, and rate items the expected value
//! (`answer_value_lower/upper`) or move (`change_bp`). `eval/README.md` describes the sets.

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
    /// What the question asks: `rate`, `decision`, `reason`, `vote`, `schedule`, `amount`,
    /// `description` (answer sets; the dev set has none).
    #[serde(default)]
    pub kind: Option<String>,
    /// Which kind of file states the evidence: `statement` or `minutes`.
    #[serde(default)]
    pub source: Option<String>,
    /// Phrases a correct answer contains, every one of them.
    #[serde(default)]
    pub expect_all: Vec<String>,
    /// Phrases of which a correct answer contains at least one.
    #[serde(default)]
    pub expect_any: Vec<String>,
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
