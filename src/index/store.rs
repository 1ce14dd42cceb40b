//! The embedded store: manifest, chunk table, vectors and the BM25 index in one folder, opened
//! together and checked against each other so a partial write is caught, never searched.

use super::dense::{write_atomic, DenseMatrix};
use super::embed::Embedder;
use super::error::IndexError;
use super::manifest::{DocEntry, Manifest, FORMAT_VERSION};
use super::sparse::SparseIndex;
use crate::corpus::{self, Chunk, ChunkOptions, Document, SkippedFile};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

const MANIFEST: &str = "manifest.json";
const CHUNKS: &str = "chunks.json";
const VECTORS: &str = "vectors.bin";
const BM25: &str = "bm25";

/// An opened index, ready to search.
pub struct IndexStore {
    dir: PathBuf,
    manifest: Manifest,
    chunks: Vec<Chunk>,
    by_id: HashMap<String, usize>,
    vectors: Option<DenseMatrix>,
    sparse: SparseIndex,
}

impl IndexStore {
    /// Opens the index in `dir`, checking that its parts agree.
    pub fn open(dir: &Path) -> Result<IndexStore, IndexError> {
        let manifest_path = dir.join(MANIFEST);
        if !manifest_path.exists() {
            return Err(IndexError::Missing {
                path: dir.to_path_buf(),
            });
        }
        let manifest = Manifest::read(&manifest_path)?;
        let chunks = read_chunks(&dir.join(CHUNKS))?;
        let vectors = match manifest.embedding_model {
            Some(_) => Some(DenseMatrix::read(&dir.join(VECTORS))?),
            None => None,
        };
        let sparse = SparseIndex::open(&dir.join(BM25))?;
        let expected: usize = manifest.documents.values().map(|d| d.chunks).sum();
        let check = |ok: bool, what: String| {
            if ok {
                Ok(())
            } else {
                Err(IndexError::corrupt(dir, what))
            }
        };
        check(
            chunks.len() == expected,
            format!("{} chunks stored, manifest lists {expected}", chunks.len()),
        )?;
        if let Some(v) = &vectors {
            check(
                v.rows() == chunks.len(),
                format!("{} vectors for {} chunks", v.rows(), chunks.len()),
            )?;
        }
        let in_bm25 = sparse.num_chunks() as usize;
        check(
            in_bm25 == chunks.len(),
            format!("BM25 holds {in_bm25} chunks, table {}", chunks.len()),
        )?;
        let by_id = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| (c.chunk_id.clone(), i))
            .collect();
        Ok(IndexStore {
            dir: dir.to_path_buf(),
            manifest,
            chunks,
            by_id,
            vectors,
            sparse,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    pub fn row_of(&self, chunk_id: &str) -> Option<usize> {
        self.by_id.get(chunk_id).copied()
    }

    pub fn chunk(&self, chunk_id: &str) -> Option<&Chunk> {
        self.row_of(chunk_id).map(|i| &self.chunks[i])
    }

    pub fn vectors(&self) -> Option<&DenseMatrix> {
        self.vectors.as_ref()
    }

    pub fn sparse(&self) -> &SparseIndex {
        &self.sparse
    }

    /// Documents per year present in the index.
    pub fn years(&self) -> BTreeMap<i32, usize> {
        self.manifest.years()
    }

    pub fn document_count(&self) -> usize {
        self.manifest.documents.len()
    }
}

fn read_chunks(path: &Path) -> Result<Vec<Chunk>, IndexError> {
    let bytes = std::fs::read(path).map_err(|e| IndexError::io(path, e))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| IndexError::corrupt(path, format!("chunk table: {e}")))
}

/// What building or updating the index did.
#[derive(Debug, Clone, Serialize)]
pub struct IndexReport {
    pub documents: usize,
    pub chunks: usize,
    /// Documents per year.
    pub years: BTreeMap<String, usize>,
    pub dense: bool,
    pub seconds: f64,
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    pub unchanged: usize,
    pub embedded_chunks: usize,
    pub skipped: Vec<SkippedReport>,
    /// Why the whole index was rebuilt, if it was.
    pub rebuilt: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkippedReport {
    pub path: String,
    pub reason: String,
}

impl From<SkippedFile> for SkippedReport {
    fn from(s: SkippedFile) -> Self {
        SkippedReport {
            path: s.path.display().to_string(),
            reason: s.reason,
        }
    }
}

/// Progress of an indexing run, for a progress bar or a TUI view.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexProgress {
    Scanned { documents: usize, to_embed: usize },
    Skipped { path: String, reason: String },
    Embedded { done: usize, total: usize },
    Rebuilding { reason: String },
    Writing,
}

pub struct BuildOptions<'a> {
    pub corpus_root: &'a Path,
    pub index_dir: &'a Path,
    pub embedder: Option<&'a Embedder>,
    pub chunking: ChunkOptions,
    /// Where links in the corpus folder may lead (`corpus.follow_links_outside`).
    pub links: corpus::LinkPolicy,
    /// Throw away whatever is there and build from scratch.
    pub rebuild: bool,
}

/// Chunks embedded per progress step: one embedder batch, so the progress view moves even on a
/// small corpus and grouping costs nothing.
const EMBED_GROUP: usize = 32;

/// Brings the index in `opts.index_dir` up to date with the corpus: new and changed documents
/// are chunked and embedded, deleted ones dropped, unchanged ones kept without re-embedding.
pub fn build(
    opts: &BuildOptions,
    progress: &mut dyn FnMut(IndexProgress),
) -> Result<IndexReport, IndexError> {
    let started = Instant::now();
    std::fs::create_dir_all(opts.index_dir).map_err(|e| IndexError::io(opts.index_dir, e))?;
    let _lock = lock_index(opts.index_dir)?;
    let discovered = corpus::discover_with(opts.corpus_root, opts.links)?;
    let mut skipped: Vec<SkippedReport> = discovered.skipped.into_iter().map(Into::into).collect();
    let mut docs = Vec::with_capacity(discovered.files.len());
    for path in &discovered.files {
        match corpus::load_document(opts.corpus_root, path) {
            Ok(doc) => docs.push(doc),
            Err(e) => {
                let s = SkippedReport {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                };
                progress(IndexProgress::Skipped {
                    path: s.path.clone(),
                    reason: s.reason.clone(),
                });
                skipped.push(s);
            }
        }
    }

    let model_id = opts.embedder.map(|e| e.model_id());
    let (previous, rebuilt) = previous_index(opts, model_id.as_deref());
    if let Some(reason) = &rebuilt {
        progress(IndexProgress::Rebuilding {
            reason: reason.clone(),
        });
    }

    let plan = Plan::new(&docs, previous.as_ref().map(|p| &p.manifest));
    let mut kept_chunks = Vec::new();
    let mut kept_vectors = opts.embedder.map(|e| DenseMatrix::new(e.dim()));
    if let Some(prev) = &previous {
        for (row, chunk) in prev.chunks.iter().enumerate() {
            if plan.unchanged.contains(chunk.document.as_str()) {
                if let (Some(kv), Some(pv)) = (kept_vectors.as_mut(), prev.vectors.as_ref()) {
                    kv.push(pv.row(row))?;
                }
                kept_chunks.push(chunk.clone());
            }
        }
    }

    let fresh_docs: Vec<&Document> = docs
        .iter()
        .filter(|d| !plan.unchanged.contains(d.path.as_str()))
        .collect();
    let mut fresh_chunks: Vec<Chunk> = fresh_docs
        .iter()
        .flat_map(|d| corpus::chunk_document(d, &opts.chunking))
        .collect();
    progress(IndexProgress::Scanned {
        documents: docs.len(),
        to_embed: fresh_chunks.len(),
    });

    let fresh_vectors = match opts.embedder {
        Some(embedder) => Some(embed_all(embedder, &fresh_chunks, progress)?),
        None => None,
    };
    progress(IndexProgress::Writing);

    // Sparse index: create or update in place.
    let dir = opts.index_dir;
    std::fs::create_dir_all(dir).map_err(|e| IndexError::io(dir, e))?;
    let sparse = match previous {
        Some(prev) => prev.sparse,
        None => fresh_sparse(dir)?,
    };
    let mut writer = sparse.writer()?;
    for path in plan.changed.iter().chain(plan.removed.iter()) {
        writer.delete_document(path);
    }
    for chunk in &fresh_chunks {
        writer.add(chunk)?;
    }
    writer.commit()?;
    sparse.reload()?;

    let embedded_chunks = fresh_chunks.len();
    let mut all_chunks = kept_chunks;
    all_chunks.append(&mut fresh_chunks);
    let mut vectors = kept_vectors;
    if let (Some(v), Some(fresh)) = (vectors.as_mut(), fresh_vectors) {
        for row in &fresh {
            v.push(row)?;
        }
    }
    if let Some(v) = &vectors {
        v.write(&dir.join(VECTORS))?;
    } else {
        let _ = std::fs::remove_file(dir.join(VECTORS));
    }
    let chunk_bytes = serde_json::to_vec(&all_chunks)
        .map_err(|e| IndexError::corrupt(dir.join(CHUNKS), e.to_string()))?;
    write_atomic(&dir.join(CHUNKS), &chunk_bytes)?;

    let mut chunk_counts: HashMap<&str, usize> = HashMap::new();
    for c in &all_chunks {
        *chunk_counts.entry(c.document.as_str()).or_insert(0) += 1;
    }
    let manifest = Manifest {
        format: FORMAT_VERSION,
        embedding_model: model_id,
        chunk_target_words: opts.chunking.target_words,
        chunk_max_words: opts.chunking.max_words,
        documents: docs
            .iter()
            .map(|d| {
                let entry = DocEntry {
                    hash: d.hash.clone(),
                    title: d.title.clone(),
                    year: d.year,
                    chunks: chunk_counts.get(d.path.as_str()).copied().unwrap_or(0),
                };
                (d.path.clone(), entry)
            })
            .collect(),
    };
    // The manifest goes last: until it is written, the old manifest disagrees with the new
    // parts and `open` reports the index as damaged rather than serving a mix.
    manifest.write(&dir.join(MANIFEST))?;

    Ok(IndexReport {
        documents: manifest.documents.len(),
        chunks: all_chunks.len(),
        years: manifest
            .years()
            .into_iter()
            .map(|(y, n)| (y.to_string(), n))
            .collect(),
        dense: vectors.is_some(),
        seconds: started.elapsed().as_secs_f64(),
        added: plan.added,
        changed: plan.changed.len(),
        removed: plan.removed.len(),
        unchanged: plan.unchanged.len(),
        embedded_chunks,
        skipped,
        rebuilt,
    })
}

/// Holds an exclusive lock on the index folder for the length of a build, so two `fathom index`
/// runs cannot interleave their writes. The OS releases it if the process dies.
fn lock_index(dir: &Path) -> Result<std::fs::File, IndexError> {
    let path = dir.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| IndexError::io(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(IndexError::Busy {
            path: dir.to_path_buf(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(IndexError::io(&path, e)),
    }
}

/// Opens the existing index if it can be updated in place; otherwise says why it is rebuilt.
fn previous_index(
    opts: &BuildOptions,
    model_id: Option<&str>,
) -> (Option<IndexStore>, Option<String>) {
    let dir = opts.index_dir;
    let reason = if opts.rebuild {
        Some("rebuild requested".to_string())
    } else {
        match IndexStore::open(dir) {
            Err(IndexError::Missing { .. }) => None,
            Err(e) => Some(format!("{e}")),
            Ok(store) => {
                let m = store.manifest();
                if m.embedding_model.as_deref() != model_id {
                    Some(format!(
                        "embedding model changed ({} → {})",
                        m.embedding_model.as_deref().unwrap_or("none"),
                        model_id.unwrap_or("none")
                    ))
                } else if m.chunk_target_words != opts.chunking.target_words
                    || m.chunk_max_words != opts.chunking.max_words
                {
                    Some("chunk size changed".to_string())
                } else {
                    return (Some(store), None);
                }
            }
        }
    };
    if dir.exists() {
        // Only ever remove what fathom itself writes there.
        for name in [MANIFEST, CHUNKS, VECTORS] {
            let _ = std::fs::remove_file(dir.join(name));
        }
        let _ = std::fs::remove_dir_all(dir.join(BM25));
    }
    (None, reason)
}

fn fresh_sparse(dir: &Path) -> Result<SparseIndex, IndexError> {
    let path = dir.join(BM25);
    std::fs::create_dir_all(&path).map_err(|e| IndexError::io(&path, e))?;
    SparseIndex::create(&path)
}

/// Which documents are new, changed, removed or unchanged since the last run.
struct Plan {
    added: usize,
    changed: Vec<String>,
    removed: Vec<String>,
    unchanged: HashSet<String>,
}

impl Plan {
    fn new(docs: &[Document], previous: Option<&Manifest>) -> Plan {
        let mut plan = Plan {
            added: 0,
            changed: Vec::new(),
            removed: Vec::new(),
            unchanged: HashSet::new(),
        };
        let empty = BTreeMap::new();
        let before = previous.map(|m| &m.documents).unwrap_or(&empty);
        for d in docs {
            match before.get(&d.path) {
                None => plan.added += 1,
                Some(e) if e.hash == d.hash => {
                    plan.unchanged.insert(d.path.clone());
                }
                Some(_) => plan.changed.push(d.path.clone()),
            }
        }
        let present: HashSet<&str> = docs.iter().map(|d| d.path.as_str()).collect();
        plan.removed = before
            .keys()
            .filter(|p| !present.contains(p.as_str()))
            .cloned()
            .collect();
        plan
    }
}

/// Embeds chunk texts longest-first in groups, so batches hold similar lengths (little padding)
/// and progress is reported as it goes. Returns vectors in the chunks' order.
fn embed_all(
    embedder: &Embedder,
    chunks: &[Chunk],
    progress: &mut dyn FnMut(IndexProgress),
) -> Result<Vec<Vec<f32>>, IndexError> {
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(chunks[i].text.len()));
    let mut out = vec![Vec::new(); chunks.len()];
    let total = chunks.len();
    let mut done = 0;
    progress(IndexProgress::Embedded { done, total });
    for group in order.chunks(EMBED_GROUP) {
        let texts: Vec<String> = group.iter().map(|&i| embed_text(&chunks[i])).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed_documents(&refs)?;
        for (&i, v) in group.iter().zip(vectors) {
            if v.len() != embedder.dim() {
                return Err(IndexError::DimensionMismatch {
                    expected: embedder.dim(),
                    got: v.len(),
                });
            }
            out[i] = v;
        }
        done += group.len();
        progress(IndexProgress::Embedded { done, total });
    }
    Ok(out)
}

/// The text a chunk is embedded as: its date in words, then its text, so a question that names
/// a date leans towards passages of that date.
pub fn embed_text(chunk: &Chunk) -> String {
    match chunk.date {
        Some(d) => format!("{}. {}", d.long_form(), chunk.text),
        None => chunk.text.clone(),
    }
}
