//! Logs go to a daily file in the data dir, never to the terminal (the TUI owns it). The files
//! are readable by their owner only (0600, in a 0700 folder): they hold questions, document
//! paths and server errors.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};
use tracing_appender::non_blocking::WorkerGuard;

/// The folder holding `fathom.log.YYYY-MM-DD` files.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Starts file logging at `level` (overridden by `FATHOM_LOG`, in `tracing` filter syntax).
/// Keep the guard alive for the program's life so buffered lines are flushed on exit.
pub fn init(data_dir: &Path, level: &str) -> std::io::Result<WorkerGuard> {
    let dir = log_dir(data_dir);
    crate::session::store::private_dir_all(&dir)?;
    let (writer, guard) = tracing_appender::non_blocking(DailyFile::new(dir));
    let filter = tracing_subscriber::EnvFilter::try_from_env("FATHOM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("fathom={level},warn")));
    // A second init (tests) keeps the first subscriber; that is fine.
    let _ = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
    Ok(guard)
}

/// Appends to `<dir>/fathom.log.<UTC date>`, moving to a new file when the date changes. Each
/// file is created 0600 (the appender of `tracing-appender` takes the umask, usually 0644).
pub struct DailyFile {
    dir: PathBuf,
    /// Days since 1970 of the open file.
    day: u64,
    file: Option<File>,
}

impl DailyFile {
    pub fn new(dir: PathBuf) -> DailyFile {
        DailyFile {
            dir,
            day: 0,
            file: None,
        }
    }

    /// The file for `now`, opened if it is not the current one.
    fn current(&mut self, now: SystemTime) -> io::Result<&mut File> {
        let day = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() / 86_400;
        if self.file.is_none() || day != self.day {
            let date = crate::session::rfc3339_utc(now);
            let name = format!("fathom.log.{}", date.get(..10).unwrap_or("unknown"));
            let mut opts = std::fs::OpenOptions::new();
            opts.create(true).append(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                opts.mode(0o600);
            }
            self.file = Some(opts.open(self.dir.join(name))?);
            self.day = day;
        }
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("no log file"))
    }
}

impl Write for DailyFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.current(SystemTime::now())?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    #[test]
    fn log_files_are_private_and_roll_by_utc_day() {
        let data = tempfile::tempdir().unwrap();
        let dir = log_dir(data.path());
        crate::session::store::private_dir_all(&dir).unwrap();
        let mut log = DailyFile::new(dir.clone());
        // 2026-11-23T23:59:59Z, then a second later.
        let before = UNIX_EPOCH + Duration::from_secs(1_795_478_399);
        log.current(before).unwrap().write_all(b"one\n").unwrap();
        log.current(before + Duration::from_secs(1))
            .unwrap()
            .write_all(b"two\n")
            .unwrap();
        let a = dir.join("fathom.log.2026-11-23");
        let b = dir.join("fathom.log.2026-11-24");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\n");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "two\n");
        for f in [&a, &b] {
            let mode = std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", f.display());
        }
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
}
