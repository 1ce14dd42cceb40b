//! The one place that turns a [`Config`] into ready parts: the retriever (embedding model,
//! index, reranker), the chat model when one is configured, and the orchestrator engine over
//! them. The CLI and the terminal UI both start here.

use crate::config::Config;
use crate::index::embedded::EmbeddedRetriever;
use crate::index::open::{
    chunk_options, index_dir, load_embedder, load_reranker, retrieval_settings,
};
use crate::index::store::{build, BuildOptions, IndexProgress, IndexStore};
use crate::index::{IndexError, Retriever};
use crate::orchestrator::api::{Engine, StartupProgress};
use crate::orchestrator::chat::{api_key_from_env, BackendError, ChatBackend};
use crate::orchestrator::driver::Driver;
use crate::orchestrator::topology::TopologyError;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum WiringError {
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The `[llm]` configuration cannot be used (exit code 2: the user's to fix).
    #[error(transparent)]
    Chat(#[from] BackendError),
    #[error(transparent)]
    Topology(#[from] TopologyError),
}

/// The retriever over the index in the data dir, with the embedding model if installed. The
/// embedding model's notice (why dense retrieval is off, and the fix) goes to `notice`.
pub fn open_retriever(
    cfg: &Config,
    notice: &mut dyn FnMut(String),
) -> Result<Arc<dyn Retriever>, WiringError> {
    let status = load_embedder(cfg);
    if let Some(n) = status.notice() {
        notice(n);
    }
    let store = IndexStore::open(&index_dir(&cfg.paths.data_dir))?;
    let retriever = EmbeddedRetriever::new(
        store,
        status.into_embedder(),
        load_reranker(cfg)?,
        retrieval_settings(cfg),
    );
    Ok(Arc::new(retriever))
}

/// The chat backend the configuration asks for, or `None` offline.
pub fn chat_backend(cfg: &Config) -> Result<Option<Arc<ChatBackend>>, WiringError> {
    Ok(ChatBackend::from_config(&cfg.llm, api_key_from_env())?.map(Arc::new))
}

/// The engine on `retriever`, with the chat model if configured.
pub fn engine_on(
    cfg: &Config,
    retriever: Arc<dyn Retriever>,
    chat: Option<Arc<ChatBackend>>,
) -> Result<Engine, WiringError> {
    let backend = match &chat {
        Some(c) => format!("{} · {}", c.model, retriever.info().reranker),
        None => format!("offline · {}", retriever.info().reranker),
    };
    let driver = Driver::qa(retriever, chat, cfg.agent.max_reformulations)?.with_deadline(
        std::time::Duration::from_secs(cfg.llm.query_deadline_secs.max(1)),
    );
    Ok(Engine::new(Arc::new(driver), backend))
}

/// The engine over the existing index (`fathom ask`, `eval --answers`).
pub fn engine(cfg: &Config, notice: &mut dyn FnMut(String)) -> Result<Engine, WiringError> {
    let chat = chat_backend(cfg)?;
    let retriever = open_retriever(cfg, notice)?;
    engine_on(cfg, retriever, chat)
}

/// Brings the index up to date with `corpus`, then opens the engine on it, reporting progress
/// (the terminal UI's startup).
pub fn prepare(
    cfg: &Config,
    corpus: &Path,
    chat: Option<Arc<ChatBackend>>,
    report: &mut dyn FnMut(StartupProgress),
) -> Result<Engine, WiringError> {
    report(StartupProgress::LoadingModel);
    let status = load_embedder(cfg);
    if let Some(n) = status.notice() {
        tracing::warn!("{n}");
        report(StartupProgress::Notice(n));
    }
    report(StartupProgress::Scanning);
    let dir = index_dir(&cfg.paths.data_dir);
    let opts = BuildOptions {
        corpus_root: corpus,
        index_dir: &dir,
        embedder: status.embedder(),
        chunking: chunk_options(cfg),
        links: crate::corpus::LinkPolicy::from_config(&cfg.corpus),
        rebuild: false,
    };
    let built = build(&opts, &mut |p| report(startup_progress(p)))?;
    tracing::info!(
        documents = built.documents,
        chunks = built.chunks,
        seconds = built.seconds,
        "indexed"
    );
    report(StartupProgress::Opening);
    let retriever = EmbeddedRetriever::new(
        IndexStore::open(&dir)?,
        status.into_embedder(),
        load_reranker(cfg)?,
        retrieval_settings(cfg),
    );
    engine_on(cfg, Arc::new(retriever), chat)
}

fn startup_progress(p: IndexProgress) -> StartupProgress {
    match p {
        IndexProgress::Scanned {
            documents,
            to_embed,
        } => StartupProgress::Scanned {
            documents,
            to_embed,
        },
        IndexProgress::Skipped { path, reason } => StartupProgress::Skipped { path, reason },
        IndexProgress::Embedded { done, total } => StartupProgress::Embedded { done, total },
        IndexProgress::Rebuilding { reason } => StartupProgress::Rebuilding { reason },
        IndexProgress::Writing => StartupProgress::Writing,
    }
}
