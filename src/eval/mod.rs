//! Retrieval and answer-quality evaluation.

pub mod answer_check;
pub mod answers;
pub mod beir;
pub mod judgement;
pub mod metrics;
pub mod multidoc;
pub mod qa;
pub mod support;

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

/// Runs one input through the whole pipeline, as a session would, and times it in milliseconds.
pub async fn ask_timed(
    engine: &crate::orchestrator::api::Engine,
    query: &str,
    query_id: String,
) -> (crate::orchestrator::types::OrchestrationResult, f64) {
    ask_recording(engine, query, query_id, false).await
}

/// [`ask_timed`], with synthesize recording every candidate sentence when `record_candidates`.
pub async fn ask_recording(
    engine: &crate::orchestrator::api::Engine,
    query: &str,
    query_id: String,
    record_candidates: bool,
) -> (crate::orchestrator::types::OrchestrationResult, f64) {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let req = crate::orchestrator::driver::AskRequest {
        query: query.to_string(),
        requested_years: Vec::new(),
        session_id: "eval".into(),
        query_id,
        context: Vec::new(),
        record_candidates,
    };
    let t = std::time::Instant::now();
    let result = engine.ask(req, &tx).await;
    (result, t.elapsed().as_secs_f64() * 1000.0)
}

impl EvalError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        EvalError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
