//! Every vector ever embedded for this index, keyed by what was embedded: an append-only file per
//! model, so a killed build, a re-chunked neighbour or a document that comes back never costs
//! the model's time twice.
//!
//! Layout (little endian): header — magic `FTHMVC01`, `u32` dim, `u32` length of the model id,
//! the model id, zero padding to 8 bytes; then fixed-size records — the 32-byte key
//! (sha256 of model id, a zero byte, the embedded text), `dim` `f32`, and the first 8 bytes of
//! the sha256 of key and vector. Records are appended and `fdatasync`ed after every embedded
//! batch. A tail shorter than a record (a write cut short) is cut off when the cache is opened;
//! a record whose checksum fails is ignored, so its chunk is simply embedded again.

use super::error::IndexError;
use super::fsio::{fsync_dir, hex};
use crate::corpus::Chunk;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"FTHMVC01";
pub const DIR: &str = "vectors";
const KEY: usize = 32;
const CHECK: usize = 8;

/// What a vector is stored under: sha256 of the model id and the text it embedded.
pub type Key = [u8; KEY];

pub fn key(model_id: &str, text: &str) -> Key {
    let mut h = Sha256::new();
    h.update(model_id.as_bytes());
    h.update([0u8]);
    h.update(text.as_bytes());
    h.finalize().into()
}

pub struct VectorCache {
    path: PathBuf,
    file: File,
    model_id: String,
    dim: usize,
    header_len: u64,
    /// Record number of every valid record, by key.
    index: HashMap<Key, u64>,
    records: u64,
    /// What opening found wrong (a torn tail, bad records), for the build's log.
    pub repairs: Vec<String>,
}

/// The cache file of `model_id` under `index_dir`.
pub fn path_for(index_dir: &Path, model_id: &str) -> PathBuf {
    let name = hex(&Sha256::digest(model_id.as_bytes())[..8]);
    index_dir.join(DIR).join(format!("{name}.vcache"))
}

impl VectorCache {
    /// Opens (or creates) the cache of `model_id` in `index_dir`. Only a build, holding the
    /// index lock, opens it: it may cut a torn tail.
    pub fn open(index_dir: &Path, model_id: &str, dim: usize) -> Result<Self, IndexError> {
        let path = path_for(index_dir, model_id);
        let dir = index_dir.join(DIR);
        std::fs::create_dir_all(&dir).map_err(|e| IndexError::io(&dir, e))?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| IndexError::io(&path, e))?;
        let header = header(model_id, dim);
        let mut cache = VectorCache {
            path,
            file,
            model_id: model_id.to_string(),
            dim,
            header_len: header.len() as u64,
            index: HashMap::new(),
            records: 0,
            repairs: Vec::new(),
        };
        let len = cache.len_on_disk()?;
        let mut found = vec![0u8; header.len().min(len as usize)];
        cache
            .file
            .read_exact_at(&mut found, 0)
            .map_err(|e| IndexError::io(&cache.path, e))?;
        if found != header {
            if len > 0 {
                cache.repairs.push(format!(
                    "{} was not a cache of this model; started it afresh",
                    cache.path.display()
                ));
            }
            cache.reset(&header)?;
            return Ok(cache);
        }
        cache.load()?;
        Ok(cache)
    }

    fn record_len(&self) -> u64 {
        (KEY + self.dim * 4 + CHECK) as u64
    }

    fn len_on_disk(&self) -> Result<u64, IndexError> {
        self.file
            .metadata()
            .map(|m| m.len())
            .map_err(|e| IndexError::io(&self.path, e))
    }

    fn reset(&mut self, header: &[u8]) -> Result<(), IndexError> {
        let io = |e| IndexError::io(&self.path, e);
        self.file.set_len(0).map_err(io)?;
        self.file.write_all_at(header, 0).map_err(io)?;
        self.file.sync_all().map_err(io)?;
        self.index.clear();
        self.records = 0;
        Ok(())
    }

    /// Reads every record's key, checking its checksum; cuts a torn tail.
    fn load(&mut self) -> Result<(), IndexError> {
        let len = self.len_on_disk()?;
        let rec = self.record_len();
        let body = len - self.header_len;
        let whole = body / rec;
        if !body.is_multiple_of(rec) {
            let keep = self.header_len + whole * rec;
            self.file
                .set_len(keep)
                .and_then(|_| self.file.sync_all())
                .map_err(|e| IndexError::io(&self.path, e))?;
            self.repairs.push(format!(
                "cut a torn record ({} bytes) off the end of {}",
                body % rec,
                self.path.display()
            ));
        }
        let mut reader = BufReader::with_capacity(1 << 20, &self.file);
        let mut skip = vec![0u8; self.header_len as usize];
        reader
            .read_exact(&mut skip)
            .map_err(|e| IndexError::io(&self.path, e))?;
        let mut buf = vec![0u8; rec as usize];
        let mut bad = 0usize;
        for n in 0..whole {
            reader
                .read_exact(&mut buf)
                .map_err(|e| IndexError::io(&self.path, e))?;
            if record_ok(&buf) {
                let mut k = [0u8; KEY];
                k.copy_from_slice(&buf[..KEY]);
                self.index.insert(k, n);
            } else {
                bad += 1;
            }
        }
        if bad > 0 {
            self.repairs.push(format!(
                "ignored {bad} damaged records in {} (their chunks are embedded again)",
                self.path.display()
            ));
        }
        self.records = whole;
        Ok(())
    }

    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Distinct vectors held.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    pub fn contains(&self, key: &Key) -> bool {
        self.index.contains_key(key)
    }

    /// The vector stored under `key`, read from disk and checked again (`None` if absent or
    /// damaged since the cache was opened).
    pub fn get(&self, key: &Key) -> Result<Option<Vec<f32>>, IndexError> {
        let Some(&n) = self.index.get(key) else {
            return Ok(None);
        };
        let mut buf = vec![0u8; self.record_len() as usize];
        self.file
            .read_exact_at(&mut buf, self.header_len + n * self.record_len())
            .map_err(|e| IndexError::io(&self.path, e))?;
        if !record_ok(&buf) || buf[..KEY] != key[..] {
            return Ok(None);
        }
        Ok(Some(
            buf[KEY..KEY + self.dim * 4]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        ))
    }

    /// Appends vectors and makes them durable before returning.
    pub fn append(&mut self, entries: &[(Key, Vec<f32>)]) -> Result<(), IndexError> {
        let mut bytes = Vec::with_capacity(entries.len() * self.record_len() as usize);
        for (k, v) in entries {
            if v.len() != self.dim {
                return Err(IndexError::DimensionMismatch {
                    expected: self.dim,
                    got: v.len(),
                });
            }
            bytes.extend_from_slice(&record(k, v));
        }
        let at = self.header_len + self.records * self.record_len();
        let io = |e| IndexError::io(&self.path, e);
        self.file.write_all_at(&bytes, at).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        for (k, _) in entries {
            self.index.insert(*k, self.records);
            self.records += 1;
        }
        Ok(())
    }

    /// Rewrites the file with only the vectors under `live` keys once stale records (from
    /// changed or removed chunks) outnumber them, so the cache does not grow without end.
    pub fn compact_if_stale(&mut self, live: &HashSet<Key>) -> Result<bool, IndexError> {
        let live_here = self.index.keys().filter(|k| live.contains(*k)).count() as u64;
        if self.records <= 2 * live_here + 1024 {
            return Ok(false);
        }
        let tmp = self.path.with_extension("vcache.tmp");
        let header = header(&self.model_id, self.dim);
        let io_tmp = |e| IndexError::io(&tmp, e);
        let mut out = BufWriter::new(File::create(&tmp).map_err(io_tmp)?);
        out.write_all(&header).map_err(io_tmp)?;
        let mut kept = HashMap::new();
        let mut keys: Vec<(&Key, &u64)> = self.index.iter().collect();
        keys.sort_by_key(|(_, n)| **n);
        for (k, _) in keys {
            if !live.contains(k) {
                continue;
            }
            if let Some(v) = self.get(k)? {
                out.write_all(&record(k, &v)).map_err(io_tmp)?;
                kept.insert(*k, kept.len() as u64);
            }
        }
        let file = out.into_inner().map_err(|e| io_tmp(e.into_error()))?;
        file.sync_all().map_err(io_tmp)?;
        drop(file);
        std::fs::rename(&tmp, &self.path).map_err(|e| IndexError::io(&self.path, e))?;
        if let Some(parent) = self.path.parent() {
            fsync_dir(parent)?;
        }
        self.file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| IndexError::io(&self.path, e))?;
        self.records = kept.len() as u64;
        self.index = kept;
        Ok(true)
    }
}

fn header(model_id: &str, dim: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(16 + model_id.len() + 8);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&(dim as u32).to_le_bytes());
    h.extend_from_slice(&(model_id.len() as u32).to_le_bytes());
    h.extend_from_slice(model_id.as_bytes());
    h.resize(h.len().div_ceil(8) * 8, 0);
    h
}

fn record(k: &Key, v: &[f32]) -> Vec<u8> {
    let mut r = Vec::with_capacity(KEY + v.len() * 4 + CHECK);
    r.extend_from_slice(k);
    for x in v {
        r.extend_from_slice(&x.to_le_bytes());
    }
    let sum = Sha256::digest(&r);
    r.extend_from_slice(&sum[..CHECK]);
    r
}

fn record_ok(r: &[u8]) -> bool {
    let (body, check) = r.split_at(r.len() - CHECK);
    Sha256::digest(body)[..CHECK] == *check
}

/// The text a chunk is embedded as (and its vector kept under): its date in words, then its text, so a question that names
/// a date leans towards passages of that date.
pub fn embed_text(chunk: &Chunk) -> String {
    match chunk.date {
        Some(d) => format!("{}. {}", d.long_form(), chunk.text),
        None => chunk.text.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: &str = "test-model:4";

    fn v(x: f32) -> Vec<f32> {
        vec![x, 1.0, 2.0, 3.0]
    }

    #[test]
    fn vectors_survive_reopening_and_are_found_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert!(c.is_empty());
        let (a, b) = (key(MODEL, "alpha"), key(MODEL, "beta"));
        c.append(&[(a, v(0.5)), (b, v(0.25))]).unwrap();
        drop(c);
        let c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c.get(&a).unwrap(), Some(v(0.5)));
        assert_eq!(c.get(&key(MODEL, "gamma")).unwrap(), None);
        assert_ne!(key(MODEL, "alpha"), key("other-model", "alpha"));
        assert!(c.repairs.is_empty());
    }

    #[test]
    fn a_torn_tail_is_cut_and_the_records_before_it_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        let (a, b) = (key(MODEL, "alpha"), key(MODEL, "beta"));
        c.append(&[(a, v(0.5)), (b, v(0.25))]).unwrap();
        let path = c.path.clone();
        drop(c);
        let len = std::fs::metadata(&path).unwrap().len();
        // A write cut short: half of the second record is on disk.
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 20).unwrap();
        drop(f);
        let mut c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c.get(&a).unwrap(), Some(v(0.5)));
        assert!(!c.contains(&b));
        assert!(c.repairs[0].contains("torn"), "{:?}", c.repairs);
        // Appending after the cut lands on a record boundary.
        c.append(&[(b, v(0.75))]).unwrap();
        drop(c);
        let c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert_eq!(c.get(&b).unwrap(), Some(v(0.75)));
        assert!(c.repairs.is_empty());
    }

    #[test]
    fn a_damaged_record_is_ignored_not_served() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        let (a, b) = (key(MODEL, "alpha"), key(MODEL, "beta"));
        c.append(&[(a, v(0.5)), (b, v(0.25))]).unwrap();
        let (path, at) = (c.path.clone(), c.header_len + 40);
        drop(c);
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&[0xff], at).unwrap();
        drop(f);
        let c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert!(!c.contains(&a), "the flipped record is dropped");
        assert_eq!(c.get(&b).unwrap(), Some(v(0.25)));
        assert!(c.repairs[0].contains("damaged"));
    }

    #[test]
    fn another_models_file_is_not_read_as_this_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        c.append(&[(key(MODEL, "alpha"), v(0.5))]).unwrap();
        let path = c.path.clone();
        drop(c);
        // Same file name, different header (e.g. a hash collision of model ids).
        let other = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert_eq!(other.len(), 1);
        drop(other);
        std::fs::write(&path, b"FTHMVC01 not really").unwrap();
        let c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert!(c.is_empty() && !c.repairs.is_empty());
    }

    #[test]
    fn compaction_keeps_only_live_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        let keys: Vec<Key> = (0..1100).map(|i| key(MODEL, &format!("t{i}"))).collect();
        let entries: Vec<(Key, Vec<f32>)> = keys.iter().map(|k| (*k, v(k[0] as f32))).collect();
        c.append(&entries).unwrap();
        let live: HashSet<Key> = keys[..10].iter().copied().collect();
        assert!(c.compact_if_stale(&live).unwrap());
        assert_eq!(c.len(), 10);
        assert_eq!(c.get(&keys[3]).unwrap(), Some(v(keys[3][0] as f32)));
        drop(c);
        let c = VectorCache::open(dir.path(), MODEL, 4).unwrap();
        assert_eq!(c.len(), 10);
        assert!(!c.contains(&keys[500]));
    }
}
