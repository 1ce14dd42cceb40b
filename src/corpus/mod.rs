//! Turning a folder of documents into dated, sectioned chunks.

mod chunk;
pub mod date;
mod discover;
mod document;
mod html;
mod sentence;
pub use html::to_text as html_to_text;

pub use chunk::{chunk_document, ChunkOptions, CHUNKER_VERSION};
pub use date::Date;
pub use discover::{discover, discover_with, Discovered, LinkPolicy, SkippedFile};
pub use document::{load_document, Document};
pub use sentence::{sentence_spans, sentences};

use serde::{Deserialize, Serialize};

/// A retrievable passage of a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Stable across re-indexing of an unchanged document: derived from the document's
    /// path and the chunk's own text and position, never from a counter of the run.
    pub chunk_id: String,
    /// Path of the document relative to the corpus root, with `/` separators.
    pub document: String,
    pub title: String,
    pub date: Option<Date>,
    pub year: Option<i32>,
    /// Nearest heading above the chunk, if any.
    pub section: Option<String>,
    pub text: String,
    /// Byte range of the chunk in the document's text (for the passage viewer).
    pub byte_start: usize,
    pub byte_end: usize,
    /// Position of the chunk in its document, from 0.
    pub ordinal: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("cannot read {path}: {source}")]
    Unreadable {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not UTF-8 text")]
    NotUtf8 { path: std::path::PathBuf },
    #[error("corpus folder {path} does not exist or is not a folder")]
    NoSuchFolder { path: std::path::PathBuf },
}
