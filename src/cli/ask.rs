//! `fathom ask`: run the whole pipeline headless and print the answer, the result as JSON, or
//! the event stream as JSON lines. Exit 0 for `success`, 1 for `fail`.

use super::{parse_years, UsageError};
use fathom::config::Config;
use fathom::orchestrator::api::{
    sources_block, Command, ContextItem, Engine, Event, ManagerState, OrchestrationResult,
};
use fathom::session::{self, redact::secrets_from_env, SessionStore, TurnRecord};
use fathom::wiring::WiringError;
use std::process::ExitCode;

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
    /// Keep this turn in session ID (created if new), so it can be listed and exported.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// The question.
    #[arg(required = true, num_args = 1.., value_name = "QUESTION")]
    question: Vec<String>,
}

/// The engine over the configured index, with the chat model when `[llm]` names one (used by
/// `ask`, the line mode and `eval --qa --answers`). Notices go to stderr unless `quiet`.
pub fn engine(cfg: &Config, quiet: bool) -> anyhow::Result<Engine> {
    let mut notice = |n: String| {
        if !quiet {
            errln!("note: {n}");
        }
    };
    fathom::wiring::engine(cfg, &mut notice).map_err(|e| match e {
        // A bad `[llm]` section is the user's to fix: exit code 2.
        WiringError::Chat(e) => super::UsageError(e.to_string()).into(),
        other => anyhow::Error::new(other),
    })
}

/// Asks one question through the orchestrator task; `on_event` sees every event.
pub async fn ask_once(
    engine: &Engine,
    question: String,
    years: Vec<i32>,
    on_event: impl FnMut(&Event),
) -> anyhow::Result<OrchestrationResult> {
    ask_in_session(
        engine,
        question,
        years,
        session::new_session_id(),
        Vec::new(),
        on_event,
    )
    .await
}

/// Like [`ask_once`], as a turn of session `session_id` whose earlier turns are `context`.
pub async fn ask_in_session(
    engine: &Engine,
    question: String,
    years: Vec<i32>,
    session_id: String,
    context: Vec<ContextItem>,
    mut on_event: impl FnMut(&Event),
) -> anyhow::Result<OrchestrationResult> {
    let mut handle = engine.spawn();
    handle.commands.send(Command::Ask {
        query: question,
        requested_years: years,
        session_id,
        context,
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

pub fn run(cfg: &Config, args: &AskArgs) -> anyhow::Result<ExitCode> {
    // Open the session before the query runs, so a bad id or an unwritable data dir fails fast.
    let mut store = match &args.session {
        Some(id) if !session::is_session_id(id) => {
            return Err(
                UsageError(session::SessionError::InvalidId { id: id.clone() }.to_string()).into(),
            )
        }
        Some(id) => Some(SessionStore::open(
            &cfg.paths.data_dir,
            id,
            secrets_from_env(),
        )?),
        None => None,
    };
    let engine = engine(cfg, args.json || args.events)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let question = args.question.join(" ");
    let events = args.events;
    let years = args.years.clone().map(|y| y.0).unwrap_or_default();
    let session_id = match &store {
        Some(s) => s.session_id().to_string(),
        None => session::new_session_id(),
    };
    // Earlier turns of the session, so "and in 2021?" follows on from them.
    let context: Vec<ContextItem> = match &store {
        Some(s) => session::load(&cfg.paths.data_dir, s.session_id())
            .map(|loaded| {
                loaded
                    .turns
                    .iter()
                    .map(|t| ContextItem::from_result(&t.question, &t.result))
                    .collect()
            })
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let asked_at = session::now_rfc3339();
    // With a session, `finished` is printed only once the turn is saved.
    let defer_finished = store.is_some();
    let result = rt.block_on(ask_in_session(
        &engine,
        question.clone(),
        years.clone(),
        session_id,
        context,
        |ev| {
            if events && !(defer_finished && matches!(ev, Event::Finished { .. })) {
                if let Ok(line) = serde_json::to_string(ev) {
                    super::print_json(&line);
                }
            }
        },
    ))?;
    // Saved before anything is printed as done; a failed save is reported after the answer,
    // so the answer itself is never lost.
    let saved = store.as_mut().map(|store| {
        let turn = TurnRecord {
            index: store.next_index(),
            question,
            requested_years: years,
            asked_at,
            finished_at: session::now_rfc3339(),
            result: result.clone(),
        };
        store
            .append(&turn)
            .map_err(|e| (store.session_id().to_string(), e))
    });
    if events && defer_finished {
        let finished = Event::Finished {
            result: Box::new(result.clone()),
        };
        super::print_json(&serde_json::to_string(&finished)?);
    }
    if args.json {
        super::print_json(&serde_json::to_string_pretty(&result)?);
    } else if !events {
        outln!("{}", result.answer);
        if !result.citations.is_empty() {
            outln!("\n{}", sources_block(&result.citations));
        }
        match result.confidence {
            Some(c) => outln!("\n— {} · confidence {c:.2}", result.final_reason.as_str()),
            None => outln!("\n— {}", result.final_reason.as_str()),
        }
        // Which stages the model did not do, and why: on stderr, so stdout stays the answer.
        for s in result.stages.iter().filter(|s| s.fallback.is_some()) {
            errln!(
                "note: {} fell back to the offline stage: {}",
                s.id,
                s.fallback.as_deref().unwrap_or_default()
            );
        }
    }
    if let Some(Err((id, e))) = saved {
        return Err(anyhow::Error::new(e)
            .context(format!("the answer above was not saved to session {id}")));
    }
    Ok(if result.state == ManagerState::Success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
