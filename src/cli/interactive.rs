//! `fathom` with no subcommand: open the configured corpus (or the built-in sample), index it if
//! needed, and answer questions. On a terminal the UI opens at once and indexes behind a progress
//! view; otherwise questions are read line by line from standard input.

use super::index::index_corpus;
use fathom::config::Config;
use fathom::index::open::load_embedder;
use fathom::orchestrator::api::{sources_block, StartupProgress};
use fathom::session::redact::secrets_from_env;
use fathom::tui::session_io::SessionIo;
use fathom::tui::startup::{Launch, StartClock, Started, StartupView};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(cfg: &Config, session: Option<&str>) -> anyhow::Result<ExitCode> {
    let clock = StartClock::now();
    let mut cfg = cfg.clone();
    let sample = cfg.corpus.dir.is_none();
    if sample {
        let dir = cfg.paths.data_dir.join("sample-corpus");
        fathom::sample::write_sample_corpus(&dir)?;
        cfg.corpus.dir = Some(dir);
    }
    let corpus = super::corpus_dir(&cfg)?;
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return run_tui(cfg, corpus, sample, session, clock);
    }
    if sample {
        errln!(
            "no corpus configured: using the built-in sample at {} (pass --corpus DIR for yours)",
            corpus.display()
        );
    }
    let status = load_embedder(&cfg);
    let report = index_corpus(&cfg, &corpus, status.embedder(), false, false)?;
    drop(status);
    errln!(
        "{} documents, {} chunks indexed from {}",
        report.documents,
        report.chunks,
        corpus.display()
    );
    let engine = super::ask::engine(&cfg, false)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        errln!("Ask a question about the documents (q to quit).");
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
            &engine,
            question.to_string(),
            Vec::new(),
            |_| {},
        ))?;
        outln!("{}", result.answer);
        if !result.citations.is_empty() {
            outln!("\n{}", sources_block(&result.citations));
        }
        match result.confidence {
            Some(c) => outln!("\n— {} · confidence {c:.2}", result.final_reason.as_str()),
            None => outln!("\n— {}", result.final_reason.as_str()),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The terminal UI: it opens at once; the model, the index and the orchestrator come up behind
/// its progress view (see `fathom::tui::startup`).
fn run_tui(
    cfg: Config,
    corpus: PathBuf,
    sample: bool,
    session: Option<&str>,
    clock: StartClock,
) -> anyhow::Result<ExitCode> {
    // Checked before the terminal is taken over, so a bad id or config is one clear line.
    let reopened = match session {
        Some(id) if !fathom::session::is_session_id(id) => {
            return Err(super::UsageError(format!(
                "not a session id: {id:?} (see `fathom sessions`)"
            ))
            .into())
        }
        Some(id) => Some(
            fathom::session::load(&cfg.paths.data_dir, id)
                .map_err(|e| super::UsageError(e.to_string()))?,
        ),
        None => None,
    };
    let chat = fathom::wiring::chat_backend(&cfg).map_err(|e| super::UsageError(e.to_string()))?;
    let mut sessions = SessionIo::new(&cfg.paths.data_dir, secrets_from_env());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut app = fathom::tui::App::new(
        "starting",
        0,
        Default::default(),
        fathom::orchestrator::topology::qa::topology(cfg.agent.max_reformulations).view(),
        fathom::session::new_session_id(),
    );
    if let Some(loaded) = reopened {
        fathom::tui::update(
            &mut app,
            fathom::tui::Action::SessionLoaded(Box::new(loaded)),
        );
    }
    let launch = Launch {
        view: StartupView::new(corpus.display().to_string(), sample),
        clock,
        job: Box::new(move |report| {
            let prepared =
                fathom::wiring::prepare(&cfg, &corpus, chat, report).map_err(|e| e.to_string())?;
            // Dense vectors left to compute are filled in behind the chat. Quitting ends the
            // process wherever the embedding is: every batch already in the vector cache is
            // kept (a torn last record is cut), and the next start embeds only the rest.
            let background = prepared.dense_fill.map(|fill| {
                Box::new(move |report: &mut dyn FnMut(StartupProgress)| {
                    let never = std::sync::atomic::AtomicBool::new(false);
                    fill.run(&never, report)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                }) as fathom::tui::startup::Background
            });
            Ok(Started {
                engine: prepared.engine,
                background,
            })
        }),
    };
    let result = rt.block_on(fathom::tui::run_app(&mut app, launch, &mut sessions));
    // A query's blocking work may still be running after a quit: do not wait long for it.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    result?;
    Ok(ExitCode::SUCCESS)
}
