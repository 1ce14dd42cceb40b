//! Hybrid retrieval: dense and BM25 candidates, fused with RRF, deduplicated by `chunk_id`,
//! filtered by year inside both searches, then reranked with a small recency boost.

use super::embed::Embedder;
use super::error::IndexError;
use super::fuse::{self, Fused, Ranked};
use super::rerank::{min_max, RecencyBoost, RerankInput, Reranker};
use super::snippet::snippet;
use super::store::IndexStore;
use crate::corpus::Date;
use crate::query::{date_hints, MetadataHints};
use serde::Serialize;
use std::time::Instant;

/// Whether a year filter applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// Added to the score of a chunk dated inside the range a query names. Rerank scores lie in
/// [0, 1] (plus a recency boost of at most 0.05), so a bonus of 1 ranks every passage of the
/// named dates first, ordered among themselves by relevance: a question about May 16, 2000 is
/// about that meeting, however similar the wording of a 2015 statement. Measured: with a
/// bonus of 0.3 the cited FOMC statement was first for 66% of dated questions; see
/// docs/benchmarks.md.
pub const DATE_HINT_BONUS: f32 = 1.0;

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

pub struct Retriever {
    store: IndexStore,
    embedder: Option<Embedder>,
    reranker: Reranker,
    settings: RetrievalSettings,
    recency: RecencyBoost,
}

impl Retriever {
    /// Dense retrieval is on only when an embedder is given and it is the model the index was
    /// built with; otherwise retrieval is BM25 alone (see [`Retriever::dense_status`]).
    pub fn new(
        store: IndexStore,
        embedder: Option<Embedder>,
        reranker: Option<Reranker>,
        settings: RetrievalSettings,
    ) -> Retriever {
        let embedder = embedder.filter(|e| {
            store.vectors().is_some()
                && store.manifest().embedding_model.as_deref() == Some(&e.model_id())
        });
        let reranker = reranker.unwrap_or(if embedder.is_some() {
            Reranker::default_dense()
        } else {
            Reranker::FusionOrder
        });
        let recency = RecencyBoost {
            boost: settings.recency_boost,
            window: settings.recent_year_window,
            latest_year: store.years().keys().next_back().copied(),
        };
        Retriever {
            store,
            embedder,
            reranker,
            settings,
            recency,
        }
    }

    pub fn store(&self) -> &IndexStore {
        &self.store
    }

    pub fn embedder(&self) -> Option<&Embedder> {
        self.embedder.as_ref()
    }

    pub fn reranker_name(&self) -> String {
        self.reranker.name()
    }

    pub fn settings(&self) -> &RetrievalSettings {
        &self.settings
    }

    pub fn recency(&self) -> &RecencyBoost {
        &self.recency
    }

    pub fn dense_enabled(&self) -> bool {
        self.embedder.is_some()
    }

    /// Embeds the query when dense retrieval is on.
    pub fn embed_query(&self, query: &str) -> Result<Option<Vec<f32>>, IndexError> {
        match &self.embedder {
            Some(e) => Ok(Some(e.embed_query(query)?)),
            None => Ok(None),
        }
    }

    /// Dense and BM25 top-`n` for one query, both restricted to `years` when any are given.
    pub fn candidates(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        years: &[i32],
        n: usize,
        timings: &mut Timings,
    ) -> Result<Candidates, IndexError> {
        let t = Instant::now();
        let dense = match (query_vec, self.store.vectors()) {
            (Some(q), Some(vectors)) => {
                let chunks = self.store.chunks();
                let allow = |row: usize| {
                    years.is_empty() || chunks[row].year.is_some_and(|y| years.contains(&y))
                };
                vectors
                    .search(q, allow, n)
                    .into_iter()
                    .map(|(row, score)| Ranked {
                        chunk_id: chunks[row].chunk_id.clone(),
                        score,
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        timings.dense_ms += ms(t);
        let t = Instant::now();
        let sparse = self.store.sparse().search(query, years, n)?;
        timings.sparse_ms += ms(t);
        Ok(Candidates { dense, sparse })
    }

    /// The default search: hybrid with rerank.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse, IndexError> {
        self.search_mode(req, SearchMode::HybridRerank)
    }

    pub fn search_mode(
        &self,
        req: &SearchRequest,
        mode: SearchMode,
    ) -> Result<SearchResponse, IndexError> {
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
            self.settings.candidates,
            &mut timings,
        )?;
        match mode {
            SearchMode::Sparse => c.dense.clear(),
            SearchMode::Dense => c.sparse.clear(),
            SearchMode::Hybrid | SearchMode::HybridRerank => {}
        }
        let rerank = mode == SearchMode::HybridRerank;
        let mut hits = self.rank(
            &req.query,
            query_vec.as_deref(),
            &c,
            usize::MAX,
            rerank,
            &mut timings,
        )?;
        apply_date_bonus(&mut hits, hint);
        hits.truncate(req.k);
        self.fill_snippets(&mut hits, &req.query);
        timings.total_ms = ms(started);
        Ok(SearchResponse {
            query: req.query.clone(),
            year_mode: if req.years.is_empty() {
                YearMode::None
            } else {
                YearMode::Explicit
            },
            requested_years: req.years.clone(),
            recent_year_window: self.recency.window_years(),
            reranker: if rerank {
                self.reranker.name()
            } else {
                "none".to_string()
            },
            dense: query_vec.is_some() && mode != SearchMode::Sparse,
            date_hint: hint,
            hits,
            timings,
        })
    }

    /// Candidates in one pass, or two when the query names dates: one restricted to the hinted
    /// years (within `years`, if any) and one over `years` alone, merged by `chunk_id`.
    pub fn candidates_with_hint(
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
                dense: fuse::union_best(dense),
                sparse: fuse::union_best(sparse),
            },
            info,
        ))
    }

    /// Fuses candidates, reranks them (or keeps fusion order), and returns the top `k` hits.
    pub fn rank(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        candidates: &Candidates,
        k: usize,
        rerank: bool,
        timings: &mut Timings,
    ) -> Result<Vec<Hit>, IndexError> {
        let t = Instant::now();
        let fused: Vec<Fused> = fuse::rrf(
            &[candidates.dense.clone(), candidates.sparse.clone()],
            self.settings.rrf_k,
        );
        let (fused_of, inputs): (Vec<usize>, Vec<RerankInput>) = fused
            .iter()
            .enumerate()
            .filter_map(|(fi, f)| {
                self.store.row_of(&f.chunk_id).map(|row| {
                    (
                        fi,
                        RerankInput {
                            row,
                            fused_score: f.fused_score,
                            sparse_score: f.sources[1].map(|s| s.1),
                        },
                    )
                })
            })
            .unzip();
        timings.fuse_ms += ms(t);
        let t = Instant::now();
        let raw = if rerank {
            self.reranker
                .score(&self.store, query, query_vec, &inputs)?
        } else {
            inputs.iter().map(|c| c.fused_score).collect()
        };
        let norm = min_max(&raw);
        let mut scored: Vec<(usize, f32, f32)> = norm
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let boost = if rerank {
                    self.recency
                        .for_year(self.store.chunks()[inputs[i].row].year)
                } else {
                    0.0
                };
                (i, s, boost)
            })
            .collect();
        // Stable on ties: fusion order decides between equal scores.
        scored.sort_by(|a, b| (b.1 + b.2).total_cmp(&(a.1 + a.2)).then(a.0.cmp(&b.0)));
        let hits = scored
            .into_iter()
            .take(k)
            .enumerate()
            .map(|(rank, (i, rerank_score, boost))| {
                let chunk = &self.store.chunks()[inputs[i].row];
                let source = |list: usize| fused[fused_of[i]].sources[list];
                Hit {
                    rank: rank + 1,
                    chunk_id: chunk.chunk_id.clone(),
                    document: chunk.document.clone(),
                    title: chunk.title.clone(),
                    date: chunk.date,
                    year: chunk.year,
                    section: chunk.section.clone(),
                    dense_rank: source(0).map(|s| s.0),
                    dense_score: source(0).map(|s| s.1),
                    sparse_rank: source(1).map(|s| s.0),
                    sparse_score: source(1).map(|s| s.1),
                    fused_score: inputs[i].fused_score,
                    rerank_score,
                    recency_boost: boost,
                    date_bonus: 0.0,
                    score: rerank_score + boost,
                    // Filled in for the hits that are kept (see `fill_snippets`).
                    snippet: String::new(),
                }
            })
            .collect();
        timings.rerank_ms += ms(t);
        Ok(hits)
    }
}

impl Retriever {
    /// Sets each hit's snippet: the sentence of its chunk with the most query terms.
    pub fn fill_snippets(&self, hits: &mut [Hit], query: &str) {
        let terms = self.store.sparse().analyze(query);
        for h in hits.iter_mut() {
            if let Some(chunk) = self.store.chunk(&h.chunk_id) {
                h.snippet = snippet(&chunk.text, &terms);
            }
        }
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

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
