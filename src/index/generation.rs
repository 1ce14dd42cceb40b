//! The index folder's layout: complete generations side by side and one pointer to the one served.
//!
//! ```text
//! index/
//!   CURRENT                 id of the generation to serve; replaced by rename, then the folder is fsynced
//!   .lock                   held (flock) by the one build that may write here; released if it dies
//!   gen-<id>/               one generation: manifest.json, chunks.jsonl, vectors.bin, bm25/
//!   vectors/<model>.vcache  embedded chunks keyed by content (see `vector_cache`), shared by all
//! ```
//!
//! A build writes a new `gen-<id>/` beside the served one and switches `CURRENT` last, so a build
//! killed at any point leaves the previous generation serving. The id's first half is a sequence
//! number (newer generations sort after older ones), its second half random, so two builds can
//! never produce parts that pass for each other's.

use super::error::IndexError;
use super::fsio::{fsync_dir, write_atomic};
use std::fmt;
use std::path::{Path, PathBuf};

pub const CURRENT: &str = "CURRENT";
const PREFIX: &str = "gen-";
/// Files of the format-2 layout (everything directly in `index/`), removed when it is upgraded.
const LEGACY_FILES: [&str; 3] = ["manifest.json", "chunks.json", "vectors.bin"];
const LEGACY_DIR: &str = "bm25";

/// A generation's identity: 8 hex digits of sequence number, 8 of random tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GenerationId {
    seq: u32,
    tag: u32,
}

/// Length of a generation id in text (and in the vectors file's footer).
pub const ID_LEN: usize = 16;

impl GenerationId {
    pub fn parse(s: &str) -> Option<GenerationId> {
        if s.len() != ID_LEN || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let seq = u32::from_str_radix(s.get(..8)?, 16).ok()?;
        let tag = u32::from_str_radix(s.get(8..)?, 16).ok()?;
        Some(GenerationId { seq, tag })
    }

    pub fn seq(&self) -> u32 {
        self.seq
    }

    pub fn dir_in(&self, index_dir: &Path) -> PathBuf {
        index_dir.join(format!("{PREFIX}{self}"))
    }
}

impl fmt::Display for GenerationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:08x}{:08x}", self.seq, self.tag)
    }
}

/// The generation `CURRENT` names, `None` when nothing was ever published here.
pub fn read_current(index_dir: &Path) -> Result<Option<GenerationId>, IndexError> {
    let path = index_dir.join(CURRENT);
    match std::fs::read_to_string(&path) {
        Ok(text) => GenerationId::parse(text.trim())
            .map(Some)
            .ok_or_else(|| IndexError::corrupt(&path, format!("not a generation id: {text:?}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(IndexError::io(&path, e)),
    }
}

/// Points `CURRENT` at `id`: the one atomic step that publishes a generation.
pub fn write_current(index_dir: &Path, id: GenerationId) -> Result<(), IndexError> {
    write_atomic(&index_dir.join(CURRENT), format!("{id}\n").as_bytes())
}

/// The generation folders present, oldest first (complete or not).
pub fn list(index_dir: &Path) -> Vec<GenerationId> {
    let mut ids: Vec<GenerationId> = std::fs::read_dir(index_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name();
            GenerationId::parse(name.to_str()?.strip_prefix(PREFIX)?)
        })
        .collect();
    ids.sort();
    ids
}

/// A fresh id that sorts after every generation present.
pub fn next_id(index_dir: &Path, current: Option<GenerationId>) -> GenerationId {
    let last = list(index_dir)
        .into_iter()
        .chain(current)
        .map(|id| id.seq)
        .max()
        .unwrap_or(0);
    GenerationId {
        seq: last.saturating_add(1),
        tag: rand::random(),
    }
}

/// Removes every generation folder not in `keep`, and temp files a killed build left behind.
/// Best effort: what cannot be removed now is removed by a later build.
pub fn remove_except(index_dir: &Path, keep: &[GenerationId]) {
    for id in list(index_dir) {
        if !keep.contains(&id) {
            let dir = id.dir_in(index_dir);
            if let Err(e) = std::fs::remove_dir_all(&dir) {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot remove an old generation");
            }
        }
    }
    for entry in std::fs::read_dir(index_dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "tmp") {
            let _ = std::fs::remove_file(&path);
        }
    }
    let _ = fsync_dir(index_dir);
}

/// Whether `index_dir` holds an index in the format-2 layout (parts directly in the folder).
pub fn is_legacy(index_dir: &Path) -> bool {
    index_dir.join(LEGACY_FILES[0]).is_file()
}

/// Removes the format-2 parts (only names fathom itself wrote there).
pub fn remove_legacy(index_dir: &Path) {
    for name in LEGACY_FILES {
        let _ = std::fs::remove_file(index_dir.join(name));
    }
    let _ = std::fs::remove_dir_all(index_dir.join(LEGACY_DIR));
}

/// Makes `to` a hard link to `from` (a part that is the same in two generations shares its
/// bytes), copying when the file system has no hard links.
pub fn link_or_copy(from: &Path, to: &Path) -> Result<(), IndexError> {
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| IndexError::io(to, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_sort_by_sequence() {
        let dir = tempfile::tempdir().unwrap();
        let a = next_id(dir.path(), None);
        std::fs::create_dir(a.dir_in(dir.path())).unwrap();
        let b = next_id(dir.path(), Some(a));
        assert!(b > a && b.seq() == a.seq() + 1);
        assert_eq!(GenerationId::parse(&a.to_string()), Some(a));
        assert_eq!(GenerationId::parse("xyz"), None);
        assert_eq!(GenerationId::parse("0000000g00000000"), None);
        assert_eq!(list(dir.path()), vec![a]);
    }

    #[test]
    fn current_is_replaced_whole_and_missing_means_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_current(dir.path()).unwrap(), None);
        let a = next_id(dir.path(), None);
        write_current(dir.path(), a).unwrap();
        assert_eq!(read_current(dir.path()).unwrap(), Some(a));
        std::fs::write(dir.path().join(CURRENT), "garbage").unwrap();
        assert!(matches!(
            read_current(dir.path()),
            Err(IndexError::Corrupt { .. })
        ));
    }

    #[test]
    fn remove_except_keeps_what_it_is_told_and_clears_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = next_id(dir.path(), None);
        std::fs::create_dir(a.dir_in(dir.path())).unwrap();
        let b = next_id(dir.path(), None);
        std::fs::create_dir(b.dir_in(dir.path())).unwrap();
        std::fs::write(dir.path().join("CURRENT.tmp"), "x").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        remove_except(dir.path(), &[b]);
        assert_eq!(list(dir.path()), vec![b]);
        assert!(!dir.path().join("CURRENT.tmp").exists());
        assert!(
            dir.path().join("notes.txt").exists(),
            "not fathom's to remove"
        );
    }
}
