//! How relevant a passage or a sentence is to a query, on a calibrated 0–1 scale shared by the
//! evaluate and reflect stages.
//!
//! relevance = W_DENSE · clamp((cos − COS_FLOOR) / (COS_CEIL − COS_FLOOR)) + (1 − W_DENSE) · coverage
//!
//! where `cos` is the embedding cosine and `coverage` the share of the query's BM25 terms
//! (stemmed, stop words removed) found in the text. Without dense vectors the score is the
//! coverage alone. The constants were calibrated on the FOMC statements: see
//! docs/benchmarks.md ("Relevance calibration") for the distributions they separate.

use std::collections::HashSet;

pub const COS_FLOOR: f64 = 0.15;
pub const COS_CEIL: f64 = 0.65;
pub const W_DENSE: f64 = 0.6;

pub fn scaled_cosine(cos: f64) -> f64 {
    ((cos - COS_FLOOR) / (COS_CEIL - COS_FLOOR)).clamp(0.0, 1.0)
}

/// Share of `query_terms` present in `text_terms` (both already analysed); 0 for no query terms.
pub fn coverage(query_terms: &[String], text_terms: &HashSet<String>) -> f64 {
    if query_terms.is_empty() {
        return 0.0;
    }
    query_terms
        .iter()
        .filter(|t| text_terms.contains(*t))
        .count() as f64
        / query_terms.len() as f64
}

pub fn relevance(cos: Option<f64>, coverage: f64) -> f64 {
    match cos {
        Some(c) => W_DENSE * scaled_cosine(c) + (1.0 - W_DENSE) * coverage,
        None => coverage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_and_mix() {
        assert_eq!(scaled_cosine(COS_FLOOR), 0.0);
        assert_eq!(scaled_cosine(COS_CEIL), 1.0);
        assert_eq!(scaled_cosine(-1.0), 0.0);
        assert!((relevance(Some(COS_CEIL), 0.0) - W_DENSE).abs() < 1e-12);
        assert_eq!(relevance(None, 0.5), 0.5);
        let terms: HashSet<String> = ["rate".to_string(), "cut".to_string()].into();
        assert_eq!(coverage(&["rate".into(), "hike".into()], &terms), 0.5);
        assert_eq!(coverage(&[], &terms), 0.0);
    }
}
