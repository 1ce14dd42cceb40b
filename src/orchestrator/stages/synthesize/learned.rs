//! The learned parts of synthesize and the file they come from: which kind of question it is
//! ([`kind_model`]) and which candidate sentences answer it ([`ranker`]). Both are fitted by
//! `scripts/train_ranker.py` on the project's question sets and shipped in `assets/ranker.json`;
//! they belong to the embedding model they were fitted with (its vectors and similarities are
//! their inputs), and with any other, or none, the word rules and the hand-weighted score decide.

use super::kind_model::{self, Classifier};
use super::ranker::{self, Ranker};
use serde::Deserialize;
use std::sync::OnceLock;

/// The learned model, as the file holds it.
#[derive(Debug, Deserialize)]
pub struct Learned {
    /// The embedding model it was fitted with (a prefix of its model id, e.g.
    /// `all-MiniLM-L6-v2:`); empty in a file with no weights.
    pub model: String,
    pub classifier: Option<Classifier>,
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

    /// A model from its JSON, keeping only the parts that fit this fathom (a ranker for other
    /// features is dropped); `None` if it does not parse.
    pub fn parse(json: &str) -> Option<Learned> {
        let mut l: Learned = serde_json::from_str(json).ok()?;
        if l.ranker.as_ref().is_some_and(|r| !r.fits()) {
            l.ranker = None;
        }
        Some(l)
    }

    /// The parts usable with vectors of the embedding model `model_id`.
    pub fn for_model(&self, model_id: &str) -> Option<(&Option<Classifier>, &Option<Ranker>)> {
        (!self.model.is_empty() && model_id.starts_with(&self.model))
            .then_some((&self.classifier, &self.ranker))
    }
}

/// The classifier usable with `model_id`, if any.
pub fn classifier(model_id: &str) -> Option<&'static kind_model::Classifier> {
    Learned::builtin()?.for_model(model_id)?.0.as_ref()
}

/// The ranker usable with `model_id`, if any.
pub fn ranker(model_id: &str) -> Option<&'static ranker::Ranker> {
    Learned::builtin()?.for_model(model_id)?.1.as_ref()
}
