//! A retrieval backend over passages held in memory: BM25 (k1 1.2, b 0.75) on lower-cased words
//! without English stop words, no dense vectors. It needs no files and no model, so it suits small
//! collections built in code, and it lets the orchestrator's routing be exercised in tests without
//! an on-disk index. It is a real second implementation of [`Retriever`], not a stand-in: every
//! score it returns is computed from the passages it holds.

use super::error::IndexError;
use super::fuse::{self, Ranked};
use super::rerank::{min_max, RecencyBoost};
use super::retriever::{
    Candidates, DocumentInfo, Hit, Passage, RetrievalSettings, Retriever, RetrieverInfo, Timings,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// Words too common to tell passages apart.
const STOP_WORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "how", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "were", "what",
    "when", "which", "who", "why", "with",
];

pub struct MemoryRetriever {
    passages: Vec<Passage>,
    by_id: HashMap<String, usize>,
    /// Term → (passage row, term frequency).
    postings: HashMap<String, Vec<(usize, u32)>>,
    lengths: Vec<u32>,
    mean_length: f32,
    settings: RetrievalSettings,
    recency: RecencyBoost,
}

impl MemoryRetriever {
    /// Indexes `passages` (later duplicates of a `chunk_id` are ignored).
    pub fn new(passages: Vec<Passage>, settings: RetrievalSettings) -> MemoryRetriever {
        let mut kept: Vec<Passage> = Vec::with_capacity(passages.len());
        let mut by_id = HashMap::new();
        for p in passages {
            if !by_id.contains_key(&p.chunk_id) {
                by_id.insert(p.chunk_id.clone(), kept.len());
                kept.push(p);
            }
        }
        let mut postings: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(kept.len());
        for (row, p) in kept.iter().enumerate() {
            let words = words(&p.text);
            lengths.push(words.len() as u32);
            let mut tf: BTreeMap<String, u32> = BTreeMap::new();
            for w in words {
                *tf.entry(w).or_insert(0) += 1;
            }
            for (term, n) in tf {
                postings.entry(term).or_default().push((row, n));
            }
        }
        let mean_length = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().map(|&l| l as f32).sum::<f32>() / lengths.len() as f32).max(1.0)
        };
        let recency = RecencyBoost {
            boost: settings.recency_boost,
            window: settings.recent_year_window,
            latest_year: kept.iter().filter_map(|p| p.year).max(),
        };
        MemoryRetriever {
            passages: kept,
            by_id,
            postings,
            lengths,
            mean_length,
            settings,
            recency,
        }
    }

    fn bm25(&self, query: &str, years: &[i32]) -> Vec<(usize, f32)> {
        let n = self.passages.len() as f32;
        let mut scores: HashMap<usize, f32> = HashMap::new();
        for term in self.analyze(query) {
            let Some(list) = self.postings.get(&term) else {
                continue;
            };
            let df = list.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(row, tf) in list {
                let tf = tf as f32;
                let norm = K1 * (1.0 - B + B * self.lengths[row] as f32 / self.mean_length);
                *scores.entry(row).or_insert(0.0) += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut out: Vec<(usize, f32)> = scores
            .into_iter()
            .filter(|(row, _)| {
                years.is_empty() || self.passages[*row].year.is_some_and(|y| years.contains(&y))
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// Lower-case words of `text` without stop words, in order.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

impl Retriever for MemoryRetriever {
    fn info(&self) -> RetrieverInfo {
        let documents: BTreeSet<&str> = self.passages.iter().map(|p| p.document.as_str()).collect();
        RetrieverInfo {
            backend: "memory",
            dense: false,
            dense_pending: None,
            reranker: "bm25-minmax".to_string(),
            documents: documents.len(),
            chunks: self.passages.len(),
        }
    }

    fn settings(&self) -> &RetrievalSettings {
        &self.settings
    }

    fn recency(&self) -> &RecencyBoost {
        &self.recency
    }

    fn years(&self) -> BTreeMap<i32, usize> {
        let mut docs: BTreeMap<i32, BTreeSet<&str>> = BTreeMap::new();
        for p in &self.passages {
            if let Some(y) = p.year {
                docs.entry(y).or_default().insert(p.document.as_str());
            }
        }
        docs.into_iter().map(|(y, d)| (y, d.len())).collect()
    }

    fn documents(&self) -> Vec<DocumentInfo> {
        let mut out: BTreeMap<&str, DocumentInfo> = BTreeMap::new();
        for p in &self.passages {
            let info = out
                .entry(p.document.as_str())
                .or_insert_with(|| DocumentInfo {
                    document: p.document.clone(),
                    title: p.title.clone(),
                    date: p.date,
                    length: 0,
                });
            info.length = info.length.max(p.byte_end);
        }
        out.into_values().collect()
    }

    fn analyze(&self, text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in words(text) {
            if !out.contains(&w) {
                out.push(w);
            }
        }
        out
    }

    fn embed_query(&self, _text: &str) -> Result<Option<Vec<f32>>, IndexError> {
        Ok(None)
    }

    fn embed_texts(&self, _texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, IndexError> {
        Ok(None)
    }

    fn candidates(
        &self,
        query: &str,
        _query_vec: Option<&[f32]>,
        years: &[i32],
        n: usize,
        timings: &mut Timings,
    ) -> Result<Candidates, IndexError> {
        let t = std::time::Instant::now();
        let sparse = self
            .bm25(query, years)
            .into_iter()
            .take(n)
            .map(|(row, score)| Ranked {
                chunk_id: self.passages[row].chunk_id.clone(),
                score,
            })
            .collect();
        timings.sparse_ms += super::retriever::ms(t);
        Ok(Candidates {
            dense: Vec::new(),
            sparse,
        })
    }

    fn rank(
        &self,
        _query: &str,
        _query_vec: Option<&[f32]>,
        candidates: &Candidates,
        rerank: bool,
        _timings: &mut Timings,
    ) -> Result<Vec<Hit>, IndexError> {
        let fused = fuse::rrf(
            &[candidates.dense.clone(), candidates.sparse.clone()],
            self.settings.rrf_k,
        );
        let rows: Vec<(usize, &fuse::Fused)> = fused
            .iter()
            .filter_map(|f| self.by_id.get(&f.chunk_id).map(|&row| (row, f)))
            .collect();
        // Rescoring here is BM25 itself, min-max normalised; without rerank, the fusion order.
        let raw: Vec<f32> = rows
            .iter()
            .map(|(_, f)| {
                if rerank {
                    f.sources[1].map_or(0.0, |s| s.1)
                } else {
                    f.fused_score
                }
            })
            .collect();
        let norm = min_max(&raw);
        let mut scored: Vec<(usize, f32, f32)> = norm
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let boost = if rerank {
                    self.recency.for_year(self.passages[rows[i].0].year)
                } else {
                    0.0
                };
                (i, s, boost)
            })
            .collect();
        scored.sort_by(|a, b| (b.1 + b.2).total_cmp(&(a.1 + a.2)).then(a.0.cmp(&b.0)));
        Ok(scored
            .into_iter()
            .enumerate()
            .map(|(rank, (i, s, boost))| {
                let (row, f) = rows[i];
                let p = &self.passages[row];
                Hit {
                    rank: rank + 1,
                    chunk_id: p.chunk_id.clone(),
                    document: p.document.clone(),
                    title: p.title.clone(),
                    date: p.date,
                    year: p.year,
                    section: p.section.clone(),
                    dense_rank: f.sources[0].map(|s| s.0),
                    dense_score: f.sources[0].map(|s| s.1),
                    sparse_rank: f.sources[1].map(|s| s.0),
                    sparse_score: f.sources[1].map(|s| s.1),
                    fused_score: f.fused_score,
                    rerank_score: s,
                    recency_boost: boost,
                    date_bonus: 0.0,
                    score: s + boost,
                    snippet: String::new(),
                }
            })
            .collect())
    }

    fn passage(&self, chunk_id: &str) -> Option<Passage> {
        self.by_id.get(chunk_id).map(|&i| self.passages[i].clone())
    }

    fn similarity(&self, _query_vec: &[f32], _chunk_id: &str) -> Option<f32> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;
    use crate::index::retriever::{SearchMode, SearchRequest};

    fn passage(id: &str, date: &str, text: &str) -> Passage {
        Passage {
            title: "t".into(),
            ..Passage::whole(id, format!("{date}_doc.md"), Date::parse(date), text)
        }
    }

    fn settings() -> RetrievalSettings {
        RetrievalSettings {
            candidates: 50,
            rrf_k: 60.0,
            recency_boost: 0.0,
            recent_year_window: 3,
        }
    }

    fn retriever() -> MemoryRetriever {
        MemoryRetriever::new(
            vec![
                passage(
                    "a",
                    "2019-07-31",
                    "The Committee lowered the target range by a quarter point.",
                ),
                passage(
                    "b",
                    "2020-03-15",
                    "The Committee lowered the target range to 0 to 1/4 percent.",
                ),
                passage(
                    "c",
                    "2020-06-10",
                    "Asset purchases of Treasury securities will continue.",
                ),
                passage("a", "2021-01-01", "duplicate id, ignored"),
            ],
            settings(),
        )
    }

    #[test]
    fn a_documents_length_is_where_its_last_passage_ends() {
        let first = passage("x1", "2006-06-29", "The staff reviewed the economy.");
        let second = Passage {
            byte_start: 40,
            byte_end: 95,
            ..passage("x2", "2006-06-29", "Members agreed to raise the target.")
        };
        let r = MemoryRetriever::new(vec![second, first], settings());
        let docs = r.documents();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].length, 95);
    }

    #[test]
    fn bm25_ranks_the_passage_with_the_rare_terms_first_and_filters_years() {
        let r = retriever();
        let resp = r
            .search(
                &SearchRequest {
                    query: "target range 1/4 percent".into(),
                    years: vec![],
                    k: 5,
                },
                SearchMode::HybridRerank,
            )
            .unwrap();
        assert_eq!(resp.hits[0].chunk_id, "b");
        assert_eq!(resp.hits.len(), 2, "the purchases passage shares no term");
        let in_2019 = r
            .search(
                &SearchRequest {
                    query: "target range".into(),
                    years: vec![2019],
                    k: 5,
                },
                SearchMode::HybridRerank,
            )
            .unwrap();
        assert_eq!(
            in_2019
                .hits
                .iter()
                .map(|h| h.chunk_id.as_str())
                .collect::<Vec<_>>(),
            vec!["a"]
        );
        assert!(!in_2019.dense);
    }

    #[test]
    fn passages_years_and_analysis() {
        let r = retriever();
        assert_eq!(r.info().chunks, 3);
        assert_eq!(r.passage("c").map(|p| p.year), Some(Some(2020)));
        assert!(r.passage("zz").is_none());
        assert_eq!(r.years(), BTreeMap::from([(2019, 1), (2020, 2)]));
        assert_eq!(
            r.analyze("What is the Target range, the range?"),
            vec!["target", "range"]
        );
        assert_eq!(r.embed_query("x").unwrap(), None);
    }
}
