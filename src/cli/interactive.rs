//! `fathom` with no subcommand: open the configured corpus (or the built-in sample), index it if
//! needed, and answer queries typed on standard input with the top passages.

use super::index::index_corpus;
use fathom::config::Config;
use fathom::index::open::{load_embedder, open_retriever};
use fathom::index::retrieve::SearchRequest;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

pub fn run(cfg: &Config) -> anyhow::Result<ExitCode> {
    let corpus = match &cfg.corpus.dir {
        Some(dir) => dir.clone(),
        None => {
            let dir = cfg.paths.data_dir.join("sample-corpus");
            fathom::sample::write_sample_corpus(&dir)?;
            eprintln!("no corpus configured: using the built-in sample at {} (pass --corpus DIR for yours)", dir.display());
            dir
        }
    };
    let status = load_embedder(cfg);
    if let Some(notice) = status.notice() {
        eprintln!("note: {notice}");
    }
    let report = index_corpus(cfg, &corpus, status.embedder(), false, false)?;
    eprintln!(
        "{} documents, {} chunks indexed from {}",
        report.documents,
        report.chunks,
        corpus.display()
    );
    let retriever = open_retriever(cfg, status.into_embedder())?;
    let interactive = std::io::stdin().is_terminal();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            print!("\nask> ");
            std::io::stdout().flush()?;
        }
        let Some(line) = lines.next() else { break };
        let query = line?;
        let query = query.trim();
        if query.is_empty() {
            continue;
        }
        if matches!(query, "q" | "quit" | "exit") {
            break;
        }
        let resp = retriever.search(&SearchRequest {
            query: query.to_string(),
            years: Vec::new(),
            k: 3,
        })?;
        for h in &resp.hits {
            println!(
                "[{}] {} ({}) {:.2}\n    {}",
                h.rank,
                h.document,
                h.date.map(|d| d.to_string()).unwrap_or_default(),
                h.score,
                h.snippet
            );
        }
        if resp.hits.is_empty() {
            println!("no matches");
        }
    }
    Ok(ExitCode::SUCCESS)
}
