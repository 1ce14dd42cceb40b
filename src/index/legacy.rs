//! Upgrading a format-2 index (every part directly in `index/`): its vectors go into the vector
//! cache when they were made by the model in use, so the rebuild embeds nothing again.

use super::error::IndexError;
use super::vector_cache::{embed_text, key, Key, VectorCache};
use crate::corpus::Chunk;
use std::path::Path;

const MAGIC: &[u8; 8] = b"FATHOMV1";
const HEADER: usize = 8 + 4 + 8;

#[derive(serde::Deserialize)]
struct OldManifest {
    format: u32,
    embedding_model: Option<String>,
}

/// The format number an old index declares (2 when its manifest cannot be read).
pub fn format_of(index_dir: &Path) -> u32 {
    std::fs::read(index_dir.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<OldManifest>(&b).ok())
        .map(|m| m.format)
        .unwrap_or(2)
}

/// Copies the old index's vectors into `cache` when they are the cache's model's. Returns how
/// many were imported; anything unreadable imports nothing (the chunks are embedded again).
pub fn import_vectors(index_dir: &Path, cache: &mut VectorCache) -> Result<usize, IndexError> {
    let Ok(bytes) = std::fs::read(index_dir.join("manifest.json")) else {
        return Ok(0);
    };
    let Ok(m) = serde_json::from_slice::<OldManifest>(&bytes) else {
        return Ok(0);
    };
    if m.format != 2 || m.embedding_model.as_deref() != Some(cache.model_id()) {
        return Ok(0);
    }
    let Ok(chunk_bytes) = std::fs::read(index_dir.join("chunks.json")) else {
        return Ok(0);
    };
    let Ok(chunks) = serde_json::from_slice::<Vec<Chunk>>(&chunk_bytes) else {
        return Ok(0);
    };
    let Some((dim, data)) = read_vectors(&index_dir.join("vectors.bin")) else {
        return Ok(0);
    };
    if dim != cache.dim() || data.len() != chunks.len() * dim {
        return Ok(0);
    }
    let entries: Vec<(Key, Vec<f32>)> = chunks
        .iter()
        .zip(data.chunks_exact(dim))
        .map(|(c, v)| (key(cache.model_id(), &embed_text(c)), v.to_vec()))
        .filter(|(k, _)| !cache.contains(k))
        .collect();
    for batch in entries.chunks(1024) {
        cache.append(batch)?;
    }
    Ok(entries.len())
}

/// The format-2 vectors file: `FATHOMV1`, `u32` dim, `u64` rows, the rows, an FNV-1a checksum.
fn read_vectors(path: &Path) -> Option<(usize, Vec<f32>)> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() < HEADER + 8 || &bytes[..8] != MAGIC {
        return None;
    }
    let dim = u32::from_le_bytes(bytes[8..12].try_into().ok()?) as usize;
    let rows = u64::from_le_bytes(bytes[12..20].try_into().ok()?) as usize;
    let body = rows.checked_mul(dim)?.checked_mul(4)?;
    if dim == 0 || bytes.len() != HEADER + body + 8 {
        return None;
    }
    let (vectors, tail) = bytes[HEADER..].split_at(body);
    let stored = u64::from_le_bytes(tail.try_into().ok()?);
    if fnv1a(vectors) != stored {
        return None;
    }
    Some((
        dim,
        vectors
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    ))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a format-2 index the way the previous fathom did.
    fn write_old_index(dir: &Path, model: &str, chunks: &[Chunk], vectors: &[Vec<f32>]) {
        let manifest = serde_json::json!({
            "format": 2, "embedding_model": model, "chunk_target_words": 160,
            "chunk_max_words": 200, "documents": {}
        });
        std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
        std::fs::write(dir.join("chunks.json"), serde_json::to_vec(chunks).unwrap()).unwrap();
        let dim = vectors[0].len();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(dim as u32).to_le_bytes());
        bytes.extend_from_slice(&(vectors.len() as u64).to_le_bytes());
        for v in vectors {
            for x in v {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = fnv1a(&bytes[HEADER..]);
        bytes.extend_from_slice(&sum.to_le_bytes());
        std::fs::write(dir.join("vectors.bin"), bytes).unwrap();
    }

    fn chunk(text: &str) -> Chunk {
        Chunk {
            chunk_id: text.into(),
            document: "d.md".into(),
            title: "d".into(),
            date: None,
            year: None,
            section: None,
            text: text.into(),
            byte_start: 0,
            byte_end: text.len(),
            ordinal: 0,
        }
    }

    #[test]
    fn vectors_of_the_same_model_are_imported_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let chunks = [chunk("alpha"), chunk("beta")];
        let vectors = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        write_old_index(dir.path(), "m:2", &chunks, &vectors);
        assert_eq!(format_of(dir.path()), 2);

        let mut other = VectorCache::open(dir.path(), "other:2", 2).unwrap();
        assert_eq!(import_vectors(dir.path(), &mut other).unwrap(), 0);

        let mut cache = VectorCache::open(dir.path(), "m:2", 2).unwrap();
        assert_eq!(import_vectors(dir.path(), &mut cache).unwrap(), 2);
        let k = key("m:2", &embed_text(&chunks[1]));
        assert_eq!(cache.get(&k).unwrap(), Some(vec![0.0, 1.0]));
        // Importing twice adds nothing.
        assert_eq!(import_vectors(dir.path(), &mut cache).unwrap(), 0);
    }
}
