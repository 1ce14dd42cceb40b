//! Building and updating the index, in generations (see [`super::generation`]).
//!
//! Phase 1 ([`build_sparse`]) streams the corpus one document at a time into a new generation:
//! the BM25 index (hard-linked from the served generation, then updated) and the chunk table,
//! plus every vector already known (from the served generation or the vector cache). It
//! publishes that generation — BM25 answers work from here on — and returns.
//! Phase 2 ([`SparseBuilt::embed`]) embeds the chunks still without a vector, appending each
//! batch to the vector cache as it is made, and publishes generations that add the vectors (every
//! minute or so, and at the end). A build killed anywhere leaves the last published generation
//! serving, and the next build starts from the vectors already in the cache.
//!
//! Write order inside a generation: BM25 commit, vectors, chunk table, manifest; then `CURRENT`.

use super::chunk_table::{self, ChunkTableWriter};
use super::dense::{self, DenseMatrix, VectorsPart, VectorsWriter};
use super::embed::Embedder;
use super::error::IndexError;
use super::eta::Eta;
use super::fsio::fsync_dir;
use super::generation::{self, GenerationId};
use super::hold;
use super::legacy;
use super::manifest::{DocEntry, FilePart, Manifest, Parts, VectorsEntry, FORMAT_VERSION};
use super::sparse::{self, SparseIndex, SparseWriter};
use super::store::{embed_text, DenseCoverage, IndexStore, BM25_DIR};
use super::vector_cache::{self, Key, VectorCache};
use crate::corpus::{self, Chunk, ChunkOptions, SkippedFile};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What building or updating the index did.
#[derive(Debug, Clone, Serialize)]
pub struct IndexReport {
    pub documents: usize,
    pub chunks: usize,
    /// Documents per year.
    pub years: BTreeMap<String, usize>,
    /// Every chunk has a dense vector: retrieval is hybrid.
    pub dense: bool,
    pub seconds: f64,
    /// Seconds until the generation with the new BM25 index and chunk table was published
    /// (searches work from then on, BM25 alone until the vectors are complete).
    pub sparse_seconds: f64,
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    pub unchanged: usize,
    pub embedded_chunks: EmbeddedChunks,
    pub skipped: Vec<SkippedReport>,
    /// Why the whole index was rebuilt (or all its vectors recomputed), if it was.
    pub rebuilt: Option<String>,
    /// Set when the served generation was damaged and this build replaced it.
    pub repaired: Option<String>,
    /// The generation served when the build ended.
    pub generation: String,
    /// Generations this build published (0 when nothing had changed).
    pub published: usize,
}

/// Where the chunks' vectors came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EmbeddedChunks {
    /// Embedded by the model during this build.
    pub computed: usize,
    /// Already embedded: taken from the previous generation or the vector cache.
    pub reused: usize,
    /// Still without a vector (the build was cancelled); 0 for a BM25-only index.
    pub missing: usize,
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
    /// The corpus is read: its documents, and the chunks that still need the model.
    Scanned {
        documents: usize,
        to_embed: usize,
    },
    Skipped {
        path: String,
        reason: String,
    },
    /// Chunks embedded so far out of `total`, and the time left at the rate so far.
    Embedded {
        done: usize,
        total: usize,
        eta: Option<Duration>,
    },
    Rebuilding {
        reason: String,
    },
    /// Writing a generation.
    Writing,
    /// A generation is published and served from now on; the first one of a build makes BM25
    /// search work, the last one completes the dense vectors.
    Published {
        generation: String,
        dense: DenseCoverage,
    },
}

pub struct BuildOptions<'a> {
    pub corpus_root: &'a Path,
    pub index_dir: &'a Path,
    pub embedder: Option<&'a Embedder>,
    pub chunking: ChunkOptions,
    /// Where links in the corpus folder may lead (`corpus.follow_links_outside`).
    pub links: corpus::LinkPolicy,
    /// Build a new chunk table and BM25 index from scratch instead of updating what changed
    /// (vectors of unchanged chunk texts still come from the vector cache).
    pub rebuild: bool,
}

/// Chunks embedded per step: one embedder batch, so progress moves even on a small corpus and
/// a killed build loses at most one batch.
const EMBED_GROUP: usize = 32;
/// How often phase 2 publishes the vectors made so far (and always at the end).
const PUBLISH_EVERY: Duration = Duration::from_secs(60);

/// Brings the index in `opts.index_dir` up to date with the corpus — both phases, blocking.
pub fn build(
    opts: &BuildOptions,
    progress: &mut dyn FnMut(IndexProgress),
) -> Result<IndexReport, IndexError> {
    let sparse = build_sparse(opts, progress)?;
    match opts.embedder {
        Some(e) => sparse.embed(e, &AtomicBool::new(false), progress),
        None => Ok(sparse.finish()),
    }
}

/// Phase 1 done: a generation with the BM25 index and the chunk table is served. Holds the
/// index lock until phase 2 ends (or this is dropped).
pub struct SparseBuilt {
    _lock: std::fs::File,
    index_dir: PathBuf,
    started: Instant,
    report: IndexReport,
    model_id: Option<String>,
    cache: Option<VectorCache>,
    /// The served generation.
    generation: GenerationId,
}

impl SparseBuilt {
    /// What phase 1 did (the vectors are still `embedded_chunks.missing` short).
    pub fn report(&self) -> &IndexReport {
        &self.report
    }

    pub fn generation(&self) -> GenerationId {
        self.generation
    }

    /// Chunks phase 2 would embed.
    pub fn dense_missing(&self) -> usize {
        self.report.embedded_chunks.missing
    }

    /// Ends the build without embedding (BM25-only, or dense deferred to a later build).
    pub fn finish(mut self) -> IndexReport {
        self.report.seconds = self.started.elapsed().as_secs_f64();
        self.report
    }

    /// Phase 2: embeds the chunks without a vector and publishes the vectors. Stops between
    /// batches when `cancel` is set; what was embedded is kept in the vector cache either way.
    pub fn embed(
        mut self,
        embedder: &Embedder,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexReport, IndexError> {
        let (Some(model_id), Some(mut cache)) = (self.model_id.clone(), self.cache.take()) else {
            return Ok(self.finish());
        };
        if embedder.model_id() != model_id {
            return Err(IndexError::corrupt(
                &self.index_dir,
                format!(
                    "phase 1 indexed for model {model_id}, phase 2 was given {}",
                    embedder.model_id()
                ),
            ));
        }
        let store = IndexStore::open_generation(&self.index_dir, self.generation)?;
        let rows = row_sources(store.chunks(), &model_id, Some);
        let have = store.partial_vectors();
        // One embedding per distinct text, longest first so batches pad little.
        let mut todo: HashMap<Key, (usize, usize)> = HashMap::new();
        for (i, r) in rows.iter().enumerate() {
            if !have.is_some_and(|v| v.is_present(i)) {
                todo.entry(r.key).or_insert((i, 0)).1 += 1;
            }
        }
        let mut todo: Vec<(Key, usize, usize)> =
            todo.into_iter().map(|(k, (row, n))| (k, row, n)).collect();
        let cost = |row: usize| embed_cost(&store.chunks()[row]);
        todo.sort_by_key(|&(_, row, _)| (std::cmp::Reverse(cost(row)), row));
        let total: usize = todo.iter().map(|t| t.2).sum();
        let mut eta = Eta::new(todo.iter().map(|t| cost(t.1)).sum());
        let mut done = 0;
        let mut cancelled = false;
        let mut table_src = store.generation_dir();
        let mut last_publish = Instant::now();
        progress(IndexProgress::Embedded {
            done,
            total,
            eta: None,
        });
        for group in todo.chunks(EMBED_GROUP) {
            if cancel.load(Ordering::Relaxed) {
                cancelled = true;
                break;
            }
            let texts: Vec<String> = group
                .iter()
                .map(|t| embed_text(&store.chunks()[t.1]))
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = embedder.embed_documents(&refs)?;
            let mut entries = Vec::with_capacity(group.len());
            for (t, v) in group.iter().zip(vectors) {
                if v.len() != cache.dim() {
                    return Err(IndexError::DimensionMismatch {
                        expected: cache.dim(),
                        got: v.len(),
                    });
                }
                entries.push((t.0, v));
            }
            cache.append(&entries)?;
            done += group.iter().map(|t| t.2).sum::<usize>();
            eta.advance(group.iter().map(|t| cost(t.1)).sum());
            progress(IndexProgress::Embedded {
                done,
                total,
                eta: eta.remaining(),
            });
            hold::point("embed", "after_batch");
            if done < total && last_publish.elapsed() >= PUBLISH_EVERY {
                let id = self.publish_dense(&store, &table_src, &rows, &cache, progress)?;
                table_src = id.dir_in(&self.index_dir);
                last_publish = Instant::now();
            }
        }
        if done > 0 && !cancelled {
            self.publish_dense(&store, &table_src, &rows, &cache, progress)?;
        }
        let live: HashSet<Key> = rows.iter().map(|r| r.key).collect();
        if cache.compact_if_stale(&live)? {
            tracing::info!("compacted the vector cache");
        }
        self.report.embedded_chunks.computed = done;
        self.report.embedded_chunks.missing = total - done;
        self.report.dense = done == total;
        Ok(self.finish())
    }

    fn publish_dense(
        &mut self,
        store: &IndexStore,
        table_src: &Path,
        rows: &[RowSource],
        cache: &VectorCache,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<GenerationId, IndexError> {
        progress(IndexProgress::Writing);
        let vectors = Vectors {
            model_id: self.model_id.as_deref(),
            rows,
            previous: store.partial_vectors(),
            cache: Some(cache),
        };
        let (id, coverage) = publish_shared_table(
            &self.index_dir,
            store.manifest(),
            table_src,
            &vectors,
            "dense",
            Some(self.generation),
        )?;
        self.generation = id;
        self.report.generation = id.to_string();
        self.report.published += 1;
        progress(IndexProgress::Published {
            generation: id.to_string(),
            dense: coverage,
        });
        Ok(id)
    }
}

/// Phase 1: brings the chunk table and BM25 index up to date with the corpus and publishes
/// them with every vector already known. Returns once BM25 search works on the new generation.
pub fn build_sparse(
    opts: &BuildOptions,
    progress: &mut dyn FnMut(IndexProgress),
) -> Result<SparseBuilt, IndexError> {
    let started = Instant::now();
    let dir = opts.index_dir;
    std::fs::create_dir_all(dir).map_err(|e| IndexError::io(dir, e))?;
    let lock = lock_index(dir)?;
    let model = opts.embedder.map(|e| (e.model_id(), e.dim()));
    let model_id = model.as_ref().map(|m| m.0.clone());
    let mut cache = match &model {
        Some((id, d)) => Some(VectorCache::open(dir, id, *d)?),
        None => None,
    };
    for note in cache.iter().flat_map(|c| c.repairs.iter()) {
        tracing::warn!("{note}");
    }
    let mut rebuilt = None;
    if generation::is_legacy(dir) {
        let imported = match cache.as_mut() {
            Some(c) => legacy::import_vectors(dir, c)?,
            None => 0,
        };
        rebuilt = Some(format!(
            "index format {} → {FORMAT_VERSION} ({imported} vectors kept)",
            legacy::format_of(dir)
        ));
        generation::remove_legacy(dir);
    }
    remove_unpublished(dir);

    let mut repaired = None;
    let previous = if opts.rebuild {
        rebuilt = Some("rebuild requested".to_string());
        None
    } else {
        match IndexStore::open(dir) {
            Ok(store) => {
                repaired = store.fallback();
                let m = store.manifest();
                if m.chunk_target_words != opts.chunking.target_words
                    || m.chunk_max_words != opts.chunking.max_words
                {
                    rebuilt = Some("chunk size changed".to_string());
                    None
                } else if m.chunker != corpus::CHUNKER_VERSION {
                    rebuilt = Some(format!(
                        "chunker changed ({} → {})",
                        m.chunker,
                        corpus::CHUNKER_VERSION
                    ));
                    None
                } else {
                    if m.embedding_model != model_id {
                        rebuilt = Some(format!(
                            "embedding model changed ({} → {})",
                            m.embedding_model.as_deref().unwrap_or("none"),
                            model_id.as_deref().unwrap_or("none")
                        ));
                    }
                    Some(store)
                }
            }
            Err(IndexError::Missing { .. }) => None,
            Err(e) => {
                rebuilt = Some(e.to_string());
                None
            }
        }
    };
    if let Some(reason) = rebuilt.as_ref().or(repaired.as_ref()) {
        progress(IndexProgress::Rebuilding {
            reason: reason.clone(),
        });
    }
    // Vectors of the served generation count only if the same model made them.
    let previous_vectors = previous
        .as_ref()
        .filter(|p| p.manifest().embedding_model == model_id)
        .and_then(|p| p.partial_vectors());

    let mut scan = Scan::new(opts, previous.as_ref(), model_id.as_deref())?;
    let mut skipped: Vec<SkippedReport> = scan.skipped.drain(..).map(Into::into).collect();
    scan.run(progress, &mut skipped)?;

    let chunk_count;
    let served;
    let mut reused = 0;
    let mut missing = 0;
    let mut published = 0;
    let dense_total;
    match scan.table.take() {
        Some(table) => {
            let NewTable {
                id,
                dir: gen_dir,
                chunks,
                bm25,
                rows,
            } = table;
            let vectors = Vectors {
                model_id: model_id.as_deref(),
                rows: &rows,
                previous: previous_vectors,
                cache: cache.as_ref(),
            };
            chunk_count = chunks.count();
            if model_id.is_some() {
                reused = vectors.available();
                missing = chunk_count - reused;
            }
            progress(IndexProgress::Scanned {
                documents: scan.documents.len(),
                to_embed: missing,
            });
            progress(IndexProgress::Writing);
            bm25.commit_with_payload(&id.to_string())?;
            hold::point("sparse", "after_bm25");
            let vectors_part = vectors_entry(vectors.write(&gen_dir, id, id)?);
            hold::point("sparse", "after_vectors");
            let chunk_part = chunks.finish()?;
            hold::point("sparse", "after_chunks");
            let manifest = Manifest {
                format: FORMAT_VERSION,
                generation: id.to_string(),
                table: id.to_string(),
                embedding_model: model_id.clone(),
                chunk_target_words: opts.chunking.target_words,
                chunk_max_words: opts.chunking.max_words,
                chunker: corpus::CHUNKER_VERSION,
                parts: Parts {
                    chunks: FilePart {
                        file: chunk_table::FILE.to_string(),
                        sha256: chunk_part.written.sha256,
                        bytes: chunk_part.written.bytes,
                        count: chunk_count,
                    },
                    vectors: vectors_part,
                    bm25_docs: chunk_count as u64,
                },
                documents: scan.documents.clone(),
            };
            switch_to(dir, &gen_dir, id, &manifest, "sparse", scan.base)?;
            served = id;
            dense_total = chunk_count;
            published += 1;
        }
        None => {
            // The corpus is as the served generation has it: keep its table, and publish
            // again only if the vectors it can have changed.
            let prev = previous
                .as_ref()
                .ok_or_else(|| IndexError::Missing { path: dir.into() })?;
            chunk_count = prev.chunks().len();
            dense_total = chunk_count;
            let rows = match &model_id {
                Some(m) => row_sources(prev.chunks(), m, Some),
                None => Vec::new(),
            };
            let vectors = Vectors {
                model_id: model_id.as_deref(),
                rows: &rows,
                previous: previous_vectors,
                cache: cache.as_ref(),
            };
            if model_id.is_some() {
                reused = vectors.available();
                missing = chunk_count - reused;
            }
            progress(IndexProgress::Scanned {
                documents: scan.documents.len(),
                to_embed: missing,
            });
            let had = previous_vectors.map_or(0, |v| v.present());
            let model_changed = prev.manifest().embedding_model != model_id;
            if model_changed || reused > had || repaired.is_some() {
                progress(IndexProgress::Writing);
                let (id, _) = publish_shared_table(
                    dir,
                    prev.manifest(),
                    &prev.generation_dir(),
                    &vectors,
                    "sparse",
                    Some(prev.generation()),
                )?;
                served = id;
                published += 1;
            } else {
                served = prev.generation();
            }
        }
    }
    if published > 0 {
        progress(IndexProgress::Published {
            generation: served.to_string(),
            dense: DenseCoverage {
                embedded: if model_id.is_some() { reused } else { 0 },
                total: dense_total,
            },
        });
    }
    let report = IndexReport {
        documents: scan.documents.len(),
        chunks: chunk_count,
        years: years(&scan.documents),
        dense: model_id.is_some() && missing == 0,
        seconds: started.elapsed().as_secs_f64(),
        sparse_seconds: started.elapsed().as_secs_f64(),
        added: scan.added,
        changed: scan.changed,
        removed: scan.removed,
        unchanged: scan.unchanged,
        embedded_chunks: EmbeddedChunks {
            computed: 0,
            reused,
            missing,
        },
        skipped,
        rebuilt,
        repaired,
        generation: served.to_string(),
        published,
    };
    Ok(SparseBuilt {
        _lock: lock,
        index_dir: dir.to_path_buf(),
        started,
        report,
        model_id,
        cache,
        generation: served,
    })
}

/// Removes generations newer than `CURRENT`: a build was killed before publishing them. When
/// `CURRENT` cannot be read nothing is removed (the next publication cleans up).
fn remove_unpublished(dir: &Path) {
    let Ok(current) = generation::read_current(dir) else {
        return;
    };
    let keep: Vec<GenerationId> = generation::list(dir)
        .into_iter()
        .filter(|g| current.is_some_and(|c| *g <= c))
        .collect();
    generation::remove_except(dir, &keep);
}

/// Where row `i`'s vector can come from: its key in the vector cache, and its row in the
/// served generation's matrix when the chunk is unchanged.
struct RowSource {
    key: Key,
    previous_row: Option<usize>,
}

fn row_sources(
    chunks: &[Chunk],
    model_id: &str,
    previous_row: impl Fn(usize) -> Option<usize>,
) -> Vec<RowSource> {
    chunks
        .iter()
        .enumerate()
        .map(|(i, c)| RowSource {
            key: vector_cache::key(model_id, &embed_text(c)),
            previous_row: previous_row(i),
        })
        .collect()
}

/// Embedding cost of a chunk, for the ETA: its length, capped where the model truncates.
fn embed_cost(chunk: &Chunk) -> usize {
    chunk.text.len().min(1600) + 64
}

/// Everything a vectors part can be written from.
struct Vectors<'a> {
    model_id: Option<&'a str>,
    rows: &'a [RowSource],
    previous: Option<&'a DenseMatrix>,
    cache: Option<&'a VectorCache>,
}

impl Vectors<'_> {
    fn lookup(&self, r: &RowSource) -> Result<Option<Cow<'_, [f32]>>, IndexError> {
        if let (Some(m), Some(row)) = (self.previous, r.previous_row) {
            if m.is_present(row) {
                return Ok(Some(Cow::Borrowed(m.row(row))));
            }
        }
        match self.cache {
            Some(c) => Ok(c.get(&r.key)?.map(Cow::Owned)),
            None => Ok(None),
        }
    }

    fn available(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| {
                r.previous_row
                    .zip(self.previous)
                    .is_some_and(|(row, m)| m.is_present(row))
                    || self.cache.is_some_and(|c| c.contains(&r.key))
            })
            .count()
    }

    fn dim(&self) -> Option<usize> {
        self.cache
            .map(|c| c.dim())
            .or(self.previous.map(|m| m.dim()))
    }

    /// Writes the vectors part into `gen_dir` when there is a model and at least one vector.
    fn write(
        &self,
        gen_dir: &Path,
        table: GenerationId,
        generation: GenerationId,
    ) -> Result<Option<VectorsPart>, IndexError> {
        let (Some(_), Some(dim)) = (self.model_id, self.dim()) else {
            return Ok(None);
        };
        if self.available() == 0 {
            return Ok(None);
        }
        let mut w = VectorsWriter::create(&gen_dir.join(dense::FILE), dim)?;
        for r in self.rows {
            w.push(self.lookup(r)?.as_deref())?;
        }
        Ok(Some(w.finish(table, generation)?))
    }
}

fn vectors_entry(part: Option<VectorsPart>) -> Option<VectorsEntry> {
    part.map(|v| VectorsEntry {
        file: dense::FILE.to_string(),
        sha256: v.written.sha256,
        bytes: v.written.bytes,
        dim: v.dim,
        rows: v.rows,
        embedded: v.embedded,
    })
}

/// Publishes a generation that shares the chunk table and BM25 index of the generation in
/// `table_src` (hard links) with a new vectors part.
fn publish_shared_table(
    dir: &Path,
    base: &Manifest,
    table_src: &Path,
    vectors: &Vectors,
    kind: &str,
    keep: Option<GenerationId>,
) -> Result<(GenerationId, DenseCoverage), IndexError> {
    let id = generation::next_id(dir, generation::read_current(dir).ok().flatten());
    let gen_dir = id.dir_in(dir);
    std::fs::create_dir(&gen_dir).map_err(|e| IndexError::io(&gen_dir, e))?;
    let table = base
        .table_id()
        .ok_or_else(|| IndexError::corrupt(table_src, "bad table id"))?;
    sparse::link_index(&table_src.join(BM25_DIR), &gen_dir.join(BM25_DIR))?;
    fsync_dir(&gen_dir.join(BM25_DIR))?;
    hold::point(kind, "after_bm25");
    let part = vectors.write(&gen_dir, table, id)?;
    let coverage = DenseCoverage {
        embedded: part.as_ref().map_or(0, |p| p.embedded),
        total: base.parts.chunks.count,
    };
    hold::point(kind, "after_vectors");
    generation::link_or_copy(
        &table_src.join(chunk_table::FILE),
        &gen_dir.join(chunk_table::FILE),
    )?;
    hold::point(kind, "after_chunks");
    let mut manifest = base.clone();
    manifest.generation = id.to_string();
    manifest.embedding_model = vectors.model_id.map(str::to_string);
    manifest.parts.vectors = vectors_entry(part);
    switch_to(dir, &gen_dir, id, &manifest, kind, keep)?;
    Ok((id, coverage))
}

/// Writes the manifest last, makes the generation durable, points `CURRENT` at it, and removes
/// generations other than it and `keep` (the one served before).
fn switch_to(
    dir: &Path,
    gen_dir: &Path,
    id: GenerationId,
    manifest: &Manifest,
    kind: &str,
    keep: Option<GenerationId>,
) -> Result<(), IndexError> {
    manifest.write(gen_dir)?;
    fsync_dir(gen_dir)?;
    fsync_dir(dir)?;
    hold::point(kind, "after_manifest");
    generation::write_current(dir, id)?;
    let keep: Vec<GenerationId> = std::iter::once(id).chain(keep).collect();
    generation::remove_except(dir, &keep);
    Ok(())
}

/// A new generation being written: its chunk table and BM25 index, row by row.
struct NewTable {
    id: GenerationId,
    dir: PathBuf,
    chunks: ChunkTableWriter,
    bm25: SparseWriter,
    rows: Vec<RowSource>,
}

/// Phase 1's pass over the corpus: one document in memory at a time.
struct Scan<'a> {
    opts: &'a BuildOptions<'a>,
    previous: Option<&'a IndexStore>,
    /// Rows of each document in the served generation.
    previous_rows: HashMap<&'a str, Vec<usize>>,
    model_id: Option<&'a str>,
    files: Vec<PathBuf>,
    skipped: Vec<SkippedFile>,
    documents: BTreeMap<String, DocEntry>,
    /// Unchanged documents met before anything changed: their rows are copied once a new
    /// table is started, so rows stay in corpus order.
    pending: Vec<String>,
    table: Option<NewTable>,
    /// The generation served before this build (kept after the switch).
    base: Option<GenerationId>,
    added: usize,
    changed: usize,
    removed: usize,
    unchanged: usize,
}

impl<'a> Scan<'a> {
    fn new(
        opts: &'a BuildOptions<'a>,
        previous: Option<&'a IndexStore>,
        model_id: Option<&'a str>,
    ) -> Result<Self, IndexError> {
        let discovered = corpus::discover_with(opts.corpus_root, opts.links)?;
        let mut previous_rows: HashMap<&str, Vec<usize>> = HashMap::new();
        if let Some(p) = previous {
            for (i, c) in p.chunks().iter().enumerate() {
                previous_rows
                    .entry(c.document.as_str())
                    .or_default()
                    .push(i);
            }
        }
        Ok(Scan {
            opts,
            previous,
            previous_rows,
            model_id,
            files: discovered.files,
            skipped: discovered.skipped,
            documents: BTreeMap::new(),
            pending: Vec::new(),
            table: None,
            base: previous.map(|p| p.generation()),
            added: 0,
            changed: 0,
            removed: 0,
            unchanged: 0,
        })
    }

    fn run(
        &mut self,
        progress: &mut dyn FnMut(IndexProgress),
        skipped: &mut Vec<SkippedReport>,
    ) -> Result<(), IndexError> {
        let files = std::mem::take(&mut self.files);
        let mut seen = HashSet::new();
        for path in &files {
            let doc = match corpus::load_document(self.opts.corpus_root, path) {
                Ok(doc) => doc,
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
                    continue;
                }
            };
            seen.insert(doc.path.clone());
            let before = self
                .previous
                .and_then(|p| p.manifest().documents.get(&doc.path));
            match before {
                Some(e) if e.hash == doc.hash => {
                    self.unchanged += 1;
                    self.documents.insert(doc.path.clone(), e.clone());
                    if self.table.is_some() {
                        self.copy_rows(&doc.path)?;
                    } else {
                        self.pending.push(doc.path.clone());
                    }
                }
                _ => {
                    let chunks = corpus::chunk_document(&doc, &self.opts.chunking);
                    self.documents.insert(
                        doc.path.clone(),
                        DocEntry {
                            hash: doc.hash.clone(),
                            title: doc.title.clone(),
                            year: doc.year,
                            chunks: chunks.len(),
                        },
                    );
                    let doc_path = doc.path.clone();
                    drop(doc);
                    if before.is_some() {
                        self.changed += 1;
                    } else {
                        self.added += 1;
                    }
                    self.start_table()?;
                    let model_id = self.model_id;
                    let Some(t) = self.table.as_mut() else {
                        continue;
                    };
                    if before.is_some() {
                        // Deleted before its new chunks are added, so only the old ones go.
                        t.bm25.delete_document(&doc_path);
                    }
                    for c in &chunks {
                        t.chunks.push(c)?;
                        t.bm25.add(c)?;
                        if let Some(m) = model_id {
                            t.rows.push(RowSource {
                                key: vector_cache::key(m, &embed_text(c)),
                                previous_row: None,
                            });
                        }
                    }
                }
            }
        }
        let gone: Vec<String> = self
            .previous
            .map(|p| {
                p.manifest()
                    .documents
                    .keys()
                    .filter(|k| !seen.contains(*k))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        if !gone.is_empty() {
            self.start_table()?;
            if let Some(t) = self.table.as_mut() {
                for d in &gone {
                    t.bm25.delete_document(d);
                }
            }
        }
        self.removed = gone.len();
        if self.previous.is_none() && self.table.is_none() {
            // An empty corpus and no index yet: an empty generation.
            self.start_table()?;
        }
        Ok(())
    }

    /// Starts the new generation (once), carrying over the unchanged documents met so far.
    fn start_table(&mut self) -> Result<(), IndexError> {
        if self.table.is_some() {
            return Ok(());
        }
        let dir = self.opts.index_dir;
        let id = generation::next_id(dir, generation::read_current(dir).ok().flatten());
        let gen_dir = id.dir_in(dir);
        std::fs::create_dir(&gen_dir).map_err(|e| IndexError::io(&gen_dir, e))?;
        let bm25_dir = gen_dir.join(BM25_DIR);
        let sparse = match self.previous {
            Some(p) => {
                sparse::link_index(&p.generation_dir().join(BM25_DIR), &bm25_dir)?;
                SparseIndex::open(&bm25_dir)?
            }
            None => {
                std::fs::create_dir(&bm25_dir).map_err(|e| IndexError::io(&bm25_dir, e))?;
                SparseIndex::create(&bm25_dir)?
            }
        };
        self.table = Some(NewTable {
            id,
            chunks: ChunkTableWriter::create(&gen_dir, id)?,
            bm25: sparse.writer()?,
            dir: gen_dir,
            rows: Vec::new(),
        });
        for path in std::mem::take(&mut self.pending) {
            self.copy_rows(&path)?;
        }
        Ok(())
    }

    /// Copies an unchanged document's rows from the served generation into the new table
    /// (BM25 already has them: its files are linked).
    fn copy_rows(&mut self, document: &str) -> Result<(), IndexError> {
        let (Some(prev), Some(t)) = (self.previous, self.table.as_mut()) else {
            return Ok(());
        };
        for &row in self.previous_rows.get(document).into_iter().flatten() {
            let c = &prev.chunks()[row];
            t.chunks.push(c)?;
            if let Some(m) = self.model_id {
                t.rows.push(RowSource {
                    key: vector_cache::key(m, &embed_text(c)),
                    previous_row: Some(row),
                });
            }
        }
        Ok(())
    }
}

fn years(documents: &BTreeMap<String, DocEntry>) -> BTreeMap<String, usize> {
    let mut years = BTreeMap::new();
    for d in documents.values() {
        if let Some(y) = d.year {
            *years.entry(y.to_string()).or_insert(0) += 1;
        }
    }
    years
}

/// Holds an exclusive lock on the index folder for the length of a build, so two builds cannot
/// interleave their writes. The OS releases it if the process dies; the file itself stays.
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
