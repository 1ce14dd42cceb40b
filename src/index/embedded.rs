//! The embedded retrieval backend: the on-disk store (tantivy BM25 + a dense matrix), the
//! in-process embedding model and the reranker, behind [`Retriever`].

use super::dense::dot;
use super::embed::Embedder;
use super::error::IndexError;
use super::fuse::{self, Fused, Ranked};
use super::rerank::{min_max, RecencyBoost, RerankInput, Reranker};
use super::retriever::{
    ms, Candidates, DocumentInfo, Hit, Passage, RetrievalSettings, Retriever, RetrieverInfo,
    Timings,
};
use super::store::IndexStore;
use std::collections::BTreeMap;
use std::time::Instant;

pub struct EmbeddedRetriever {
    store: IndexStore,
    embedder: Option<Embedder>,
    reranker: Reranker,
    settings: RetrievalSettings,
    recency: RecencyBoost,
}

impl EmbeddedRetriever {
    /// Dense retrieval is on only when an embedder is given and it is the model the index was
    /// built with; otherwise retrieval is BM25 alone.
    pub fn new(
        store: IndexStore,
        embedder: Option<Embedder>,
        reranker: Option<Reranker>,
        settings: RetrievalSettings,
    ) -> EmbeddedRetriever {
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
        EmbeddedRetriever {
            store,
            embedder,
            reranker,
            settings,
            recency,
        }
    }

    /// The store underneath, for index maintenance, benchmarks and tests.
    pub fn store(&self) -> &IndexStore {
        &self.store
    }

    /// The embedding model, when dense retrieval is on (the benchmark times it directly).
    pub fn embedder(&self) -> Option<&Embedder> {
        self.embedder.as_ref()
    }
}

impl Retriever for EmbeddedRetriever {
    fn info(&self) -> RetrieverInfo {
        RetrieverInfo {
            backend: "embedded",
            dense: self.embedder.is_some(),
            reranker: self.reranker.name(),
            documents: self.store.manifest().documents.len(),
            chunks: self.store.chunks().len(),
        }
    }

    fn settings(&self) -> &RetrievalSettings {
        &self.settings
    }

    fn recency(&self) -> &RecencyBoost {
        &self.recency
    }

    fn years(&self) -> BTreeMap<i32, usize> {
        self.store.years()
    }

    fn documents(&self) -> Vec<DocumentInfo> {
        let mut out: BTreeMap<&str, DocumentInfo> = BTreeMap::new();
        for c in self.store.chunks() {
            out.entry(c.document.as_str())
                .or_insert_with(|| DocumentInfo {
                    document: c.document.clone(),
                    title: c.title.clone(),
                    date: c.date,
                });
        }
        out.into_values().collect()
    }

    fn analyze(&self, text: &str) -> Vec<String> {
        self.store.sparse().analyze(text)
    }

    fn embed_query(&self, text: &str) -> Result<Option<Vec<f32>>, IndexError> {
        match &self.embedder {
            Some(e) => Ok(Some(e.embed_query(text)?)),
            None => Ok(None),
        }
    }

    fn embed_texts(&self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, IndexError> {
        match &self.embedder {
            Some(e) => Ok(Some(e.embed_documents(texts)?)),
            None => Ok(None),
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

    fn rank(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        candidates: &Candidates,
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
        let chunks = self.store.chunks();
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
        let c = self.store.chunk(chunk_id)?;
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
        let vectors = self.store.vectors()?;
        let row = self.store.row_of(chunk_id)?;
        (vectors.dim() == query_vec.len()).then(|| dot(vectors.row(row), query_vec))
    }
}
