//! Retrieval and answer-quality evaluation.

pub mod answer_check;
pub mod beir;
pub mod metrics;
pub mod qa;

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
}

impl EvalError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        EvalError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
