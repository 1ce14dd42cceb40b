//! Command-line interface: global options, subcommands, exit codes.
//!
//! Everything printed that can carry text from documents, a model or a server goes through
//! `outln!`/`out!`/`errln!` (plain text, control characters removed) or `print_json` (JSON,
//! terminal-interpreted characters escaped): see `fathom::text_safety`.

/// `println!` with control characters and escape sequences removed from the whole line.
macro_rules! outln {
    () => {
        println!()
    };
    ($($arg:tt)*) => {
        println!("{}", fathom::text_safety::terminal_safe(&format!($($arg)*)))
    };
}

/// `print!`, made safe like [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        print!("{}", fathom::text_safety::terminal_safe(&format!($($arg)*)))
    };
}

/// `eprintln!`, made safe like [`outln!`].
macro_rules! errln {
    ($($arg:tt)*) => {
        eprintln!("{}", fathom::text_safety::terminal_safe(&format!($($arg)*)))
    };
}

/// Prints serialised JSON on its own line, with the characters a terminal would obey escaped.
fn print_json(json: &str) {
    println!("{}", fathom::text_safety::json_safe(json));
}

mod ask;
mod bench;
mod doctor;
mod eval;
mod export;
mod index;
mod interactive;
mod progress;
mod search;
mod sessions;

use anyhow::Context;
use clap::{Parser, Subcommand};
use fathom::config::{Config, LoadOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "fathom",
    version,
    about = "Ask questions of a folder of dated documents: cited, confidence-scored answers."
)]
pub struct Cli {
    /// Config file (default: the `fathom` folder in your config dir, if it has config.toml).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Where the index, sessions and logs live (default: your data dir; env FATHOM_DATA_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// The folder of documents (default: corpus.dir in the config; env FATHOM_CORPUS_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Reopen a saved conversation in the app (see `fathom sessions`).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Ask a question: the whole pipeline, headless.
    Ask(ask::AskArgs),
    /// Build or update the index of the corpus (only new and changed documents are embedded).
    Index(index::IndexArgs),
    /// Search the index: hybrid dense + BM25 retrieval, fused with RRF and reranked.
    Search(search::SearchArgs),
    /// Measure retrieval quality on a BEIR dataset or a question file.
    Eval(eval::EvalArgs),
    /// Measure query latency and embedding throughput.
    Bench(bench::BenchArgs),
    /// List the saved sessions, newest first.
    Sessions(sessions::SessionsArgs),
    /// Export a saved session as Markdown or JSON.
    Export(export::ExportArgs),
    /// Check the embedding model and the model server: reachability, models, structured output.
    Doctor(doctor::DoctorArgs),
}

/// An error that is the user's to fix (bad flag, bad config): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            let usage = e.downcast_ref::<UsageError>().is_some()
                || e.downcast_ref::<fathom::config::ConfigError>().is_some();
            errln!("fathom: {e:#}");
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

fn load_config(cli: &Cli) -> anyhow::Result<Config> {
    let mut opts = LoadOptions::from_process_env();
    opts.config_file = cli.config.clone().or(opts.config_file);
    opts.data_dir = cli.data_dir.clone().or(opts.data_dir);
    opts.corpus_dir = cli.corpus.clone().or(opts.corpus_dir);
    Ok(Config::load(&opts)?)
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let cfg = load_config(&cli)?;
    let _log_guard = fathom::logging::init(&cfg.paths.data_dir, &cfg.log.level)
        .with_context(|| format!("cannot write logs under {}", cfg.paths.data_dir.display()))?;
    tracing::info!(command = ?cli.command, "start");
    if matches!(
        cli.command,
        None | Some(Command::Ask(_) | Command::Doctor(_) | Command::Eval(_))
    ) {
        warn_if_key_in_plain_text(&cfg);
    }
    match cli.command {
        Some(Command::Ask(args)) => ask::run(&cfg, &args),
        Some(Command::Index(args)) => index::run(&cfg, &args),
        Some(Command::Search(args)) => search::run(&cfg, &args),
        Some(Command::Eval(args)) => eval::run(&cfg, &args),
        Some(Command::Bench(args)) => bench::run(&cfg, &args),
        Some(Command::Sessions(args)) => sessions::run(&cfg, &args),
        Some(Command::Export(args)) => export::run(&cfg, &args),
        Some(Command::Doctor(args)) => doctor::run(&cfg, &args),
        None => interactive::run(&cfg, cli.session.as_deref()),
    }
}

/// Says on stderr (and the client in the log) when the API key would go unencrypted to another
/// machine; the commands that may call the model server run this first.
fn warn_if_key_in_plain_text(cfg: &Config) {
    let has_key = fathom::orchestrator::chat::api_key_from_env().is_some();
    if let Some(w) = cfg
        .llm
        .base_url
        .as_deref()
        .and_then(|url| fathom::model::openai::plaintext_key_warning(url, has_key))
    {
        errln!("warning: {w}");
    }
}

/// The corpus folder: `--corpus` / config, or a usage error saying how to give one.
fn corpus_dir(cfg: &Config) -> anyhow::Result<PathBuf> {
    cfg.corpus.dir.clone().ok_or_else(|| {
        UsageError("no corpus folder: pass --corpus DIR, set corpus.dir in the config, or FATHOM_CORPUS_DIR".into()).into()
    })
}

/// A `--years` list (a newtype, so clap takes it as one value rather than many).
#[derive(Debug, Clone, PartialEq)]
pub struct YearList(pub Vec<i32>);

/// Parses `2019,2020` (spaces allowed) into years.
fn parse_years(s: &str) -> Result<YearList, String> {
    let mut years = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let y: i32 = part
            .parse()
            .map_err(|_| format!("not a year: {part:?} (expected e.g. 2019,2020)"))?;
        if !(1000..=9999).contains(&y) {
            return Err(format!("not a year: {y}"));
        }
        if !years.contains(&y) {
            years.push(y);
        }
    }
    years.sort_unstable();
    Ok(YearList(years))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_parse_sorted_and_deduplicated() {
        assert_eq!(
            parse_years("2020, 2019,2020").unwrap(),
            YearList(vec![2019, 2020])
        );
        assert!(parse_years("20x0").unwrap_err().contains("20x0"));
        assert!(parse_years("99").is_err());
        assert_eq!(parse_years("").unwrap(), YearList(vec![]));
    }
}
