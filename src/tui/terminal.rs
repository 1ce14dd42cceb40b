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

/// Enters raw mode and the alternate screen; installs a panic hook that restores the terminal.
pub fn init() -> Result<Tui, TuiError> {
    install_panic_hook();
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
    let raw = disable_raw_mode();
    let screen = execute!(
        io::stdout(),
        LeaveAlternateScreen,
        DisableMouseCapture,
        crossterm::cursor::Show
    );
    raw.and(screen).map_err(TuiError::from)
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = restore();
        previous(info);
    }));
}
