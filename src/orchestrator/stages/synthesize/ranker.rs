//! The learned ranker: how likely a candidate sentence is to be the answer, from its
//! [`Signals`] and its neighbours' likeness to the question, by a logistic model per kind of
//! question ([`Asks`]). Its weights are part of the learned model ([`super::learned`]), trained
//! by `scripts/train_ranker.py` on the features `fathom eval --qa FILE --answers --candidates
//! OUT` records.
//!
//! Why learned: the hand-weighted score's word lists and weights were shaped by the questions
//! they were read against (94 % of them answered right), and answered 78–87 % of each set
//! written later. A model fitted to many writers' questions carries over better: on sets it
//! was not fitted to, 88.8 % and 92.2 % against the hand score's 81.3 % and 87.0 %
//! (`docs/benchmarks.md`).

use super::signals::Signals;
use super::Candidate;
use crate::index::Hit;
use crate::orchestrator::asks::Asks;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The features, in the order the weights are stored.
pub const FEATURES: &[&str] = &[
    "cos",
    "cos_z",
    "cos_best",
    "coverage",
    "coverage_best",
    "prior",
    "cue",
    "cue_full",
    "repeated",
    "first_cue",
    "besides",
    "procedural",
    "other_series",
    "review",
    "carried_over",
    "near_action",
    "minutes",
    "position",
    "minutes_first_half",
    "log_words",
    "long",
    "first_of_passage",
    "neighbour_cos",
    "neighbour_coverage",
    "previous_cos",
    "next_cos",
];

/// Two candidates of one document further apart than this (bytes, about three sentences) are
/// not neighbours.
const NEIGHBOUR_BYTES: usize = 1500;

/// The features of every candidate; `None` when any lacks a vector (no embedding model).
pub fn features(cands: &[Candidate], signals: &[Signals], hits: &[Hit]) -> Option<Vec<Vec<f64>>> {
    let cos: Vec<f64> = signals.iter().map(|g| g.cos).collect::<Option<_>>()?;
    let n = cos.len() as f64;
    let mean = cos.iter().sum::<f64>() / n.max(1.0);
    let sd = (cos.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n.max(1.0)).sqrt();
    let best_cos = cos.iter().copied().fold(f64::MIN, f64::max);
    let best_cov = signals.iter().map(|g| g.coverage).fold(f64::MIN, f64::max);
    let (previous, next) = neighbours(cands, hits);
    let at = |j: Option<usize>, f: &dyn Fn(usize) -> f64| j.map_or(0.0, f);
    Some(
        signals
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let flag = |b: bool| f64::from(u8::from(b));
                let near = [previous[i], next[i]];
                let nb_cos = near.iter().map(|&j| at(j, &|k| cos[k])).fold(0.0, f64::max);
                let nb_cov = near
                    .iter()
                    .map(|&j| at(j, &|k| signals[k].coverage))
                    .fold(0.0, f64::max);
                vec![
                    cos[i],
                    if sd > 0.0 { (cos[i] - mean) / sd } else { 0.0 },
                    flag(cos[i] >= best_cos),
                    g.coverage,
                    flag(g.coverage >= best_cov && best_cov > 0.0),
                    g.prior,
                    g.cue,
                    flag(g.cue >= 1.0),
                    flag(g.repeated),
                    flag(g.first_cue),
                    flag(g.besides),
                    flag(g.procedural),
                    flag(g.other_series),
                    flag(g.review),
                    flag(g.carried_over),
                    flag(g.near_action),
                    flag(g.minutes),
                    g.position,
                    flag(g.minutes && g.position < 0.5),
                    (g.words.max(1) as f64).ln(),
                    flag(g.words > 60),
                    flag(cands[i].seq == 0),
                    nb_cos,
                    nb_cov,
                    at(previous[i], &|k| cos[k]),
                    at(next[i], &|k| cos[k]),
                ]
            })
            .collect(),
    )
}

/// For each candidate, the candidate just before and just after it in its document (within
/// [`NEIGHBOUR_BYTES`]), by position.
fn neighbours(cands: &[Candidate], hits: &[Hit]) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by(|&a, &b| {
        hits[cands[a].hit]
            .document
            .cmp(&hits[cands[b].hit].document)
            .then(cands[a].position.cmp(&cands[b].position))
    });
    let mut previous = vec![None; cands.len()];
    let mut next = vec![None; cands.len()];
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        let same = hits[cands[a].hit].document == hits[cands[b].hit].document;
        if same
            && cands[b].position > cands[a].position
            && cands[b].position - cands[a].position <= NEIGHBOUR_BYTES
        {
            next[a] = Some(b);
            previous[b] = Some(a);
        }
    }
    (previous, next)
}

/// A trained ranker: per kind of question, a bias and a weight per feature, on top of weights
/// shared by every kind.
#[derive(Debug, Deserialize)]
pub struct Ranker {
    pub features: Vec<String>,
    pub shared: Vec<f64>,
    pub asks: BTreeMap<String, KindWeights>,
}

#[derive(Debug, Deserialize)]
pub struct KindWeights {
    pub bias: f64,
    pub features: Vec<f64>,
}

impl Ranker {
    /// Whether the weights are for [`FEATURES`] (a file written for another fathom is not).
    pub fn fits(&self) -> bool {
        self.features
            .iter()
            .map(String::as_str)
            .eq(FEATURES.iter().copied())
            && self.shared.len() == FEATURES.len()
            && self
                .asks
                .values()
                .all(|k| k.features.len() == FEATURES.len())
    }

    /// How likely the sentence is to answer a question of kind `asks` (a logit); `None` when
    /// the model has no weights for that kind.
    pub fn score(&self, asks: Asks, x: &[f64]) -> Option<f64> {
        let k = self.asks.get(asks_name(asks))?;
        let linear: f64 = x
            .iter()
            .zip(self.shared.iter().zip(&k.features))
            .map(|(x, (s, w))| x * (s + w))
            .sum();
        Some(k.bias + linear)
    }
}

/// The name a kind of question has in the weights file (its serialised form).
pub fn asks_name(asks: Asks) -> &'static str {
    match asks {
        Asks::Rate => "rate",
        Asks::Decision => "decision",
        Asks::Reason => "reason",
        Asks::Vote => "vote",
        Asks::Schedule => "schedule",
        Asks::Amount => "amount",
        Asks::Guidance => "guidance",
        Asks::Description => "description",
        Asks::Other => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranker(shared: f64, own: f64, bias: f64) -> Ranker {
        let n = FEATURES.len();
        Ranker {
            features: FEATURES.iter().map(|f| f.to_string()).collect(),
            shared: vec![shared; n],
            asks: BTreeMap::from([(
                "vote".to_string(),
                KindWeights {
                    bias,
                    features: vec![own; n],
                },
            )]),
        }
    }

    #[test]
    fn a_score_adds_the_shared_and_the_kinds_weights_to_its_bias() {
        let r = ranker(0.5, 0.25, -1.0);
        let mut x = vec![0.0; FEATURES.len()];
        x[0] = 2.0;
        x[3] = 4.0;
        // -1 + 2 * 0.75 + 4 * 0.75
        assert_eq!(r.score(Asks::Vote, &x), Some(3.5));
        // No weights for a kind: the hand score decides.
        assert_eq!(r.score(Asks::Reason, &x), None);
    }

    #[test]
    fn weights_for_other_features_do_not_fit() {
        let mut r = ranker(0.0, 0.0, 0.0);
        assert!(r.fits());
        r.features.swap(0, 1);
        assert!(!r.fits());
        let mut r = ranker(0.0, 0.0, 0.0);
        r.shared.pop();
        assert!(!r.fits());
    }

    fn cand(hit: usize, position: usize) -> Candidate {
        Candidate {
            position,
            ..Candidate::new("", hit)
        }
    }

    #[test]
    fn neighbours_are_near_in_one_document_whatever_the_order_given() {
        let hit = |document: &str| Hit {
            document: document.into(),
            ..Hit::default()
        };
        let hits = vec![hit("a.txt"), hit("b.txt")];
        // Given out of order; the third is in another document, the fourth too far on.
        let cands = vec![
            cand(0, 300),
            cand(0, 100),
            cand(1, 200),
            cand(0, 300 + NEIGHBOUR_BYTES + 1),
        ];
        let (previous, next) = neighbours(&cands, &hits);
        assert_eq!(next[1], Some(0));
        assert_eq!(previous[0], Some(1));
        assert_eq!(previous[2], None);
        assert_eq!(next[2], None);
        assert_eq!(next[0], None);
        assert_eq!(previous[3], None);
    }
}
