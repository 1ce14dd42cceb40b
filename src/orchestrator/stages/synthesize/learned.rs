//! The learned part of synthesize and the file it comes from: which candidate sentences answer
//! a question ([`ranker`]), fitted by `scripts/train_ranker.py` on the project's question sets
//! and shipped in `assets/ranker.json`. It belongs to the embedding model it was fitted with (its
//! similarities are among its inputs); with any other, or none, the hand-weighted score decides.
//!
//! (A learned reading of what a question asks, from its vector, was tried beside the word rules:
//! it named the writers' kinds more often, 0.92 against 0.88, yet answered fewer questions right
//! end to end, 707 against 713 of 769 left out one set at a time; it is not part of fathom.)

use super::ranker::{self, Ranker};
use serde::Deserialize;
use std::sync::OnceLock;

/// The learned model, as the file holds it.
#[derive(Debug, Deserialize)]
pub struct Learned {
    /// The embedding model it was fitted with (a prefix of its model id, e.g.
    /// `all-MiniLM-L6-v2:`); empty in a file with no weights.
    pub model: String,
    pub ranker: Option<Ranker>,
}

impl Learned {
    /// The model shipped with fathom, once parsed. `FATHOM_RANKER_WEIGHTS=FILE` reads it from
    /// FILE instead (to measure a refitted model without rebuilding); a file that cannot be
    /// read or parsed is logged, and the rules decide.
    pub fn builtin() -> Option<&'static Learned> {
        static LEARNED: OnceLock<Option<Learned>> = OnceLock::new();
        LEARNED
            .get_or_init(|| match std::env::var_os("FATHOM_RANKER_WEIGHTS") {
                Some(path) => {
                    let l = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|json| Learned::parse(&json));
                    if l.is_none() {
                        tracing::warn!(
                            "FATHOM_RANKER_WEIGHTS={}: unreadable or not a model of this fathom; the rules decide",
                            std::path::Path::new(&path).display()
                        );
                    }
                    l
                }
                None => Learned::parse(include_str!("../../../../assets/ranker.json")),
            })
            .as_ref()
    }

    /// A model from its JSON, without a ranker for other features than this fathom's; `None` if
    /// it does not parse.
    pub fn parse(json: &str) -> Option<Learned> {
        let mut l: Learned = serde_json::from_str(json).ok()?;
        if l.ranker.as_ref().is_some_and(|r| !r.fits()) {
            l.ranker = None;
        }
        Some(l)
    }

    /// The ranker, if it was fitted with the embedding model `model_id`.
    pub fn for_model(&self, model_id: &str) -> Option<&Ranker> {
        (!self.model.is_empty() && model_id.starts_with(&self.model))
            .then_some(self.ranker.as_ref())
            .flatten()
    }
}

/// The ranker usable with `model_id`, if any.
pub fn ranker(model_id: &str) -> Option<&'static ranker::Ranker> {
    Learned::builtin()?.for_model(model_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model fathom ships must be one this fathom can use: a file fitted to other features
    /// or another vector size would silently leave the rules to decide.
    #[test]
    fn the_shipped_model_fits_this_fathom() {
        let l = Learned::parse(include_str!("../../../../assets/ranker.json"))
            .expect("assets/ranker.json parses");
        assert!(l.model.starts_with("all-MiniLM-L6-v2"), "{}", l.model);
        let ranker = l.ranker.as_ref().expect("a ranker that fits FEATURES");
        assert!(ranker.fits());
        assert!(ranker.asks.contains_key("reason") && ranker.asks.contains_key("vote"));
        assert!(l.for_model("all-MiniLM-L6-v2:384:onnx").is_some());
        assert!(l.for_model("bge-small:onnx").is_none());
    }

    /// The README says what each flag does to a sentence's chances; the fitted weights must
    /// agree with it, or the README would describe the hand score alone.
    #[test]
    fn the_shipped_weights_keep_the_flags_directions() {
        let l = Learned::parse(include_str!("../../../../assets/ranker.json")).expect("parses");
        let r = l.ranker.expect("a ranker");
        let at = |name: &str| {
            ranker::FEATURES
                .iter()
                .position(|f| *f == name)
                .expect("a feature")
        };
        let weight = |kind: &str, name: &str| r.shared[at(name)] + r.asks[kind].features[at(name)];
        for kind in r.asks.keys() {
            for counts_less in ["procedural", "other_series", "carried_over", "repeated"] {
                assert!(weight(kind, counts_less) < 0.0, "{kind}: {counts_less}");
            }
        }
        // Asked why: a reason beside the action counts for more, the minutes' review for less.
        assert!(weight("reason", "near_action") > 0.0);
        assert!(weight("reason", "review") + weight("reason", "minutes_first_half") < 0.0);
    }

    #[test]
    fn a_ranker_for_other_features_is_dropped() {
        let json = r#"{"model": "m:", "ranker": {"features": ["cos"], "shared": [1.0],
            "asks": {}}}"#;
        let l = Learned::parse(json).expect("parses");
        assert!(l.ranker.is_none());
        assert!(l.for_model("m:384").is_none());
        assert!(Learned::parse("{not json").is_none());
    }
}
