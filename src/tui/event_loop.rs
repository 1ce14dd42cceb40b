//! The loop: selects over terminal events, the preparation thread's progress, orchestrator events
//! and a tick; draws only when the state changed. Terminal events are read on a blocking thread
//! and forwarded over a channel, so nothing here ever waits on the terminal or on indexing.

use crate::orchestrator::api::{Command, Engine, Event, FinalReason, OrchestratorHandle};
use crate::tui::action::{Action, Effect, Notice};
use crate::tui::app::App;
use crate::tui::components::indexing::{render_notice, render_startup};
use crate::tui::session_io::SessionIo;
use crate::tui::startup::{spawn_job, Launch, StartClock, StartupMsg, StartupView};
use crate::tui::terminal::{self, Tui, TuiError};
use crate::tui::update::update;
use crate::tui::view::view;
use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::sync::mpsc;

pub const TICK: Duration = Duration::from_millis(100);

type Input = mpsc::UnboundedReceiver<std::io::Result<TermEvent>>;

fn spawn_input_thread() -> Result<Input, TuiError> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::Builder::new()
        .name("fathom-input".into())
        .spawn(move || loop {
            // Poll with a timeout so the thread notices when the UI has gone.
            match crossterm::event::poll(Duration::from_millis(200)) {
                Ok(true) => {
                    let ev = crossterm::event::read();
                    let failed = ev.is_err();
                    if tx.send(ev).is_err() || failed {
                        return;
                    }
                }
                Ok(false) => {
                    if tx.is_closed() {
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        })
        .map_err(|source| TuiError::Thread {
            what: "terminal input",
            source,
        })?;
    Ok(rx)
}

fn to_action(ev: TermEvent) -> Option<Action> {
    match ev {
        TermEvent::Key(k) => Some(Action::Key(k)),
        TermEvent::Mouse(m) => Some(Action::Mouse(m)),
        TermEvent::Resize(w, h) => Some(Action::Resize(w, h)),
        _ => None,
    }
}

/// Runs the UI until the user quits: the progress view while `launch` prepares the index, then
/// the chat. Restores the terminal on return (error or not).
pub async fn run_app(
    app: &mut App,
    launch: Launch,
    sessions: &mut SessionIo,
) -> Result<(), TuiError> {
    let mut tui = terminal::init()?;
    let result = run_loop(&mut tui, app, launch, sessions).await;
    let restored = terminal::restore();
    result?;
    restored
}

/// Where the UI is: preparing (progress view) or chatting.
enum Screen {
    Preparing {
        view: StartupView,
        /// Set when preparation failed: returned when the user quits.
        failure: Option<TuiError>,
    },
    Chat {
        orchestrator: OrchestratorHandle,
        /// Shown on the chat's top border for the whole session.
        notice: Option<String>,
    },
}

async fn recv_opt<T>(rx: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// What one turn of the loop received.
enum Received {
    Term(Option<std::io::Result<TermEvent>>),
    Startup(Option<StartupMsg>),
    Orchestrator(Option<Event>),
    Tick,
}

async fn run_loop(
    tui: &mut Tui,
    app: &mut App,
    launch: Launch,
    sessions: &mut SessionIo,
) -> Result<(), TuiError> {
    let Launch {
        view: sv,
        clock,
        job,
    } = launch;
    let mut input = spawn_input_thread()?;
    let mut tick = tokio::time::interval(TICK);
    let size = tui.size()?;
    update(app, Action::Resize(size.width, size.height));
    let mut screen = Screen::Preparing {
        view: sv,
        failure: None,
    };
    let mut dirty = true;
    let mut job = Some(job);
    let mut startup: Option<mpsc::UnboundedReceiver<StartupMsg>> = None;
    loop {
        if dirty || app.dirty {
            match &screen {
                Screen::Preparing { view, .. } => tui.draw(|f| render_startup(view, f))?,
                Screen::Chat { notice, .. } => tui.draw(|f| {
                    view(app, f);
                    if let Some(n) = notice {
                        render_notice(app, n, f);
                    }
                })?,
            };
            dirty = false;
            app.dirty = false;
            // Preparation starts only once the first frame is on screen: loading the model or
            // reading the corpus must never delay it.
            if let Some(job) = job.take() {
                let ms = clock.since_process_start().as_secs_f64() * 1000.0;
                tracing::info!(first_frame_ms = ms, "first frame drawn");
                startup = Some(spawn_job(job)?);
            }
        }
        let orch = match &mut screen {
            Screen::Chat { orchestrator, .. } => Some(&mut orchestrator.events),
            Screen::Preparing { .. } => None,
        };
        let got = tokio::select! {
            ev = input.recv() => Received::Term(ev),
            msg = recv_opt(&mut startup), if startup.is_some() => Received::Startup(msg),
            ev = async { match orch { Some(rx) => rx.recv().await, None => std::future::pending().await } } => Received::Orchestrator(ev),
            _ = tick.tick() => Received::Tick,
        };
        let action = match got {
            Received::Term(None) => return Err(TuiError::Channel("terminal input thread")),
            Received::Term(Some(Err(e))) => return Err(TuiError::Terminal(e)),
            Received::Term(Some(Ok(ev))) => to_action(ev),
            Received::Startup(msg) => {
                match msg {
                    Some(StartupMsg::Progress(p)) => {
                        if let Screen::Preparing { view, .. } = &mut screen {
                            view.apply(p);
                        }
                    }
                    Some(StartupMsg::Done(Ok(engine))) => {
                        startup = None;
                        let (sample, notice) = match &screen {
                            Screen::Preparing { view, .. } => (view.sample, view.notice.is_some()),
                            Screen::Chat { .. } => (false, false),
                        };
                        screen = open_chat(app, &engine, sample, notice, &clock);
                    }
                    Some(StartupMsg::Done(Err(e))) => {
                        startup = None;
                        tracing::error!(error = %e, "preparing the index failed");
                        if let Screen::Preparing { view, failure } = &mut screen {
                            view.fail(e.clone());
                            *failure = Some(TuiError::Startup(e));
                        }
                    }
                    None => {
                        // The thread ended without a result: it panicked.
                        startup = None;
                        if let Screen::Preparing { view, failure } = &mut screen {
                            view.fail("the indexing thread stopped unexpectedly".into());
                            *failure = Some(TuiError::Channel("indexing thread"));
                        }
                    }
                }
                dirty = true;
                None
            }
            Received::Orchestrator(Some(ev)) => Some(Action::Orchestrator(ev)),
            // The orchestrator only closes its events after `Shutdown`, which ends this loop
            // first: closing earlier means its task died, and a query would spin forever.
            Received::Orchestrator(None) => return Err(TuiError::Channel("orchestrator")),
            Received::Tick => Some(Action::Tick),
        };
        let Some(action) = action else { continue };
        match &mut screen {
            Screen::Preparing { view, failure } => {
                if let Action::Tick = action {
                    if view.error.is_none() {
                        view.spinner_tick = view.spinner_tick.wrapping_add(1);
                        dirty = true;
                    }
                    continue;
                }
                if let Action::Resize(..) = action {
                    update(app, action);
                    dirty = true;
                    continue;
                }
                if quits_while_preparing(&action) {
                    return match failure.take() {
                        Some(e) => Err(e),
                        None => Ok(()),
                    };
                }
            }
            Screen::Chat { orchestrator, .. } => {
                let mut queue = VecDeque::new();
                // A finished answer is saved (and synced to disk) before the UI shows it as
                // done; if saving fails the answer stays on screen and the user is told.
                if let Action::Orchestrator(Event::Finished { result }) = &action {
                    if app.running.is_some() && result.final_reason != FinalReason::Cancelled {
                        if let Err(e) = sessions.save_turn(app, result) {
                            tracing::error!(error = %e, "saving the turn failed");
                            queue.push_back(Action::Notice(Notice::error(format!(
                                "this answer was not saved: {e}"
                            ))));
                        }
                    }
                }
                queue.push_front(action);
                while let Some(action) = queue.pop_front() {
                    for effect in update(app, action) {
                        match effect {
                            Effect::Send(cmd) => {
                                if matches!(cmd, Command::Ask { .. }) {
                                    sessions.question_sent();
                                }
                                orchestrator
                                    .commands
                                    .send(cmd)
                                    .map_err(|_| TuiError::Channel("orchestrator"))?
                            }
                            Effect::Quit => {
                                // It may already be gone; quitting must not fail because of it.
                                let _ = orchestrator.commands.send(Command::Shutdown);
                                return Ok(());
                            }
                            other => queue.extend(sessions.perform(&other)),
                        }
                    }
                }
            }
        }
    }
}

/// Ctrl-C, q or Esc leave the progress view (there is nothing else to do there).
fn quits_while_preparing(action: &Action) -> bool {
    let Action::Key(k) = action else { return false };
    if k.kind == KeyEventKind::Release {
        return false;
    }
    let ctrl_c = k.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(k.code, KeyCode::Char('c') | KeyCode::Char('C'));
    ctrl_c || matches!(k.code, KeyCode::Char('q') | KeyCode::Esc)
}

/// Hands the engine's description to the app and starts the orchestrator task.
fn open_chat(
    app: &mut App,
    engine: &Engine,
    sample: bool,
    dense_notice: bool,
    clock: &StartClock,
) -> Screen {
    let info = engine.info();
    app.backend = info.backend.clone();
    app.index_chunks = info.chunks;
    app.years = info.years.clone();
    app.topology = info.topology.clone();
    for breaker in engine.driver().breakers() {
        app.set_breaker(breaker);
    }
    app.dirty = true;
    tracing::info!(
        ready_ms = clock.since_process_start().as_secs_f64() * 1000.0,
        chunks = app.index_chunks,
        "chat ready"
    );
    // The full notice (with the model path) is in the log and was on the progress view; the
    // border has room for the gist and the fix.
    let notice = match (dense_notice, sample) {
        (true, _) => Some("dense retrieval off: no embedding model · run `make model`"),
        (false, true) => Some("built-in sample corpus · pass --corpus DIR for your documents"),
        (false, false) => None,
    }
    .map(str::to_string);
    Screen::Chat {
        orchestrator: engine.spawn(),
        notice,
    }
}
