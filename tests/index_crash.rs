//! Crash safety of the index: a real `fathom index` child is SIGKILLed at each write point (held
//! there by the test-only `FATHOM_TEST_HOLD_AT` hook, see `src/index/hold.rs`), then the index
//! must serve the generation it served before, and the next build must be consistent and embed
//! only what was not embedded yet. Uses the real embedding model and generated documents.

mod common;

use fathom::index::embed::{EmbedOptions, Embedder};
use fathom::index::store::IndexStore;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::Duration;

fn embedder() -> &'static Embedder {
    static E: OnceLock<Embedder> = OnceLock::new();
    E.get_or_init(|| {
        Embedder::load(&common::model_dir(), EmbedOptions::default()).expect("model loads")
    })
}

const WORDS: [&str; 40] = [
    "committee",
    "inflation",
    "river",
    "harvest",
    "orchestra",
    "telescope",
    "mountain",
    "ledger",
    "railway",
    "vineyard",
    "glacier",
    "tariff",
    "lantern",
    "harbor",
    "pension",
    "satellite",
    "granary",
    "forest",
    "copper",
    "bridge",
    "festival",
    "archive",
    "compass",
    "meadow",
    "quarry",
    "savings",
    "thunder",
    "canal",
    "pottery",
    "village",
    "engine",
    "garden",
    "museum",
    "salary",
    "island",
    "factory",
    "winter",
    "market",
    "theatre",
    "velvet",
];

/// A short dated document (one chunk) with its own marker word, so BM25 can find exactly it.
fn doc_text(i: usize, version: u32) -> String {
    let w = |k: usize| WORDS[(i * 7 + k * 13 + version as usize) % WORDS.len()];
    format!(
        "# Note {i}\n\nThe {} and the {} met near the {} (marker mk{i}v{version}x). \
         Everyone spoke about the {} and the {} for a while.\n",
        w(0),
        w(1),
        w(2),
        w(3),
        w(4)
    )
}

fn doc_name(i: usize) -> String {
    format!("{}-03-{:02}_note{i}.md", 2010 + i % 10, 1 + i % 28)
}

fn write_doc(corpus: &Path, i: usize, version: u32) {
    std::fs::write(corpus.join(doc_name(i)), doc_text(i, version)).unwrap();
}

/// 40 one-chunk documents.
fn corpus_v1() -> tempfile::TempDir {
    let c = tempfile::tempdir().unwrap();
    for i in 0..40 {
        write_doc(c.path(), i, 1);
    }
    c
}

/// The change between builds: `added` new documents, note 5 rewritten, note 7 removed.
fn change_corpus(corpus: &Path, added: usize) -> usize {
    for i in 40..40 + added {
        write_doc(corpus, i, 1);
    }
    write_doc(corpus, 5, 2);
    std::fs::remove_file(corpus.join(doc_name(7))).unwrap();
    added + 1
}

fn index_json(data: &Path, corpus: &Path) -> serde_json::Value {
    let out = common::fathom_cmd(data)
        .args(["--corpus", corpus.to_str().unwrap(), "index", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Starts `fathom index` held at `point` and waits until it says it is there.
fn start_held(data: &Path, corpus: &Path, point: &str) -> Child {
    let mut child = common::fathom_cmd(data)
        .env("FATHOM_TEST_HOLD_AT", point)
        .args(["--corpus", corpus.to_str().unwrap(), "index", "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let marker = format!("FATHOM_TEST_HOLD {point}");
    let mut seen = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(300)) {
            Ok(line) if line.trim() == marker => return child,
            Ok(line) => seen.push(line),
            Err(_) => {
                let _ = child.kill();
                panic!("{point} was never reached; stderr:\n{}", seen.join("\n"));
            }
        }
    }
}

/// What a served generation answers, to compare before and after a kill.
#[derive(Debug, PartialEq)]
struct Snapshot {
    generation: String,
    chunks: usize,
    sparse: Vec<Vec<String>>,
    dense: Vec<Vec<usize>>,
    coverage: (usize, usize),
}

const QUERIES: [&str; 3] = [
    "orchestra river harvest",
    "marker mk5v1x committee",
    "pension savings salary",
];

fn snapshot(index: &Path) -> Snapshot {
    let store = IndexStore::open(index).expect("an index is served");
    assert!(store.fallback().is_none(), "{:?}", store.fallback());
    let sparse = QUERIES
        .iter()
        .map(|q| {
            store
                .sparse()
                .search(q, &[], 10)
                .unwrap()
                .into_iter()
                .map(|r| r.chunk_id)
                .collect()
        })
        .collect();
    let dense = QUERIES
        .iter()
        .map(|q| {
            let v = embedder().embed_query(q).unwrap();
            store
                .dense_search(&v, &[], 10)
                .into_iter()
                .map(|(row, _)| row)
                .collect()
        })
        .collect();
    let c = store.dense_coverage();
    Snapshot {
        generation: store.generation().to_string(),
        chunks: store.chunks().len(),
        sparse,
        dense,
        coverage: (c.embedded, c.total),
    }
}

fn gen_dirs(index: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(index)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("gen-"))
        })
        .collect()
}

/// After the build that follows a kill: one whole generation, BM25 holding each chunk once,
/// the changed and removed documents' old text gone, every chunk with a vector.
fn assert_consistent(index: &Path, expected_chunks: usize) {
    let store = IndexStore::open(index).expect("the rebuilt index opens");
    assert!(store.fallback().is_none());
    assert_eq!(store.chunks().len(), expected_chunks);
    assert_eq!(
        store.sparse().num_chunks() as usize,
        expected_chunks,
        "BM25 holds each chunk exactly once"
    );
    let hits = |q: &str| store.sparse().search(q, &[], 10).unwrap().len();
    assert_eq!(hits("mk5v2x"), 1, "the changed document's new text, once");
    assert_eq!(hits("mk5v1x"), 0, "its old text is gone");
    assert_eq!(hits("mk7v1x"), 0, "the removed document is gone");
    assert_eq!(hits("mk41v1x"), 1, "an added document, once");
    assert!(store.vectors().is_some(), "dense vectors are complete");
    assert!(
        gen_dirs(index).len() <= 2,
        "half-written generations are cleaned: {:?}",
        gen_dirs(index)
    );
}

/// Kills a build held at `point` while it updates a fully indexed corpus, then checks what is
/// served and what the next build does. Returns the next build's report.
fn kill_and_resume(point: &str, added: usize, held_serves_previous: bool) -> serde_json::Value {
    let corpus = corpus_v1();
    let data = tempfile::tempdir().unwrap();
    let index = data.path().join("index");
    let first = index_json(data.path(), corpus.path());
    assert_eq!(first["chunks"], 40);
    assert_eq!(first["embedded_chunks"]["computed"], 40);
    let before = snapshot(&index);

    let fresh = change_corpus(corpus.path(), added);
    let mut child = start_held(data.path(), corpus.path(), point);
    let held = snapshot(&index);
    if held_serves_previous {
        assert_eq!(
            held, before,
            "a build that has not published yet changes nothing"
        );
    } else {
        // Phase 1 is published: BM25 has the new corpus, the vectors are partial.
        assert_ne!(held.generation, before.generation);
        assert_eq!(held.chunks, 40 - 1 + added);
        assert!(held.coverage.0 < held.coverage.1, "{:?}", held.coverage);
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_eq!(
        snapshot(&index),
        held,
        "after the kill the same generation answers the same"
    );

    let next = index_json(data.path(), corpus.path());
    assert_eq!(
        next["embedded_chunks"]["computed"].as_u64().unwrap()
            + next["embedded_chunks"]["reused"].as_u64().unwrap(),
        (40 - 1 + added) as u64
    );
    assert_eq!(next["embedded_chunks"]["missing"], 0);
    assert_eq!(next["dense"], true);
    assert!(next["embedded_chunks"]["computed"].as_u64().unwrap() <= fresh as u64);
    assert_consistent(&index, 40 - 1 + added);
    next
}

#[test]
fn killed_after_the_bm25_commit_the_previous_index_serves() {
    let r = kill_and_resume("sparse:after_bm25", 12, true);
    assert_eq!(r["embedded_chunks"]["computed"], 13);
    assert_eq!(
        r["embedded_chunks"]["reused"], 38,
        "the 38 unchanged chunks"
    );
}

#[test]
fn killed_after_the_vectors_the_previous_index_serves() {
    let r = kill_and_resume("sparse:after_vectors", 12, true);
    assert_eq!(r["embedded_chunks"]["computed"], 13);
}

#[test]
fn killed_after_the_chunk_table_the_previous_index_serves() {
    let r = kill_and_resume("sparse:after_chunks", 12, true);
    assert_eq!(r["embedded_chunks"]["computed"], 13);
}

#[test]
fn killed_before_the_switch_the_previous_index_serves() {
    let r = kill_and_resume("sparse:after_manifest", 12, true);
    assert_eq!(r["embedded_chunks"]["computed"], 13);
}

#[test]
fn killed_writing_the_dense_generation_nothing_is_embedded_again() {
    for point in [
        "dense:after_bm25",
        "dense:after_vectors",
        "dense:after_chunks",
    ] {
        let r = kill_and_resume(point, 12, false);
        assert_eq!(
            r["embedded_chunks"]["computed"], 0,
            "{point}: all 13 were embedded into the cache before the kill"
        );
        assert_eq!(r["embedded_chunks"]["reused"], 51);
    }
}

#[test]
fn killed_mid_embedding_only_the_rest_is_embedded() {
    // 46 new chunks: the first batch of 32 reaches the cache before the kill.
    let r = kill_and_resume("embed:after_batch", 45, false);
    assert_eq!(r["embedded_chunks"]["computed"], 46 - 32);
    assert_eq!(r["embedded_chunks"]["reused"], 38 + 32);
}

#[test]
fn a_torn_vector_cache_tail_costs_one_chunk_not_the_index() {
    let corpus = corpus_v1();
    let data = tempfile::tempdir().unwrap();
    let index = data.path().join("index");
    index_json(data.path(), corpus.path());
    let cache = common::files_under(&index.join("vectors"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "vcache"))
        .expect("a vector cache");
    // A power cut in the middle of the last append: half a record on disk.
    let len = std::fs::metadata(&cache).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&cache)
        .unwrap()
        .set_len(len - 700)
        .unwrap();
    let out = common::fathom_cmd(data.path())
        .args([
            "--corpus",
            corpus.path().to_str().unwrap(),
            "index",
            "--rebuild",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["embedded_chunks"]["computed"], 1, "only the torn record");
    assert_eq!(r["embedded_chunks"]["reused"], 39);
    let len_after = std::fs::metadata(&cache).unwrap().len();
    assert_eq!(
        len_after, len,
        "the cut record was re-embedded and appended whole"
    );
}
