//! The real embedding model (all-MiniLM-L6-v2): reference values, batching, truncation, errors.
//! Needs the model installed (`make model`); fails, never skips, when it is missing.

mod common;

use std::sync::OnceLock;
use std::time::Instant;

use fathom::index::embed::{EmbedError, EmbedOptions, Embedder, Pooling};

const FED: &str =
    "The Federal Reserve lowered the target range for the federal funds rate to 0 to 1/4 percent.";
const CAT: &str = "A cat sat on the mat.";

// Reference values from scripts/reference_embeddings.py: a plain-numpy BERT forward pass (float64
// arithmetic on the safetensors weights, Hugging Face `tokenizers` for token ids), masked mean
// pooling and L2 normalisation -- no candle involved. Regenerate with:
//   python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install numpy safetensors tokenizers
//   /tmp/refvenv/bin/python scripts/reference_embeddings.py
const FED_TOKENS: usize = 22;
const CAT_TOKENS: usize = 9;
const FED_FIRST8: [f32; 8] = [
    0.120738, 0.053051, -0.026110, 0.095521, 0.089650, -0.004968, -0.067101, 0.042693,
];
const CAT_FIRST8: [f32; 8] = [
    0.120813, -0.023536, -0.036690, 0.056463, -0.065987, 0.028884, 0.045335, 0.024535,
];
const FED_CAT_COSINE: f32 = 0.021119;

fn embedder() -> &'static Embedder {
    static E: OnceLock<Embedder> = OnceLock::new();
    E.get_or_init(|| {
        Embedder::load(&common::model_dir(), EmbedOptions::default())
            .expect("the embedding model loads")
    })
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f32]) -> f32 {
    dot(a, a).sqrt()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn dimension_is_384_and_vectors_have_unit_norm() {
    let e = embedder();
    assert_eq!(e.dim(), 384);
    let vs = e.embed_documents(&[FED, CAT, ""]).expect("embed");
    assert_eq!(vs.len(), 3);
    for v in &vs {
        assert_eq!(v.len(), 384);
        assert!((norm(v) - 1.0).abs() < 1e-5, "norm {}", norm(v));
    }
    let q = e.embed_query(CAT).expect("embed query");
    assert_eq!(q.len(), 384);
    assert!((norm(&q) - 1.0).abs() < 1e-5);
}

#[test]
fn embeddings_match_the_numpy_reference() {
    let e = embedder();
    assert_eq!(e.count_tokens(FED), FED_TOKENS);
    assert_eq!(e.count_tokens(CAT), CAT_TOKENS);
    let vs = e.embed_documents(&[FED, CAT]).expect("embed");
    let d_fed = max_abs_diff(&vs[0][..8], &FED_FIRST8);
    let d_cat = max_abs_diff(&vs[1][..8], &CAT_FIRST8);
    assert!(
        d_fed < 1e-3,
        "FED first 8 {:?} vs reference {FED_FIRST8:?}",
        &vs[0][..8]
    );
    assert!(
        d_cat < 1e-3,
        "CAT first 8 {:?} vs reference {CAT_FIRST8:?}",
        &vs[1][..8]
    );
    let cos = dot(&vs[0], &vs[1]);
    assert!(
        (cos - FED_CAT_COSINE).abs() < 1e-3,
        "cosine {cos} vs reference {FED_CAT_COSINE}"
    );
}

#[test]
fn padding_does_not_change_a_short_text() {
    let e = embedder();
    let long = "The Committee will continue to monitor the implications of incoming information for the \
                economic outlook and is prepared to adjust the stance of monetary policy as appropriate \
                if risks emerge that could impede the attainment of the Committee's goals.";
    let alone = e.embed_documents(&[CAT]).expect("embed alone");
    let batched = e.embed_documents(&[long, CAT, FED]).expect("embed batched");
    let d = max_abs_diff(&alone[0], &batched[1]);
    assert!(d < 1e-4, "short text changed by {d} when padded in a batch");
    let fed_alone = e.embed_query(FED).expect("embed query");
    assert!(max_abs_diff(&fed_alone, &batched[2]) < 1e-4);
}

#[test]
fn order_is_preserved_across_mixed_lengths_and_batches() {
    let e = Embedder::load(
        &common::model_dir(),
        EmbedOptions {
            batch_size: 2,
            ..EmbedOptions::default()
        },
    )
    .expect("load with small batches");
    let texts: Vec<String> = (0..7)
        .map(|i| {
            format!(
                "Item {i}: {}",
                "the economy expanded at a moderate pace ".repeat(1 + (i * 3) % 7)
            )
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let together = e.embed_documents(&refs).expect("embed all");
    assert_eq!(together.len(), texts.len());
    for (i, t) in refs.iter().enumerate() {
        let alone = e.embed_documents(&[t]).expect("embed one");
        let d = max_abs_diff(&alone[0], &together[i]);
        assert!(
            d < 1e-4,
            "text {i} came back as another text's vector (diff {d})"
        );
    }
    assert!(e.embed_documents(&[]).expect("empty").is_empty());
}

#[test]
fn related_pair_is_closer_than_unrelated_pair() {
    let e = embedder();
    let vs = e
        .embed_documents(&[
            "The central bank cut interest rates to support the economy.",
            "The Fed lowered the policy rate to stimulate growth.",
            "My dog likes to chase tennis balls in the park.",
        ])
        .expect("embed");
    let related = dot(&vs[0], &vs[1]);
    let unrelated = dot(&vs[0], &vs[2]);
    assert!(
        related > unrelated + 0.2,
        "related {related}, unrelated {unrelated}"
    );
}

#[test]
fn texts_longer_than_max_tokens_are_truncated() {
    let e = embedder();
    let head = "Inflation has moved up and the labor market remains strong. ";
    let long = format!(
        "{head}{}",
        "Household spending and business investment grew. ".repeat(60)
    );
    assert!(
        e.count_tokens(&long) > 256,
        "test text is only {} tokens",
        e.count_tokens(&long)
    );
    let v = e.embed_documents(&[&long]).expect("embed a long text");
    assert_eq!(v[0].len(), 384);
    assert!((norm(&v[0]) - 1.0).abs() < 1e-5);
    // Whatever follows the first 256 tokens is cut off, so it cannot change the vector.
    let longer = format!("{long}{}", "Cats and dogs. ".repeat(50));
    let w = e.embed_documents(&[&longer]).expect("embed a longer text");
    assert!(max_abs_diff(&v[0], &w[0]) < 1e-5);
    // A shorter cap sees less of the text and gives a different vector.
    let short = Embedder::load(
        &common::model_dir(),
        EmbedOptions {
            max_tokens: 16,
            ..EmbedOptions::default()
        },
    )
    .expect("load");
    let s = short.embed_documents(&[&long]).expect("embed capped");
    assert!(max_abs_diff(&v[0], &s[0]) > 1e-3);
    assert_ne!(short.model_id(), e.model_id());
}

#[test]
fn query_prefix_is_prepended_to_queries_only() {
    let plain = embedder();
    let prefixed = Embedder::load(
        &common::model_dir(),
        EmbedOptions {
            query_prefix: "query: ".into(),
            ..EmbedOptions::default()
        },
    )
    .expect("load");
    let a = prefixed.embed_query(CAT).expect("query");
    let b = plain
        .embed_documents(&[&format!("query: {CAT}")])
        .expect("doc");
    assert!(max_abs_diff(&a, &b[0]) < 1e-5);
    let c = plain.embed_query(CAT).expect("plain query");
    assert!(max_abs_diff(&a, &c) > 1e-3);
    let docs = prefixed.embed_documents(&[CAT]).expect("docs");
    assert!(
        max_abs_diff(&docs[0], &c) < 1e-5,
        "documents must not get the query prefix"
    );
}

#[test]
fn model_id_names_folder_dim_size_pooling_and_cap() {
    let e = embedder();
    let dir = common::model_dir();
    let size = std::fs::metadata(dir.join("model.safetensors"))
        .expect("stat")
        .len();
    let name = dir
        .file_name()
        .expect("folder name")
        .to_string_lossy()
        .into_owned();
    assert_eq!(e.model_id(), format!("{name}:384:{size}:mean:256"));
    assert_eq!(e.pooling(), Pooling::Mean);
}

#[test]
fn missing_weights_file_is_named_in_the_error() {
    let src = common::model_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(src.join(f), dir.path().join(f)).expect("copy");
    }
    let err =
        Embedder::load(dir.path(), EmbedOptions::default()).expect_err("must fail without weights");
    assert!(matches!(err, EmbedError::MissingFile { .. }), "{err:?}");
    assert!(err.to_string().contains("model.safetensors"), "{err}");
}

#[test]
fn corrupt_weights_file_is_named_in_the_error() {
    let src = common::model_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(src.join(f), dir.path().join(f)).expect("copy");
    }
    std::fs::write(
        dir.path().join("model.safetensors"),
        b"not a safetensors file",
    )
    .expect("write");
    let err =
        Embedder::load(dir.path(), EmbedOptions::default()).expect_err("must fail on bad weights");
    assert!(matches!(err, EmbedError::BadFile { .. }), "{err:?}");
    assert!(err.to_string().contains("model.safetensors"), "{err}");
}

/// Throughput on the first 50 FOMC statements cut into ~150-word pieces.
/// `cargo test --test embed -- --ignored --nocapture throughput`
#[test]
#[ignore = "performance report, not a correctness check"]
fn throughput_on_fomc_statements() {
    let e = embedder();
    let pieces = common::statement_pieces(50);
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let tokens: usize = refs.iter().map(|t| e.count_tokens(t).min(256)).sum();
    let start = Instant::now();
    let vs = e.embed_documents(&refs).expect("embed");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(vs.len(), refs.len());
    println!(
        "embedded {} pieces / {tokens} tokens from 50 statements in {secs:.2}s: {:.0} tokens/s",
        refs.len(),
        tokens as f64 / secs
    );
}
