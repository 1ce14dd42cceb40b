//! `fathom ask`: run the whole pipeline headless and print the answer, the result as JSON, or
//! the event stream as JSON lines. Exit 0 for `success`, 1 for `fail`.

use super::parse_years;
use fathom::config::Config;
use fathom::index::open::{load_embedder, open_retriever};
use fathom::orchestrator::events::{Command, Event};
use fathom::orchestrator::manager::Manager;
use fathom::orchestrator::runtime;
use fathom::orchestrator::types::{ManagerState, OrchestrationResult};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct AskArgs {
    /// Print the whole OrchestrationResult as JSON.
    #[arg(long, conflicts_with = "events")]
    json: bool,
    /// Print every event as a JSON line while the query runs.
    #[arg(long)]
    events: bool,
    /// Only these years, e.g. 2020,2021.
    #[arg(long, value_parser = parse_years, value_name = "YEARS")]
    years: Option<super::YearList>,
    /// The question.
    #[arg(required = true, num_args = 1.., value_name = "QUESTION")]
    question: Vec<String>,
}

/// Builds the Manager over the configured index (used by `ask` and `eval --qa --answers`).
pub fn manager(cfg: &Config, quiet: bool) -> anyhow::Result<Arc<Manager>> {
    let status = load_embedder(cfg);
    if let (Some(notice), false) = (status.notice(), quiet) {
        eprintln!("note: {notice}");
    }
    let retriever = open_retriever(cfg, status.into_embedder())?;
    Ok(Arc::new(Manager::new(
        Arc::new(retriever),
        cfg.agent.max_reformulations,
    )))
}

/// Asks one question through the orchestrator task; `on_event` sees every event.
pub async fn ask_once(
    manager: Arc<Manager>,
    question: String,
    years: Vec<i32>,
    mut on_event: impl FnMut(&Event),
) -> anyhow::Result<OrchestrationResult> {
    let mut handle = runtime::spawn(manager);
    handle.commands.send(Command::Ask {
        query: question,
        requested_years: years,
        session_id: new_session_id(),
    })?;
    while let Some(ev) = handle.events.recv().await {
        on_event(&ev);
        if let Event::Finished { result } = ev {
            let _ = handle.commands.send(Command::Shutdown);
            return Ok(*result);
        }
    }
    anyhow::bail!("the orchestrator stopped without a result")
}

pub fn new_session_id() -> String {
    format!(
        "sess_{}",
        &fathom::orchestrator::dispatch::new_dispatch_id()[5..]
    )
}

pub fn run(cfg: &Config, args: &AskArgs) -> anyhow::Result<ExitCode> {
    let manager = manager(cfg, args.json || args.events)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let question = args.question.join(" ");
    let events = args.events;
    let result = rt.block_on(ask_once(
        manager,
        question,
        args.years.clone().map(|y| y.0).unwrap_or_default(),
        |ev| {
            if events {
                if let Ok(line) = serde_json::to_string(ev) {
                    println!("{line}");
                }
            }
        },
    ))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else if !events {
        println!("{}", result.answer);
        match result.confidence {
            Some(c) => println!("\n— {} · confidence {c:.2}", result.final_reason.as_str()),
            None => println!("\n— {}", result.final_reason.as_str()),
        }
    }
    Ok(if result.state == ManagerState::Success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
