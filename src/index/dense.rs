//! The dense side of the index: a row-major matrix of L2-normalised vectors, memory-mapped from
//! its generation's `vectors.bin` and searched exactly. Exact search is a few milliseconds up to
//! ~10⁵ chunks and needs no tuning.
//!
//! A matrix may be partial while embedding fills in behind BM25: a presence bitmap says which
//! rows hold a vector; absent rows are zeros and never returned by a search.
//!
//! File layout (format 3, little endian), streamed in this order:
//! `rows·dim` `f32` (at offset 0, so the mapping is aligned) · the presence bitmap, one bit per
//! row, zero-padded to 8 bytes · a 64-byte footer: magic `FTHMVEC3`, `u32` dim, `u32` 0, `u64`
//! rows, `u64` rows present, the 16-character table id, the 16-character generation id · the
//! checksum trailer of [`super::fsio`].

use super::error::IndexError;
use super::fsio::{verify_trailer, ChecksummedWriter, Written};
use super::generation::{GenerationId, ID_LEN};
use std::path::Path;

pub const FILE: &str = "vectors.bin";
const MAGIC: &[u8; 8] = b"FTHMVEC3";
const FOOTER: usize = 8 + 4 + 4 + 8 + 8 + ID_LEN + ID_LEN;

pub struct DenseMatrix {
    dim: usize,
    rows: usize,
    present: usize,
    store: Store,
}

enum Store {
    /// Built in memory (tests, benches, a small index on a big-endian machine); every row present
    /// unless a bitmap says otherwise.
    Owned {
        data: Vec<f32>,
        bitmap: Option<Vec<u8>>,
    },
    /// A generation's file. Published files are never written again (a new generation gets new
    /// files), so the mapping cannot change under the reader.
    Mapped {
        map: memmap2::Mmap,
        bitmap_at: usize,
        complete: bool,
    },
}

impl std::fmt::Debug for DenseMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseMatrix")
            .field("dim", &self.dim)
            .field("rows", &self.rows)
            .field("present", &self.present)
            .finish_non_exhaustive()
    }
}

impl PartialEq for DenseMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.dim == other.dim
            && self.rows == other.rows
            && (0..self.rows).all(|i| self.is_present(i) == other.is_present(i))
            && self.data() == other.data()
    }
}

impl DenseMatrix {
    pub fn new(dim: usize) -> Self {
        DenseMatrix {
            dim,
            rows: 0,
            present: 0,
            store: Store::Owned {
                data: Vec::new(),
                bitmap: None,
            },
        }
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Rows that hold a vector (the rest are not embedded yet).
    pub fn present(&self) -> usize {
        self.present
    }

    pub fn is_complete(&self) -> bool {
        self.present == self.rows
    }

    pub fn is_present(&self, row: usize) -> bool {
        if row >= self.rows {
            return false;
        }
        match self.bitmap() {
            None => true,
            Some(bits) => bits[row / 8] & (1 << (row % 8)) != 0,
        }
    }

    /// The vector of `row`: zeros when the row is not embedded yet. Panics past the last row,
    /// like slice indexing (rows come from the same index's chunk table).
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data()[i * self.dim..(i + 1) * self.dim]
    }

    fn data(&self) -> &[f32] {
        match &self.store {
            Store::Owned { data, .. } => data,
            // Length and alignment were checked when the file was opened.
            Store::Mapped { map, .. } => {
                bytemuck::try_cast_slice(&map[..self.rows * self.dim * 4]).unwrap_or(&[])
            }
        }
    }

    fn bitmap(&self) -> Option<&[u8]> {
        match &self.store {
            Store::Owned { bitmap, .. } => bitmap.as_deref(),
            Store::Mapped { complete: true, .. } => None,
            Store::Mapped { map, bitmap_at, .. } => {
                Some(&map[*bitmap_at..*bitmap_at + self.rows.div_ceil(8)])
            }
        }
    }

    /// Appends a row (in-memory matrices only).
    pub fn push(&mut self, v: &[f32]) -> Result<(), IndexError> {
        if v.len() != self.dim {
            return Err(IndexError::DimensionMismatch {
                expected: self.dim,
                got: v.len(),
            });
        }
        match &mut self.store {
            Store::Owned { data, bitmap } => {
                data.extend_from_slice(v);
                if let Some(bits) = bitmap {
                    if self.rows.is_multiple_of(8) {
                        bits.push(0);
                    }
                    bits[self.rows / 8] |= 1 << (self.rows % 8);
                }
            }
            Store::Mapped { .. } => {
                return Err(IndexError::corrupt(
                    FILE,
                    "a published vectors file is read-only",
                ))
            }
        }
        self.rows += 1;
        self.present += 1;
        Ok(())
    }

    /// The `limit` rows most similar to `query` (dot product = cosine for unit vectors) among
    /// the present rows `allow` accepts, best first; ties go to the lower row so results are
    /// stable.
    pub fn search(
        &self,
        query: &[f32],
        allow: impl Fn(usize) -> bool,
        limit: usize,
    ) -> Vec<(usize, f32)> {
        if limit == 0 || query.len() != self.dim || self.dim == 0 {
            return Vec::new();
        }
        let dot = kernel();
        let rows = self.data().chunks_exact(self.dim).enumerate();
        let mut scored: Vec<(usize, f32)> = Vec::with_capacity(self.present.min(1 << 16));
        match self.bitmap() {
            None => scored.extend(
                rows.filter(|(i, _)| allow(*i))
                    .map(|(i, row)| (i, dot(row, query))),
            ),
            Some(bits) => scored.extend(
                rows.filter(|(i, _)| bits[i / 8] & (1 << (i % 8)) != 0 && allow(*i))
                    .map(|(i, row)| (i, dot(row, query))),
            ),
        }
        top(scored, limit)
    }

    /// Writes the matrix as a part file of `generation`, aligned with the chunk table `table`.
    pub fn write(
        &self,
        path: &Path,
        table: GenerationId,
        generation: GenerationId,
    ) -> Result<VectorsPart, IndexError> {
        let mut w = VectorsWriter::create(path, self.dim)?;
        for i in 0..self.rows {
            w.push(self.is_present(i).then(|| self.row(i)))?;
        }
        w.finish(table, generation)
    }

    /// Maps a vectors file and checks it: checksum (against the manifest's), size, ids, bitmap.
    pub fn open(path: &Path, expect: &VectorsPart, ids: PartIds) -> Result<Self, IndexError> {
        let bad = |reason: String| IndexError::corrupt(path, format!("vectors file: {reason}"));
        let file = std::fs::File::open(path).map_err(|e| IndexError::io(path, e))?;
        // SAFETY: the file belongs to a published generation, which fathom never writes again
        // (updates go to a new generation's files). Another program truncating it while it is
        // mapped would fault the reader; that is the usual contract of memory-mapped indexes
        // (tantivy's included).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| IndexError::io(path, e))?;
        let (body, _) = verify_trailer(&map, Some(&expect.written.sha256)).map_err(bad)?;
        let footer = Footer::parse(body).map_err(bad)?;
        let bitmap_len = padded_bitmap_len(footer.rows);
        let vector_bytes = footer
            .rows
            .checked_mul(footer.dim)
            .and_then(|n| n.checked_mul(4))
            .ok_or_else(|| bad("impossible size in footer".into()))?;
        if body.len() != vector_bytes + bitmap_len + FOOTER {
            return Err(bad(format!(
                "{} bytes for {}×{}",
                body.len(),
                footer.rows,
                footer.dim
            )));
        }
        if (footer.dim, footer.rows, footer.present) != (expect.dim, expect.rows, expect.embedded) {
            return Err(bad(format!(
                "{}×{} with {} present, the manifest says {}×{} with {}",
                footer.rows, footer.dim, footer.present, expect.rows, expect.dim, expect.embedded
            )));
        }
        if footer.table != ids.table.to_string() || footer.generation != ids.generation.to_string()
        {
            return Err(bad(format!(
                "written for generation {} (table {}), the manifest names {} (table {})",
                footer.generation, footer.table, ids.generation, ids.table
            )));
        }
        let bits = &body[vector_bytes..vector_bytes + footer.rows.div_ceil(8)];
        let counted: usize = bits.iter().map(|b| b.count_ones() as usize).sum();
        if counted != footer.present {
            return Err(bad(format!(
                "bitmap marks {counted} rows, footer {}",
                footer.present
            )));
        }
        let complete = footer.present == footer.rows;
        if cfg!(target_endian = "big")
            || bytemuck::try_cast_slice::<u8, f32>(&map[..vector_bytes]).is_err()
        {
            // No zero-copy view on this machine: decode into memory instead.
            let data = map[..vector_bytes]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            return Ok(DenseMatrix {
                dim: footer.dim,
                rows: footer.rows,
                present: footer.present,
                store: Store::Owned {
                    data,
                    bitmap: (!complete).then(|| bits.to_vec()),
                },
            });
        }
        Ok(DenseMatrix {
            dim: footer.dim,
            rows: footer.rows,
            present: footer.present,
            store: Store::Mapped {
                map,
                bitmap_at: vector_bytes,
                complete,
            },
        })
    }
}

/// Keeps the `limit` best of `scored`, best first, ties to the lower row.
fn top(mut scored: Vec<(usize, f32)>, limit: usize) -> Vec<(usize, f32)> {
    let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit - 1, by_score);
        scored.truncate(limit);
    }
    scored.sort_by(by_score);
    scored
}

/// The ids a vectors file must carry to belong to a generation.
#[derive(Debug, Clone, Copy)]
pub struct PartIds {
    pub table: GenerationId,
    pub generation: GenerationId,
}

/// A vectors file as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorsPart {
    pub written: Written,
    pub dim: usize,
    pub rows: usize,
    pub embedded: usize,
}

struct Footer {
    dim: usize,
    rows: usize,
    present: usize,
    table: String,
    generation: String,
}

impl Footer {
    fn parse(body: &[u8]) -> Result<Footer, String> {
        let at = body
            .len()
            .checked_sub(FOOTER)
            .ok_or("too short for a footer")?;
        let f = &body[at..];
        if &f[..8] != MAGIC {
            return Err("not a fathom vectors file (or one from an older fathom)".into());
        }
        let u32_at = |o: usize| u32::from_le_bytes([f[o], f[o + 1], f[o + 2], f[o + 3]]) as usize;
        let u64_at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&f[o..o + 8]);
            u64::from_le_bytes(b) as usize
        };
        let text = |o: usize| String::from_utf8_lossy(&f[o..o + ID_LEN]).into_owned();
        Ok(Footer {
            dim: u32_at(8),
            rows: u64_at(16),
            present: u64_at(24),
            table: text(32),
            generation: text(32 + ID_LEN),
        })
    }
}

fn padded_bitmap_len(rows: usize) -> usize {
    rows.div_ceil(8).div_ceil(8) * 8
}

/// Streams a vectors file row by row, so a build never holds the whole matrix.
pub struct VectorsWriter {
    out: ChecksummedWriter,
    dim: usize,
    rows: usize,
    present: usize,
    bitmap: Vec<u8>,
    buf: Vec<u8>,
}

impl VectorsWriter {
    pub fn create(path: &Path, dim: usize) -> Result<Self, IndexError> {
        Ok(VectorsWriter {
            out: ChecksummedWriter::create(path)?,
            dim,
            rows: 0,
            present: 0,
            bitmap: Vec::new(),
            buf: Vec::with_capacity(dim * 4),
        })
    }

    /// The next row's vector, or `None` when it is not embedded yet (written as zeros).
    pub fn push(&mut self, v: Option<&[f32]>) -> Result<(), IndexError> {
        if self.rows.is_multiple_of(8) {
            self.bitmap.push(0);
        }
        self.buf.clear();
        match v {
            Some(v) if v.len() != self.dim => {
                return Err(IndexError::DimensionMismatch {
                    expected: self.dim,
                    got: v.len(),
                })
            }
            Some(v) => {
                for x in v {
                    self.buf.extend_from_slice(&x.to_le_bytes());
                }
                self.bitmap[self.rows / 8] |= 1 << (self.rows % 8);
                self.present += 1;
            }
            None => self.buf.resize(self.dim * 4, 0),
        }
        self.rows += 1;
        self.out.write(&self.buf)
    }

    pub fn finish(
        mut self,
        table: GenerationId,
        generation: GenerationId,
    ) -> Result<VectorsPart, IndexError> {
        self.bitmap.resize(padded_bitmap_len(self.rows), 0);
        let bitmap = std::mem::take(&mut self.bitmap);
        self.out.write(&bitmap)?;
        let mut footer = Vec::with_capacity(FOOTER);
        footer.extend_from_slice(MAGIC);
        footer.extend_from_slice(&(self.dim as u32).to_le_bytes());
        footer.extend_from_slice(&0u32.to_le_bytes());
        footer.extend_from_slice(&(self.rows as u64).to_le_bytes());
        footer.extend_from_slice(&(self.present as u64).to_le_bytes());
        footer.extend_from_slice(table.to_string().as_bytes());
        footer.extend_from_slice(generation.to_string().as_bytes());
        self.out.write(&footer)?;
        let (dim, rows, embedded) = (self.dim, self.rows, self.present);
        Ok(VectorsPart {
            written: self.out.finish()?,
            dim,
            rows,
            embedded,
        })
    }
}

/// Dot product of two vectors (over the shorter length).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    kernel()(&a[..n], &b[..n])
}

type Kernel = fn(&[f32], &[f32]) -> f32;

/// The fastest dot product this CPU runs, chosen once per search rather than once per row.
fn kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    if simd::available() {
        return simd::dot;
    }
    dot_portable
}

/// Sixteen independent partial sums let the compiler use full SIMD registers where it can; the
/// order of additions is fixed, so results do not vary run to run.
fn dot_portable(a: &[f32], b: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for j in 0..LANES {
            acc[j] += x[j] * y[j];
        }
    }
    let mut width = LANES / 2;
    while width > 0 {
        for j in 0..width {
            acc[j] += acc[j + width];
        }
        width /= 2;
    }
    acc[0] + tail
}

/// AVX2 + FMA dot product, used when the CPU has them (checked at run time): fast even in the
/// dev profile, where the portable loop is not vectorised.
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }

    /// Only handed out by `kernel()` after `available()` said yes.
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        debug_assert!(available());
        // SAFETY: `kernel()` returns this function only when the CPU has AVX2 and FMA.
        unsafe { dot_avx2(a, b) }
    }

    #[target_feature(enable = "avx2,fma")]
    unsafe fn dot_avx2(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm256_setzero_ps(); 4];
        let mut i = 0;
        // SAFETY (all loads): `i + 8 <= n` before each 8-float load, `n` ≤ both lengths.
        while i + 32 <= n {
            for (k, s) in acc.iter_mut().enumerate() {
                let o = i + 8 * k;
                *s = _mm256_fmadd_ps(
                    unsafe { _mm256_loadu_ps(pa.add(o)) },
                    unsafe { _mm256_loadu_ps(pb.add(o)) },
                    *s,
                );
            }
            i += 32;
        }
        while i + 8 <= n {
            acc[0] = _mm256_fmadd_ps(
                unsafe { _mm256_loadu_ps(pa.add(i)) },
                unsafe { _mm256_loadu_ps(pb.add(i)) },
                acc[0],
            );
            i += 8;
        }
        let v = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
        let mut sum = _mm_cvtss_f32(s);
        for j in i..n {
            sum += a[j] * b[j];
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    fn sample() -> DenseMatrix {
        let mut m = DenseMatrix::new(3);
        for v in [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.7, 0.7, 0.0],
            [0.0, 0.0, 1.0],
        ] {
            m.push(&unit(&v)).unwrap();
        }
        m
    }

    fn ids() -> PartIds {
        PartIds {
            table: GenerationId::parse("0000000100000abc").unwrap(),
            generation: GenerationId::parse("0000000200000def").unwrap(),
        }
    }

    #[test]
    fn search_orders_by_cosine_and_respects_the_filter() {
        let m = sample();
        let q = unit(&[1.0, 0.2, 0.0]);
        let all = m.search(&q, |_| true, 3);
        assert_eq!(all.iter().map(|r| r.0).collect::<Vec<_>>(), vec![0, 2, 1]);
        let filtered = m.search(&q, |i| i != 0, 10);
        assert_eq!(
            filtered.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![2, 1, 3]
        );
    }

    #[test]
    fn dot_matches_the_naive_sum_at_every_length() {
        for n in [0, 1, 3, 8, 15, 16, 17, 31, 32, 33, 41, 384] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-4, "n = {n}");
            assert!((dot_portable(&a, &b) - naive).abs() < 1e-4, "n = {n}");
            #[cfg(target_arch = "x86_64")]
            if simd::available() {
                assert!((simd::dot(&a, &b) - naive).abs() < 1e-4, "n = {n}");
            }
            assert_eq!(dot(&a[..n / 2], &b), dot(&a[..n / 2], &b[..n / 2]));
        }
    }

    #[test]
    fn round_trips_through_a_mapped_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let m = sample();
        let part = m.write(&path, ids().table, ids().generation).unwrap();
        assert_eq!((part.rows, part.embedded, part.dim), (4, 4, 3));
        let back = DenseMatrix::open(&path, &part, ids()).unwrap();
        assert!(matches!(back.store, Store::Mapped { .. }));
        assert_eq!(back, m);
        assert!(back.is_complete());
    }

    #[test]
    fn a_partial_matrix_skips_absent_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let m = sample();
        let mut w = VectorsWriter::create(&path, 3).unwrap();
        for i in 0..10 {
            w.push((i % 3 == 0).then(|| m.row(i % 4))).unwrap();
        }
        let part = w.finish(ids().table, ids().generation).unwrap();
        assert_eq!((part.rows, part.embedded), (10, 4));
        let back = DenseMatrix::open(&path, &part, ids()).unwrap();
        assert!(!back.is_complete());
        assert!(back.is_present(0) && !back.is_present(1) && back.is_present(9));
        assert_eq!(back.row(1), &[0.0, 0.0, 0.0]);
        let hits = back.search(&unit(&[1.0, 0.0, 0.0]), |_| true, 10);
        assert_eq!(
            hits.iter().map(|h| h.0).collect::<Vec<_>>(),
            vec![0, 6, 3, 9],
            "rows 0, 3, 6, 9 hold rows 0, 3, 2, 1 of the sample"
        );
    }

    #[test]
    fn truncated_flipped_or_foreign_files_are_reported_as_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let part = sample()
            .write(&path, ids().table, ids().generation)
            .unwrap();
        let bytes = std::fs::read(&path).unwrap();

        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let err = DenseMatrix::open(&path, &part, ids()).unwrap_err();
        assert!(matches!(err, IndexError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("fathom index --rebuild"));

        let mut flipped = bytes.clone();
        flipped[3] ^= 0x40;
        std::fs::write(&path, &flipped).unwrap();
        assert!(DenseMatrix::open(&path, &part, ids())
            .unwrap_err()
            .to_string()
            .contains("checksum"));

        std::fs::write(&path, &bytes).unwrap();
        let other = PartIds {
            table: ids().table,
            generation: GenerationId::parse("0000000300000def").unwrap(),
        };
        assert!(DenseMatrix::open(&path, &part, other)
            .unwrap_err()
            .to_string()
            .contains("written for generation"));

        std::fs::write(&path, b"garbage").unwrap();
        assert!(matches!(
            DenseMatrix::open(&path, &part, ids()),
            Err(IndexError::Corrupt { .. })
        ));
    }

    #[test]
    fn wrong_dimension_is_rejected() {
        let mut m = DenseMatrix::new(3);
        assert!(matches!(
            m.push(&[1.0, 0.0]),
            Err(IndexError::DimensionMismatch { .. })
        ));
    }
}
