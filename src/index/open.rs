//! Turning a configuration into ready parts: the embedder (if installed), the reranker, the
//! index folder and the retrieval settings. Expensive loads happen here, once.

use super::cross_encoder::CrossEncoder;
use super::embed::{EmbedError, EmbedOptions, Embedder};
use super::embedded::EmbeddedRetriever;
use super::error::IndexError;
use super::rerank::Reranker;
use super::retriever::RetrievalSettings;
use super::store::IndexStore;
use crate::config::Config;
use crate::corpus::ChunkOptions;
use std::path::{Path, PathBuf};

/// Where the index lives inside the data dir.
pub fn index_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("index")
}

/// The embedding model, or why there is none.
pub enum EmbedderStatus {
    Ready(Box<Embedder>),
    Missing { dir: PathBuf },
    Broken { dir: PathBuf, error: EmbedError },
}

impl EmbedderStatus {
    pub fn into_embedder(self) -> Option<Embedder> {
        match self {
            EmbedderStatus::Ready(e) => Some(*e),
            _ => None,
        }
    }

    pub fn embedder(&self) -> Option<&Embedder> {
        match self {
            EmbedderStatus::Ready(e) => Some(e),
            _ => None,
        }
    }

    /// The one-time notice for users when dense retrieval is off or runs on the slow fallback,
    /// with the fix.
    pub fn notice(&self) -> Option<String> {
        match self {
            EmbedderStatus::Ready(e) => e.notice().map(str::to_string),
            EmbedderStatus::Missing { dir } => Some(format!(
                "dense retrieval is off: no embedding model at {}. fathom searches with BM25 alone. \
                 Install the model with `make model` in the fathom source tree, or set \
                 embedding.model_dir (FATHOM_MODEL_DIR) to a folder with config.json, tokenizer.json \
                 and model.safetensors.",
                dir.display()
            )),
            EmbedderStatus::Broken { dir, error } => Some(format!(
                "dense retrieval is off: the embedding model at {} could not be loaded ({error}). \
                 fathom searches with BM25 alone. Reinstall it with `make model`.",
                dir.display()
            )),
        }
    }
}

/// Loads the configured embedding model, if its folder exists.
pub fn load_embedder(cfg: &Config) -> EmbedderStatus {
    let dir = cfg.model_dir();
    if !dir.join("model.safetensors").exists() {
        return EmbedderStatus::Missing { dir };
    }
    let opts = EmbedOptions {
        max_tokens: cfg.embedding.max_tokens,
        batch_size: cfg.embedding.batch_size,
        query_prefix: cfg.embedding.query_prefix.clone(),
        runtime: cfg.embedding.runtime,
        precision: cfg.embedding.precision,
        onnxruntime_lib: Some(cfg.onnxruntime_lib()),
    };
    match Embedder::load(&dir, opts) {
        Ok(e) => EmbedderStatus::Ready(Box::new(e)),
        Err(error) => EmbedderStatus::Broken { dir, error },
    }
}

/// The cross-encoder when `rerank.model_dir` is set; `None` lets the retriever pick its default.
pub fn load_reranker(cfg: &Config) -> Result<Option<Reranker>, IndexError> {
    match &cfg.rerank.model_dir {
        Some(dir) => {
            let ce = CrossEncoder::load(dir, cfg.embedding.max_tokens)?;
            Ok(Some(Reranker::CrossEncoder(Box::new(ce))))
        }
        None => Ok(None),
    }
}

pub fn retrieval_settings(cfg: &Config) -> RetrievalSettings {
    RetrievalSettings {
        candidates: cfg.retrieval.candidates,
        rrf_k: cfg.retrieval.rrf_k as f32,
        recency_boost: cfg.rerank.recency_boost as f32,
        recent_year_window: cfg.rerank.recent_year_window,
    }
}

pub fn chunk_options(cfg: &Config) -> ChunkOptions {
    ChunkOptions {
        target_words: cfg.corpus.chunk_words,
        max_words: cfg.corpus.chunk_max_words,
    }
}

/// Opens the index in the data dir and puts a retriever on it.
pub fn open_retriever(
    cfg: &Config,
    embedder: Option<Embedder>,
) -> Result<EmbeddedRetriever, IndexError> {
    let store = IndexStore::open(&index_dir(&cfg.paths.data_dir))?;
    let reranker = load_reranker(cfg)?;
    Ok(EmbeddedRetriever::new(
        store,
        embedder,
        reranker,
        retrieval_settings(cfg),
    ))
}
