//! Reranking fused candidates: a cross-encoder when one is installed, else a blend of the dense
//! cosine and the BM25 score of each chunk, else the fusion order; scores are min-max normalised, then a small recency
//! boost favours the most recent years of the corpus.

use super::cross_encoder::CrossEncoder;
use super::error::IndexError;
use super::store::IndexStore;

/// How candidates are re-scored.
pub enum Reranker {
    CrossEncoder(Box<CrossEncoder>),
    /// The default without a cross-encoder: a convex combination of the min-max normalised
    /// dense cosine and BM25 score of every candidate, `w·cos′ + (1 − w)·bm25′` (a candidate
    /// BM25 did not retrieve counts as BM25's minimum). Cosine alone repeats the dense
    /// retriever's judgement and throws the lexical evidence away; see docs/benchmarks.md for
    /// the comparison that chose this.
    DenseBm25 {
        dense_weight: f32,
    },
    /// No model available: keep the fusion scores.
    FusionOrder,
}

/// A candidate to rerank: its row in the store and its fused score.
#[derive(Debug, Clone, Copy)]
pub struct RerankInput {
    pub row: usize,
    pub fused_score: f32,
    /// BM25 score, if BM25 retrieved the candidate.
    pub sparse_score: Option<f32>,
}

impl Reranker {
    /// The reranker used when no cross-encoder is configured and dense vectors exist.
    pub fn default_dense() -> Reranker {
        Reranker::DenseBm25 { dense_weight: 0.5 }
    }

    /// The name shown to users and recorded in results.
    pub fn name(&self) -> String {
        match self {
            Reranker::CrossEncoder(ce) => format!("cross-encoder:{}", ce.name()),
            Reranker::DenseBm25 { dense_weight } => format!("dense-bm25-blend({dense_weight})"),
            Reranker::FusionOrder => "fusion-order".to_string(),
        }
    }

    /// Raw relevance scores, one per candidate, in the candidates' order. The blend needs a
    /// query vector and stored vectors; without them it degrades to the fusion scores.
    pub fn score(
        &self,
        store: &IndexStore,
        query: &str,
        query_vec: Option<&[f32]>,
        candidates: &[RerankInput],
    ) -> Result<Vec<f32>, IndexError> {
        match (self, query_vec, store.vectors()) {
            (Reranker::CrossEncoder(ce), _, _) => {
                let texts: Vec<&str> = candidates
                    .iter()
                    .map(|c| store.chunks()[c.row].text.as_str())
                    .collect();
                Ok(ce.score(query, &texts)?)
            }
            (Reranker::DenseBm25 { dense_weight }, Some(q), Some(vectors)) => {
                let cos: Vec<f32> = candidates
                    .iter()
                    .map(|c| super::dense::dot(vectors.row(c.row), q))
                    .collect();
                let bm25: Vec<Option<f32>> = candidates.iter().map(|c| c.sparse_score).collect();
                Ok(blend(&cos, &bm25, *dense_weight))
            }
            _ => Ok(candidates.iter().map(|c| c.fused_score).collect()),
        }
    }
}

/// `w·minmax(cos) + (1 − w)·minmax(bm25)`, a missing BM25 score counting as the lowest present.
pub fn blend(cos: &[f32], bm25: &[Option<f32>], dense_weight: f32) -> Vec<f32> {
    let floor = bm25.iter().flatten().copied().fold(f32::INFINITY, f32::min);
    let floor = if floor.is_finite() { floor } else { 0.0 };
    let bm25: Vec<f32> = bm25.iter().map(|b| b.unwrap_or(floor)).collect();
    let w = dense_weight.clamp(0.0, 1.0);
    min_max(cos)
        .iter()
        .zip(min_max(&bm25))
        .map(|(c, b)| w * c + (1.0 - w) * b)
        .collect()
}

/// Rescales scores to [0, 1]; all-equal scores become 1 (equally relevant, not irrelevant).
pub fn min_max(scores: &[f32]) -> Vec<f32> {
    let (lo, hi) = scores
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &s| {
            (lo.min(s), hi.max(s))
        });
    let span = hi - lo;
    scores
        .iter()
        .map(|&s| {
            if span > f32::EPSILON {
                (s - lo) / span
            } else {
                1.0
            }
        })
        .collect()
}

/// The recency boost: `boost · r(year)` with `r = max(0, 1 − (latest − year) / window)`, so the
/// corpus's latest year gets the whole boost, each older year a `1/window` step less, and years
/// outside the window (and undated chunks) nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecencyBoost {
    pub boost: f32,
    pub window: u32,
    pub latest_year: Option<i32>,
}

impl RecencyBoost {
    pub fn for_year(&self, year: Option<i32>) -> f32 {
        match (year, self.latest_year) {
            (Some(y), Some(latest)) if self.window > 0 => {
                let age = (latest - y).max(0) as f32;
                self.boost * (1.0 - age / self.window as f32).max(0.0)
            }
            _ => 0.0,
        }
    }

    /// The years that get any boost, oldest first: `[latest − window + 1, latest]`.
    pub fn window_years(&self) -> Option<[i32; 2]> {
        let latest = self.latest_year?;
        Some([latest - self.window.saturating_sub(1) as i32, latest])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_spans_zero_to_one() {
        assert_eq!(min_max(&[2.0, 4.0, 3.0]), vec![0.0, 1.0, 0.5]);
        assert_eq!(min_max(&[0.3, 0.3]), vec![1.0, 1.0]);
        assert!(min_max(&[]).is_empty());
    }

    #[test]
    fn recency_boost_steps_down_over_the_window() {
        let r = RecencyBoost {
            boost: 0.05,
            window: 3,
            latest_year: Some(2026),
        };
        assert!((r.for_year(Some(2026)) - 0.05).abs() < 1e-7);
        assert!((r.for_year(Some(2025)) - 0.05 * 2.0 / 3.0).abs() < 1e-7);
        assert!((r.for_year(Some(2024)) - 0.05 / 3.0).abs() < 1e-7);
        assert_eq!(r.for_year(Some(2023)), 0.0);
        assert_eq!(r.for_year(Some(2001)), 0.0);
        assert_eq!(r.for_year(None), 0.0);
        assert_eq!(r.window_years(), Some([2024, 2026]));
    }

    #[test]
    fn recency_boost_is_small_against_relevance() {
        // A fully relevant old chunk must still beat a half-relevant new one at the default boost.
        let r = RecencyBoost {
            boost: 0.05,
            window: 3,
            latest_year: Some(2026),
        };
        assert!(1.0 + r.for_year(Some(2010)) > 0.5 + r.for_year(Some(2026)));
        // ...but it breaks a tie between equally relevant chunks in favour of the newer one.
        assert!(0.8 + r.for_year(Some(2026)) > 0.8 + r.for_year(Some(2025)));
    }

    #[test]
    fn blend_mixes_normalised_dense_and_bm25() {
        let out = blend(&[0.9, 0.5, 0.7], &[Some(2.0), Some(10.0), None], 0.5);
        // cos′ = [1, 0, 0.5]; bm25′ with None → floor 2.0: [0, 1, 0].
        assert_eq!(out, vec![0.5, 0.5, 0.25]);
        assert_eq!(
            blend(&[0.9, 0.5], &[None, None], 0.5),
            vec![1.0, 0.5],
            "no BM25 evidence: equal halves"
        );
        assert_eq!(
            blend(&[0.9, 0.5], &[Some(1.0), Some(3.0)], 1.0),
            vec![1.0, 0.0],
            "weight 1 is cosine alone"
        );
    }

    #[test]
    fn zero_boost_changes_nothing() {
        let r = RecencyBoost {
            boost: 0.0,
            window: 3,
            latest_year: Some(2026),
        };
        assert_eq!(r.for_year(Some(2026)), 0.0);
    }
}
