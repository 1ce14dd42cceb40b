//! What is in the index: one entry per document with the hash of its bytes, plus the settings
//! the index was built with. Re-indexing compares hashes to touch only what changed.

use super::dense::write_atomic;
use super::error::IndexError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const FORMAT_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// Identity of the embedding model behind the vectors; `None` for a BM25-only index.
    pub embedding_model: Option<String>,
    pub chunk_target_words: usize,
    pub chunk_max_words: usize,
    /// Keyed by the document's path relative to the corpus root.
    pub documents: BTreeMap<String, DocEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    pub hash: String,
    pub title: String,
    pub year: Option<i32>,
    pub chunks: usize,
}

impl Manifest {
    pub fn read(path: &Path) -> Result<Manifest, IndexError> {
        let text = std::fs::read_to_string(path).map_err(|e| IndexError::io(path, e))?;
        let m: Manifest = serde_json::from_str(&text)
            .map_err(|e| IndexError::corrupt(path, format!("manifest: {e}")))?;
        if m.format != FORMAT_VERSION {
            return Err(IndexError::corrupt(
                path,
                format!(
                    "manifest format {} (this fathom reads {FORMAT_VERSION})",
                    m.format
                ),
            ));
        }
        Ok(m)
    }

    pub fn write(&self, path: &Path) -> Result<(), IndexError> {
        let text = serde_json::to_vec_pretty(self)
            .map_err(|e| IndexError::corrupt(path, format!("manifest: {e}")))?;
        write_atomic(path, &text)
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
}
