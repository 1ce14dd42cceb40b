//! Durable file writes for the index: write-then-rename with `fsync` of the file and its folder,
//! and a checksum trailer shared by every part file, so a torn or flipped file is caught on open.
//!
//! Trailer: the file's last line is `#fathom-sha256 <64 hex digits>\n`, the sha256 of every byte
//! before it. It is text so the chunk table and the manifest stay readable with a pager.

use super::error::IndexError;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

const TRAILER_TAG: &[u8] = b"#fathom-sha256 ";
/// Tag, 64 hex digits, newline.
pub(crate) const TRAILER_LEN: usize = TRAILER_TAG.len() + 64 + 1;

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Makes a rename or a new file in `dir` survive a power cut (the folder entry is on disk).
pub(crate) fn fsync_dir(dir: &Path) -> Result<(), IndexError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| IndexError::io(dir, e))
}

/// Writes to a sibling temp file, `fsync`s it, renames it over `path` and `fsync`s the folder,
/// so readers see the old bytes or the new ones, never half a file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    let tmp = tmp_path(path);
    let mut f = File::create(&tmp).map_err(|e| IndexError::io(&tmp, e))?;
    f.write_all(bytes).map_err(|e| IndexError::io(&tmp, e))?;
    f.sync_all().map_err(|e| IndexError::io(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| IndexError::io(path, e))?;
    if let Some(parent) = path.parent() {
        fsync_dir(parent)?;
    }
    Ok(())
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Streams a part file to `<path>.tmp`, hashing as it goes; `finish` appends the trailer,
/// `fsync`s and renames the file into place.
pub(crate) struct ChecksummedWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    hasher: Sha256,
    bytes: u64,
}

/// What a finished part file holds, for the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub sha256: String,
    /// Size of the whole file, trailer included.
    pub bytes: u64,
}

impl ChecksummedWriter {
    pub fn create(path: &Path) -> Result<Self, IndexError> {
        let tmp = tmp_path(path);
        let file = File::create(&tmp).map_err(|e| IndexError::io(&tmp, e))?;
        Ok(ChecksummedWriter {
            path: path.to_path_buf(),
            tmp,
            out: BufWriter::with_capacity(1 << 20, file),
            hasher: Sha256::new(),
            bytes: 0,
        })
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<(), IndexError> {
        self.hasher.update(bytes);
        self.bytes += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| IndexError::io(&self.tmp, e))
    }

    pub fn finish(mut self) -> Result<Written, IndexError> {
        let digest = hex(&self.hasher.finalize_reset());
        let mut trailer = Vec::with_capacity(TRAILER_LEN);
        trailer.extend_from_slice(TRAILER_TAG);
        trailer.extend_from_slice(digest.as_bytes());
        trailer.push(b'\n');
        let io = |e| IndexError::io(&self.tmp, e);
        self.out.write_all(&trailer).map_err(io)?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| IndexError::io(&self.tmp, e.into_error()))?;
        file.sync_all().map_err(|e| IndexError::io(&self.tmp, e))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(|e| IndexError::io(&self.path, e))?;
        if let Some(parent) = self.path.parent() {
            fsync_dir(parent)?;
        }
        Ok(Written {
            sha256: digest,
            bytes: self.bytes + TRAILER_LEN as u64,
        })
    }
}

/// Checks the trailer of a whole part file and returns its body and the checksum. `expected`
/// is the checksum the manifest recorded, when there is one.
pub(crate) fn verify_trailer<'a>(
    bytes: &'a [u8],
    expected: Option<&str>,
) -> Result<(&'a [u8], String), String> {
    if bytes.len() < TRAILER_LEN {
        return Err(format!("{} bytes, too short to be complete", bytes.len()));
    }
    let (body, trailer) = bytes.split_at(bytes.len() - TRAILER_LEN);
    let actual = sha256_hex(body);
    check_stored(trailer, &actual, expected)?;
    Ok((body, actual))
}

/// Checks a trailer read on its own against the checksum of the bytes before it (computed
/// while streaming them) and the manifest's.
pub(crate) fn check_trailer(trailer: &[u8], actual: &str, expected: &str) -> Result<(), String> {
    check_stored(trailer, actual, Some(expected))
}

fn check_stored(trailer: &[u8], actual: &str, expected: Option<&str>) -> Result<(), String> {
    let stored = trailer
        .strip_prefix(TRAILER_TAG)
        .and_then(|t| t.strip_suffix(b"\n"))
        .and_then(|t| std::str::from_utf8(t).ok())
        .ok_or("no checksum trailer (the file is truncated or was never finished)")?;
    if actual != stored {
        return Err("checksum mismatch: the file changed after it was written".to_string());
    }
    if let Some(want) = expected {
        if want != stored {
            return Err(format!(
                "checksum {} does not match the manifest's {} (a part of another build)",
                short(stored),
                short(want)
            ));
        }
    }
    Ok(())
}

fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_file_verifies_and_any_flip_or_cut_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part");
        let mut w = ChecksummedWriter::create(&path).unwrap();
        w.write(b"hello ").unwrap();
        w.write(b"world").unwrap();
        let written = w.finish().unwrap();
        assert!(!dir.path().join("part.tmp").exists());
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, written.bytes);
        let (body, sum) = verify_trailer(&bytes, Some(&written.sha256)).unwrap();
        assert_eq!(body, b"hello world");
        assert_eq!(sum, written.sha256);

        let mut flipped = bytes.clone();
        flipped[2] ^= 1;
        assert!(verify_trailer(&flipped, None)
            .unwrap_err()
            .contains("checksum"));
        assert!(verify_trailer(&bytes[..bytes.len() - 3], None).is_err());
        let other = sha256_hex(b"x");
        assert!(verify_trailer(&bytes, Some(&other))
            .unwrap_err()
            .contains("manifest"));
    }

    #[test]
    fn write_atomic_replaces_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert!(!dir.path().join("f.tmp").exists());
    }
}
