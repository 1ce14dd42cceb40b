//! The TUI's session I/O, kept out of `update`: saving each finished turn before the UI shows
//! it as done, listing and reopening sessions, exporting. The event loop routes effects here.

use crate::orchestrator::api::OrchestrationResult;
use crate::session::{self, export, SessionError, SessionStore, TurnRecord};
use crate::tui::action::{Action, Effect, Notice};
use crate::tui::app::App;
use std::path::{Path, PathBuf};

pub struct SessionIo {
    data_dir: PathBuf,
    secrets: Vec<String>,
    /// Opened on the first save, so starting the app and quitting leaves no empty session.
    store: Option<SessionStore>,
    /// When the running question was sent.
    asked_at: Option<String>,
}

impl SessionIo {
    pub fn new(data_dir: &Path, secrets: Vec<String>) -> SessionIo {
        SessionIo {
            data_dir: data_dir.to_path_buf(),
            secrets,
            store: None,
            asked_at: None,
        }
    }

    /// Notes the time a question went out (its turn's `asked_at`).
    pub fn question_sent(&mut self) {
        self.asked_at = Some(session::now_rfc3339());
    }

    /// Appends the running turn with its result to the session file and syncs it to disk.
    /// Called before the UI takes the result, so a turn shown as done is a turn saved.
    pub fn save_turn(
        &mut self,
        app: &App,
        result: &OrchestrationResult,
    ) -> Result<(), SessionError> {
        let Some(turn) = app.turns.last() else {
            return Ok(());
        };
        if self
            .store
            .as_ref()
            .is_none_or(|s| s.session_id() != app.session_id)
        {
            self.store = Some(SessionStore::open(
                &self.data_dir,
                &app.session_id,
                self.secrets.clone(),
            )?);
        }
        let Some(store) = self.store.as_mut() else {
            return Ok(());
        };
        let now = session::now_rfc3339();
        let record = TurnRecord {
            index: store.next_index(),
            question: turn.question.clone(),
            requested_years: turn.requested_years.clone(),
            asked_at: self.asked_at.take().unwrap_or_else(|| now.clone()),
            finished_at: now,
            result: result.clone(),
        };
        store.append(&record).map(|_| ())
    }

    /// Performs a session effect; the action it returns carries the outcome back to `update`.
    pub fn perform(&mut self, effect: &Effect) -> Option<Action> {
        match effect {
            Effect::ListSessions => Some(match session::list(&self.data_dir) {
                Ok(list) => Action::SessionsListed(list),
                Err(e) => Action::Notice(Notice::error(format!("cannot list sessions: {e}"))),
            }),
            Effect::OpenSession(id) => Some(match session::load(&self.data_dir, id) {
                Ok(loaded) => {
                    // Later turns go on in the reopened file.
                    self.store = None;
                    Action::SessionLoaded(Box::new(loaded))
                }
                Err(e) => Action::Notice(Notice::error(format!("cannot open {id}: {e}"))),
            }),
            Effect::ExportSession(id) => Some(Action::Notice(match self.export(id) {
                Ok(path) => Notice::info(format!("exported to {}", path.display())),
                Err(e) => Notice::error(format!("export failed: {e}")),
            })),
            Effect::Send(_) | Effect::Quit => None,
        }
    }

    /// Writes the saved session as Markdown under `<data dir>/exports/`.
    fn export(&self, id: &str) -> Result<PathBuf, String> {
        let loaded = session::load(&self.data_dir, id).map_err(|e| e.to_string())?;
        let dir = self.data_dir.join("exports");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(format!("{id}.md"));
        std::fs::write(&path, export::to_markdown(&loaded))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}
