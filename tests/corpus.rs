//! The corpus module against the real FOMC corpus in `../shared/corpus/fomc`.

use fathom::corpus::{self, Chunk, ChunkOptions, Date, Document};
use std::path::{Path, PathBuf};

const FOMC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/fomc");

fn root() -> &'static Path {
    Path::new(FOMC)
}

fn files_ending(suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root())
        .expect("the FOMC corpus is at ../shared/corpus/fomc")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

fn load_and_chunk(path: &Path, opts: &ChunkOptions) -> (Document, Vec<Chunk>) {
    let doc = corpus::load_document(root(), path).unwrap();
    let chunks = corpus::chunk_document(&doc, opts);
    for c in &chunks {
        let words = c.text.split_whitespace().count();
        assert!(
            words > 0 && words <= opts.max_words,
            "{}: {words} words",
            c.chunk_id
        );
        assert_eq!(doc.text[c.byte_start..c.byte_end], c.text);
        assert_eq!((c.document.as_str(), c.date), (doc.path.as_str(), doc.date));
    }
    (doc, chunks)
}

#[test]
fn every_statement_loads_dated_and_chunks_within_limits() {
    let opts = ChunkOptions::default();
    let statements = files_ending("_statement.md");
    assert_eq!(statements.len(), 224);
    let mut total = 0;
    let mut saw_rate_cut = false;
    for path in &statements {
        let (doc, chunks) = load_and_chunk(path, &opts);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(doc.path, name);
        let date = Date::parse(&name[..10]).unwrap();
        assert_eq!(doc.date, Some(date), "{name}");
        assert_eq!(doc.year, Some(date.year), "{name}");
        assert!(!chunks.is_empty(), "{name}");
        // A statement's only heading is its title, so it is the section of every chunk.
        assert!(
            chunks
                .iter()
                .all(|c| c.section.as_deref() == Some(doc.title.as_str())),
            "{name}"
        );
        if name == "2020-03-15_statement.md" {
            saw_rate_cut = chunks.iter().any(|c| c.text.contains("0 to 1/4 percent"));
        }
        total += chunks.len();
    }
    assert!(
        saw_rate_cut,
        "2020-03-15 statement has the 0 to 1/4 percent chunk"
    );
    println!("{} statements → {total} chunks", statements.len());
}

#[test]
fn sectioned_minutes_have_a_sectionless_preamble() {
    let opts = ChunkOptions::default();
    for name in [
        "2011-11-02_minutes.md",
        "2020-03-15_minutes.md",
        "2023-06-14_minutes.md",
    ] {
        let (doc, chunks) = load_and_chunk(&root().join(name), &opts);
        assert!(doc
            .title
            .starts_with("Minutes of the Federal Open Market Committee"));
        assert_eq!(chunks[0].section, None, "{name}: preamble");
        assert!(
            chunks
                .iter()
                .all(|c| c.section.as_deref() != Some(doc.title.as_str())),
            "{name}: the title heading is no section when there are others"
        );
        assert!(chunks
            .iter()
            .any(|c| c.section.as_deref() == Some("Staff Review of the Economic Situation")));
    }
    let (_, chunks) = load_and_chunk(&root().join("2020-03-15_minutes.md"), &opts);
    assert!(chunks
        .iter()
        .any(|c| c.section.as_deref() == Some("Committee Policy Action")
            && c.text.contains("0 to 1/4 percent")));
}

#[test]
fn unsectioned_minutes_use_the_title_as_section() {
    let path = root().join("2000-03-21_minutes.md");
    let (doc, chunks) = load_and_chunk(&path, &ChunkOptions::default());
    assert_eq!(doc.date, Date::parse("2000-03-21"));
    assert!(chunks.len() > 1);
    assert!(chunks
        .iter()
        .all(|c| c.section.as_deref() == Some(doc.title.as_str())));
}

#[test]
fn chunk_ids_are_stable_across_runs() {
    let opts = ChunkOptions::default();
    let path = root().join("2020-03-15_minutes.md");
    let (_, first) = load_and_chunk(&path, &opts);
    let (_, second) = load_and_chunk(&path, &opts);
    assert_eq!(first, second);
    let mut ids: Vec<&str> = first.iter().map(|c| c.chunk_id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), first.len(), "ids are unique within a document");
}

#[test]
fn the_whole_corpus_is_discovered_and_chunked_quickly() {
    let started = std::time::Instant::now();
    let found = corpus::discover(root()).unwrap();
    assert_eq!(found.files.len(), 410);
    assert!(found.skipped.is_empty());
    assert!(found.files.windows(2).all(|w| w[0] < w[1]), "sorted");
    let opts = ChunkOptions::default();
    let chunks: usize = found
        .files
        .iter()
        .map(|p| load_and_chunk(p, &opts).1.len())
        .sum();
    println!(
        "{} documents → {chunks} chunks in {:?}",
        found.files.len(),
        started.elapsed()
    );
}
