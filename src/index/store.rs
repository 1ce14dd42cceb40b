//! An opened index generation: manifest, chunk table, vectors and BM25 index, checked against
//! each other (ids and checksums, not just counts) so a partial write or a mix of two builds is
//! caught, never searched. Building lives in [`super::build`]; its types are re-exported here.

use super::chunk_table;
use super::dense::{DenseMatrix, PartIds, VectorsPart};
use super::error::IndexError;
use super::fsio::Written;
use super::generation::{self, GenerationId};
use super::manifest::{self, Manifest};
use super::sparse::SparseIndex;
use crate::corpus::Chunk;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use super::build::{
    build, build_sparse, BuildOptions, EmbeddedChunks, IndexProgress, IndexReport, SkippedReport,
    SparseBuilt,
};
pub use super::vector_cache::embed_text;

pub(crate) const BM25_DIR: &str = "bm25";
/// A row without a year in [`IndexStore`]'s compact year column.
const NO_YEAR: i32 = i32::MIN;

/// How much of the index has dense vectors: hybrid retrieval needs all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DenseCoverage {
    pub embedded: usize,
    pub total: usize,
}

impl DenseCoverage {
    pub fn is_complete(&self) -> bool {
        self.embedded == self.total
    }
}

/// An opened index, ready to search.
pub struct IndexStore {
    dir: PathBuf,
    generation: GenerationId,
    manifest: Manifest,
    chunks: Vec<Chunk>,
    by_id: HashMap<String, usize>,
    /// Each row's year (`NO_YEAR` when undated), so a year filter reads 4 bytes a row.
    row_years: Vec<i32>,
    /// The distinct dates of the dated chunks, ascending (for "the meeting before this one").
    dates: Vec<crate::corpus::Date>,
    vectors: Option<DenseMatrix>,
    sparse: SparseIndex,
    /// When `CURRENT` names a damaged generation and an older one is served instead: which one
    /// and why.
    fallback: Option<(GenerationId, String)>,
}

impl IndexStore {
    /// Opens the generation `CURRENT` in `dir` names. If it fails its checks, the newest older
    /// generation that passes them is served instead (see [`IndexStore::fallback`]); only when
    /// none does is the error returned. Never writes or deletes anything.
    pub fn open(dir: &Path) -> Result<IndexStore, IndexError> {
        // A build may publish and clean up between reading CURRENT and opening the generation
        // it named: reading CURRENT again tells a race from damage.
        let mut last_error = None;
        for _ in 0..3 {
            let Some(current) = generation::read_current(dir)? else {
                if generation::is_legacy(dir) {
                    return Err(IndexError::Outdated {
                        path: dir.to_path_buf(),
                        found: super::legacy::format_of(dir),
                    });
                }
                return Err(IndexError::Missing {
                    path: dir.to_path_buf(),
                });
            };
            match Self::open_generation(dir, current) {
                Ok(store) => return Ok(store),
                Err(e) if generation::read_current(dir)? != Some(current) => last_error = Some(e),
                Err(e) => return Self::open_fallback(dir, current, e),
            }
        }
        Err(last_error.unwrap_or(IndexError::Missing {
            path: dir.to_path_buf(),
        }))
    }

    fn open_fallback(
        dir: &Path,
        damaged: GenerationId,
        error: IndexError,
    ) -> Result<IndexStore, IndexError> {
        for older in generation::list(dir).into_iter().rev() {
            if older >= damaged {
                continue;
            }
            if let Ok(mut store) = Self::open_generation(dir, older) {
                tracing::warn!(
                    damaged = %damaged, serving = %older, error = %error,
                    "the current index generation is damaged; serving the previous one"
                );
                store.fallback = Some((damaged, error.to_string()));
                return Ok(store);
            }
        }
        Err(error)
    }

    /// Opens one generation and checks that every part belongs to it.
    pub fn open_generation(dir: &Path, id: GenerationId) -> Result<IndexStore, IndexError> {
        let gen_dir = id.dir_in(dir);
        let incomplete = |e: IndexError| match e {
            IndexError::Io { path, source } if source.kind() == std::io::ErrorKind::NotFound => {
                IndexError::corrupt(
                    &gen_dir,
                    format!(
                        "generation {id} is incomplete: {} is missing",
                        path.display()
                    ),
                )
            }
            other => other,
        };
        let manifest = Manifest::read(&gen_dir.join(manifest::FILE)).map_err(incomplete)?;
        let bad = |what: String| IndexError::corrupt(&gen_dir, what);
        if manifest.generation_id() != Some(id) {
            return Err(bad(format!(
                "the manifest is generation {}, its folder says {id}",
                manifest.generation
            )));
        }
        let table = manifest
            .table_id()
            .ok_or_else(|| bad(format!("bad table id {:?}", manifest.table)))?;
        let parts = &manifest.parts;
        if parts.chunks.file != chunk_table::FILE {
            return Err(bad(format!(
                "unexpected chunk file {:?}",
                parts.chunks.file
            )));
        }
        let expected = manifest.chunk_total();
        if parts.chunks.count != expected || parts.bm25_docs != expected as u64 {
            return Err(bad(format!(
                "the documents add up to {expected} chunks, the parts list {} and {}",
                parts.chunks.count, parts.bm25_docs
            )));
        }
        let chunks = chunk_table::read(
            &gen_dir.join(chunk_table::FILE),
            &parts.chunks.sha256,
            table,
            expected,
        )
        .map_err(incomplete)?;
        let vectors = match (&manifest.embedding_model, &parts.vectors) {
            (_, None) => None,
            (None, Some(_)) => return Err(bad("vectors without an embedding model".into())),
            (Some(_), Some(v)) => {
                if v.file != super::dense::FILE || v.rows != chunks.len() {
                    return Err(bad(format!(
                        "vectors part {:?} has {} rows for {} chunks",
                        v.file,
                        v.rows,
                        chunks.len()
                    )));
                }
                let part = VectorsPart {
                    written: Written {
                        sha256: v.sha256.clone(),
                        bytes: v.bytes,
                    },
                    dim: v.dim,
                    rows: v.rows,
                    embedded: v.embedded,
                };
                let ids = PartIds {
                    table,
                    generation: id,
                };
                Some(
                    DenseMatrix::open(&gen_dir.join(super::dense::FILE), &part, ids)
                        .map_err(incomplete)?,
                )
            }
        };
        let sparse = SparseIndex::open(&gen_dir.join(BM25_DIR))?;
        let payload = sparse.payload()?;
        if payload.as_deref() != Some(manifest.table.as_str()) {
            return Err(bad(format!(
                "the BM25 index belongs to table {}, the manifest names {}",
                payload.as_deref().unwrap_or("(none)"),
                manifest.table
            )));
        }
        let in_bm25 = sparse.num_chunks();
        if in_bm25 != expected as u64 {
            return Err(bad(format!(
                "BM25 holds {in_bm25} chunks, the table {expected}"
            )));
        }
        sparse.verify()?;
        let by_id = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| (c.chunk_id.clone(), i))
            .collect();
        let row_years = chunks.iter().map(|c| c.year.unwrap_or(NO_YEAR)).collect();
        let dates = distinct_dates(chunks.iter().map(|c| c.date));
        Ok(IndexStore {
            dir: dir.to_path_buf(),
            generation: id,
            manifest,
            chunks,
            by_id,
            row_years,
            dates,
            vectors,
            sparse,
            fallback: None,
        })
    }

    /// The index folder (the parent of the generation folders).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn generation(&self) -> GenerationId {
        self.generation
    }

    pub fn generation_dir(&self) -> PathBuf {
        self.generation.dir_in(&self.dir)
    }

    /// Set when the generation `CURRENT` names failed its checks and this older one is served:
    /// a message for the user (`fathom index` repairs it).
    pub fn fallback(&self) -> Option<String> {
        self.fallback.as_ref().map(|(damaged, why)| {
            format!(
                "index generation {damaged} is damaged ({why}); serving the previous generation \
                 {}. Run `fathom index` to repair it.",
                self.generation
            )
        })
    }

    /// A generation newer than this one, if one has been published since it was opened. Reads
    /// one small file: cheap enough to call before every question.
    pub fn newer_generation(&self) -> Result<Option<GenerationId>, IndexError> {
        let current = generation::read_current(&self.dir)?;
        Ok(current.filter(|c| {
            *c != self.generation && self.fallback.as_ref().is_none_or(|(d, _)| d != c)
        }))
    }

    /// Opens the newest generation if it is not this one (`None` when this is the newest, or
    /// when the newer one is damaged and this is what `open` would serve anyway).
    pub fn reopen_if_newer(&self) -> Result<Option<IndexStore>, IndexError> {
        if self.newer_generation()?.is_none() {
            return Ok(None);
        }
        let store = IndexStore::open(&self.dir)?;
        Ok((store.generation != self.generation).then_some(store))
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    /// The distinct dates of the collection's documents, ascending.
    pub fn dates(&self) -> &[crate::corpus::Date] {
        &self.dates
    }

    pub fn row_of(&self, chunk_id: &str) -> Option<usize> {
        self.by_id.get(chunk_id).copied()
    }

    pub fn chunk(&self, chunk_id: &str) -> Option<&Chunk> {
        self.row_of(chunk_id).map(|i| &self.chunks[i])
    }

    /// The dense vectors, once every chunk has one. While embedding is still filling them in
    /// this is `None` and retrieval is BM25 alone; see [`IndexStore::partial_vectors`].
    pub fn vectors(&self) -> Option<&DenseMatrix> {
        self.vectors.as_ref().filter(|v| v.is_complete())
    }

    /// Whatever vectors there are, complete or not; absent rows are zeros and never searched.
    pub fn partial_vectors(&self) -> Option<&DenseMatrix> {
        self.vectors.as_ref()
    }

    /// Chunks with a vector out of all chunks (0 of n for a BM25-only index).
    pub fn dense_coverage(&self) -> DenseCoverage {
        DenseCoverage {
            embedded: self.vectors.as_ref().map_or(0, |v| v.present()),
            total: self.chunks.len(),
        }
    }

    /// Exact dense search over the rows that have a vector, restricted to `years` when any are
    /// given (through a compact year column, not the chunk table).
    pub fn dense_search(&self, query: &[f32], years: &[i32], limit: usize) -> Vec<(usize, f32)> {
        let Some(v) = &self.vectors else {
            return Vec::new();
        };
        if years.is_empty() {
            return v.search(query, |_| true, limit);
        }
        let row_years = &self.row_years;
        v.search(query, |row| years.contains(&row_years[row]), limit)
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

/// The generation a running process would open now, without opening it.
pub fn current_generation(dir: &Path) -> Result<Option<GenerationId>, IndexError> {
    generation::read_current(dir)
}

/// The distinct dates among `dates`, ascending.
pub fn distinct_dates(
    dates: impl Iterator<Item = Option<crate::corpus::Date>>,
) -> Vec<crate::corpus::Date> {
    let mut out: Vec<crate::corpus::Date> = dates.flatten().collect();
    out.sort();
    out.dedup();
    out
}
