//! The one place that turns a [`Config`] into ready parts: the retriever (embedding model,
//! index, reranker), the chat model when one is configured, and the orchestrator engine over
//! them. The CLI and the terminal UI both start here.

use crate::config::Config;
use crate::index::build::{build_sparse, SparseBuilt};
use crate::index::embedded::EmbeddedRetriever;
use crate::index::open::{
    chunk_options, index_dir, load_embedder, load_reranker, retrieval_settings,
};
use crate::index::store::{BuildOptions, IndexProgress, IndexReport, IndexStore};
use crate::index::{IndexError, Retriever};
use crate::orchestrator::api::{Engine, StartupProgress};
use crate::orchestrator::chat::{api_key_from_env, BackendError, ChatBackend};
use crate::orchestrator::driver::{Driver, GraphSettings};
use crate::orchestrator::graph::coordinator::CoordinatorConfig;
use crate::orchestrator::graph::merge::ConflictResolution;
use crate::orchestrator::topology::TopologyError;
use std::path::Path;
use std::sync::atomic::AtomicBool;
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

/// The status-bar label: `<model or offline> · <reranker>`.
fn backend_label(chat_model: Option<&str>, retriever: &dyn Retriever) -> String {
    format!(
        "{} · {}",
        chat_model.unwrap_or("offline"),
        retriever.info().reranker
    )
}

/// The engine on `retriever`, with the chat model if configured.
pub fn engine_on(
    cfg: &Config,
    retriever: Arc<dyn Retriever>,
    chat: Option<Arc<ChatBackend>>,
) -> Result<Engine, WiringError> {
    let backend = backend_label(chat.as_deref().map(|c| c.model.as_str()), &*retriever);
    let driver = Driver::qa_with(
        retriever,
        chat,
        cfg.agent.max_reformulations,
        graph_settings(cfg),
    )?
    .with_deadline(std::time::Duration::from_secs(
        cfg.llm.query_deadline_secs.max(1),
    ));
    Ok(Engine::new(Arc::new(driver), backend))
}

/// The `[agent]` keys that shape how a task graph runs.
pub fn graph_settings(cfg: &Config) -> GraphSettings {
    let a = &cfg.agent;
    GraphSettings {
        coordinator: CoordinatorConfig {
            max_concurrency: a.max_concurrency.max(1),
            task_timeout: std::time::Duration::from_secs(a.task_timeout_secs.max(1)),
            min_success_rate: a.min_success_rate.clamp(0.0, 1.0),
            ..CoordinatorConfig::default()
        },
        // The config only accepts the three names (checked when it is read).
        conflicts: match a.conflict_resolution.as_str() {
            "most_recent" => ConflictResolution::MostRecent,
            "weighted_vote" => ConflictResolution::WeightedVote,
            _ => ConflictResolution::HighestConfidence,
        },
    }
}

/// The engine over the existing index (`fathom ask`, `eval --answers`).
pub fn engine(cfg: &Config, notice: &mut dyn FnMut(String)) -> Result<Engine, WiringError> {
    let chat = chat_backend(cfg)?;
    let retriever = open_retriever(cfg, notice)?;
    engine_on(cfg, retriever, chat)
}

/// An engine ready to answer, and the dense vectors still to compute behind it.
pub struct Prepared {
    pub engine: Engine,
    /// Phase 2 of a progressive build; `None` when the vectors are complete (or there is no
    /// embedding model).
    pub dense_fill: Option<DenseFill>,
}

/// Embeds the chunks phase 1 left without a vector and publishes them; the retriever switches
/// to hybrid retrieval at the next question after the last publication.
pub struct DenseFill {
    sparse: SparseBuilt,
    /// The engine's retriever: its embedding model fills the vectors in, and it switches to
    /// them when they are complete.
    retriever: Arc<EmbeddedRetriever>,
    /// The chat model's name, for the backend label.
    chat_model: Option<String>,
}

impl DenseFill {
    /// Blocks until every vector is computed (or `cancel` is set between batches; what was
    /// embedded is kept for the next build either way).
    pub fn run(
        self,
        cancel: &AtomicBool,
        report: &mut dyn FnMut(StartupProgress),
    ) -> Result<IndexReport, WiringError> {
        let Some(embedder) = self.retriever.embedder() else {
            return Ok(self.sparse.finish());
        };
        let r = self
            .sparse
            .embed(embedder, cancel, &mut |p| report(startup_progress(p)))?;
        tracing::info!(
            computed = r.embedded_chunks.computed,
            missing = r.embedded_chunks.missing,
            seconds = r.seconds,
            "dense vectors filled in"
        );
        if r.dense {
            // Switch now rather than at the next question, so the UI can name the reranker.
            self.retriever.refresh();
            report(StartupProgress::DenseReady {
                backend: backend_label(self.chat_model.as_deref(), &*self.retriever),
            });
        }
        Ok(r)
    }
}

/// Brings the index up to date with `corpus` progressively (the terminal UI's startup): BM25
/// and the chunk table first, then the engine opens on them at once, and the missing dense
/// vectors are left to [`DenseFill::run`], which the caller runs behind the chat.
pub fn prepare(
    cfg: &Config,
    corpus: &Path,
    chat: Option<Arc<ChatBackend>>,
    report: &mut dyn FnMut(StartupProgress),
) -> Result<Prepared, WiringError> {
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
    let sparse = build_sparse(&opts, &mut |p| report(startup_progress(p)))?;
    tracing::info!(
        documents = sparse.report().documents,
        chunks = sparse.report().chunks,
        seconds = sparse.report().seconds,
        dense_missing = sparse.dense_missing(),
        "indexed (phase 1)"
    );
    report(StartupProgress::Opening);
    let retriever = EmbeddedRetriever::new(
        IndexStore::open(&dir)?,
        status.into_embedder(),
        load_reranker(cfg)?,
        retrieval_settings(cfg),
    );
    let retriever = Arc::new(retriever);
    let dense_fill = if retriever.embedder().is_some() && sparse.dense_missing() > 0 {
        Some(DenseFill {
            sparse,
            retriever: Arc::clone(&retriever),
            chat_model: chat.as_ref().map(|c| c.model.clone()),
        })
    } else {
        sparse.finish();
        None
    };
    let engine = engine_on(cfg, retriever, chat)?;
    Ok(Prepared { engine, dense_fill })
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
        IndexProgress::Embedded { done, total, eta } => StartupProgress::Embedded {
            done,
            total,
            eta_secs: eta.map(|d| d.as_secs()),
        },
        IndexProgress::Rebuilding { reason } => StartupProgress::Rebuilding { reason },
        IndexProgress::Writing => StartupProgress::Writing,
        IndexProgress::Published { dense, .. } => StartupProgress::Published {
            embedded: dense.embedded,
            total: dense.total,
        },
    }
}
