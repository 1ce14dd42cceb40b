//! The offline implementations of the pipeline's stages. Each takes the query state, does its
//! one job, and returns its documented slice of `cached_state` as JSON.

pub mod evaluate;
pub mod guardrail;
pub mod plan;
pub mod reflect;
pub mod reformulate;
pub mod rerank;
pub mod respond;
pub mod retrieve;
pub mod synthesize;
pub mod validate;

/// Why a stage could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    #[error("{0}")]
    Other(String),
}

/// Rounds to two decimals, as every score in `cached_state` is.
pub fn r2(x: f64) -> f64 {
    crate::orchestrator::band::round2(x)
}
