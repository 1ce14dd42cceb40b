//! The dense side of the index: a row-major matrix of L2-normalised vectors on disk, searched
//! exactly. Exact search is a few milliseconds up to ~10⁵ chunks and needs no tuning.
//!
//! File layout (little endian): magic `FATHOMV1`, `u32` dim, `u64` rows, `rows·dim` `f32`,
//! then a `u64` FNV-1a checksum of the vector bytes, so truncation and bit rot are both caught.

use super::error::IndexError;
use std::io::Write;
use std::path::Path;

const MAGIC: &[u8; 8] = b"FATHOMV1";
const HEADER: usize = 8 + 4 + 8;

#[derive(Debug, Clone, PartialEq)]
pub struct DenseMatrix {
    dim: usize,
    data: Vec<f32>,
}

impl DenseMatrix {
    pub fn new(dim: usize) -> Self {
        DenseMatrix {
            dim,
            data: Vec::new(),
        }
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn rows(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    pub fn push(&mut self, v: &[f32]) -> Result<(), IndexError> {
        if v.len() != self.dim {
            return Err(IndexError::DimensionMismatch {
                expected: self.dim,
                got: v.len(),
            });
        }
        self.data.extend_from_slice(v);
        Ok(())
    }

    /// The `limit` rows most similar to `query` (dot product = cosine for unit vectors) among
    /// the rows `allow` accepts, best first; ties go to the lower row so results are stable.
    pub fn search(
        &self,
        query: &[f32],
        allow: impl Fn(usize) -> bool,
        limit: usize,
    ) -> Vec<(usize, f32)> {
        if limit == 0 || query.len() != self.dim {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = (0..self.rows())
            .filter(|&i| allow(i))
            .map(|i| (i, dot(self.row(i), query)))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, by_score);
            scored.truncate(limit);
        }
        scored.sort_by(by_score);
        scored
    }

    pub fn write(&self, path: &Path) -> Result<(), IndexError> {
        let mut bytes = Vec::with_capacity(HEADER + self.data.len() * 4 + 8);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(self.dim as u32).to_le_bytes());
        bytes.extend_from_slice(&(self.rows() as u64).to_le_bytes());
        for x in &self.data {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        let checksum = fnv1a(&bytes[HEADER..]);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        write_atomic(path, &bytes)
    }

    pub fn read(path: &Path) -> Result<DenseMatrix, IndexError> {
        let bytes = std::fs::read(path).map_err(|e| IndexError::io(path, e))?;
        let bad = |reason: &str| IndexError::corrupt(path, format!("vectors file: {reason}"));
        if bytes.len() < HEADER + 8 || &bytes[..8] != MAGIC {
            return Err(bad("not a fathom vectors file"));
        }
        let dim = u32::from_le_bytes(bytes[8..12].try_into().map_err(|_| bad("header"))?) as usize;
        let rows =
            u64::from_le_bytes(bytes[12..20].try_into().map_err(|_| bad("header"))?) as usize;
        let body = rows
            .checked_mul(dim)
            .and_then(|n| n.checked_mul(4))
            .ok_or_else(|| bad("impossible size in header"))?;
        if dim == 0 || bytes.len() != HEADER + body + 8 {
            return Err(bad(&format!(
                "expected {} bytes for {rows}×{dim}, found {}",
                HEADER + body + 8,
                bytes.len()
            )));
        }
        let (vectors, tail) = bytes[HEADER..].split_at(body);
        let stored = u64::from_le_bytes(tail.try_into().map_err(|_| bad("checksum"))?);
        if fnv1a(vectors) != stored {
            return Err(bad("checksum mismatch"));
        }
        let data = vectors
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(DenseMatrix { dim, data })
    }
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Four accumulators let the compiler vectorise without changing results run to run.
    let mut acc = [0f32; 4];
    let chunks = a.len() / 4;
    for i in 0..chunks {
        for (j, s) in acc.iter_mut().enumerate() {
            *s += a[i * 4 + j] * b[i * 4 + j];
        }
    }
    let mut sum = acc.iter().sum::<f32>();
    for i in chunks * 4..a.len() {
        sum += a[i] * b[i];
    }
    sum
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Writes to a sibling temp file and renames it over `path`, so a crash never leaves half a file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).map_err(|e| IndexError::io(&tmp, e))?;
    f.write_all(bytes).map_err(|e| IndexError::io(&tmp, e))?;
    f.sync_all().map_err(|e| IndexError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| IndexError::io(path, e))
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
    fn round_trips_through_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        let m = sample();
        m.write(&path).unwrap();
        assert_eq!(DenseMatrix::read(&path).unwrap(), m);
    }

    #[test]
    fn truncated_or_flipped_files_are_reported_as_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        sample().write(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();

        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let err = DenseMatrix::read(&path).unwrap_err();
        assert!(matches!(err, IndexError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("fathom index --rebuild"));

        let mut flipped = bytes.clone();
        flipped[HEADER + 3] ^= 0x40;
        std::fs::write(&path, &flipped).unwrap();
        assert!(DenseMatrix::read(&path)
            .unwrap_err()
            .to_string()
            .contains("checksum"));

        std::fs::write(&path, b"garbage").unwrap();
        assert!(matches!(
            DenseMatrix::read(&path),
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
