//! What can go wrong loading or running the embedding model (either runtime): a leaf both the
//! embedder and the ONNX graph runner use, so neither imports the other for it.

use std::path::PathBuf;

#[derive(thiserror::Error, Debug)]
pub enum EmbedError {
    /// A file the model folder must hold is not there.
    #[error("model file missing: {path}")]
    MissingFile { path: PathBuf },
    /// A model file exists but cannot be read or does not hold what it should.
    #[error("bad model file {path}: {reason}")]
    BadFile { path: PathBuf, reason: String },
    #[error("invalid embedding option: {0}")]
    InvalidOption(String),
    #[error("tokenizer error: {0}")]
    Tokenizer(String),
    /// The forward pass failed (shapes, memory).
    #[error("model inference error: {0}")]
    Inference(#[from] candle_core::Error),
    /// The ONNX Runtime library cannot be loaded or used.
    #[error("ONNX Runtime at {path} cannot be used: {reason}")]
    Runtime { path: PathBuf, reason: String },
    #[error("ONNX Runtime inference error: {0}")]
    OnnxInference(String),
}

impl EmbedError {
    pub(crate) fn bad(path: impl Into<PathBuf>, reason: impl ToString) -> Self {
        EmbedError::BadFile {
            path: path.into(),
            reason: reason.to_string(),
        }
    }
}
