//! What a generation holds: one entry per document with the hash of its bytes, the settings it
//! was built with, and the identity and checksum of every part, so `open` can tell a complete
//! generation from a mix of two. Written last, after every part is on disk.

use super::error::IndexError;
use super::fsio::{verify_trailer, ChecksummedWriter};
use super::generation::GenerationId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const FILE: &str = "manifest.json";
/// 3: generations (`CURRENT` + `gen-<id>/`), part checksums, a content-keyed vector cache.
pub const FORMAT_VERSION: u32 = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// This generation's id (its folder is `gen-<id>`).
    pub generation: String,
    /// The id of the generation that wrote the chunk table and the BM25 index this one serves
    /// (itself, or an earlier generation whose table it shares while dense vectors fill in).
    pub table: String,
    /// Identity of the embedding model behind the vectors; `None` for a BM25-only index.
    pub embedding_model: Option<String>,
    pub chunk_target_words: usize,
    pub chunk_max_words: usize,
    /// Which way the chunker cut passages ([`crate::corpus::CHUNKER_VERSION`]); an index from
    /// before the version was written (1) is re-chunked on the next update.
    #[serde(default = "first_chunker")]
    pub chunker: u32,
    pub parts: Parts,
    /// Keyed by the document's path relative to the corpus root.
    pub documents: BTreeMap<String, DocEntry>,
}

fn first_chunker() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parts {
    pub chunks: FilePart,
    /// `None` until at least one chunk is embedded (and always for a BM25-only index).
    pub vectors: Option<VectorsEntry>,
    /// Documents in the BM25 index: one per chunk.
    pub bm25_docs: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilePart {
    pub file: String,
    pub sha256: String,
    pub bytes: u64,
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorsEntry {
    pub file: String,
    pub sha256: String,
    pub bytes: u64,
    pub dim: usize,
    pub rows: usize,
    /// Rows that hold a vector; the rest are still to be embedded.
    pub embedded: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    pub hash: String,
    pub title: String,
    pub year: Option<i32>,
    pub chunks: usize,
}

/// Just enough of any manifest to say which format wrote it.
#[derive(Deserialize)]
struct FormatOnly {
    format: u32,
}

impl Manifest {
    pub fn generation_id(&self) -> Option<GenerationId> {
        GenerationId::parse(&self.generation)
    }

    pub fn table_id(&self) -> Option<GenerationId> {
        GenerationId::parse(&self.table)
    }

    /// Reads and checks a manifest (its checksum trailer and its format).
    pub fn read(path: &Path) -> Result<Manifest, IndexError> {
        let bytes = std::fs::read(path).map_err(|e| IndexError::io(path, e))?;
        let (body, _) = verify_trailer(&bytes, None)
            .map_err(|e| IndexError::corrupt(path, format!("manifest: {e}")))?;
        let format: FormatOnly = serde_json::from_slice(body)
            .map_err(|e| IndexError::corrupt(path, format!("manifest: {e}")))?;
        if format.format != FORMAT_VERSION {
            return Err(IndexError::Outdated {
                path: path.to_path_buf(),
                found: format.format,
            });
        }
        serde_json::from_slice(body)
            .map_err(|e| IndexError::corrupt(path, format!("manifest: {e}")))
    }

    /// Writes the manifest into `gen_dir` (temp file, fsync, rename, fsync of the folder).
    pub fn write(&self, gen_dir: &Path) -> Result<(), IndexError> {
        let path = gen_dir.join(FILE);
        let mut text = serde_json::to_vec_pretty(self)
            .map_err(|e| IndexError::corrupt(&path, format!("manifest: {e}")))?;
        text.push(b'\n');
        let mut w = ChecksummedWriter::create(&path)?;
        w.write(&text)?;
        w.finish()?;
        Ok(())
    }

    /// Documents per year, for the year picker and `fathom index --json`.
    pub fn years(&self) -> BTreeMap<i32, usize> {
        let mut years = BTreeMap::new();
        for d in self.documents.values() {
            if let Some(y) = d.year {
                *years.entry(y).or_insert(0) += 1;
            }
        }
        years
    }

    /// Chunks the documents add up to (the chunk table must hold exactly this many).
    pub fn chunk_total(&self) -> usize {
        self.documents.values().map(|d| d.chunks).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            format: FORMAT_VERSION,
            generation: "0000000200000001".into(),
            table: "0000000100000001".into(),
            embedding_model: Some("m".into()),
            chunk_target_words: 160,
            chunk_max_words: 200,
            chunker: crate::corpus::CHUNKER_VERSION,
            parts: Parts {
                chunks: FilePart {
                    file: "chunks.jsonl".into(),
                    sha256: "00".into(),
                    bytes: 1,
                    count: 2,
                },
                vectors: None,
                bm25_docs: 2,
            },
            documents: BTreeMap::from([(
                "a.md".to_string(),
                DocEntry {
                    hash: "h".into(),
                    title: "A".into(),
                    year: Some(2020),
                    chunks: 2,
                },
            )]),
        }
    }

    #[test]
    fn round_trips_and_catches_edits_and_old_formats() {
        let dir = tempfile::tempdir().unwrap();
        let m = sample();
        m.write(dir.path()).unwrap();
        let path = dir.path().join(FILE);
        assert_eq!(Manifest::read(&path).unwrap(), m);
        assert_eq!(m.chunk_total(), 2);

        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"A\"", "\"B\"")).unwrap();
        assert!(matches!(
            Manifest::read(&path),
            Err(IndexError::Corrupt { .. })
        ));

        let mut old = sample();
        old.format = 2;
        old.write(dir.path()).unwrap();
        let err = Manifest::read(&path).unwrap_err();
        assert!(
            matches!(err, IndexError::Outdated { found: 2, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("fathom index"), "{err}");
    }
}
