//! The embedded index end to end, with the real embedding model and real files on disk.

mod common;

use fathom::corpus::ChunkOptions;
use fathom::index::embed::{EmbedOptions, Embedder};
use fathom::index::embedded::EmbeddedRetriever;
use fathom::index::store::{build, BuildOptions, IndexReport, IndexStore};
use fathom::index::IndexError;
use fathom::index::{RetrievalSettings, Retriever, SearchMode, SearchRequest, Timings, YearMode};
use std::path::Path;
use std::sync::OnceLock;

fn embedder() -> &'static Embedder {
    static E: OnceLock<Embedder> = OnceLock::new();
    E.get_or_init(|| {
        Embedder::load(&common::model_dir(), EmbedOptions::default()).expect("model loads")
    })
}

fn settings() -> RetrievalSettings {
    RetrievalSettings {
        candidates: 50,
        rrf_k: 60.0,
        recency_boost: 0.05,
        recent_year_window: 3,
    }
}

fn index(corpus: &Path, dir: &Path, embed: bool) -> IndexReport {
    let opts = BuildOptions {
        corpus_root: corpus,
        index_dir: dir,
        embedder: embed.then(embedder),
        chunking: ChunkOptions::default(),
        links: fathom::corpus::LinkPolicy::default(),
        rebuild: false,
    };
    build(&opts, &mut |_| {}).expect("index builds")
}

fn retriever(dir: &Path) -> EmbeddedRetriever {
    let store = IndexStore::open(dir).expect("index opens");
    let e = Embedder::load(&common::model_dir(), EmbedOptions::default()).unwrap();
    EmbeddedRetriever::new(store, Some(e), None, settings())
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn small_corpus() -> tempfile::TempDir {
    let c = tempfile::tempdir().unwrap();
    write(
        c.path(),
        "2019-05-01_birds.md",
        "# Birds\n\nThe heron stands in the shallow river waiting for fish.",
    );
    write(
        c.path(),
        "2020-06-01_rates.md",
        "# Rates\n\nThe committee lowered the interest rate to support employment.",
    );
    write(
        c.path(),
        "2021-07-01_space.md",
        "# Space\n\nThe rocket carried a telescope into orbit around the sun.",
    );
    c
}

#[test]
fn incremental_indexing_embeds_only_what_changed() {
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    let r = index(corpus.path(), data.path(), true);
    assert_eq!(
        (
            r.documents,
            r.added,
            r.unchanged,
            r.embedded_chunks.computed
        ),
        (3, 3, 0, 3)
    );
    assert!(r.dense);
    assert_eq!(r.years.get("2020"), Some(&1));

    let r = index(corpus.path(), data.path(), true);
    assert_eq!(
        (
            r.added,
            r.changed,
            r.removed,
            r.unchanged,
            r.embedded_chunks.computed
        ),
        (0, 0, 0, 3, 0)
    );
    assert_eq!(r.published, 0, "an unchanged corpus publishes nothing");
    assert_eq!(r.embedded_chunks.reused, 3);

    write(
        corpus.path(),
        "2020-06-01_rates.md",
        "# Rates\n\nThe committee raised the interest rate to fight inflation.",
    );
    write(
        corpus.path(),
        "2022-01-01_music.md",
        "# Music\n\nThe orchestra played a symphony by Brahms.",
    );
    std::fs::remove_file(corpus.path().join("2019-05-01_birds.md")).unwrap();
    let r = index(corpus.path(), data.path(), true);
    assert_eq!(
        (
            r.added,
            r.changed,
            r.removed,
            r.unchanged,
            r.embedded_chunks.computed
        ),
        (1, 1, 1, 1, 2)
    );
    assert_eq!(r.embedded_chunks.reused, 1);
    assert!(r.dense);
    assert_eq!(r.documents, 3);
    assert_eq!(r.chunks, 3);

    let ret = retriever(data.path());
    let docs = |q: &str| -> Vec<String> {
        ret.search(
            &SearchRequest {
                query: q.into(),
                years: vec![],
                k: 3,
            },
            SearchMode::HybridRerank,
        )
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.document)
        .collect()
    };
    assert_eq!(docs("symphony orchestra")[0], "2022-01-01_music.md");
    assert!(
        !docs("heron river fish").contains(&"2019-05-01_birds.md".to_string()),
        "deleted documents are gone"
    );
    let store = ret.store();
    assert!(store.chunks().iter().any(|c| c.text.contains("raised")));
    assert!(
        !store.chunks().iter().any(|c| c.text.contains("lowered")),
        "changed documents are re-chunked"
    );
}

#[test]
fn unchanged_documents_keep_their_chunk_ids_and_vectors() {
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    index(corpus.path(), data.path(), true);
    let before = IndexStore::open(data.path()).unwrap();
    let space_before = before
        .chunks()
        .iter()
        .find(|c| c.document.contains("space"))
        .unwrap()
        .clone();
    let row = before.row_of(&space_before.chunk_id).unwrap();
    let vec_before = before.vectors().unwrap().row(row).to_vec();
    drop(before);
    write(
        corpus.path(),
        "2020-06-01_rates.md",
        "# Rates\n\nSomething else entirely.",
    );
    index(corpus.path(), data.path(), true);
    let after = IndexStore::open(data.path()).unwrap();
    let space_after = after
        .chunk(&space_before.chunk_id)
        .expect("same chunk id after re-indexing");
    assert_eq!(space_after, &space_before);
    let row = after.row_of(&space_before.chunk_id).unwrap();
    assert_eq!(after.vectors().unwrap().row(row), vec_before.as_slice());
}

/// Asserts that an index run rebuilt from scratch, giving a reason that says `why`.
fn assert_rebuilt_for(r: &IndexReport, why: &str) {
    assert!(
        r.rebuilt.as_deref().is_some_and(|w| w.contains(why)),
        "{:?}",
        r.rebuilt
    );
}

/// The generation folders of an index, oldest first.
fn generations(index: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(index)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.file_name().unwrap().to_string_lossy().starts_with("gen-"))
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn a_damaged_generation_falls_back_and_index_repairs_it_without_embedding() {
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    let first = index(corpus.path(), data.path(), true);
    let current = IndexStore::open(data.path()).unwrap();
    assert_eq!(current.generation().to_string(), first.generation);
    let served_dir = current.generation_dir();
    drop(current);

    // Flip one byte in the served generation's vectors: its checksum catches it.
    let vectors = served_dir.join("vectors.bin");
    let mut bytes = std::fs::read(&vectors).unwrap();
    bytes[100] ^= 0x20;
    std::fs::write(&vectors, &bytes).unwrap();
    let err = IndexStore::open_generation(data.path(), first.generation.parse_id())
        .err()
        .expect("the flipped byte is caught");
    assert!(matches!(err, IndexError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("checksum"), "{err}");
    // The previous generation (BM25 published before the vectors) is served meanwhile.
    let store = IndexStore::open(data.path()).unwrap();
    assert_ne!(store.generation().to_string(), first.generation);
    let notice = store.fallback().expect("the fallback is reported");
    assert!(
        notice.contains("damaged") && notice.contains("fathom index"),
        "{notice}"
    );
    assert_eq!(store.chunks().len(), 3);
    drop(store);

    let r = index(corpus.path(), data.path(), true);
    assert!(r.repaired.is_some(), "{r:?}");
    assert_eq!(r.embedded_chunks.computed, 0, "vectors come from the cache");
    assert!(r.dense);
    let store = IndexStore::open(data.path()).unwrap();
    assert!(store.fallback().is_none());
    assert!(store.vectors().is_some());

    // Cut every chunk table: nothing whole is left, and the error says how to fix it.
    for g in generations(data.path()) {
        let t = g.join("chunks.jsonl");
        let len = std::fs::metadata(&t).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&t)
            .unwrap()
            .set_len(len / 2)
            .unwrap();
    }
    drop(store);
    let err = IndexStore::open(data.path())
        .err()
        .expect("truncated tables are caught");
    assert!(matches!(err, IndexError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("fathom index --rebuild"), "{err}");
    let r = index(corpus.path(), data.path(), true);
    assert_rebuilt_for(&r, "damaged");
    assert_eq!(r.chunks, 3);
    assert_eq!(r.embedded_chunks.computed, 0, "the rebuild embeds nothing");
    let store = IndexStore::open(data.path()).unwrap();
    assert_eq!(store.sparse().num_chunks(), 3);

    // An edited manifest fails its checksum.
    let manifest = store.generation_dir().join("manifest.json");
    drop(store);
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("\"year\": 20", "\"year\": 19", 1)).unwrap();
    assert!(matches!(
        IndexStore::open_generation(data.path(), r.generation.parse_id()),
        Err(IndexError::Corrupt { .. })
    ));
    assert!(matches!(
        IndexStore::open(&data.path().join("nothing")),
        Err(IndexError::Missing { .. })
    ));
}

trait ParseId {
    fn parse_id(&self) -> fathom::index::generation::GenerationId;
}

impl ParseId for String {
    fn parse_id(&self) -> fathom::index::generation::GenerationId {
        fathom::index::generation::GenerationId::parse(self).expect("a generation id")
    }
}

#[test]
fn a_second_concurrent_build_is_refused_not_interleaved() {
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    index(corpus.path(), data.path(), false);
    let lock = std::fs::File::open(data.path().join(".lock")).unwrap();
    lock.lock().unwrap();
    let opts = BuildOptions {
        corpus_root: corpus.path(),
        index_dir: data.path(),
        embedder: None,
        chunking: ChunkOptions::default(),
        links: fathom::corpus::LinkPolicy::default(),
        rebuild: false,
    };
    let err = build(&opts, &mut |_| {}).unwrap_err();
    assert!(matches!(err, IndexError::Busy { .. }), "{err}");
    lock.unlock().unwrap();
    assert!(build(&opts, &mut |_| {}).is_ok());
}

#[test]
fn unreadable_files_are_skipped_not_fatal() {
    let corpus = small_corpus();
    std::fs::write(corpus.path().join("latin1.txt"), b"caf\xe9 cr\xe8me").unwrap();
    let data = tempfile::tempdir().unwrap();
    let r = index(corpus.path(), data.path(), false);
    assert_eq!(r.documents, 3);
    assert_eq!(r.skipped.len(), 1);
    assert!(r.skipped[0].reason.contains("UTF-8"));
}

#[test]
fn bm25_only_index_works_without_a_model() {
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    let r = index(corpus.path(), data.path(), false);
    assert!(!r.dense);
    let store = IndexStore::open(data.path()).unwrap();
    assert!(store.vectors().is_none());
    let ret = EmbeddedRetriever::new(store, None, None, settings());
    assert!(!ret.dense_enabled());
    let resp = ret
        .search(
            &SearchRequest {
                query: "telescope orbit".into(),
                years: vec![],
                k: 2,
            },
            SearchMode::HybridRerank,
        )
        .unwrap();
    assert!(!resp.dense);
    assert_eq!(resp.reranker, "fusion-order");
    assert_eq!(resp.hits[0].document, "2021-07-01_space.md");
    assert!(resp.hits[0].dense_rank.is_none() && resp.hits[0].sparse_rank == Some(1));
}

/// The FOMC statements, indexed once into target/ and reused (re-indexing unchanged files is a
/// hash comparison).
fn fomc_retriever() -> EmbeddedRetriever {
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let dir = common::scratch("fomc-statements-index");
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !*built {
        let r = index(&common::fomc_statements_corpus(), &dir, true);
        assert_eq!(r.documents, 224);
        *built = true;
    }
    retriever(&dir)
}

#[test]
fn fomc_march_2020_cut_to_zero_is_found_first() {
    let ret = fomc_retriever();
    let q = "When did the FOMC lower the federal funds rate to 0 to 1/4 percent in March 2020?";
    let resp = ret
        .search(
            &SearchRequest {
                query: q.into(),
                years: vec![],
                k: 5,
            },
            SearchMode::HybridRerank,
        )
        .unwrap();
    assert_eq!(
        resp.hits[0].document,
        "2020-03-15_statement.md",
        "{:#?}",
        resp.hits.iter().map(|h| &h.document).collect::<Vec<_>>()
    );
    assert!(resp.dense);
    assert_eq!(resp.reranker, "dense-bm25-blend(0.5)");
    let h = &resp.hits[0];
    assert!(h.dense_rank.is_some() && h.sparse_rank.is_some() && h.fused_score > 0.0);
    assert!(h.snippet.contains("1/4"), "{}", h.snippet);
}

#[test]
fn year_filter_applies_inside_both_searches() {
    let ret = fomc_retriever();
    let years = vec![2008, 2009];
    let mut t = Timings::default();
    let q = "federal funds rate target range";
    let qv = ret.embed_query(q).unwrap();
    let c = ret
        .candidates(q, qv.as_deref(), &years, 40, &mut t)
        .unwrap();
    assert_eq!(
        c.dense.len(),
        40,
        "the filter runs inside the search, so it still fills the list"
    );
    assert!(c.sparse.len() >= 20);
    let year_of = |id: &str| ret.store().chunk(id).unwrap().year.unwrap();
    assert!(c
        .dense
        .iter()
        .chain(c.sparse.iter())
        .all(|r| years.contains(&year_of(&r.chunk_id))));

    let resp = ret
        .search(
            &SearchRequest {
                query: q.into(),
                years: years.clone(),
                k: 10,
            },
            SearchMode::HybridRerank,
        )
        .unwrap();
    assert_eq!(resp.year_mode, YearMode::Explicit);
    assert!(resp.hits.iter().all(|h| years.contains(&h.year.unwrap())));
    let open = ret
        .search(
            &SearchRequest {
                query: q.into(),
                years: vec![],
                k: 10,
            },
            SearchMode::HybridRerank,
        )
        .unwrap();
    assert_eq!(open.year_mode, YearMode::None);
    assert!(open.hits.iter().any(|h| !years.contains(&h.year.unwrap())));
}

#[test]
fn hybrid_hits_carry_every_score_and_modes_differ() {
    let ret = fomc_retriever();
    let req = SearchRequest {
        query: "balance sheet reduction Treasury securities runoff".into(),
        years: vec![],
        k: 10,
    };
    let sparse = ret.search(&req, SearchMode::Sparse).unwrap();
    assert!(sparse.hits.iter().all(|h| h.dense_rank.is_none()));
    let dense = ret.search(&req, SearchMode::Dense).unwrap();
    assert!(dense.hits.iter().all(|h| h.sparse_rank.is_none()));
    let hybrid = ret.search(&req, SearchMode::HybridRerank).unwrap();
    assert!(hybrid
        .hits
        .iter()
        .any(|h| h.dense_rank.is_some() && h.sparse_rank.is_some()));
    // Recency: the boost only goes to the corpus's latest years.
    let window = hybrid.recent_year_window.unwrap();
    assert_eq!(window[1] - window[0], 2);
    for h in &hybrid.hits {
        assert!((h.score - (h.rerank_score + h.recency_boost)).abs() < 1e-6);
        assert_eq!(h.recency_boost > 0.0, h.year.unwrap() >= window[0]);
    }
    let ids: Vec<&str> = hybrid.hits.iter().map(|h| h.chunk_id.as_str()).collect();
    let unique: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "deduplicated by chunk_id");
}

#[test]
fn an_index_from_an_older_fathom_is_named_as_such_and_rebuilt() {
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    // The format-2 layout: every part directly in the index folder.
    std::fs::write(
        data.path().join("manifest.json"),
        r#"{"format":2,"embedding_model":null,"chunk_target_words":160,"chunk_max_words":200,"documents":{}}"#,
    )
    .unwrap();
    std::fs::write(data.path().join("chunks.json"), b"[]").unwrap();
    std::fs::create_dir(data.path().join("bm25")).unwrap();
    let err = IndexStore::open(data.path()).err().expect("not served");
    assert!(
        matches!(err, IndexError::Outdated { found: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("run `fathom index`"), "{err}");

    let r = index(corpus.path(), data.path(), false);
    assert_rebuilt_for(&r, "format 2");
    assert!(!data.path().join("manifest.json").exists());
    assert!(!data.path().join("bm25").exists());
    assert_eq!(IndexStore::open(data.path()).unwrap().chunks().len(), 3);
}

#[test]
fn bm25_is_served_after_phase_one_and_dense_arrives_as_a_newer_generation() {
    use fathom::index::store::{build_sparse, IndexProgress};
    use std::sync::atomic::AtomicBool;
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        corpus_root: corpus.path(),
        index_dir: data.path(),
        embedder: Some(embedder()),
        chunking: ChunkOptions::default(),
        links: fathom::corpus::LinkPolicy::default(),
        rebuild: false,
    };
    let mut events = Vec::new();
    let phase1 = build_sparse(&opts, &mut |p| events.push(p)).unwrap();
    assert_eq!(phase1.dense_missing(), 3);
    // BM25 works now; dense is not there yet and says so.
    let sparse_only = IndexStore::open(data.path()).unwrap();
    assert_eq!(sparse_only.generation(), phase1.generation());
    assert!(sparse_only.vectors().is_none());
    let c = sparse_only.dense_coverage();
    assert_eq!((c.embedded, c.total, c.is_complete()), (0, 3, false));
    assert_eq!(
        sparse_only
            .sparse()
            .search("telescope orbit", &[], 3)
            .unwrap()[0]
            .chunk_id,
        sparse_only.chunks()[2].chunk_id
    );
    assert!(sparse_only.newer_generation().unwrap().is_none());
    assert!(matches!(
        events.last(),
        Some(IndexProgress::Published { dense, .. }) if dense.embedded == 0 && dense.total == 3
    ));

    // Phase 2, cancelled before the first batch: nothing embedded, nothing lost.
    let cancel = AtomicBool::new(true);
    let r = phase1.embed(embedder(), &cancel, &mut |_| {}).unwrap();
    assert_eq!(
        (r.embedded_chunks.computed, r.embedded_chunks.missing),
        (0, 3)
    );
    assert!(!r.dense);

    // Phase 2 to the end, with progress carrying an estimate of the time left.
    let phase1 = build_sparse(&opts, &mut |_| {}).unwrap();
    let mut etas = Vec::new();
    let r = phase1
        .embed(embedder(), &AtomicBool::new(false), &mut |p| {
            if let IndexProgress::Embedded { done, total, eta } = p {
                etas.push((done, total, eta));
            }
        })
        .unwrap();
    assert!(r.dense && r.embedded_chunks.computed == 3);
    assert_eq!(etas.last().map(|e| (e.0, e.1)), Some((3, 3)));
    assert!(etas.last().unwrap().2.is_some());

    // A running process sees the newer generation and reopens onto hybrid retrieval.
    let newer = sparse_only
        .newer_generation()
        .unwrap()
        .expect("a newer one");
    assert_eq!(newer.to_string(), r.generation);
    let upgraded = sparse_only.reopen_if_newer().unwrap().expect("reopened");
    assert!(upgraded.vectors().is_some());
    assert!(upgraded.reopen_if_newer().unwrap().is_none());
    let q = embedder().embed_query("rocket telescope").unwrap();
    let hits = upgraded.dense_search(&q, &[2021], 3);
    assert_eq!(hits.len(), 1, "the year filter keeps 2021 only");
    assert_eq!(upgraded.chunks()[hits[0].0].year, Some(2021));
}

/// The terminal UI's start on a new corpus: the engine answers from BM25 as soon as phase 1 is
/// published, says so in the answer's warnings, and the same engine answers with hybrid
/// retrieval once the vectors are filled in behind it — no restart.
#[test]
fn a_progressive_start_answers_from_bm25_then_switches_to_hybrid_without_a_restart() {
    use fathom::orchestrator::api::{AskRequest, StartupProgress};
    use std::sync::atomic::AtomicBool;
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    let mut cfg = fathom::config::Config::default();
    cfg.paths.data_dir = data.path().to_path_buf();
    cfg.embedding.model_dir = Some(common::model_dir());
    let mut phases = Vec::new();
    let prepared =
        fathom::wiring::prepare(&cfg, corpus.path(), None, &mut |p| phases.push(p)).unwrap();
    assert!(
        !phases
            .iter()
            .any(|p| matches!(p, StartupProgress::Embedded { .. })),
        "nothing is embedded before the engine is ready: {phases:?}"
    );
    let info = prepared.engine.info();
    assert!(!info.dense, "BM25 alone until the vectors are there");
    let fill = prepared.dense_fill.expect("dense vectors left to fill in");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ask = |id: &str| {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        rt.block_on(prepared.engine.ask(
            AskRequest {
                query: "Where does the heron wait for fish?".into(),
                requested_years: Vec::new(),
                session_id: "s".into(),
                query_id: id.into(),
                context: Vec::new(),
                record_candidates: false,
            },
            &tx,
        ))
    };
    let before = ask("q1");
    assert!(
        before.warnings.iter().any(|w| w.contains("BM25 alone")),
        "{:?}",
        before.warnings
    );
    assert!(before.cached_state["retrieve"]["dense_pending"].is_object());
    assert_eq!(before.cached_state["retrieve"]["dense"], false);

    let mut updates = Vec::new();
    let report = fill
        .run(&AtomicBool::new(false), &mut |p| updates.push(p))
        .unwrap();
    assert!(report.dense);
    assert!(updates
        .iter()
        .any(|p| matches!(p, StartupProgress::Published { embedded, total } if embedded == total)));
    assert!(
        matches!(updates.last(), Some(StartupProgress::DenseReady { backend }) if backend.starts_with("offline · dense")),
        "{:?}",
        updates.last()
    );

    let after = ask("q2");
    assert!(
        !after.warnings.iter().any(|w| w.contains("BM25 alone")),
        "{:?}",
        after.warnings
    );
    assert_eq!(after.cached_state["retrieve"]["dense"], true);
    assert!(
        after.cached_state["retrieve"]["dense_candidates"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn an_index_cut_by_an_older_chunker_is_re_chunked_on_the_next_update() {
    use fathom::index::manifest::{Manifest, FILE};
    let corpus = small_corpus();
    let data = tempfile::tempdir().unwrap();
    index(corpus.path(), data.path(), false);
    // The newest generation's manifest, as an index written before the chunker changed.
    let newest = generations(data.path()).pop().expect("a generation");
    let mut manifest = Manifest::read(&newest.join(FILE)).unwrap();
    assert_eq!(manifest.chunker, fathom::corpus::CHUNKER_VERSION);
    manifest.chunker = 1;
    manifest.write(&newest).unwrap();
    let r = index(corpus.path(), data.path(), false);
    assert_rebuilt_for(&r, "chunker changed");
    // Up to date now: the next update rebuilds nothing.
    let r = index(corpus.path(), data.path(), false);
    assert!(r.rebuilt.is_none(), "{:?}", r.rebuilt);
}
