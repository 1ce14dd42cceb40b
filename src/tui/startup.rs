//! Getting from "the user typed `fathom`" to "the chat is ready" without ever blocking the UI:
//! the embedding model is loaded, the index built or updated and opened on a background thread,
//! which reports its progress over a channel; the UI draws a progress view meanwhile.

use super::terminal::TuiError;
use crate::config::Config;
use crate::corpus::Chunk;
use crate::index::error::IndexError;
use crate::index::open::{
    chunk_options, index_dir, load_embedder, load_reranker, retrieval_settings,
};
use crate::index::retrieve::Retriever;
use crate::index::store::{build, BuildOptions, IndexProgress, IndexStore};
use crate::orchestrator::backend::ChatBackend;
use crate::orchestrator::manager::Manager;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// What the background preparation is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Starting,
    LoadingModel,
    Scanning,
    Embedding,
    Writing,
    Opening,
    Failed,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::LoadingModel => "loading the embedding model",
            Phase::Scanning => "reading the documents",
            Phase::Embedding => "embedding new and changed chunks",
            Phase::Writing => "writing the index",
            Phase::Opening => "opening the index",
            Phase::Failed => "failed",
        }
    }
}

/// One progress report from the preparation thread.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    Phase(Phase),
    Index(IndexProgress),
    /// A one-time notice for the user (e.g. dense retrieval is off and how to fix it).
    Notice(String),
}

/// Everything the chat needs once preparation is over.
pub struct Ready {
    pub manager: Arc<Manager>,
    /// The status-bar label of the backend.
    pub backend: String,
    pub chunks: Vec<Chunk>,
    pub years: BTreeMap<i32, usize>,
    pub notice: Option<String>,
}

/// Messages from the preparation thread to the UI.
pub enum StartupMsg {
    Progress(Progress),
    Done(Result<Box<Ready>, IndexError>),
}

/// The blocking work behind the progress view: load the model, bring the index up to date with
/// the corpus, open it and put the orchestrator's manager on it.
pub fn prepare(
    cfg: &Config,
    corpus: &Path,
    chat: Option<Arc<ChatBackend>>,
    report: &mut dyn FnMut(Progress),
) -> Result<Ready, IndexError> {
    report(Progress::Phase(Phase::LoadingModel));
    let status = load_embedder(cfg);
    let notice = status.notice();
    if let Some(n) = &notice {
        tracing::warn!("{n}");
        report(Progress::Notice(n.clone()));
    }
    report(Progress::Phase(Phase::Scanning));
    let dir = index_dir(&cfg.paths.data_dir);
    let opts = BuildOptions {
        corpus_root: corpus,
        index_dir: &dir,
        embedder: status.embedder(),
        chunking: chunk_options(cfg),
        rebuild: false,
    };
    let built = build(&opts, &mut |p| report(Progress::Index(p)))?;
    tracing::info!(
        documents = built.documents,
        chunks = built.chunks,
        seconds = built.seconds,
        "indexed"
    );
    report(Progress::Phase(Phase::Opening));
    let retriever = Retriever::new(
        IndexStore::open(&dir)?,
        status.into_embedder(),
        load_reranker(cfg)?,
        retrieval_settings(cfg),
    );
    let backend = match &chat {
        Some(c) => format!("{} · {}", c.model, retriever.reranker_name()),
        None => format!("offline · {}", retriever.reranker_name()),
    };
    let manager =
        Arc::new(Manager::new(Arc::new(retriever), cfg.agent.max_reformulations).with_chat(chat));
    let store = manager.retriever().store();
    Ok(Ready {
        backend,
        chunks: store.chunks().to_vec(),
        years: store.years(),
        notice,
        manager,
    })
}

/// The preparation job the event loop runs on its own thread once the first frame is drawn.
pub type Job = Box<dyn FnOnce(&mut dyn FnMut(Progress)) -> Result<Ready, IndexError> + Send>;

/// What `run_app` needs to start: the progress view's initial state, the job, the clock.
pub struct Launch {
    pub view: StartupView,
    pub clock: StartClock,
    pub job: Job,
}

impl Launch {
    /// The real thing: [`prepare`] over `corpus` with `cfg`, and the chat model if configured.
    pub fn new(
        cfg: Config,
        corpus: PathBuf,
        sample: bool,
        chat: Option<Arc<ChatBackend>>,
        clock: StartClock,
    ) -> Launch {
        let view = StartupView::new(corpus.display().to_string(), sample);
        Launch {
            view,
            clock,
            job: Box::new(move |report| prepare(&cfg, &corpus, chat, report)),
        }
    }
}

/// Runs `job` on a plain thread (not `spawn_blocking`: a runtime waits for those on drop, and a
/// user who quits during indexing must not wait for it to finish; the index manifest is written
/// last, so an interrupted build leaves the previous index usable).
pub fn spawn_job(job: Job) -> Result<mpsc::UnboundedReceiver<StartupMsg>, TuiError> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::Builder::new()
        .name("fathom-index".into())
        .spawn(move || {
            let progress_tx = tx.clone();
            let result = job(&mut |p| {
                let _ = progress_tx.send(StartupMsg::Progress(p));
            });
            let _ = tx.send(StartupMsg::Done(result.map(Box::new)));
        })
        .map_err(|source| TuiError::Thread {
            what: "indexing",
            source,
        })?;
    Ok(rx)
}

/// The state the progress view draws.
#[derive(Debug, Clone, PartialEq)]
pub struct StartupView {
    pub corpus: String,
    /// The corpus is the built-in sample (no corpus configured).
    pub sample: bool,
    pub phase: Phase,
    pub documents: Option<usize>,
    /// Chunks of new or changed documents (the rest are reused).
    pub to_index: Option<usize>,
    pub embedded: usize,
    pub embed_total: usize,
    pub skipped: usize,
    pub rebuilding: Option<String>,
    pub notice: Option<String>,
    pub error: Option<String>,
    pub spinner_tick: u64,
}

impl StartupView {
    pub fn new(corpus: impl Into<String>, sample: bool) -> StartupView {
        StartupView {
            corpus: corpus.into(),
            sample,
            phase: Phase::Starting,
            documents: None,
            to_index: None,
            embedded: 0,
            embed_total: 0,
            skipped: 0,
            rebuilding: None,
            notice: None,
            error: None,
            spinner_tick: 0,
        }
    }

    pub fn apply(&mut self, p: Progress) {
        match p {
            Progress::Phase(phase) => self.phase = phase,
            Progress::Notice(n) => self.notice = Some(n),
            Progress::Index(p) => match p {
                IndexProgress::Scanned {
                    documents,
                    to_embed,
                } => {
                    self.documents = Some(documents);
                    self.to_index = Some(to_embed);
                }
                IndexProgress::Skipped { .. } => self.skipped += 1,
                IndexProgress::Embedded { done, total, .. } => {
                    self.phase = Phase::Embedding;
                    self.embedded = done;
                    self.embed_total = total;
                }
                IndexProgress::Rebuilding { reason } => self.rebuilding = Some(reason),
                IndexProgress::Writing => self.phase = Phase::Writing,
                IndexProgress::Published { .. } => {}
            },
        }
    }

    pub fn fail(&mut self, message: String) {
        self.phase = Phase::Failed;
        self.error = Some(message);
    }

    /// Overall progress in [0, 1]: embedding dominates the time, so it gets most of the bar.
    pub fn ratio(&self) -> f64 {
        let embed = if self.embed_total == 0 {
            0.0
        } else {
            self.embedded.min(self.embed_total) as f64 / self.embed_total as f64
        };
        match self.phase {
            Phase::Starting => 0.0,
            Phase::LoadingModel => 0.02,
            Phase::Scanning => 0.08,
            Phase::Embedding => 0.1 + 0.8 * embed,
            Phase::Writing => 0.92,
            Phase::Opening => 0.97,
            Phase::Failed => embed,
        }
    }
}

/// Measures time from process start, so `first_frame_ms` includes exec, config and logging.
#[derive(Debug, Clone, Copy)]
pub struct StartClock {
    at: Instant,
    /// Age of the process when `at` was taken (0 where it cannot be read).
    age: Duration,
}

impl StartClock {
    pub fn now() -> StartClock {
        StartClock {
            at: Instant::now(),
            age: process_age().unwrap_or_default(),
        }
    }

    pub fn since_process_start(&self) -> Duration {
        self.age + self.at.elapsed()
    }
}

/// The process's age from `/proc` (10 ms resolution): Rust has no portable process start time.
#[cfg(target_os = "linux")]
fn process_age() -> Option<Duration> {
    // USER_HZ, the unit of `starttime`, is 100 on every Linux ABI Rust targets.
    const TICKS_PER_S: f64 = 100.0;
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; fields after its closing parenthesis are plain.
    let rest = &stat[stat.rfind(')')? + 1..];
    let start_ticks: f64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    let uptime = std::fs::read_to_string("/proc/uptime").ok()?;
    let uptime_s: f64 = uptime.split_whitespace().next()?.parse().ok()?;
    let age = uptime_s - start_ticks / TICKS_PER_S;
    (age >= 0.0).then(|| Duration::from_secs_f64(age))
}

#[cfg(not(target_os = "linux"))]
fn process_age() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_moves_the_bar_forward() {
        let mut v = StartupView::new("/c", false);
        let mut last = v.ratio();
        for p in [
            Progress::Phase(Phase::LoadingModel),
            Progress::Phase(Phase::Scanning),
            Progress::Index(IndexProgress::Scanned {
                documents: 3,
                to_embed: 10,
            }),
            Progress::Index(IndexProgress::Embedded {
                done: 5,
                total: 10,
                eta: None,
            }),
            Progress::Index(IndexProgress::Embedded {
                done: 10,
                total: 10,
                eta: None,
            }),
            Progress::Index(IndexProgress::Writing),
            Progress::Phase(Phase::Opening),
        ] {
            v.apply(p);
            assert!(v.ratio() >= last, "{:?} went backwards", v.phase);
            last = v.ratio();
        }
        assert_eq!(v.documents, Some(3));
        assert_eq!(v.phase, Phase::Opening);
        assert!(last > 0.9 && last < 1.0, "{last}");
        let mut half = StartupView::new("/c", false);
        half.apply(Progress::Index(IndexProgress::Embedded {
            done: 5,
            total: 10,
            eta: None,
        }));
        assert!((half.ratio() - 0.5).abs() < 1e-9, "{}", half.ratio());
    }

    #[test]
    fn the_start_clock_counts_from_process_start() {
        let clock = StartClock::now();
        std::thread::sleep(Duration::from_millis(20));
        let age = clock.since_process_start();
        assert!(age >= Duration::from_millis(20), "{age:?}");
        assert!(age < Duration::from_secs(24 * 3600), "{age:?}");
        #[cfg(target_os = "linux")]
        assert!(process_age().is_some());
    }
}
