//! Logs go to a daily-rolling file in the data dir, never to the terminal (the TUI owns it).

use std::path::{Path, PathBuf};
use tracing_appender::non_blocking::WorkerGuard;

/// The folder holding `fathom.log.YYYY-MM-DD` files.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Starts file logging at `level` (overridden by `FATHOM_LOG`, in `tracing` filter syntax).
/// Keep the guard alive for the program's life so buffered lines are flushed on exit.
pub fn init(data_dir: &Path, level: &str) -> std::io::Result<WorkerGuard> {
    let dir = log_dir(data_dir);
    std::fs::create_dir_all(&dir)?;
    let appender = tracing_appender::rolling::daily(&dir, "fathom.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = tracing_subscriber::EnvFilter::try_from_env("FATHOM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("fathom={level},warn")));
    // A second init (tests) keeps the first subscriber; that is fine.
    let _ = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
    Ok(guard)
}
