//! `fathom index`: build or update the index of the corpus.

use super::progress::Reporter;
use fathom::config::Config;
use fathom::index::open::{chunk_options, index_dir, load_embedder};
use fathom::index::store::{build, BuildOptions, IndexReport};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// Print the report as JSON: {"documents","chunks","years","dense","seconds",...}.
    #[arg(long)]
    json: bool,
    /// Rebuild from scratch instead of updating what changed.
    #[arg(long)]
    rebuild: bool,
}

pub fn run(cfg: &Config, args: &IndexArgs) -> anyhow::Result<ExitCode> {
    let corpus = super::corpus_dir(cfg)?;
    let status = load_embedder(cfg);
    if let Some(notice) = status.notice() {
        eprintln!("note: {notice}");
    }
    let report = index_corpus(cfg, &corpus, status.embedder(), args.rebuild, args.json)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds or updates the index with a progress display; shared by `index`, `eval` and the app.
pub fn index_corpus(
    cfg: &Config,
    corpus: &std::path::Path,
    embedder: Option<&fathom::index::embed::Embedder>,
    rebuild: bool,
    quiet: bool,
) -> anyhow::Result<IndexReport> {
    let dir = index_dir(&cfg.paths.data_dir);
    let opts = BuildOptions {
        corpus_root: corpus,
        index_dir: &dir,
        embedder,
        chunking: chunk_options(cfg),
        links: fathom::corpus::LinkPolicy::from_config(&cfg.corpus),
        rebuild,
    };
    let mut reporter = Reporter::new(quiet);
    let report = build(&opts, &mut |p| reporter.report(p))?;
    tracing::info!(
        documents = report.documents,
        chunks = report.chunks,
        seconds = report.seconds,
        "indexed"
    );
    Ok(report)
}

fn print_report(r: &IndexReport) {
    println!(
        "indexed {} documents, {} chunks ({}) in {:.1} s",
        r.documents,
        r.chunks,
        if r.dense {
            "BM25 + dense vectors"
        } else {
            "BM25 only"
        },
        r.seconds
    );
    println!(
        "  {} new, {} changed, {} removed, {} unchanged; {} chunks embedded",
        r.added, r.changed, r.removed, r.unchanged, r.embedded_chunks
    );
    if let (Some(first), Some(last)) = (r.years.keys().next(), r.years.keys().next_back()) {
        println!("  years {first}–{last} ({} with documents)", r.years.len());
    }
    if !r.skipped.is_empty() {
        println!("  {} files skipped (see above)", r.skipped.len());
    }
}
