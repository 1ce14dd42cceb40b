//! Sentence vectors of a fixed set of examples, embedded once per process and model: the
//! reference points of the readings by meaning (judgement's talk and questions, synthesize's
//! kinds of sentence).

use crate::index::{IndexError, Retriever, SentenceVectors};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

type Cache = HashMap<(&'static str, String), Arc<Vec<Vec<f32>>>>;

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// The vectors of `texts` (the example set `name`) under the retriever's embedder, with its
/// model id; `None` without an embedder. Embedded on first use, then served from memory.
pub fn vectors(
    name: &'static str,
    texts: &[&str],
    retriever: &dyn Retriever,
    model: &str,
) -> Result<Option<Arc<Vec<Vec<f32>>>>, IndexError> {
    let key = (name, model.to_string());
    if let Ok(guard) = CACHE.lock() {
        if let Some(v) = guard.as_ref().and_then(|c| c.get(&key)) {
            return Ok(Some(v.clone()));
        }
    }
    let Some(SentenceVectors { model: m, vectors }) = retriever.embed_sentences(texts)? else {
        return Ok(None);
    };
    let vectors = Arc::new(vectors);
    if m == model {
        if let Ok(mut guard) = CACHE.lock() {
            guard
                .get_or_insert_with(HashMap::new)
                .insert(key, vectors.clone());
        }
    }
    Ok(Some(vectors))
}

/// Mean of the `k` largest values; `f32::MIN` for none.
pub fn top_mean(mut xs: Vec<f32>, k: usize) -> f32 {
    xs.sort_by(|a, b| b.total_cmp(a));
    let n = xs.len().min(k);
    if n == 0 {
        return f32::MIN;
    }
    xs[..n].iter().sum::<f32>() / n as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_mean_averages_the_largest() {
        assert_eq!(
            top_mean(vec![0.1, 0.9, 0.5, 0.7], 3),
            (0.9 + 0.7 + 0.5) / 3.0
        );
        assert_eq!(top_mean(vec![0.4], 3), 0.4);
        assert_eq!(top_mean(Vec::new(), 3), f32::MIN);
    }
}
