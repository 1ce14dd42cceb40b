//! Ranking metrics as BEIR reports them (graded relevance, linear gain, log2 discount).

use std::collections::HashMap;

/// Relevance judgements of one query: document id → grade (> 0 is relevant).
pub type Qrels = HashMap<String, u32>;

/// nDCG@k with gain = grade and discount 1/log2(rank + 1), as trec_eval's `ndcg_cut`.
pub fn ndcg_at(ranked: &[String], qrels: &Qrels, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| f64::from(qrels.get(d).copied().unwrap_or(0)) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u32> = qrels.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| f64::from(g) / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 {
        0.0
    } else {
        dcg / idcg
    }
}

/// Fraction of the relevant documents found in the top `k`.
pub fn recall_at(ranked: &[String], qrels: &Qrels, k: usize) -> f64 {
    let relevant = qrels.values().filter(|&&g| g > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| qrels.get(*d).is_some_and(|&g| g > 0))
        .count();
    found as f64 / relevant as f64
}

/// Reciprocal rank of the first relevant document within the top `k`, else 0.
pub fn mrr_at(ranked: &[String], qrels: &Qrels, k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|d| qrels.get(d).is_some_and(|&g| g > 0))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// Keeps the first occurrence of each document, in rank order (chunks → documents).
pub fn dedup_documents<I: IntoIterator<Item = String>>(ids: I) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    ids.into_iter().filter(|d| seen.insert(d.clone())).collect()
}

/// The median of a sample (the mean of the middle two for an even count); 0 for none.
pub fn median(values: &[f64]) -> f64 {
    percentile(values, 0.5)
}

/// The `p`-quantile by linear interpolation between closest ranks; 0 for an empty sample.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = p.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn qrels(v: &[(&str, u32)]) -> Qrels {
        v.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    #[test]
    fn ndcg_of_a_perfect_ranking_is_one_and_order_matters() {
        let q = qrels(&[("a", 2), ("b", 1)]);
        assert!((ndcg_at(&ids(&["a", "b", "c"]), &q, 10) - 1.0).abs() < 1e-12);
        let swapped = ndcg_at(&ids(&["b", "a"]), &q, 10);
        // dcg = 1/log2(2) + 2/log2(3); idcg = 2/log2(2) + 1/log2(3)
        let expected = (1.0 + 2.0 / 3f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((swapped - expected).abs() < 1e-12);
        assert_eq!(ndcg_at(&ids(&["x", "y"]), &q, 10), 0.0);
    }

    #[test]
    fn ndcg_cuts_at_k() {
        let q = qrels(&[("a", 1)]);
        assert_eq!(ndcg_at(&ids(&["x", "a"]), &q, 1), 0.0);
        assert!((ndcg_at(&ids(&["x", "a"]), &q, 2) - 1.0 / 3f64.log2()).abs() < 1e-12);
    }

    #[test]
    fn recall_and_mrr() {
        let q = qrels(&[("a", 1), ("b", 1), ("z", 0)]);
        let r = ids(&["x", "b", "y", "a"]);
        assert_eq!(recall_at(&r, &q, 2), 0.5);
        assert_eq!(recall_at(&r, &q, 100), 1.0);
        assert_eq!(mrr_at(&r, &q, 10), 0.5);
        assert_eq!(mrr_at(&r, &q, 1), 0.0);
        assert_eq!(mrr_at(&ids(&["z"]), &q, 10), 0.0, "grade 0 is not relevant");
    }

    #[test]
    fn documents_keep_their_first_rank() {
        assert_eq!(
            dedup_documents(ids(&["a", "b", "a", "c", "b"])),
            ids(&["a", "b", "c"])
        );
    }

    #[test]
    fn percentiles() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95), 4.8);
        assert_eq!(median(&[]), 0.0);
    }
}
