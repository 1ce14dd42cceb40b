//! Reciprocal rank fusion of ranked candidate lists, deduplicated by `chunk_id`.
//!
//! For a chunk `d` and ranked lists `L_1..L_m` (ranks from 1), the fused score is
//!
//! ```text
//! rrf(d) = Σ_i 1 / (k + rank_i(d))      (lists that do not contain d add nothing)
//! ```
//!
//! with `k` = `retrieval.rrf_k` (default 60, as in Cormack, Clarke & Büttcher 2009). A large `k`
//! flattens the advantage of the very top ranks; a small `k` trusts them more.

use std::collections::HashMap;

/// One ranked candidate from one search: its id and the search's own score.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub chunk_id: String,
    pub score: f32,
}

/// A fused candidate with where it stood in each input list.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub chunk_id: String,
    pub fused_score: f32,
    /// Per input list: the (1-based rank, score) of this chunk, if it was there.
    pub sources: Vec<Option<(usize, f32)>>,
}

/// Removes later duplicates of a `chunk_id` from a ranked list, keeping the best (first) one.
pub fn dedup_ranked(list: Vec<Ranked>) -> Vec<Ranked> {
    let mut seen = std::collections::HashSet::with_capacity(list.len());
    list.into_iter()
        .filter(|r| seen.insert(r.chunk_id.clone()))
        .collect()
}

/// Fuses ranked lists with RRF. Each list is deduplicated first, so a chunk counts once per list.
/// Output is ordered by fused score, ties broken by chunk id so the order is deterministic.
pub fn rrf(lists: &[Vec<Ranked>], k: f32) -> Vec<Fused> {
    let mut by_id: HashMap<String, Fused> = HashMap::new();
    for (li, list) in lists.iter().enumerate() {
        for (pos, r) in dedup_ranked(list.clone()).into_iter().enumerate() {
            let rank = pos + 1;
            let entry = by_id.entry(r.chunk_id.clone()).or_insert_with(|| Fused {
                chunk_id: r.chunk_id.clone(),
                fused_score: 0.0,
                sources: vec![None; lists.len()],
            });
            entry.fused_score += 1.0 / (k + rank as f32);
            entry.sources[li] = Some((rank, r.score));
        }
    }
    let mut fused: Vec<Fused> = by_id.into_values().collect();
    fused.sort_by(|a, b| {
        b.fused_score
            .total_cmp(&a.fused_score)
            .then_with(|| a.chunk_id.cmp(&b.chunk_id))
    });
    fused
}

/// Merges several ranked lists of the same kind (e.g. a year-filtered and an unfiltered pass)
/// into one, keeping each chunk's best score; ordered by score.
pub fn union_best(lists: Vec<Vec<Ranked>>) -> Vec<Ranked> {
    let mut best: HashMap<String, f32> = HashMap::new();
    for r in lists.into_iter().flatten() {
        let e = best.entry(r.chunk_id).or_insert(f32::NEG_INFINITY);
        *e = e.max(r.score);
    }
    let mut out: Vec<Ranked> = best
        .into_iter()
        .map(|(chunk_id, score)| Ranked { chunk_id, score })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.chunk_id.cmp(&b.chunk_id))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(ids: &[&str]) -> Vec<Ranked> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| Ranked {
                chunk_id: id.to_string(),
                score: 10.0 - i as f32,
            })
            .collect()
    }

    #[test]
    fn rrf_matches_the_formula() {
        let fused = rrf(&[list(&["a", "b", "c"]), list(&["c", "a"])], 60.0);
        let score = |id: &str| fused.iter().find(|f| f.chunk_id == id).unwrap().fused_score;
        assert!((score("a") - (1.0 / 61.0 + 1.0 / 62.0)).abs() < 1e-7);
        assert!((score("b") - 1.0 / 62.0).abs() < 1e-7);
        assert!((score("c") - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-7);
        assert_eq!(fused[0].chunk_id, "a");
        assert_eq!(fused[1].chunk_id, "c");
        assert_eq!(fused[2].chunk_id, "b");
    }

    #[test]
    fn rrf_k_changes_how_much_top_ranks_count() {
        // "x" is first in one list only; "y" is second in both.
        let lists = [list(&["x", "y"]), list(&["z", "y", "w", "x"])];
        let small = rrf(&lists, 1.0);
        let large = rrf(&lists, 1000.0);
        let pos = |f: &[Fused], id: &str| f.iter().position(|c| c.chunk_id == id).unwrap();
        // With k=1: x = 1/2 + 1/5 = 0.70, y = 1/3 + 1/3 = 0.67, so x leads.
        assert!(pos(&small, "x") < pos(&small, "y"));
        // With k=1000 ranks barely matter and appearing in both lists wins... both do; y's ranks sum lower.
        assert!(pos(&large, "y") < pos(&large, "x"));
    }

    #[test]
    fn duplicates_in_one_list_count_once_and_keep_the_best_rank() {
        let fused = rrf(&[list(&["a", "b", "a"])], 60.0);
        assert_eq!(fused.len(), 2);
        let a = fused.iter().find(|f| f.chunk_id == "a").unwrap();
        assert!((a.fused_score - 1.0 / 61.0).abs() < 1e-7);
        assert_eq!(a.sources[0], Some((1, 10.0)));
    }

    #[test]
    fn sources_record_rank_and_score_per_list() {
        let fused = rrf(&[list(&["a"]), list(&["b", "a"])], 60.0);
        let a = fused.iter().find(|f| f.chunk_id == "a").unwrap();
        assert_eq!(a.sources, vec![Some((1, 10.0)), Some((2, 9.0))]);
        let b = fused.iter().find(|f| f.chunk_id == "b").unwrap();
        assert_eq!(b.sources, vec![None, Some((1, 10.0))]);
    }

    #[test]
    fn union_keeps_the_best_score_per_chunk() {
        let a = vec![
            Ranked {
                chunk_id: "a".into(),
                score: 0.2,
            },
            Ranked {
                chunk_id: "b".into(),
                score: 0.9,
            },
        ];
        let b = vec![Ranked {
            chunk_id: "a".into(),
            score: 0.95,
        }];
        let u = union_best(vec![a, b]);
        assert_eq!(u.len(), 2);
        assert_eq!(
            u[0],
            Ranked {
                chunk_id: "a".into(),
                score: 0.95
            }
        );
        assert_eq!(u[1].chunk_id, "b");
    }
}
