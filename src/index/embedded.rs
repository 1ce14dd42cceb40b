//! The embedded retrieval backend: the on-disk store (tantivy BM25 + a dense matrix), the
//! in-process embedding model and the reranker, behind [`Retriever`].
//!
//! The store is the index's newest generation: while dense vectors are still being filled in
//! behind BM25 (progressive indexing) a newer generation is published now and then, and the
//! retriever switches to it at the start of the next search, without a restart.

use super::dense::dot;
use super::embed::Embedder;
use super::error::IndexError;
use super::fuse::{self, Fused, Ranked};
use super::rerank::{min_max, RecencyBoost, RerankInput, Reranker};
use super::retriever::{
    ms, Candidates, DocumentInfo, Hit, Passage, RetrievalSettings, Retriever, RetrieverInfo,
    SentenceVectors, Timings,
};
use super::store::{DenseCoverage, IndexStore};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

const REFRESH_EVERY: Duration = Duration::from_secs(1);

pub struct EmbeddedRetriever {
    served: RwLock<Arc<IndexStore>>,
    /// When a question last looked for a newer generation (one small file read).
    last_check: Mutex<Option<Instant>>,
    /// The embedding model, when it is the one the index is built for.
    embedder: Option<Embedder>,
    /// The reranker the configuration names; otherwise the default for what is served.
    configured: Option<Reranker>,
    dense_default: Reranker,
    settings: RetrievalSettings,
    recency: RecencyBoost,
}

impl EmbeddedRetriever {
    /// Dense retrieval is on when an embedder is given, it is the model the index was built
    /// with and every chunk has its vector; otherwise retrieval is BM25 alone until a newer
    /// generation completes the vectors.
    pub fn new(
        store: IndexStore,
        embedder: Option<Embedder>,
        reranker: Option<Reranker>,
        settings: RetrievalSettings,
    ) -> EmbeddedRetriever {
        let embedder =
            embedder.filter(|e| store.manifest().embedding_model.as_deref() == Some(&e.model_id()));
        let recency = RecencyBoost {
            boost: settings.recency_boost,
            window: settings.recent_year_window,
            latest_year: store.years().keys().next_back().copied(),
        };
        EmbeddedRetriever {
            served: RwLock::new(Arc::new(store)),
            last_check: Mutex::new(None),
            embedder,
            configured: reranker,
            dense_default: Reranker::default_dense(),
            settings,
            recency,
        }
    }

    /// The generation served now, for index maintenance, benchmarks and tests.
    pub fn store(&self) -> Arc<IndexStore> {
        match self.served.read() {
            Ok(s) => Arc::clone(&s),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// The embedding model, when it matches the index (the benchmark times it directly; the
    /// background embedding of a progressive build uses it).
    pub fn embedder(&self) -> Option<&Embedder> {
        self.embedder.as_ref()
    }

    /// Switches to a generation published since the served one was opened (dense vectors
    /// filled in by a build running behind the app, or by `fathom index` elsewhere). A newer
    /// generation that fails to open is logged and the served one kept.
    pub fn refresh(&self) {
        let current = self.store();
        match current.reopen_if_newer() {
            Ok(Some(newer)) => {
                tracing::info!(
                    from = %current.generation(),
                    to = %newer.generation(),
                    dense = ?newer.dense_coverage(),
                    "serving a newer index generation"
                );
                let mut guard = match self.served.write() {
                    Ok(g) => g,
                    Err(poisoned) => poisoned.into_inner(),
                };
                *guard = Arc::new(newer);
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("a newer index generation could not be opened: {e}"),
        }
    }

    /// [`EmbeddedRetriever::refresh`] at most once a second: the sub-questions of a task graph
    /// start many searches together, and one look at `CURRENT` serves them all.
    fn refresh_if_due(&self) {
        let mut last = match self.last_check.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if last.is_some_and(|t| t.elapsed() < REFRESH_EVERY) {
            return;
        }
        *last = Some(Instant::now());
        drop(last);
        self.refresh();
    }

    fn dense_on(&self, store: &IndexStore) -> bool {
        self.embedder.is_some() && store.vectors().is_some()
    }

    fn reranker(&self, store: &IndexStore) -> &Reranker {
        match &self.configured {
            Some(r) => r,
            None if self.dense_on(store) => &self.dense_default,
            None => &Reranker::FusionOrder,
        }
    }

    /// How far the dense vectors are, while an embedding model waits for them.
    fn dense_pending(&self, store: &IndexStore) -> Option<DenseCoverage> {
        let c = store.dense_coverage();
        (self.embedder.is_some() && !c.is_complete()).then_some(c)
    }
}

impl Retriever for EmbeddedRetriever {
    fn info(&self) -> RetrieverInfo {
        let store = self.store();
        RetrieverInfo {
            backend: "embedded",
            dense: self.dense_on(&store),
            dense_pending: self.dense_pending(&store),
            reranker: self.reranker(&store).name(),
            documents: store.manifest().documents.len(),
            chunks: store.chunks().len(),
        }
    }

    fn settings(&self) -> &RetrievalSettings {
        &self.settings
    }

    fn recency(&self) -> &RecencyBoost {
        &self.recency
    }

    fn years(&self) -> BTreeMap<i32, usize> {
        self.store().years()
    }

    fn documents(&self) -> Vec<DocumentInfo> {
        let store = self.store();
        let mut out: BTreeMap<&str, DocumentInfo> = BTreeMap::new();
        for c in store.chunks() {
            let info = out
                .entry(c.document.as_str())
                .or_insert_with(|| DocumentInfo {
                    document: c.document.clone(),
                    title: c.title.clone(),
                    date: c.date,
                    length: 0,
                });
            info.length = info.length.max(c.byte_end);
        }
        out.into_values().collect()
    }

    fn dates(&self) -> Vec<crate::corpus::Date> {
        // Worked out when the generation was opened, not per question.
        self.store().dates().to_vec()
    }

    fn analyze(&self, text: &str) -> Vec<String> {
        self.store().sparse().analyze(text)
    }

    fn embed_query(&self, text: &str) -> Result<Option<Vec<f32>>, IndexError> {
        // A question starts here: the moment to pick up a newer generation.
        self.refresh_if_due();
        match &self.embedder {
            Some(e) if self.dense_on(&self.store()) => Ok(Some(e.embed_query(text)?)),
            _ => Ok(None),
        }
    }

    fn embed_sentences(&self, texts: &[&str]) -> Result<Option<SentenceVectors>, IndexError> {
        match &self.embedder {
            Some(e) => Ok(Some(SentenceVectors {
                model: e.model_id(),
                vectors: e.embed_documents(texts)?,
            })),
            None => Ok(None),
        }
    }

    fn embed_texts(&self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, IndexError> {
        match &self.embedder {
            Some(e) if self.dense_on(&self.store()) => Ok(Some(e.embed_documents(texts)?)),
            _ => Ok(None),
        }
    }

    fn candidates(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        years: &[i32],
        n: usize,
        timings: &mut Timings,
    ) -> Result<Candidates, IndexError> {
        let store = self.store();
        let t = Instant::now();
        let dense = match query_vec {
            // Hybrid only once every chunk has its vector; the store's compact year column
            // applies the filter.
            Some(q) if store.vectors().is_some() => {
                let chunks = store.chunks();
                store
                    .dense_search(q, years, n)
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
        let sparse = store.sparse().search(query, years, n)?;
        timings.sparse_ms += ms(t);
        Ok(Candidates { dense, sparse })
    }

    fn rank(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        candidates: &Candidates,
        rerank: bool,
        timings: &mut Timings,
    ) -> Result<Vec<Hit>, IndexError> {
        let store = self.store();
        let t = Instant::now();
        let fused: Vec<Fused> = fuse::rrf(
            &[candidates.dense.clone(), candidates.sparse.clone()],
            self.settings.rrf_k,
        );
        let (fused_of, inputs): (Vec<usize>, Vec<RerankInput>) = fused
            .iter()
            .enumerate()
            .filter_map(|(fi, f)| {
                store.row_of(&f.chunk_id).map(|row| {
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
            self.reranker(&store)
                .score(&store, query, query_vec, &inputs)?
        } else {
            inputs.iter().map(|c| c.fused_score).collect()
        };
        let norm = min_max(&raw);
        let chunks = store.chunks();
        let mut scored: Vec<(usize, f32, f32)> = norm
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let boost = if rerank {
                    self.recency.for_year(chunks[inputs[i].row].year)
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
            .enumerate()
            .map(|(rank, (i, rerank_score, boost))| {
                let chunk = &chunks[inputs[i].row];
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
                    snippet: String::new(),
                }
            })
            .collect();
        timings.rerank_ms += ms(t);
        Ok(hits)
    }

    fn passage(&self, chunk_id: &str) -> Option<Passage> {
        let store = self.store();
        let c = store.chunk(chunk_id)?;
        Some(Passage {
            chunk_id: c.chunk_id.clone(),
            document: c.document.clone(),
            title: c.title.clone(),
            date: c.date,
            year: c.year,
            section: c.section.clone(),
            text: c.text.clone(),
            byte_start: c.byte_start,
            byte_end: c.byte_end,
        })
    }

    fn similarity(&self, query_vec: &[f32], chunk_id: &str) -> Option<f32> {
        let store = self.store();
        let vectors = store.vectors()?;
        let row = store.row_of(chunk_id)?;
        (vectors.dim() == query_vec.len()).then(|| dot(vectors.row(row), query_vec))
    }
}
