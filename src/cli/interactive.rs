//! `fathom` with no subcommand: open the configured corpus (or the built-in sample), index it if
//! needed, and answer questions typed on standard input through the whole pipeline.

use super::index::index_corpus;
use fathom::config::Config;
use fathom::index::open::load_embedder;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

pub fn run(cfg: &Config) -> anyhow::Result<ExitCode> {
    let mut cfg = cfg.clone();
    if cfg.corpus.dir.is_none() {
        let dir = cfg.paths.data_dir.join("sample-corpus");
        fathom::sample::write_sample_corpus(&dir)?;
        eprintln!(
            "no corpus configured: using the built-in sample at {} (pass --corpus DIR for yours)",
            dir.display()
        );
        cfg.corpus.dir = Some(dir);
    }
    let corpus = super::corpus_dir(&cfg)?;
    let status = load_embedder(&cfg);
    let report = index_corpus(&cfg, &corpus, status.embedder(), false, false)?;
    drop(status);
    eprintln!(
        "{} documents, {} chunks indexed from {}",
        report.documents,
        report.chunks,
        corpus.display()
    );
    let manager = super::ask::manager(&cfg, false)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return run_tui(&rt, manager);
    }
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        eprintln!("Ask a question about the documents (q to quit).");
    }
    let mut lines = std::io::stdin().lock().lines();
    loop {
        if interactive {
            print!("\nask> ");
            std::io::stdout().flush()?;
        }
        let Some(line) = lines.next() else { break };
        let line = line?;
        let question = line.trim();
        if question.is_empty() {
            continue;
        }
        if matches!(question, "q" | "quit" | "exit") {
            break;
        }
        let result = rt.block_on(super::ask::ask_once(
            manager.clone(),
            question.to_string(),
            Vec::new(),
            |_| {},
        ))?;
        println!("{}", result.answer);
        match result.confidence {
            Some(c) => println!("\n— {} · confidence {c:.2}", result.final_reason.as_str()),
            None => println!("\n— {}", result.final_reason.as_str()),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The terminal UI: the orchestrator runs as a task on `rt`; the UI talks to it over channels.
fn run_tui(
    rt: &tokio::runtime::Runtime,
    manager: std::sync::Arc<fathom::orchestrator::manager::Manager>,
) -> anyhow::Result<ExitCode> {
    let store = manager.retriever().store();
    let backend = format!("offline · {}", manager.retriever().reranker_name());
    let mut app = fathom::tui::App::new(
        backend,
        store.chunks().len(),
        store.years(),
        manager.topology().clone(),
        super::ask::new_session_id(),
    );
    for chunk in store.chunks() {
        app.add_chunk(chunk.clone());
    }
    rt.block_on(async {
        let handle = fathom::orchestrator::runtime::spawn(manager.clone());
        let commands = handle.commands.clone();
        let result = fathom::tui::run_app(&mut app, handle.commands, handle.events).await;
        let _ = commands.send(fathom::orchestrator::events::Command::Shutdown);
        result
    })?;
    Ok(ExitCode::SUCCESS)
}
