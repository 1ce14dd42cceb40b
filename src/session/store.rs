//! Session files: `<data_dir>/sessions/<session_id>.jsonl`, a header line then one line per turn.
//!
//! Writing only ever appends: each turn is one `write_all` of a whole line followed by
//! `sync_data`, so a crash loses at most the turn being written and never an earlier one.
//! Reading never writes and never fails on a bad line: it keeps every readable turn and reports
//! the rest as [`Damage`].
//!
//! Several processes may append to one session at once (the app and `fathom ask --session`):
//! each append holds an advisory lock on the file (`flock`), reads what others appended since
//! it last looked, and only then gives the turn its index, so indexes stay unique and
//! increasing and lines never interleave. The files are created readable by their owner only
//! (0600, in a 0700 folder): they hold every question and answer.

use super::redact::redact;
use super::{
    is_session_id, now_rfc3339, Damage, LoadedSession, SessionError, SessionSummary, TurnRecord,
    SESSION_VERSION,
};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long an append waits for another process to finish its own before giving up.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Test hook, inert unless set: an append writes the first half of its line, syncs it, sleeps
/// this many milliseconds (holding the lock), then writes the rest. It lets a test kill a
/// writer in the middle of a line, or make writers overlap, deterministically.
pub const PAUSE_MID_APPEND_ENV: &str = "FATHOM_TEST_PAUSE_MID_APPEND_MS";

/// The folder holding the session files.
pub fn sessions_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("sessions")
}

/// The file of session `session_id`, or `InvalidId` for anything that is not a session id.
pub fn session_path(data_dir: &Path, session_id: &str) -> Result<PathBuf, SessionError> {
    if !is_session_id(session_id) {
        return Err(SessionError::InvalidId {
            id: session_id.to_string(),
        });
    }
    Ok(sessions_dir(data_dir).join(format!("{session_id}.jsonl")))
}

/// The first line of a session file.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    version: u32,
    session_id: String,
    created_at: String,
}

/// A line as written: the `type` tag in front of the record's own fields.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum LineOut<'a> {
    Session(&'a Header),
    Turn(&'a TurnRecord),
}

/// An open session file that turns are appended to.
#[derive(Debug)]
pub struct SessionStore {
    path: PathBuf,
    session_id: String,
    file: File,
    secrets: Vec<String>,
    /// The file does not end with `\n` (a line cut by a crash): start the next write with one.
    needs_newline: bool,
    next_index: usize,
    /// How much of the file this store has read or written: what lies beyond was appended by
    /// another process and is read before the next append.
    known_len: u64,
}

impl SessionStore {
    /// Opens session `session_id` for appending, creating its file (with a header) if it is new.
    /// `secrets` are redacted from every line written. An existing file is never truncated or
    /// rewritten; if its last line was cut short, the next turn starts on a line of its own.
    pub fn open(
        data_dir: &Path,
        session_id: &str,
        secrets: Vec<String>,
    ) -> Result<SessionStore, SessionError> {
        let path = session_path(data_dir, session_id)?;
        let dir = sessions_dir(data_dir);
        private_dir_all(&dir).map_err(|e| match e.kind() {
            std::io::ErrorKind::StorageFull
            | std::io::ErrorKind::PermissionDenied
            | std::io::ErrorKind::ReadOnlyFilesystem => SessionError::io(&dir, e),
            _ => SessionError::DataDir {
                path: dir.clone(),
                source: e,
            },
        })?;
        let created =
            private(OpenOptions::new().read(true).append(true).create_new(true)).open(&path);
        let (file, is_new) = match created {
            Ok(f) => (f, true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let f = OpenOptions::new()
                    .read(true)
                    .append(true)
                    .open(&path)
                    .map_err(|e| SessionError::io(&path, e))?;
                // Files from before they were made private: owner only from now on.
                tighten(&f);
                (f, false)
            }
            Err(e) => return Err(SessionError::io(&path, e)),
        };
        let mut store = SessionStore {
            path,
            session_id: session_id.to_string(),
            file,
            secrets,
            needs_newline: false,
            next_index: 0,
            known_len: 0,
        };
        if is_new {
            // Make the new directory entry durable too, so the file itself survives a crash.
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
        }
        store.locked(|store| {
            store.catch_up()?;
            // A file created by a run that crashed before its header (or a brand-new one) gets
            // one; under the lock, so two processes creating a session write one header.
            if store.known_len == 0 {
                let header = Header {
                    version: SESSION_VERSION,
                    session_id: session_id.to_string(),
                    created_at: now_rfc3339(),
                };
                store.write_line(&LineOut::Session(&header))?;
            }
            Ok(())
        })?;
        Ok(store)
    }

    /// The session's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The index the next turn will carry if no other process appends first (one past the
    /// highest index in the file when this store last looked).
    pub fn next_index(&self) -> usize {
        self.next_index
    }

    /// Appends `turn` as one line and waits until it is on disk; returns the index it was saved
    /// with. Only after `Ok` may the turn be shown as saved.
    ///
    /// The index is decided here, under the file's lock, after reading what other processes
    /// appended: `turn.index`, or one past the highest index in the file if that is larger.
    pub fn append(&mut self, turn: &TurnRecord) -> Result<usize, SessionError> {
        self.locked(|store| {
            store.catch_up()?;
            let index = store.next_index.max(turn.index);
            if index == turn.index {
                store.write_line(&LineOut::Turn(turn))?;
            } else {
                let mut renumbered = turn.clone();
                renumbered.index = index;
                store.write_line(&LineOut::Turn(&renumbered))?;
            }
            store.next_index = index.saturating_add(1);
            Ok(index)
        })
    }

    /// Runs `f` holding the file's exclusive lock, waiting up to [`LOCK_WAIT`] for it.
    fn locked<T>(
        &mut self,
        f: impl FnOnce(&mut SessionStore) -> Result<T, SessionError>,
    ) -> Result<T, SessionError> {
        let started = Instant::now();
        loop {
            match self.file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(SessionError::Locked {
                        path: self.path.clone(),
                        waited_secs: LOCK_WAIT.as_secs(),
                    })
                }
                Err(TryLockError::Error(e)) => return Err(SessionError::io(&self.path, e)),
            }
        }
        let result = f(self);
        // Closing the file (or the process dying) releases it too.
        let _ = self.file.unlock();
        result
    }

    /// Reads what was appended since this store last looked (by another process, or before it
    /// opened): the highest turn index in it, and whether the file ends mid-line.
    fn catch_up(&mut self) -> Result<(), SessionError> {
        let len = self
            .file
            .metadata()
            .map_err(|e| SessionError::io(&self.path, e))?
            .len();
        if len < self.known_len {
            // Shorter than it was: something else rewrote it. Read it all again.
            self.known_len = 0;
        }
        if len > self.known_len {
            let mut new = Vec::new();
            self.file
                .seek(SeekFrom::Start(self.known_len))
                .and_then(|_| {
                    (&mut self.file)
                        .take(len - self.known_len)
                        .read_to_end(&mut new)
                })
                .map_err(|e| SessionError::io(&self.path, e))?;
            // Only whole lines: a cut last one holds no index that counts.
            let whole = new.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
            for line in new[..whole].split(|b| *b == b'\n') {
                if let Some(index) = turn_index(line) {
                    self.next_index = self.next_index.max(index.saturating_add(1));
                }
            }
            self.known_len = len;
        }
        self.needs_newline = !ends_with_newline(&mut self.file, &self.path)?;
        Ok(())
    }

    fn write_line(&mut self, line: &LineOut<'_>) -> Result<(), SessionError> {
        let json = serde_json::to_string(line)?;
        let json = redact(&json, &self.secrets);
        let mut buf = String::with_capacity(json.len() + 2);
        if self.needs_newline {
            buf.push('\n');
        }
        buf.push_str(&json);
        buf.push('\n');
        // One write of the whole line, so a crash leaves a cut line at worst, never a mix.
        let written = match pause_mid_append() {
            None => self.file.write_all(buf.as_bytes()),
            Some(pause) => {
                let (head, tail) = buf.as_bytes().split_at(buf.len() / 2);
                self.file
                    .write_all(head)
                    .and_then(|()| self.file.sync_data())
                    .map(|()| std::thread::sleep(pause))
                    .and_then(|()| self.file.write_all(tail))
            }
        }
        .and_then(|()| self.file.flush())
        .and_then(|()| self.file.sync_data());
        match written {
            Ok(()) => {
                self.needs_newline = false;
                self.known_len = self
                    .known_len
                    .saturating_add(u64::try_from(buf.len()).unwrap_or(u64::MAX));
                Ok(())
            }
            Err(e) => {
                // Part of the line may have reached the file (a full disk): look again so the
                // next attempt starts on a fresh line.
                if let Ok(ends) = ends_with_newline(&mut self.file, &self.path) {
                    self.needs_newline = !ends;
                }
                Err(SessionError::io(&self.path, e))
            }
        }
    }
}

/// The `index` of a turn line, without reading the rest of the turn.
fn turn_index(line: &[u8]) -> Option<usize> {
    #[derive(Deserialize)]
    struct IndexOnly {
        #[serde(rename = "type")]
        kind: String,
        index: usize,
    }
    let l: IndexOnly = serde_json::from_slice(line).ok()?;
    (l.kind == "turn").then_some(l.index)
}

/// [`PAUSE_MID_APPEND_ENV`], if set to a number of milliseconds.
fn pause_mid_append() -> Option<Duration> {
    std::env::var(PAUSE_MID_APPEND_ENV)
        .ok()?
        .trim()
        .parse()
        .ok()
        .map(Duration::from_millis)
}

/// `opts` creating a file readable and writable by its owner only.
fn private(opts: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts
}

/// Drops group and other permissions from an existing file (best effort: it may belong to
/// someone else).
fn tighten(file: &File) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = file.metadata() {
            let mode = meta.permissions().mode();
            if mode & 0o077 != 0 {
                let _ = file.set_permissions(std::fs::Permissions::from_mode(mode & 0o700));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = file;
}

/// `create_dir_all`, the folders it creates open to their owner only (0700).
pub(crate) fn private_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Whether the file is empty or its last byte is `\n`.
fn ends_with_newline(file: &mut File, path: &Path) -> Result<bool, SessionError> {
    let len = file
        .metadata()
        .map_err(|e| SessionError::io(path, e))?
        .len();
    if len == 0 {
        return Ok(true);
    }
    let mut last = [0u8; 1];
    // Reading position is independent of appends (O_APPEND writes always go to the end).
    file.seek(SeekFrom::Start(len - 1))
        .and_then(|_| file.read_exact(&mut last))
        .map_err(|e| SessionError::io(path, e))?;
    Ok(last[0] == b'\n')
}

/// Reads session `session_id`: every readable turn, and every line that is not (cut short, not
/// JSON, or the wrong shape) as [`Damage`]. Never writes.
pub fn load(data_dir: &Path, session_id: &str) -> Result<LoadedSession, SessionError> {
    let path = session_path(data_dir, session_id)?;
    let bytes = std::fs::read(&path).map_err(|e| SessionError::io(&path, e))?;
    Ok(parse(session_id, &bytes))
}

/// Parses the bytes of a session file (what [`load`] does after reading it; public for the
/// fuzz targets). Never fails: what cannot be read is [`Damage`].
pub fn parse(session_id: &str, bytes: &[u8]) -> LoadedSession {
    let mut session = LoadedSession {
        session_id: session_id.to_string(),
        created_at: None,
        turns: Vec::new(),
        damaged: Vec::new(),
    };
    let ends_cleanly = bytes.last().is_none_or(|b| *b == b'\n');
    let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    if ends_cleanly {
        // The empty piece after the final `\n` is not a line.
        lines.pop();
    }
    let count = lines.len();
    let mut header_seen = false;
    for (i, raw) in lines.into_iter().enumerate() {
        let line_no = i + 1;
        // Everything wrong with this line, reported as one entry.
        let mut problems: Vec<String> = Vec::new();
        match read_line(raw) {
            Ok(Line::Header(h)) if header_seen => problems.push(format!(
                "a second session header (created {}); ignored",
                h.created_at
            )),
            Ok(Line::Header(h)) => {
                header_seen = true;
                if h.version != SESSION_VERSION {
                    problems.push(format!(
                        "header of format version {} (this fathom reads {SESSION_VERSION}); turns read as far as they match",
                        h.version
                    ));
                }
                if h.session_id != session_id {
                    problems.push(format!(
                        "header names session {:?}, not the file's {session_id:?}",
                        h.session_id
                    ));
                }
                session.created_at = Some(h.created_at);
            }
            Ok(Line::Turn(mut t)) => {
                t.upgrade();
                if let Err(e) = t.check() {
                    problems.push(e);
                }
                session.turns.push(*t)
            }
            Err(reason) => problems.push(reason),
        }
        if line_no == 1 && !header_seen {
            problems.push("missing session header".into());
        }
        if !problems.is_empty() {
            let mut reason = problems.join("; ");
            if !ends_cleanly && line_no == count {
                reason = format!("cut short (no end of line; a crash while writing?): {reason}");
            }
            session.damaged.push(Damage {
                line: line_no,
                reason,
            });
        }
    }
    if count == 0 {
        session.damaged.push(Damage {
            line: 1,
            reason: "empty file: missing session header".into(),
        });
    }
    if session.created_at.is_none() {
        session.created_at = session.turns.first().map(|t| t.asked_at.clone());
    }
    session
}

/// A line read back.
enum Line {
    Header(Header),
    Turn(Box<TurnRecord>),
}

/// One line as a header or a turn, or why it is neither.
fn read_line(raw: &[u8]) -> Result<Line, String> {
    let text = std::str::from_utf8(raw).map_err(|_| "not UTF-8 text".to_string())?;
    if text.trim().is_empty() {
        return Err("empty line".into());
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let kind = value
        .get("type")
        .and_then(|t| t.as_str())
        .map(str::to_owned);
    match kind.as_deref() {
        Some("session") => serde_json::from_value::<Header>(value)
            .map(Line::Header)
            .map_err(|e| format!("malformed session header: {e}")),
        Some("turn") => serde_json::from_value::<TurnRecord>(value)
            .map(|t| Line::Turn(Box::new(t)))
            .map_err(|e| format!("malformed turn: {e}")),
        Some(other) => Err(format!("unknown line type {other:?}")),
        None => Err("a JSON value without a \"type\"".into()),
    }
}

/// Every session in the data dir, newest first. A file that cannot be read is listed with its
/// damage rather than failing the list; files whose names are not session ids are skipped.
pub fn list(data_dir: &Path) -> Result<Vec<SessionSummary>, SessionError> {
    let dir = sessions_dir(data_dir);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        // No sessions folder yet: no sessions.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SessionError::io(&dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SessionError::io(&dir, e))?;
        let name = entry.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_suffix(".jsonl"))
            .filter(|id| is_session_id(id))
        else {
            continue;
        };
        let summary = match load(data_dir, id) {
            Ok(s) => SessionSummary {
                session_id: s.session_id,
                created_at: s.created_at,
                first_question: s.turns.first().map(|t| t.question.clone()),
                turns: s.turns.len(),
                damaged_lines: s.damaged.len(),
            },
            Err(e) => {
                tracing::warn!(session = id, error = %e, "unreadable session file");
                SessionSummary {
                    session_id: id.to_string(),
                    created_at: None,
                    first_question: None,
                    turns: 0,
                    damaged_lines: 1,
                }
            }
        };
        out.push(summary);
    }
    // Timestamps are fixed-width RFC 3339, so string order is time order; undated last.
    out.sort_by(|a, b| {
        b.created_at
            .cmp(&a.created_at)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reports_every_bad_line_and_keeps_the_rest() {
        let id = "sess_0123456789abcdef";
        let text = concat!(
            "{\"type\":\"session\",\"version\":1,\"session_id\":\"sess_0123456789abcdef\",\"created_at\":\"2026-01-01T00:00:00.000Z\"}\n",
            "not json\n",
            "{\"type\":\"turn\",\"index\":0}\n",
            "\n",
            "{\"type\":\"mystery\"}\n",
            "[1,2]\n",
            "{\"type\":\"turn\",\"ind"
        );
        let s = parse(id, text.as_bytes());
        assert_eq!(s.created_at.as_deref(), Some("2026-01-01T00:00:00.000Z"));
        assert!(s.turns.is_empty());
        let lines: Vec<usize> = s.damaged.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![2, 3, 4, 5, 6, 7]);
        assert!(
            s.damaged[5].reason.starts_with("cut short"),
            "{:?}",
            s.damaged
        );
        assert!(s.damaged[1].reason.contains("malformed turn"));
    }

    #[test]
    fn a_missing_header_is_damage_not_failure() {
        let s = parse("sess_0123456789abcdef", b"");
        assert_eq!(s.damaged.len(), 1);
        let s = parse("sess_0123456789abcdef", b"garbage\n");
        assert_eq!(s.damaged.len(), 1, "{:?}", s.damaged);
        assert!(s
            .damaged
            .iter()
            .any(|d| d.reason.contains("missing session header")));
        let s = parse("sess_0123456789abcdef", b"\xff\xfe\n");
        assert_eq!(
            s.damaged[0].reason,
            "not UTF-8 text; missing session header"
        );
    }

    use proptest::prelude::*;

    const PID: &str = "sess_0123456789abcdef";

    proptest! {
        #[test]
        fn any_bytes_load_without_panicking_and_every_line_is_accounted_for(
            bytes in proptest::collection::vec(any::<u8>(), 0..400)
        ) {
            let s = parse(PID, &bytes);
            let lines = bytes.split(|b| *b == b'\n').count()
                - usize::from(bytes.last().is_none_or(|b| *b == b'\n'));
            // Each line is a turn, the one header, or damage (the header may also be damage).
            prop_assert!(s.turns.len() + s.damaged.len() <= lines.max(1));
            prop_assert!(s.turns.len() + s.damaged.len() + 1 >= lines);
        }
    }

    #[test]
    fn malformed_ids_never_become_paths() {
        let d = Path::new("/tmp/x");
        for bad in ["../sess_0123456789abcdef", "sess_../../../etc", "x"] {
            assert!(matches!(
                session_path(d, bad),
                Err(SessionError::InvalidId { .. })
            ));
            assert!(matches!(load(d, bad), Err(SessionError::InvalidId { .. })));
            assert!(matches!(
                SessionStore::open(d, bad, vec![]),
                Err(SessionError::InvalidId { .. })
            ));
        }
    }
}
