//! Errors of the index: building, opening and searching it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// A file of the index is missing, truncated or inconsistent with the others.
    #[error("the index at {path} is damaged ({reason}); rebuild it with `fathom index --rebuild`")]
    Corrupt { path: PathBuf, reason: String },
    #[error("no index at {path} yet; build it with `fathom index --corpus DIR`")]
    Missing { path: PathBuf },
    /// An index in a layout this fathom does not read; `fathom index` rebuilds it in place.
    #[error(
        "the index at {path} is in format {found}, this fathom reads format {}; run \
         `fathom index` to rebuild it",
        crate::index::manifest::FORMAT_VERSION
    )]
    Outdated { path: PathBuf, found: u32 },
    #[error("another fathom is indexing into {path}; wait for it to finish")]
    Busy { path: PathBuf },
    #[error("index I/O error at {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "BM25 index error: {0} (if it persists, rebuild the index with `fathom index --rebuild`)"
    )]
    Sparse(#[from] tantivy::TantivyError),
    #[error(transparent)]
    Embed(#[from] crate::index::embed::EmbedError),
    #[error(transparent)]
    Corpus(#[from] crate::corpus::CorpusError),
    #[error("the embedding model produced vectors of dimension {got}, the index holds {expected}")]
    DimensionMismatch { expected: usize, got: usize },
}

impl IndexError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        IndexError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        IndexError::Corrupt {
            path: path.into(),
            reason: reason.into(),
        }
    }
}
