//! Helpers shared by the integration tests: the real embedding model, the FOMC corpus in
//! `../shared`, and a cached index of the FOMC statements reused across test binaries.
#![allow(dead_code)]

pub mod llm_server;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The installed embedding model. Tests that need it fail (never skip) when it is missing.
pub fn model_dir() -> PathBuf {
    let dir = if let Ok(d) = std::env::var("FATHOM_MODEL_DIR") {
        PathBuf::from(d)
    } else if let Ok(c) = std::env::var("FATHOM_CACHE_DIR") {
        PathBuf::from(c).join("models/all-MiniLM-L6-v2")
    } else {
        let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
        PathBuf::from(home).join(".cache/fathom/models/all-MiniLM-L6-v2")
    };
    assert!(
        dir.join("model.safetensors").exists(),
        "embedding model missing at {}: run `make model`",
        dir.display()
    );
    dir
}

/// The ONNX Runtime library `make model` installs. Tests that need it fail when it is missing.
pub fn onnxruntime_lib() -> PathBuf {
    let lib = if let Ok(p) = std::env::var("FATHOM_EMBEDDING_ONNXRUNTIME_LIB") {
        PathBuf::from(p)
    } else {
        let cache = std::env::var("FATHOM_CACHE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|_| {
                let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
                PathBuf::from(home).join(".cache/fathom")
            });
        cache.join("onnxruntime/libonnxruntime.so")
    };
    assert!(
        lib.is_file(),
        "ONNX Runtime missing at {}: run `make model`",
        lib.display()
    );
    lib
}

pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

pub fn fomc_dir() -> PathBuf {
    let d = shared().join("corpus/fomc");
    assert!(d.is_dir(), "FOMC corpus missing at {}", d.display());
    d
}

/// Scratch space under target/ that survives between test runs (so the FOMC index is built once).
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-scratch")
        .join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The real retriever over an index of `corpus` in `dir` (built, or brought up to date with the
/// corpus), with `embedder` for dense search or BM25 alone, and the retrieval settings the
/// pipeline tests share.
pub fn retriever_over(
    corpus: &Path,
    dir: &Path,
    embedder: Option<fathom::index::embed::Embedder>,
) -> fathom::index::embedded::EmbeddedRetriever {
    use fathom::index::store::{build, BuildOptions, IndexStore};
    let opts = BuildOptions {
        corpus_root: corpus,
        index_dir: dir,
        embedder: embedder.as_ref(),
        chunking: fathom::corpus::ChunkOptions::default(),
        links: fathom::corpus::LinkPolicy::default(),
        rebuild: false,
    };
    build(&opts, &mut |_| {}).unwrap();
    let settings = fathom::index::RetrievalSettings {
        candidates: 50,
        rrf_k: 60.0,
        recency_boost: 0.05,
        recent_year_window: 3,
    };
    fathom::index::embedded::EmbeddedRetriever::new(
        IndexStore::open(dir).unwrap(),
        embedder,
        None,
        settings,
    )
}

/// Asks `query` of `driver` as a turn after the turns in `context`: its result and every event
/// it sent.
pub async fn ask_of(
    driver: &fathom::orchestrator::driver::Driver,
    query: &str,
    years: Vec<i32>,
    context: Vec<fathom::orchestrator::followup::ContextItem>,
) -> (
    fathom::orchestrator::types::OrchestrationResult,
    Vec<fathom::orchestrator::api::Event>,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (_cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
    let req = fathom::orchestrator::driver::AskRequest {
        query: query.into(),
        requested_years: years,
        session_id: "sess_test".into(),
        query_id: "q1".into(),
        context,
        record_candidates: false,
    };
    let result = driver.run(req, cancel_rx, &tx).await;
    drop(tx);
    let mut events = Vec::new();
    while let Some(e) = rx.recv().await {
        events.push(e);
    }
    (result, events)
}

/// Asks `question` of a one-document corpus: `text` written as `file` into a scratch folder
/// named for `name`, indexed for BM25 alone (the real index) in another, and answered by the
/// offline pipeline. Its result.
pub async fn ask_of_document(
    name: &str,
    file: &str,
    text: &str,
    question: &str,
) -> fathom::orchestrator::types::OrchestrationResult {
    let corpus = scratch(&format!("{name}-corpus"));
    std::fs::write(corpus.join(file), text).unwrap();
    let dir = scratch(&format!("{name}-index"));
    let retriever = retriever_over(&corpus, &dir, None);
    let driver =
        fathom::orchestrator::driver::Driver::qa(std::sync::Arc::new(retriever), None, 2).unwrap();
    ask_of(&driver, question, vec![], vec![]).await.0
}

static FOMC_LOCK: Mutex<()> = Mutex::new(());

/// A corpus folder holding copies of the 224 FOMC statements (not the minutes).
pub fn fomc_statements_corpus() -> PathBuf {
    let _guard = FOMC_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("fomc-statements-corpus");
    for entry in std::fs::read_dir(fomc_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with("_statement.md") {
            let dest = dir.join(&name);
            if !dest.exists() {
                std::fs::copy(&path, &dest).unwrap();
            }
        }
    }
    dir
}

/// Environment for running the `fathom` binary against a data dir with the real model.
pub fn fathom_cmd(data_dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fathom"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", data_dir)
        .env("FATHOM_DATA_DIR", data_dir)
        .env("FATHOM_MODEL_DIR", model_dir())
        .env("XDG_CONFIG_HOME", data_dir.join("config"));
    cmd
}

/// A corpus folder under target/ holding copies of these FOMC files (copied once).
pub fn fomc_subset(name: &str, files: &[&str]) -> PathBuf {
    let dir = scratch(name);
    for file in files {
        let dest = dir.join(file);
        if !dest.exists() {
            std::fs::copy(fomc_dir().join(file), &dest).unwrap();
        }
    }
    dir
}

/// Every file below `dir`, at any depth (none if it cannot be read).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// The first `files` FOMC statements cut into pieces of 150 words: the text the throughput
/// reports embed.
pub fn statement_pieces(files: usize) -> Vec<String> {
    let mut paths: Vec<_> = std::fs::read_dir(fomc_dir())
        .expect("read corpus")
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.to_string_lossy().ends_with("_statement.md"))
        .collect();
    paths.sort();
    paths.truncate(files);
    let mut pieces = Vec::new();
    for f in &paths {
        let text = std::fs::read_to_string(f).expect("read statement");
        let words: Vec<&str> = text.split_whitespace().collect();
        pieces.extend(words.chunks(150).map(|c| c.join(" ")));
    }
    pieces
}
