//! The loop: selects over terminal events, the preparation thread's progress, orchestrator events
//! and a tick; draws only when the state changed. Terminal events are read on a blocking thread
//! and forwarded over a channel, so nothing here ever waits on the terminal or on indexing.

use crate::orchestrator::api::{
    Command, Engine, Event, FinalReason, OrchestratorHandle, StartupProgress,
};
use crate::tui::action::{Action, Effect, Notice};
use crate::tui::app::{App, DenseFillStatus};
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
            draw(tui, app, &screen)?;
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
        let got = receive(&mut input, &mut startup, &mut screen, &mut tick).await;
        if let Received::Startup(_) = got {
            dirty = true;
        }
        let action = action_of(got, &mut screen, &mut startup, app, &clock)?;
        let Some(action) = action else { continue };
        let step = match &mut screen {
            Screen::Preparing { view, .. } => on_preparing(app, view, action),
            Screen::Chat { orchestrator, .. } => on_chat(app, orchestrator, sessions, action)?,
        };
        match step {
            Step::Go => {}
            Step::Redraw => dirty = true,
            Step::Quit => {
                return match &mut screen {
                    Screen::Preparing { failure, .. } => failure.take().map_or(Ok(()), Err),
                    Screen::Chat { .. } => Ok(()),
                }
            }
        }
    }
}

/// Waits for the next terminal event, preparation message, orchestrator event or tick.
async fn receive(
    input: &mut Input,
    startup: &mut Option<mpsc::UnboundedReceiver<StartupMsg>>,
    screen: &mut Screen,
    tick: &mut tokio::time::Interval,
) -> Received {
    let orch = match screen {
        Screen::Chat { orchestrator, .. } => Some(&mut orchestrator.events),
        Screen::Preparing { .. } => None,
    };
    let preparing = startup.is_some();
    tokio::select! {
        ev = input.recv() => Received::Term(ev),
        msg = recv_opt(startup), if preparing => Received::Startup(msg),
        ev = async { match orch { Some(rx) => rx.recv().await, None => std::future::pending().await } } => Received::Orchestrator(ev),
        _ = tick.tick() => Received::Tick,
    }
}

/// The action a received message makes for `update`, if any; preparation messages are applied
/// to the screen here.
fn action_of(
    got: Received,
    screen: &mut Screen,
    startup: &mut Option<mpsc::UnboundedReceiver<StartupMsg>>,
    app: &mut App,
    clock: &StartClock,
) -> Result<Option<Action>, TuiError> {
    Ok(match got {
        Received::Term(None) => return Err(TuiError::Channel("terminal input thread")),
        Received::Term(Some(Err(e))) => return Err(TuiError::Terminal(e)),
        Received::Term(Some(Ok(ev))) => to_action(ev),
        Received::Startup(msg) => {
            // The thread goes on after the engine is ready when dense vectors are left to
            // compute: the channel stays open until that ends too (or the thread is gone).
            let finished = matches!(
                msg,
                None | Some(StartupMsg::Done(Err(_))) | Some(StartupMsg::BackgroundDone(_))
            );
            if finished {
                *startup = None;
            }
            on_startup(msg, screen, app, clock);
            None
        }
        Received::Orchestrator(Some(ev)) => Some(Action::Orchestrator(ev)),
        // The orchestrator only closes its events after `Shutdown`, which ends this loop
        // first: closing earlier means its task died, and a query would spin forever.
        Received::Orchestrator(None) => return Err(TuiError::Channel("orchestrator")),
        Received::Tick => Some(Action::Tick),
    })
}

/// What the loop does after an action.
enum Step {
    Go,
    /// Only the progress view changed (the app's own changes set `app.dirty`).
    Redraw,
    Quit,
}

fn draw(tui: &mut Tui, app: &App, screen: &Screen) -> Result<(), TuiError> {
    match screen {
        Screen::Preparing { view, .. } => tui.draw(|f| render_startup(view, f))?,
        Screen::Chat { notice, .. } => tui.draw(|f| {
            view(app, f);
            if let Some(n) = notice {
                render_notice(app, n, f);
            }
        })?,
    };
    Ok(())
}

/// Progress, the engine, or why there is none: the progress view follows; a ready engine opens
/// the chat.
fn on_startup(msg: Option<StartupMsg>, screen: &mut Screen, app: &mut App, clock: &StartClock) {
    match msg {
        Some(StartupMsg::Background(p)) => return on_background(app, p),
        Some(StartupMsg::BackgroundDone(r)) => return on_background_done(app, r),
        _ => {}
    }
    let Screen::Preparing { view, failure } = screen else {
        // The thread ends after its background work: nothing to show in the chat.
        return;
    };
    match msg {
        Some(StartupMsg::Background(_)) | Some(StartupMsg::BackgroundDone(_)) => {}
        Some(StartupMsg::Progress(p)) => view.apply(p),
        Some(StartupMsg::Done(Ok(engine))) => {
            let (sample, notice) = (view.sample, view.notice.is_some());
            *screen = open_chat(app, &engine, sample, notice, clock);
        }
        Some(StartupMsg::Done(Err(e))) => {
            tracing::error!(error = %e, "preparing the index failed");
            view.fail(e.clone());
            *failure = Some(TuiError::Startup(e));
        }
        None => {
            // The thread ended without a result: it panicked.
            view.fail("the indexing thread stopped unexpectedly".into());
            *failure = Some(TuiError::Channel("indexing thread"));
        }
    }
}
/// Dense vectors filling in behind the chat: the status bar shows how far, with the time left.
fn on_background(app: &mut App, p: StartupProgress) {
    match p {
        StartupProgress::Embedded {
            done,
            total,
            eta_secs,
        } => {
            app.dense_fill = Some(DenseFillStatus {
                done,
                total,
                eta_secs,
            });
            app.dirty = true;
        }
        StartupProgress::DenseReady { backend } => {
            app.dense_fill = None;
            app.backend = backend;
            app.notice = Some(Notice::info(
                "dense vectors complete: hybrid retrieval from the next question",
            ));
            app.dirty = true;
        }
        _ => {}
    }
}

fn on_background_done(app: &mut App, result: Result<(), String>) {
    if let Err(e) = result {
        tracing::error!(error = %e, "filling in dense vectors failed");
        app.notice = Some(Notice::error(format!(
            "dense vectors stopped ({e}); answering with BM25, `fathom index` resumes them"
        )));
    }
    app.dense_fill = None;
    app.dirty = true;
}

/// While preparing: the spinner turns, resizes redraw, and the user may leave.
fn on_preparing(app: &mut App, view: &mut StartupView, action: Action) -> Step {
    match action {
        Action::Tick if view.error.is_none() => {
            view.spinner_tick = view.spinner_tick.wrapping_add(1);
            Step::Redraw
        }
        Action::Resize(..) => {
            update(app, action);
            Step::Redraw
        }
        _ if quits_while_preparing(&action) => Step::Quit,
        _ => Step::Go,
    }
}

/// In the chat: the action goes through `update` and its effects are performed. A finished
/// answer is saved (and synced to disk) before the UI shows it as done; if saving fails the
/// answer stays on screen and the user is told.
fn on_chat(
    app: &mut App,
    orchestrator: &mut OrchestratorHandle,
    sessions: &mut SessionIo,
    action: Action,
) -> Result<Step, TuiError> {
    let mut queue = VecDeque::new();
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
                    return Ok(Step::Quit);
                }
                other => queue.extend(sessions.perform(&other)),
            }
        }
    }
    Ok(Step::Go)
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
