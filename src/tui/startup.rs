//! Getting from "the user typed `fathom`" to "the chat is ready" without ever blocking the UI:
//! the caller's preparation job (loading models, bringing the index up to date, opening the
//! engine) runs on a background thread and reports its progress over a channel; the UI draws a
//! progress view meanwhile.

use crate::orchestrator::api::{Engine, StartupProgress};
use crate::tui::terminal::TuiError;
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

/// Messages from the preparation thread to the UI.
pub enum StartupMsg {
    Progress(StartupProgress),
    /// The engine, or why it could not be prepared.
    Done(Result<Box<Engine>, String>),
    /// Progress of the work left behind the ready engine (dense vectors being filled in).
    Background(StartupProgress),
    /// That work ended, or why it failed (the engine keeps serving what it has).
    BackgroundDone(Result<(), String>),
}

/// Work the preparation thread goes on with after the engine is ready.
pub type Background = Box<dyn FnOnce(&mut dyn FnMut(StartupProgress)) -> Result<(), String> + Send>;

/// What a preparation job hands over: the engine, and maybe work to finish behind it.
pub struct Started {
    pub engine: Engine,
    pub background: Option<Background>,
}

/// The preparation job the event loop runs on its own thread once the first frame is drawn.
pub type Job = Box<dyn FnOnce(&mut dyn FnMut(StartupProgress)) -> Result<Started, String> + Send>;

/// What `run_app` needs to start: the progress view's initial state, the job, the clock.
pub struct Launch {
    pub view: StartupView,
    pub clock: StartClock,
    pub job: Job,
}

/// Runs `job` on a plain thread (not `spawn_blocking`: a runtime waits for those on drop, and a
/// user who quits during indexing must not wait for it to finish).
pub fn spawn_job(job: Job) -> Result<mpsc::UnboundedReceiver<StartupMsg>, TuiError> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::Builder::new()
        .name("fathom-index".into())
        .spawn(move || {
            let progress_tx = tx.clone();
            let result = job(&mut |p| {
                let _ = progress_tx.send(StartupMsg::Progress(p));
            });
            let (result, background) = match result {
                Ok(s) => (Ok(Box::new(s.engine)), s.background),
                Err(e) => (Err(e), None),
            };
            let _ = tx.send(StartupMsg::Done(result));
            if let Some(work) = background {
                let done = work(&mut |p| {
                    let _ = progress_tx.send(StartupMsg::Background(p));
                });
                let _ = tx.send(StartupMsg::BackgroundDone(done));
            }
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

    pub fn apply(&mut self, p: StartupProgress) {
        match p {
            StartupProgress::LoadingModel => self.phase = Phase::LoadingModel,
            StartupProgress::Scanning => self.phase = Phase::Scanning,
            StartupProgress::Opening => self.phase = Phase::Opening,
            StartupProgress::Notice(n) => self.notice = Some(n),
            StartupProgress::Scanned {
                documents,
                to_embed,
            } => {
                self.documents = Some(documents);
                self.to_index = Some(to_embed);
            }
            StartupProgress::Skipped { .. } => self.skipped += 1,
            StartupProgress::Embedded { done, total, .. } => {
                self.phase = Phase::Embedding;
                self.embedded = done;
                self.embed_total = total;
            }
            StartupProgress::Rebuilding { reason } => self.rebuilding = Some(reason),
            StartupProgress::Writing => self.phase = Phase::Writing,
            StartupProgress::Published { .. } | StartupProgress::DenseReady { .. } => {}
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
            StartupProgress::LoadingModel,
            StartupProgress::Scanning,
            StartupProgress::Scanned {
                documents: 3,
                to_embed: 10,
            },
            StartupProgress::Embedded {
                done: 5,
                total: 10,
                eta_secs: None,
            },
            StartupProgress::Embedded {
                done: 10,
                total: 10,
                eta_secs: Some(0),
            },
            StartupProgress::Writing,
            StartupProgress::Opening,
        ] {
            v.apply(p);
            assert!(v.ratio() >= last, "{:?} went backwards", v.phase);
            last = v.ratio();
        }
        assert_eq!(v.documents, Some(3));
        assert_eq!(v.phase, Phase::Opening);
        assert!(last > 0.9 && last < 1.0, "{last}");
        let mut half = StartupView::new("/c", false);
        half.apply(StartupProgress::Embedded {
            done: 5,
            total: 10,
            eta_secs: None,
        });
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
