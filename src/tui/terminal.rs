//! Terminal set-up and restoration (raw mode, alternate screen, mouse), including on panic, and
//! the error type of the parts of the UI that touch the terminal, threads and channels.

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io::{self, Stdout};
use std::sync::{Mutex, Once};
use std::thread::ThreadId;

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// What can stop the terminal UI.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Reading from or drawing to the terminal failed (closed, not a terminal, ...).
    #[error("terminal I/O failed: {0}")]
    Terminal(#[from] io::Error),
    /// A background thread the UI depends on could not be started.
    #[error("cannot start the {what} thread: {source}")]
    Thread {
        what: &'static str,
        #[source]
        source: io::Error,
    },
    /// A channel to a background task closed while the UI still needed it (the task died).
    #[error("the {0} stopped unexpectedly")]
    Channel(&'static str),
    /// Indexing the corpus or opening the index failed; the UI showed it before quitting.
    #[error("cannot prepare the index: {0}")]
    Startup(String),
}

/// The thread drawing the UI, while the UI owns the terminal.
static UI_THREAD: Mutex<Option<ThreadId>> = Mutex::new(None);

/// Enters raw mode and the alternate screen; installs a panic hook that restores the terminal
/// when the UI thread panics (see [`install_panic_hook_with`]).
pub fn init() -> Result<Tui, TuiError> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        install_panic_hook_with(|| {
            let _ = restore();
        })
    });
    mark_ui_thread();
    enable_raw_mode()?;
    if let Err(e) = execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture) {
        let _ = restore();
        return Err(e.into());
    }
    match Terminal::new(CrosstermBackend::new(io::stdout())) {
        Ok(t) => Ok(t),
        Err(e) => {
            let _ = restore();
            Err(e.into())
        }
    }
}

/// Leaves the alternate screen and raw mode. Safe to call more than once.
pub fn restore() -> Result<(), TuiError> {
    unmark_ui_thread();
    let raw = disable_raw_mode();
    let screen = execute!(
        io::stdout(),
        LeaveAlternateScreen,
        DisableMouseCapture,
        crossterm::cursor::Show
    );
    raw.and(screen).map_err(TuiError::from)
}

/// Records the calling thread as the one drawing the UI: its panic ends the UI.
pub fn mark_ui_thread() {
    *UI_THREAD.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::thread::current().id());
}

/// The UI no longer owns the terminal: panics are reported as usual again.
pub fn unmark_ui_thread() {
    *UI_THREAD.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// What the panic hook does with a panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanicAction {
    /// The UI thread panicked: nothing catches that, the UI is ending. Restore the terminal,
    /// then report as usual, so the message is readable on the normal screen.
    RestoreThenReport,
    /// Another thread panicked while the UI runs (the indexing thread, a tokio worker). Its
    /// panic is caught and comes back to the UI as a failed job, and the UI goes on, so the
    /// terminal is left as it is and the message goes to the log, not over the screen.
    LogOnly,
    /// No UI owns the terminal: report as usual.
    Report,
}

/// The action for a panic on `panicking` while `ui` (if any) draws the UI.
pub fn panic_action(panicking: ThreadId, ui: Option<ThreadId>) -> PanicAction {
    match ui {
        Some(ui) if ui == panicking => PanicAction::RestoreThenReport,
        Some(_) => PanicAction::LogOnly,
        None => PanicAction::Report,
    }
}

/// Installs a panic hook that acts by [`panic_action`], calling `restore` to give the terminal
/// back. Restoring on every panic (as this hook once did) left the UI running in a terminal no
/// longer in raw mode or on the alternate screen whenever a worker's panic was caught.
pub fn install_panic_hook_with(restore: impl Fn() + Send + Sync + 'static) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let ui = *UI_THREAD.lock().unwrap_or_else(|e| e.into_inner());
        match panic_action(std::thread::current().id(), ui) {
            PanicAction::RestoreThenReport => {
                restore();
                previous(info);
            }
            PanicAction::LogOnly => {
                let thread = std::thread::current();
                tracing::error!(
                    thread = thread.name().unwrap_or("unnamed"),
                    "a background thread panicked: {info}"
                );
            }
            PanicAction::Report => previous(info),
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_ui_threads_panic_touches_the_terminal() {
        let ui = std::thread::current().id();
        let other = std::thread::spawn(|| std::thread::current().id())
            .join()
            .unwrap();
        assert_eq!(panic_action(ui, Some(ui)), PanicAction::RestoreThenReport);
        assert_eq!(panic_action(other, Some(ui)), PanicAction::LogOnly);
        assert_eq!(panic_action(other, None), PanicAction::Report);
        assert_eq!(panic_action(ui, None), PanicAction::Report);
    }
}
