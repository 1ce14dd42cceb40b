//! Retrieval and answer-quality evaluation.

pub mod answer_check;
pub mod answers;
pub mod beir;
pub mod judgement;
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

/// Reads a JSON-lines file, skipping blank lines; errors name the file and the line.
pub fn read_jsonl<T: for<'de> serde::Deserialize<'de>>(path: &Path) -> Result<Vec<T>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| EvalError::Input(format!("{}:{}: {e}", path.display(), i + 1)))
        })
        .collect()
}

impl EvalError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        EvalError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
