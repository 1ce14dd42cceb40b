//! `fathom export ID`: a saved session as Markdown or JSON, to stdout or a file.

use super::UsageError;
use anyhow::Context;
use fathom::config::Config;
use fathom::session::{self, export, SessionError};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Md,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The session id (`fathom sessions` lists them).
    #[arg(value_name = "ID")]
    id: String,
    /// Markdown to read, or JSON to process.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    format: Format,
    /// Write here instead of to stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn run(cfg: &Config, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let loaded = match session::load(&cfg.paths.data_dir, &args.id) {
        Ok(s) => s,
        // A wrong id is the user's to fix: exit 2.
        Err(e @ (SessionError::InvalidId { .. } | SessionError::NotFound { .. })) => {
            return Err(UsageError(e.to_string()).into())
        }
        Err(e) => return Err(e.into()),
    };
    if !loaded.damaged.is_empty() {
        errln!(
            "note: {} damaged line(s) in {} were skipped; the export lists them",
            loaded.damaged.len(),
            session::session_path(&cfg.paths.data_dir, &args.id)?.display()
        );
    }
    let text = match args.format {
        Format::Md => export::to_markdown(&loaded),
        Format::Json => export::to_json(&loaded)? + "\n",
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write the export to {}", path.display()))?,
        None => out!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
