//! Indexing progress: a bar on a terminal, plain lines otherwise (logs, CI, pipes).

use fathom::index::store::IndexProgress;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

pub struct Reporter {
    bar: Option<ProgressBar>,
    quiet: bool,
    last_percent: usize,
}

impl Reporter {
    /// `quiet` keeps stderr for warnings only (used with `--json`).
    pub fn new(quiet: bool) -> Reporter {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg:>10} [{bar:40}] {pos}/{len} chunks · {per_sec} · eta {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Reporter {
            bar,
            quiet,
            last_percent: usize::MAX,
        }
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
                &format!("{documents} documents; {to_embed} chunks to index"),
                false,
            ),
            IndexProgress::Embedded { done, total } => match &self.bar {
                Some(bar) => {
                    bar.set_length(total as u64);
                    bar.set_position(done as u64);
                    bar.set_message("embedding");
                }
                None if !self.quiet && total > 0 => {
                    let percent = done * 100 / total;
                    if percent / 10 != self.last_percent / 10 || done == total {
                        self.last_percent = percent;
                        eprintln!("embedding: {done}/{total} chunks ({percent}%)");
                    }
                }
                None => {}
            },
            IndexProgress::Writing => {
                if let Some(bar) = self.bar.take() {
                    bar.finish_and_clear();
                }
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
