//! The loop: selects over terminal events, orchestrator events and a tick; draws only when the
//! state changed. Terminal events are read on a blocking thread and forwarded over a channel.

use super::action::{Action, Effect};
use super::app::{update, App};
use super::terminal::{self, Tui};
use super::view::view;
use crate::orchestrator::events::{Command, Event};
use crossterm::event::Event as TermEvent;
use std::time::Duration;
use tokio::sync::mpsc;

pub const TICK: Duration = Duration::from_millis(100);

fn spawn_input_thread() -> mpsc::UnboundedReceiver<TermEvent> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || loop {
        match crossterm::event::poll(Duration::from_millis(200)) {
            Ok(true) => match crossterm::event::read() {
                Ok(ev) => {
                    if tx.send(ev).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            },
            Ok(false) => {
                if tx.is_closed() {
                    return;
                }
            }
            Err(_) => return,
        }
    });
    rx
}

fn to_action(ev: TermEvent) -> Option<Action> {
    match ev {
        TermEvent::Key(k) => Some(Action::Key(k)),
        TermEvent::Mouse(m) => Some(Action::Mouse(m)),
        TermEvent::Resize(w, h) => Some(Action::Resize(w, h)),
        _ => None,
    }
}

/// Runs the UI until the user quits. Restores the terminal on return (error or not).
pub async fn run_app(
    app: &mut App,
    commands: mpsc::UnboundedSender<Command>,
    events: mpsc::UnboundedReceiver<Event>,
) -> anyhow::Result<()> {
    let mut tui = terminal::init()?;
    let result = run_loop(&mut tui, app, commands, events).await;
    let restored = terminal::restore();
    result?;
    restored?;
    Ok(())
}

async fn run_loop(
    tui: &mut Tui,
    app: &mut App,
    commands: mpsc::UnboundedSender<Command>,
    mut events: mpsc::UnboundedReceiver<Event>,
) -> anyhow::Result<()> {
    let mut input = spawn_input_thread();
    let mut tick = tokio::time::interval(TICK);
    let size = tui.size()?;
    update(app, Action::Resize(size.width, size.height));
    let mut orchestrator_open = true;
    loop {
        if app.dirty {
            tui.draw(|f| view(app, f))?;
            app.dirty = false;
        }
        let action = tokio::select! {
            ev = input.recv() => match ev {
                Some(ev) => to_action(ev),
                None => Some(Action::Quit),
            },
            ev = events.recv(), if orchestrator_open => match ev {
                Some(ev) => Some(Action::Orchestrator(ev)),
                None => {
                    orchestrator_open = false;
                    None
                }
            },
            _ = tick.tick() => Some(Action::Tick),
        };
        let Some(action) = action else { continue };
        for effect in update(app, action) {
            match effect {
                Effect::Send(cmd) => {
                    let _ = commands.send(cmd);
                }
                Effect::Quit => {
                    let _ = commands.send(Command::Shutdown);
                    return Ok(());
                }
            }
        }
    }
}
