//! The retrieval seam (ARCHITECTURE §5): what the orchestrator, the evaluations and the CLI ask
//! of any retrieval backend. The embedded store ([`super::embedded::EmbeddedRetriever`]) is one
//! implementation; [`super::memory::MemoryRetriever`] (BM25 over passages held in memory) is
//! another. Everything above this trait sees passages and scores, never a store's files.

use super::error::IndexError;
use super::fuse::Ranked;
use super::rerank::RecencyBoost;
use super::snippet::snippet;
use crate::corpus::Date;
use crate::query::{date_hints, MetadataHints};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// Whether a year filter applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum YearMode {
    /// Only chunks from `requested_years`.
    Explicit,
    /// No filter.
    None,
}

/// Which parts of retrieval run (the evaluation compares them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchMode {
    Sparse,
    Dense,
    Hybrid,
    HybridRerank,
}

impl SearchMode {
    pub const ALL: [SearchMode; 4] = [
        SearchMode::Sparse,
        SearchMode::Dense,
        SearchMode::Hybrid,
        SearchMode::HybridRerank,
    ];

    pub fn label(self) -> &'static str {
        match self {
            SearchMode::Sparse => "sparse",
            SearchMode::Dense => "dense",
            SearchMode::Hybrid => "hybrid",
            SearchMode::HybridRerank => "hybrid+rerank",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    pub query: String,
    /// Empty = no year filter.
    pub years: Vec<i32>,
    pub k: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrievalSettings {
    /// Candidates taken from each search before fusion.
    pub candidates: usize,
    pub rrf_k: f32,
    pub recency_boost: f32,
    pub recent_year_window: u32,
}

/// One retrieved chunk with every score that placed it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Hit {
    pub rank: usize,
    pub chunk_id: String,
    pub document: String,
    pub title: String,
    pub date: Option<Date>,
    pub year: Option<i32>,
    pub section: Option<String>,
    pub dense_rank: Option<usize>,
    pub dense_score: Option<f32>,
    pub sparse_rank: Option<usize>,
    pub sparse_score: Option<f32>,
    pub fused_score: f32,
    /// The reranker's score, min-max normalised over the candidates.
    pub rerank_score: f32,
    pub recency_boost: f32,
    /// Added when the chunk's date falls in a date range the query names.
    pub date_bonus: f32,
    /// `rerank_score + recency_boost + date_bonus`: what the hits are ordered by.
    pub score: f32,
    pub snippet: String,
}

/// A retrieved passage: a chunk's text and where it sits (for prompts, sentence selection and
/// the passage viewer).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Passage {
    pub chunk_id: String,
    /// Path of the document relative to the corpus root.
    pub document: String,
    pub title: String,
    pub date: Option<Date>,
    pub year: Option<i32>,
    pub section: Option<String>,
    pub text: String,
    /// Byte range of the passage in its document's text.
    pub byte_start: usize,
    pub byte_end: usize,
}

impl Passage {
    /// A passage that is the whole `text` of `document`, dated `date` (its year follows), with
    /// no title or section: what a memory corpus is built from.
    pub fn whole(
        chunk_id: impl Into<String>,
        document: impl Into<String>,
        date: Option<Date>,
        text: impl Into<String>,
    ) -> Passage {
        let text = text.into();
        Passage {
            chunk_id: chunk_id.into(),
            document: document.into(),
            date,
            year: date.map(|d| d.year),
            byte_end: text.len(),
            text,
            ..Passage::default()
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Timings {
    pub embed_ms: f64,
    pub dense_ms: f64,
    pub sparse_ms: f64,
    pub fuse_ms: f64,
    pub rerank_ms: f64,
    pub total_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResponse {
    pub query: String,
    pub year_mode: YearMode,
    pub requested_years: Vec<i32>,
    /// The years the recency boost favours, `[oldest, newest]`.
    pub recent_year_window: Option<[i32; 2]>,
    pub reranker: String,
    /// Whether dense retrieval took part.
    pub dense: bool,
    /// The date range read from the query, if any.
    pub date_hint: Option<MetadataHints>,
    pub hits: Vec<Hit>,
    pub timings: Timings,
}

/// One search pass: its name and the years it was restricted to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pass {
    pub name: &'static str,
    pub years: Vec<i32>,
    pub dense: usize,
    pub sparse: usize,
}

/// Ranked candidates from each search, before fusion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Candidates {
    pub dense: Vec<Ranked>,
    pub sparse: Vec<Ranked>,
}

/// A document of the collection: where it is and when (for sweeps over a period).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DocumentInfo {
    pub document: String,
    pub title: String,
    pub date: Option<Date>,
    /// Bytes of the document's text its passages reach (the end of the last one): where in
    /// the document a sentence sits, as a share of it.
    pub length: usize,
}

/// Sentence vectors and the model that made them (vectors of different models do not compare).
#[derive(Debug, Clone, PartialEq)]
pub struct SentenceVectors {
    pub model: String,
    pub vectors: Vec<Vec<f32>>,
}

/// What a backend is, for status bars, results and `fathom doctor`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrieverInfo {
    /// `embedded`, `memory`, …
    pub backend: &'static str,
    /// Dense retrieval takes part.
    pub dense: bool,
    /// Dense vectors still being filled in behind BM25 (progressive indexing): how far they
    /// are. Until they are complete retrieval is BM25 alone.
    pub dense_pending: Option<super::store::DenseCoverage>,
    pub reranker: String,
    pub documents: usize,
    pub chunks: usize,
}

/// How [`Retriever::top_hits`] cuts a ranking: the date range to put first, how many to keep,
/// whether to rescore with the reranker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopHits {
    pub hint: Option<MetadataHints>,
    pub k: usize,
    pub rerank: bool,
}

/// Added to the score of a chunk dated inside the range a query names. Rerank scores lie in
/// [0, 1] (plus a recency boost of at most 0.05), so a bonus of 1 ranks every passage of the
/// named dates first, ordered among themselves by relevance: a question about May 16, 2000 is
/// about that meeting, however similar the wording of a 2015 statement. Measured: with a
/// bonus of 0.3 the cited FOMC statement was first for 66% of dated questions; see
/// docs/benchmarks.md.
pub const DATE_HINT_BONUS: f32 = 1.0;

/// A retrieval backend: hybrid candidates, ranking, passages, query analysis and embedding.
pub trait Retriever: Send + Sync {
    fn info(&self) -> RetrieverInfo;
    fn settings(&self) -> &RetrievalSettings;
    fn recency(&self) -> &RecencyBoost;
    /// Documents per year present in the collection.
    fn years(&self) -> BTreeMap<i32, usize>;
    /// Every document of the collection, by path.
    fn documents(&self) -> Vec<DocumentInfo>;
    /// The distinct dates of the collection's documents, ascending.
    fn dates(&self) -> Vec<Date> {
        super::store::distinct_dates(self.documents().into_iter().map(|d| d.date))
    }
    /// The terms lexical search matches `text` on (after stemming and stop words), in order,
    /// without repeats.
    fn analyze(&self, text: &str) -> Vec<String>;
    /// The query's vector, or `None` when dense retrieval is off.
    fn embed_query(&self, text: &str) -> Result<Option<Vec<f32>>, IndexError>;
    /// Vectors of passages or sentences, or `None` when dense retrieval is off.
    fn embed_texts(&self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, IndexError>;
    /// Sentence vectors for reading what an input means, with the embedder's model id, whether
    /// or not the index's own vectors are complete; `None` without an embedder.
    fn embed_sentences(&self, _texts: &[&str]) -> Result<Option<SentenceVectors>, IndexError> {
        Ok(None)
    }
    /// Dense and lexical top-`n` for one query, both restricted to `years` when any are given.
    fn candidates(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        years: &[i32],
        n: usize,
        timings: &mut Timings,
    ) -> Result<Candidates, IndexError>;
    /// Fuses candidates, rescores them (`rerank`) or keeps the fusion order, adds the recency
    /// boost, and returns every candidate best first (no date bonus, no snippets yet).
    fn rank(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        candidates: &Candidates,
        rerank: bool,
        timings: &mut Timings,
    ) -> Result<Vec<Hit>, IndexError>;
    /// A passage by chunk id.
    fn passage(&self, chunk_id: &str) -> Option<Passage>;
    /// Cosine of `query_vec` and the chunk's stored vector, when it has one.
    fn similarity(&self, query_vec: &[f32], chunk_id: &str) -> Option<f32>;

    /// Whether dense retrieval takes part.
    fn dense_enabled(&self) -> bool {
        self.info().dense
    }

    /// Candidates in one pass, or two when a date hint is given: one restricted to the hinted
    /// years (within `years`, if any) and one over `years` alone, merged by `chunk_id`.
    fn candidates_with_hint(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        years: &[i32],
        hint: Option<MetadataHints>,
        n: usize,
        timings: &mut Timings,
    ) -> Result<(Candidates, Vec<Pass>), IndexError> {
        let mut passes: Vec<(&'static str, Vec<i32>)> = Vec::new();
        if let Some(h) = hint {
            let hinted: Vec<i32> = h
                .years()
                .into_iter()
                .filter(|y| years.is_empty() || years.contains(y))
                .collect();
            if !hinted.is_empty() {
                passes.push(("date_hint", hinted));
            }
        }
        passes.push(("unfiltered", years.to_vec()));
        let mut dense = Vec::new();
        let mut sparse = Vec::new();
        let mut info = Vec::new();
        for (name, ys) in passes {
            let c = self.candidates(query, query_vec, &ys, n, timings)?;
            info.push(Pass {
                name,
                years: ys,
                dense: c.dense.len(),
                sparse: c.sparse.len(),
            });
            dense.push(c.dense);
            sparse.push(c.sparse);
        }
        Ok((
            Candidates {
                dense: super::fuse::union_best(dense),
                sparse: super::fuse::union_best(sparse),
            },
            info,
        ))
    }

    /// Ranks candidates, puts passages dated inside `hint` first, keeps the top `k` and gives
    /// each its snippet.
    fn top_hits(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        candidates: &Candidates,
        cut: TopHits,
        timings: &mut Timings,
    ) -> Result<Vec<Hit>, IndexError> {
        let mut hits = self.rank(query, query_vec, candidates, cut.rerank, timings)?;
        apply_date_bonus(&mut hits, cut.hint);
        hits.truncate(cut.k);
        let terms = self.analyze(query);
        for h in hits.iter_mut() {
            if let Some(p) = self.passage(&h.chunk_id) {
                h.snippet = snippet(&p.text, &terms);
            }
        }
        Ok(hits)
    }

    /// A whole search in one call (`fathom search`, the evaluations, the benchmark).
    fn search(&self, req: &SearchRequest, mode: SearchMode) -> Result<SearchResponse, IndexError> {
        let started = Instant::now();
        let mut timings = Timings::default();
        let t = Instant::now();
        let query_vec = if mode == SearchMode::Sparse {
            None
        } else {
            self.embed_query(&req.query)?
        };
        timings.embed_ms = ms(t);
        let hint = date_hints(&req.query.to_lowercase());
        let (mut c, _) = self.candidates_with_hint(
            &req.query,
            query_vec.as_deref(),
            &req.years,
            hint,
            self.settings().candidates,
            &mut timings,
        )?;
        match mode {
            SearchMode::Sparse => c.dense.clear(),
            SearchMode::Dense => c.sparse.clear(),
            SearchMode::Hybrid | SearchMode::HybridRerank => {}
        }
        let rerank = mode == SearchMode::HybridRerank;
        let cut = TopHits {
            hint,
            k: req.k,
            rerank,
        };
        let hits = self.top_hits(&req.query, query_vec.as_deref(), &c, cut, &mut timings)?;
        timings.total_ms = ms(started);
        Ok(SearchResponse {
            query: req.query.clone(),
            year_mode: if req.years.is_empty() {
                YearMode::None
            } else {
                YearMode::Explicit
            },
            requested_years: req.years.clone(),
            recent_year_window: self.recency().window_years(),
            reranker: if rerank {
                self.info().reranker
            } else {
                "none".to_string()
            },
            dense: query_vec.is_some() && mode != SearchMode::Sparse,
            date_hint: hint,
            hits,
            timings,
        })
    }
}

/// Adds [`DATE_HINT_BONUS`] to hits dated inside `hint`, re-sorts and renumbers them.
pub fn apply_date_bonus(hits: &mut [Hit], hint: Option<MetadataHints>) {
    if let Some(h) = hint {
        for hit in hits.iter_mut() {
            if hit.date.is_some_and(|d| h.contains(d)) {
                hit.date_bonus = DATE_HINT_BONUS;
                hit.score += DATE_HINT_BONUS;
            }
        }
        // Stable: equal scores keep their earlier order.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
    for (i, h) in hits.iter_mut().enumerate() {
        h.rank = i + 1;
    }
}

pub(crate) fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
