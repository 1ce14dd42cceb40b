//! A BERT cross-encoder reranker (Hugging Face `BertForSequenceClassification` in safetensors):
//! the query and a passage are encoded together as a pair, and a pooler + linear classifier on
//! the `[CLS]` state gives one relevance logit per passage.
//!
//! Expected folder: `config.json`, `tokenizer.json`, `model.safetensors` holding the encoder
//! (under `bert.` or at the root), `bert.pooler.dense.{weight,bias}` (or `pooler.dense.*`) and
//! `classifier.weight` `[num_labels, hidden]`, `classifier.bias` `[num_labels]`.

use std::path::Path;

use candle_core::{Device, Module, Tensor};
use candle_nn::{Linear, VarBuilder};
use candle_transformers::models::bert::BertModel;
use tokenizers::{EncodeInput, Encoding, Tokenizer};

use super::embed::{
    bert_prefix, dir_name, effective_max_len, encode_all, length_sorted_batches, mmap_weights,
    pad_id, read_config, read_tokenizer, truncating, BatchTensors, EmbedError, ModelFiles,
};

/// (query, passage) pairs per forward pass.
const BATCH_SIZE: usize = 16;

/// A loaded cross-encoder. Thread-safe; runs on the CPU.
pub struct CrossEncoder {
    model: BertModel,
    pooler: Linear,
    classifier: Linear,
    /// Which logit is the relevance score (see [`CrossEncoder::score`]).
    label: usize,
    num_labels: usize,
    tokenizer: Tokenizer,
    pad_id: u32,
    name: String,
    device: Device,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder")
            .field("name", &self.name)
            .field("num_labels", &self.num_labels)
            .finish_non_exhaustive()
    }
}

impl CrossEncoder {
    /// Loads the cross-encoder in `dir`; pairs are truncated (longest first) to `max_tokens`
    /// and to the model's `max_position_embeddings`. Errors name the missing or bad file/tensor.
    pub fn load(dir: &Path, max_tokens: usize) -> Result<CrossEncoder, EmbedError> {
        let files = ModelFiles::in_dir(dir)?;
        let config = read_config(&files.config)?;
        let max_len = effective_max_len(max_tokens, &config)?;
        let tokenizer = truncating(read_tokenizer(&files.tokenizer)?, max_len, &files.tokenizer)?;
        let device = Device::Cpu;
        let root = mmap_weights(&files.weights, &device)?;
        let bad = |reason: String| EmbedError::BadFile {
            path: files.weights.clone(),
            reason,
        };

        let encoder = bert_prefix(root.clone());
        let model = BertModel::load(encoder.clone(), &config).map_err(|e| bad(e.to_string()))?;
        let hidden = config.hidden_size;

        let pooler_vb = encoder.pp("pooler").pp("dense");
        let pooler =
            load_linear(&pooler_vb, hidden, None).map_err(|what| bad(format!("pooler {what}")))?;

        let classifier_vb = root.pp("classifier");
        let weight = classifier_vb.get_unchecked("weight").map_err(|_| {
            bad(format!(
                "tensor `{}` missing",
                tensor_name(&classifier_vb, "weight")
            ))
        })?;
        let num_labels = match weight.dims() {
            [n, h] if *h == hidden && *n > 0 => *n,
            dims => {
                return Err(bad(format!(
                    "classifier.weight has shape {dims:?}, expected [num_labels, {hidden}]"
                )))
            }
        };
        let classifier = load_linear(&classifier_vb, hidden, Some(num_labels))
            .map_err(|what| bad(format!("classifier {what}")))?;

        Ok(CrossEncoder {
            model,
            pooler,
            classifier,
            label: num_labels - 1,
            num_labels,
            tokenizer,
            pad_id: pad_id(&config),
            name: dir_name(dir),
            device,
        })
    }

    /// The folder name, for reports and the index manifest.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// Logits the classifier head produces per pair.
    pub fn num_labels(&self) -> usize {
        self.num_labels
    }

    /// One relevance score per passage, in input order: the raw logit of label 0 when the head
    /// has a single label (the usual MS MARCO rerankers), else the logit of the **last** label
    /// (two-label heads put "relevant" last). Higher is more relevant; not a probability.
    pub fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, EmbedError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<EncodeInput> = passages
            .iter()
            .map(|p| EncodeInput::from((query, *p)))
            .collect();
        let encodings = encode_all(&self.tokenizer, inputs)?;
        let lens: Vec<usize> = encodings.iter().map(Encoding::len).collect();
        let mut scores = vec![0f32; passages.len()];
        for batch in length_sorted_batches(&lens, BATCH_SIZE) {
            let members: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            for (i, s) in batch.into_iter().zip(self.logits(&members)?) {
                scores[i] = s;
            }
        }
        Ok(scores)
    }

    fn logits(&self, batch: &[&Encoding]) -> Result<Vec<f32>, EmbedError> {
        let inputs = BatchTensors::new(batch, self.pad_id, &self.device)?;
        let hidden = self
            .model
            .forward(&inputs.ids, &inputs.type_ids, Some(&inputs.mask))?;
        let cls = hidden.narrow(1, 0, 1)?.squeeze(1)?;
        let pooled = self.pooler.forward(&cls)?.tanh()?;
        let logits = self.classifier.forward(&pooled)?;
        Ok(logits
            .narrow(1, self.label, 1)?
            .squeeze(1)?
            .to_vec1::<f32>()?)
    }
}

fn tensor_name(vb: &VarBuilder, name: &str) -> String {
    let prefix = vb.prefix();
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A `Linear` with bias from `<prefix>.weight` `[out, in]` and `<prefix>.bias` `[out]`
/// (`out` = `in` when `None`); the error says which tensor is missing or mis-shaped.
fn load_linear(vb: &VarBuilder, in_dim: usize, out_dim: Option<usize>) -> Result<Linear, String> {
    let out_dim = out_dim.unwrap_or(in_dim);
    let get = |name: &str, shape: &[usize]| -> Result<Tensor, String> {
        let full = tensor_name(vb, name);
        if !vb.contains_tensor(name) {
            return Err(format!("tensor `{full}` missing"));
        }
        vb.get(shape, name)
            .map_err(|e| format!("tensor `{full}`: {e}"))
    };
    let weight = get("weight", &[out_dim, in_dim])?;
    let bias = get("bias", &[out_dim])?;
    Ok(Linear::new(weight, Some(bias)))
}

/// A tiny BERT (tokenizer, config, deterministic weights) written to a folder, for tests.
#[cfg(test)]
pub(crate) mod tiny {
    use std::collections::HashMap;
    use std::path::Path;

    use candle_core::{Device, Tensor};

    pub const HIDDEN: usize = 16;
    pub const LAYERS: usize = 2;
    pub const HEADS: usize = 2;
    pub const INTERMEDIATE: usize = 32;
    pub const MAX_POSITIONS: usize = 64;

    pub const VOCAB: &[&str] = &[
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "the",
        "a",
        "fed",
        "federal",
        "reserve",
        "raised",
        "lowered",
        "rate",
        "rates",
        "rose",
        "fell",
        "inflation",
        "cat",
        "sat",
        "on",
        "mat",
        "what",
        "did",
        "do",
        "in",
        "year",
        "policy",
        "##s",
        "##ed",
        ".",
        "?",
        "funds",
    ];

    pub struct TinyModel {
        /// Encoder tensors under `bert.` (a `BertForSequenceClassification` checkpoint).
        pub bert_prefix: bool,
        /// Rows of `classifier.weight`; 0 writes no classifier.
        pub num_labels: usize,
        /// `Some(b)`: classifier weight all zeros and bias `b` (one value per label).
        pub constant_head: Option<Vec<f32>>,
        /// Tensor names (after prefixing) left out of model.safetensors.
        pub omit: Vec<String>,
        pub seed: u64,
    }

    impl Default for TinyModel {
        fn default() -> Self {
            TinyModel {
                bert_prefix: true,
                num_labels: 1,
                constant_head: None,
                omit: Vec::new(),
                seed: 7,
            }
        }
    }

    /// SplitMix64 values in [-scale, scale).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, scale: f32) -> f32 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            ((z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        }

        fn tensor(&mut self, shape: &[usize], offset: f32, scale: f32) -> Tensor {
            let n: usize = shape.iter().product();
            let data: Vec<f32> = (0..n).map(|_| offset + self.next(scale)).collect();
            Tensor::from_vec(data, shape, &Device::Cpu).expect("tensor")
        }
    }

    pub fn tokenizer_json() -> serde_json::Value {
        let vocab: serde_json::Map<String, serde_json::Value> = VOCAB
            .iter()
            .enumerate()
            .map(|(i, w)| (w.to_string(), serde_json::json!(i)))
            .collect();
        let added: Vec<serde_json::Value> = VOCAB[..5]
            .iter()
            .enumerate()
            .map(|(i, w)| {
                serde_json::json!({"id": i, "content": w, "single_word": false, "lstrip": false,
                    "rstrip": false, "normalized": false, "special": true})
            })
            .collect();
        serde_json::json!({
            "version": "1.0",
            // Like MiniLM's tokenizer.json, a truncation and padding the loaders must override.
            "truncation": {"direction": "Right", "max_length": 16, "strategy": "LongestFirst", "stride": 0},
            "padding": {"strategy": {"Fixed": 48}, "direction": "Right", "pad_to_multiple_of": null,
                        "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
            "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                           "strip_accents": null, "lowercase": true},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": vocab}
        })
    }

    pub fn config_json() -> serde_json::Value {
        serde_json::json!({
            "architectures": ["BertForSequenceClassification"],
            "attention_probs_dropout_prob": 0.1,
            "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1,
            "hidden_size": HIDDEN,
            "initializer_range": 0.02,
            "intermediate_size": INTERMEDIATE,
            "layer_norm_eps": 1e-12,
            "max_position_embeddings": MAX_POSITIONS,
            "model_type": "bert",
            "num_attention_heads": HEADS,
            "num_hidden_layers": LAYERS,
            "pad_token_id": 0,
            "position_embedding_type": "absolute",
            "type_vocab_size": 2,
            "vocab_size": VOCAB.len()
        })
    }

    pub fn tensors(spec: &TinyModel) -> HashMap<String, Tensor> {
        let mut rng = Rng(spec.seed);
        let p = if spec.bert_prefix { "bert." } else { "" };
        let mut t: HashMap<String, Tensor> = HashMap::new();
        let mut linear = |t: &mut HashMap<String, Tensor>, name: String, out: usize, inp: usize| {
            t.insert(format!("{name}.weight"), rng.tensor(&[out, inp], 0.0, 0.4));
            t.insert(format!("{name}.bias"), rng.tensor(&[out], 0.0, 0.1));
        };
        let mut norm_rng = Rng(spec.seed ^ 0xABCD);
        let mut norm = |t: &mut HashMap<String, Tensor>, name: String| {
            t.insert(
                format!("{name}.weight"),
                norm_rng.tensor(&[HIDDEN], 1.0, 0.2),
            );
            t.insert(format!("{name}.bias"), norm_rng.tensor(&[HIDDEN], 0.0, 0.1));
        };
        let mut emb_rng = Rng(spec.seed ^ 0x1234);
        for (name, rows) in [
            ("word", VOCAB.len()),
            ("position", MAX_POSITIONS),
            ("token_type", 2),
        ] {
            t.insert(
                format!("{p}embeddings.{name}_embeddings.weight"),
                emb_rng.tensor(&[rows, HIDDEN], 0.0, 1.0),
            );
        }
        norm(&mut t, format!("{p}embeddings.LayerNorm"));
        for l in 0..LAYERS {
            let layer = format!("{p}encoder.layer.{l}");
            for part in ["query", "key", "value"] {
                linear(
                    &mut t,
                    format!("{layer}.attention.self.{part}"),
                    HIDDEN,
                    HIDDEN,
                );
            }
            linear(
                &mut t,
                format!("{layer}.attention.output.dense"),
                HIDDEN,
                HIDDEN,
            );
            norm(&mut t, format!("{layer}.attention.output.LayerNorm"));
            linear(
                &mut t,
                format!("{layer}.intermediate.dense"),
                INTERMEDIATE,
                HIDDEN,
            );
            linear(
                &mut t,
                format!("{layer}.output.dense"),
                HIDDEN,
                INTERMEDIATE,
            );
            norm(&mut t, format!("{layer}.output.LayerNorm"));
        }
        linear(&mut t, format!("{p}pooler.dense"), HIDDEN, HIDDEN);
        if spec.num_labels > 0 {
            linear(&mut t, "classifier".to_string(), spec.num_labels, HIDDEN);
        }
        if let Some(bias) = &spec.constant_head {
            let n = bias.len();
            t.insert(
                "classifier.weight".into(),
                Tensor::zeros((n, HIDDEN), candle_core::DType::F32, &Device::Cpu).expect("zeros"),
            );
            t.insert(
                "classifier.bias".into(),
                Tensor::from_vec(bias.clone(), n, &Device::Cpu).expect("bias"),
            );
        }
        for name in &spec.omit {
            t.remove(name);
        }
        t
    }

    /// Writes config.json, tokenizer.json and model.safetensors into `dir`.
    pub fn write_model(dir: &Path, spec: &TinyModel) {
        std::fs::write(dir.join("config.json"), config_json().to_string())
            .expect("write config.json");
        std::fs::write(dir.join("tokenizer.json"), tokenizer_json().to_string())
            .expect("write tokenizer.json");
        candle_core::safetensors::save(&tensors(spec), dir.join("model.safetensors"))
            .expect("write model.safetensors");
    }
}

#[cfg(test)]
mod tests {
    use super::tiny::{write_model, TinyModel};
    use super::*;

    const QUERY: &str = "what did the fed do in the year?";
    const PASSAGES: &[&str] = &[
        "the federal reserve raised rates.",
        "a cat sat on the mat",
        "inflation rose",
        "the fed lowered the federal funds rate on policy . the rates fell and inflation fell",
        "mat",
    ];

    fn load(spec: TinyModel) -> (tempfile::TempDir, Result<CrossEncoder, EmbedError>) {
        let dir = tempfile::tempdir().expect("tempdir");
        write_model(dir.path(), &spec);
        let ce = CrossEncoder::load(dir.path(), 256);
        (dir, ce)
    }

    #[test]
    fn loads_and_scores_every_passage_deterministically() {
        let (dir, ce) = load(TinyModel::default());
        let ce = ce.expect("load tiny cross-encoder");
        assert_eq!(ce.num_labels(), 1);
        assert_eq!(
            ce.name(),
            dir.path().file_name().expect("name").to_string_lossy()
        );
        let a = ce.score(QUERY, PASSAGES).expect("score");
        assert_eq!(a.len(), PASSAGES.len());
        assert!(a.iter().all(|s| s.is_finite()));
        let b = ce.score(QUERY, PASSAGES).expect("score again");
        assert_eq!(a, b);
        // Different passages get different scores: the passage reaches the head.
        assert!(a.windows(2).any(|w| (w[0] - w[1]).abs() > 1e-4), "{a:?}");
        // A reloaded model gives the same scores.
        let again = CrossEncoder::load(dir.path(), 256).expect("reload");
        assert_eq!(again.score(QUERY, PASSAGES).expect("score"), a);
        assert!(ce.score(QUERY, &[]).expect("empty").is_empty());
    }

    #[test]
    fn batched_scores_equal_one_at_a_time_scores() {
        let (_d, ce) = load(TinyModel::default());
        let ce = ce.expect("load");
        let batched = ce.score(QUERY, PASSAGES).expect("score");
        for (p, b) in PASSAGES.iter().zip(&batched) {
            let single = ce.score(QUERY, &[p]).expect("score one")[0];
            assert!(
                (single - b).abs() < 1e-4,
                "{p}: alone {single}, in batch {b}"
            );
        }
    }

    #[test]
    fn zero_classifier_weight_gives_the_bias() {
        let (_d, ce) = load(TinyModel {
            constant_head: Some(vec![0.75]),
            ..TinyModel::default()
        });
        let scores = ce.expect("load").score(QUERY, PASSAGES).expect("score");
        assert!(
            scores.iter().all(|&s| (s - 0.75).abs() < 1e-6),
            "{scores:?}"
        );
    }

    #[test]
    fn two_labels_score_with_the_last_label() {
        let (_d, ce) = load(TinyModel {
            constant_head: Some(vec![-3.0, 2.5]),
            ..TinyModel::default()
        });
        let ce = ce.expect("load");
        assert_eq!(ce.num_labels(), 2);
        let scores = ce.score(QUERY, PASSAGES).expect("score");
        assert!(scores.iter().all(|&s| (s - 2.5).abs() < 1e-6), "{scores:?}");
    }

    #[test]
    fn two_label_random_head_uses_the_last_row() {
        // With random weights, the last-label score must equal a single-label head built from the
        // last row alone.
        let two = TinyModel {
            num_labels: 2,
            ..TinyModel::default()
        };
        let tensors = tiny::tensors(&two);
        let (_d, ce) = load(two);
        let scores = ce.expect("load").score(QUERY, PASSAGES).expect("score");
        let dir = tempfile::tempdir().expect("tempdir");
        write_model(dir.path(), &TinyModel::default());
        let mut one = tiny::tensors(&TinyModel::default());
        let w = tensors["classifier.weight"].narrow(0, 1, 1).expect("row");
        let b = tensors["classifier.bias"].narrow(0, 1, 1).expect("bias");
        one.insert("classifier.weight".into(), w);
        one.insert("classifier.bias".into(), b);
        candle_core::safetensors::save(&one, dir.path().join("model.safetensors")).expect("save");
        let single = CrossEncoder::load(dir.path(), 256)
            .expect("load")
            .score(QUERY, PASSAGES)
            .expect("score");
        for (a, b) in scores.iter().zip(&single) {
            assert!((a - b).abs() < 1e-5, "{scores:?} vs {single:?}");
        }
    }

    #[test]
    fn loads_without_the_bert_prefix() {
        let (_d, ce) = load(TinyModel {
            bert_prefix: false,
            ..TinyModel::default()
        });
        let scores = ce
            .expect("load unprefixed")
            .score(QUERY, PASSAGES)
            .expect("score");
        assert_eq!(scores.len(), PASSAGES.len());
    }

    #[test]
    fn missing_classifier_weight_is_a_clear_error() {
        let (_d, ce) = load(TinyModel {
            omit: vec!["classifier.weight".into()],
            ..TinyModel::default()
        });
        let err = ce.unwrap_err().to_string();
        assert!(
            err.contains("classifier.weight") && err.contains("model.safetensors"),
            "{err}"
        );
    }

    #[test]
    fn missing_pooler_is_a_clear_error() {
        let (_d, ce) = load(TinyModel {
            omit: vec!["bert.pooler.dense.bias".into()],
            ..TinyModel::default()
        });
        let err = ce.unwrap_err().to_string();
        assert!(err.contains("bert.pooler.dense.bias"), "{err}");
    }

    #[test]
    fn missing_files_are_named() {
        for file in ["config.json", "tokenizer.json", "model.safetensors"] {
            let dir = tempfile::tempdir().expect("tempdir");
            write_model(dir.path(), &TinyModel::default());
            std::fs::remove_file(dir.path().join(file)).expect("remove");
            let err = CrossEncoder::load(dir.path(), 256).unwrap_err();
            assert!(matches!(err, EmbedError::MissingFile { .. }), "{err}");
            assert!(err.to_string().contains(file), "{err}");
        }
    }

    #[test]
    fn long_pairs_are_truncated() {
        let (_d, ce) = load(TinyModel::default());
        let long = "the rate rose ".repeat(100);
        let scores = ce
            .expect("load")
            .score(&long, &[long.as_str(), "mat"])
            .expect("score long pair");
        assert_eq!(scores.len(), 2);
        assert!(scores.iter().all(|s| s.is_finite()));
    }

    #[test]
    fn pair_encoding_marks_the_passage_with_type_one() {
        let (_d, ce) = load(TinyModel::default());
        let ce = ce.expect("load");
        let enc = ce
            .tokenizer
            .encode_fast(("the fed", "a cat"), true)
            .expect("encode");
        assert_eq!(enc.get_type_ids(), &[0, 0, 0, 0, 1, 1, 1]);
        // The tokenizer.json asked for fixed padding; it must have been switched off.
        assert_eq!(enc.len(), 7);
    }
}
