//! Sessions: a conversation kept as an append-only JSON-lines file per session, so every turn
//! survives a crash and every earlier answer can be reopened exactly as it was produced.
//!
//! - [`store`]: writing (append + fsync) and reading (tolerant of damaged lines) session files.
//! - [`export`]: a session as Markdown or JSON.
//! - [`redact`]: secrets never reach a session file.
//!
//! This module holds the shared vocabulary: records, ids, timestamps and errors.

pub mod export;
pub mod redact;
pub mod store;

pub use store::{list, load, session_path, sessions_dir, SessionStore};

use crate::orchestrator::api::{validate_trace, OrchestrationResult};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The format version written in each session header.
pub const SESSION_VERSION: u32 = 1;

/// One question and everything its answer produced: a line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    /// 0-based position in the session.
    pub index: usize,
    pub question: String,
    pub requested_years: Vec<i32>,
    /// RFC 3339 UTC.
    pub asked_at: String,
    /// RFC 3339 UTC.
    pub finished_at: String,
    /// Everything the answer produced, its breaker states (`result.breakers`) included.
    pub result: OrchestrationResult,
}

impl TurnRecord {
    /// Brings a turn written by an older fathom to today's shape: answers written before
    /// citations were data carried their `Sources:` block in the answer text; it is cut off,
    /// since the citations themselves were recorded beside it.
    pub fn upgrade(&mut self) {
        let r = &mut self.result;
        if r.citations.is_empty() {
            return;
        }
        if let Some(at) = r.answer.find("\n\nSources:\n[") {
            r.answer.truncate(at);
        }
    }

    /// Checks what the record claims: its dispatch records (ARCHITECTURE §4). A turn that fails
    /// is still shown, with the problem reported as damage.
    pub fn check(&self) -> Result<(), String> {
        validate_trace(&self.result.dispatches).map_err(|e| {
            format!(
                "turn {}: its dispatch records are invalid ({e}); shown as recorded",
                self.index + 1
            )
        })
    }
}

/// A line of a session file that could not be read as a header or a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Damage {
    /// 1-based line number in the file.
    pub line: usize,
    pub reason: String,
}

/// A session read back from disk: every readable turn, and every line that was not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedSession {
    pub session_id: String,
    /// From the header; from the first turn when the header is missing.
    pub created_at: Option<String>,
    pub turns: Vec<TurnRecord>,
    #[serde(default)]
    pub damaged: Vec<Damage>,
}

/// One row of `fathom sessions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub session_id: String,
    pub created_at: Option<String>,
    pub first_question: Option<String>,
    pub turns: usize,
    pub damaged_lines: usize,
}

/// Why a session could not be written or read. Each message names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("not a session id: {id:?} (expected `sess_` and 16 lowercase letters or digits; `fathom sessions` lists them)")]
    InvalidId { id: String },
    #[error("no session file at {}: `fathom sessions` lists the sessions there are", path.display())]
    NotFound { path: PathBuf },
    #[error("{}: the disk is full, so the turn was not saved; free some space and ask again", path.display())]
    DiskFull { path: PathBuf },
    #[error("{}: permission denied; make it writable or choose another data dir with --data-dir or FATHOM_DATA_DIR", path.display())]
    PermissionDenied { path: PathBuf },
    #[error("{}: the file system is read-only; choose another data dir with --data-dir or FATHOM_DATA_DIR", path.display())]
    ReadOnly { path: PathBuf },
    #[error("{}: another fathom process has held this session for over {waited_secs} s, so the turn was not saved; try again", path.display())]
    Locked { path: PathBuf, waited_secs: u64 },
    #[error("cannot create the sessions folder {}: {source}; check that the data dir is writable, or pass --data-dir", path.display())]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot serialise the turn: {0}")]
    Serialize(#[from] serde_json::Error),
}

impl SessionError {
    /// Classifies an I/O error on `path` into the cases a user can act on.
    pub(crate) fn io(path: &Path, e: std::io::Error) -> SessionError {
        let path = path.to_path_buf();
        match e.kind() {
            std::io::ErrorKind::StorageFull => SessionError::DiskFull { path },
            std::io::ErrorKind::PermissionDenied => SessionError::PermissionDenied { path },
            std::io::ErrorKind::ReadOnlyFilesystem => SessionError::ReadOnly { path },
            std::io::ErrorKind::NotFound => SessionError::NotFound { path },
            _ => SessionError::Io { path, source: e },
        }
    }
}

/// True for `sess_` followed by exactly 16 lowercase ASCII letters or digits. Anything else is
/// rejected before it becomes part of a path, so an id can never escape the sessions folder.
pub fn is_session_id(id: &str) -> bool {
    crate::ids::is_random_id(id, "sess_")
}

/// A fresh random session id.
pub fn new_session_id() -> String {
    crate::ids::random_id("sess_")
}

/// Now as RFC 3339 UTC with milliseconds.
pub fn now_rfc3339() -> String {
    rfc3339_utc(SystemTime::now())
}

/// `t` as `YYYY-MM-DDTHH:MM:SS.mmmZ`. Fixed width, so the strings sort in time order.
pub fn rfc3339_utc(t: SystemTime) -> String {
    // Times before 1970 only come from a broken clock; clamp rather than fail a save over it.
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, day) = crate::calendar::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64, millis: u64) -> String {
        rfc3339_utc(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis))
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century leap year) 12:34:56.789
        assert_eq!(at(951_827_696, 789), "2000-02-29T12:34:56.789Z");
        assert_eq!(at(1_709_251_199, 0), "2024-02-29T23:59:59.000Z");
        assert_eq!(at(1_709_251_200, 0), "2024-03-01T00:00:00.000Z");
        assert_eq!(at(4_102_444_800, 5), "2100-01-01T00:00:00.005Z");
        assert_eq!(at(1_735_689_599, 999), "2024-12-31T23:59:59.999Z");
    }

    #[test]
    fn session_ids_are_strict() {
        let id = new_session_id();
        assert!(is_session_id(&id), "{id}");
        assert!(is_session_id("sess_0123456789abcdef"));
        for bad in [
            "",
            "sess_",
            "sess_0123456789abcde",
            "sess_0123456789abcdefg",
            "sess_0123456789ABCDEF",
            "sess_../../etc/passw",
            "sess_0123456789abcd/f",
            "disp_0123456789abcdef",
            " sess_0123456789abcdef",
            "sess_0123456789abcdé",
        ] {
            assert!(!is_session_id(bad), "{bad:?}");
        }
    }
}
