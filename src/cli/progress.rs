//! Indexing progress: a bar with the time left on a terminal, plain lines otherwise (logs, CI,
//! pipes).

use fathom::index::store::IndexProgress;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

pub struct Reporter {
    bar: Option<ProgressBar>,
    terminal: bool,
    quiet: bool,
    last_percent: usize,
    /// A generation was published this run: BM25 search works from then on.
    announced_sparse: bool,
}

impl Reporter {
    /// `quiet` keeps stderr for warnings only (used with `--json`).
    pub fn new(quiet: bool) -> Reporter {
        Reporter {
            bar: None,
            terminal: !quiet && std::io::stderr().is_terminal(),
            quiet,
            last_percent: usize::MAX,
            announced_sparse: false,
        }
    }

    fn bar(&mut self) -> &ProgressBar {
        self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "embedding [{bar:40}] {pos}/{len} chunks · {per_sec} · {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        })
    }

    pub fn report(&mut self, p: IndexProgress) {
        match p {
            IndexProgress::Skipped { path, reason } => {
                self.line(&format!("skipped {path}: {reason}"), true)
            }
            IndexProgress::Rebuilding { reason } => {
                self.line(&format!("rebuilding the index: {reason}"), true)
            }
            IndexProgress::Scanned {
                documents,
                to_embed,
            } => self.line(
                &format!("{documents} documents; {to_embed} chunks to embed"),
                false,
            ),
            IndexProgress::Embedded { done, total, eta } => {
                if self.terminal {
                    let bar = self.bar();
                    bar.set_length(total as u64);
                    bar.set_position(done as u64);
                    bar.set_message(eta_text(eta));
                } else if !self.quiet && total > 0 {
                    let percent = done * 100 / total;
                    if percent / 10 != self.last_percent / 10 || done == total {
                        self.last_percent = percent;
                        eprintln!(
                            "embedding: {done}/{total} chunks ({percent}%), {}",
                            eta_text(eta)
                        );
                    }
                }
            }
            IndexProgress::Writing => {}
            IndexProgress::Published { generation, dense } => {
                if dense.is_complete() {
                    if let Some(bar) = self.bar.take() {
                        bar.finish_and_clear();
                    }
                } else if !self.announced_sparse {
                    self.line(
                        &format!(
                            "BM25 search is ready (generation {generation}); dense vectors: \
                             {}/{} chunks, embedding the rest",
                            dense.embedded, dense.total
                        ),
                        false,
                    );
                }
                self.announced_sparse = true;
            }
        }
    }

    fn line(&self, text: &str, warning: bool) {
        if self.quiet && !warning {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }
}

/// `eta 1m 05s`, or `eta …` before there is a rate to go by.
pub fn eta_text(eta: Option<Duration>) -> String {
    match eta {
        None => "eta …".to_string(),
        Some(d) => {
            let s = d.as_secs();
            match (s / 3600, s / 60 % 60, s % 60) {
                (0, 0, sec) => format!("eta {sec}s"),
                (0, min, sec) => format!("eta {min}m {sec:02}s"),
                (h, min, _) => format!("eta {h}h {min:02}m"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_reads_as_hours_minutes_or_seconds() {
        assert_eq!(eta_text(None), "eta …");
        assert_eq!(eta_text(Some(Duration::from_secs(42))), "eta 42s");
        assert_eq!(eta_text(Some(Duration::from_secs(65))), "eta 1m 05s");
        assert_eq!(eta_text(Some(Duration::from_secs(7260))), "eta 2h 01m");
    }
}
