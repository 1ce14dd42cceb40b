//! The ONNX Runtime embedder on the real model and library that `make model` installs: numerical
//! agreement with the numpy reference and with candle, the int8 graph's stated tolerance, the
//! runtime choice, and the fallback when the ONNX files are missing or corrupt. Fails, never
//! skips, when they are not installed.

mod common;

use std::path::Path;
use std::sync::OnceLock;

use fathom::index::embed::{EmbedError, EmbedOptions, EmbedRuntime, Embedder, Precision};

const FED: &str =
    "The Federal Reserve lowered the target range for the federal funds rate to 0 to 1/4 percent.";
const CAT: &str = "A cat sat on the mat.";

// From scripts/reference_embeddings.py (plain numpy, float64), as in tests/embed.rs.
const FED_FIRST8: [f32; 8] = [
    0.120738, 0.053051, -0.026110, 0.095521, 0.089650, -0.004968, -0.067101, 0.042693,
];
const CAT_FIRST8: [f32; 8] = [
    0.120813, -0.023536, -0.036690, 0.056463, -0.065987, 0.028884, 0.045335, 0.024535,
];
const FED_CAT_COSINE: f32 = 0.021119;

fn options(runtime: EmbedRuntime, precision: Precision) -> EmbedOptions {
    EmbedOptions {
        runtime,
        precision,
        onnxruntime_lib: Some(common::onnxruntime_lib()),
        ..EmbedOptions::default()
    }
}

fn load(runtime: EmbedRuntime, precision: Precision) -> Embedder {
    Embedder::load(&common::model_dir(), options(runtime, precision))
        .unwrap_or_else(|e| panic!("{runtime:?} {precision:?} loads: {e}"))
}

fn fp32() -> &'static Embedder {
    static E: OnceLock<Embedder> = OnceLock::new();
    E.get_or_init(|| load(EmbedRuntime::Onnx, Precision::Fp32))
}

fn int8() -> &'static Embedder {
    static E: OnceLock<Embedder> = OnceLock::new();
    E.get_or_init(|| load(EmbedRuntime::Onnx, Precision::Int8))
}

fn candle() -> &'static Embedder {
    static E: OnceLock<Embedder> = OnceLock::new();
    E.get_or_init(|| load(EmbedRuntime::Candle, Precision::Fp32))
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Texts of many lengths, so batches are padded: FOMC sentences cut at different places.
fn mixed_texts() -> Vec<String> {
    let base = "The Committee decided to maintain the target range for the federal funds rate \
                and will continue to monitor the implications of incoming information for the \
                economic outlook, including readings on public health, labor market conditions, \
                inflation pressures and inflation expectations, and financial developments.";
    let words: Vec<&str> = base.split_whitespace().collect();
    (1..=words.len())
        .step_by(3)
        .map(|n| words[..n].join(" "))
        .chain([FED.to_string(), CAT.to_string(), String::new()])
        .collect()
}

#[test]
fn fp32_graph_matches_the_numpy_reference() {
    let e = fp32();
    assert_eq!(e.runtime(), "onnx-fp32");
    assert_eq!(e.dim(), 384);
    let vs = e.embed_documents(&[FED, CAT]).expect("embed");
    // Measured 2026-11-23: 3.5e-7 and 4.7e-7. The tolerance is candle's (tests/embed.rs).
    assert!(
        max_abs_diff(&vs[0][..8], &FED_FIRST8) < 1e-3,
        "{:?}",
        &vs[0][..8]
    );
    assert!(
        max_abs_diff(&vs[1][..8], &CAT_FIRST8) < 1e-3,
        "{:?}",
        &vs[1][..8]
    );
    assert!((dot(&vs[0], &vs[1]) - FED_CAT_COSINE).abs() < 1e-3);
    for v in &vs {
        assert!((dot(v, v).sqrt() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn fp32_graph_gives_candles_vectors_in_mixed_length_batches() {
    let texts = mixed_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let onnx = fp32().embed_documents(&refs).expect("onnx");
    let cand = candle().embed_documents(&refs).expect("candle");
    assert_eq!(onnx.len(), refs.len());
    let worst = onnx
        .iter()
        .zip(&cand)
        .map(|(a, b)| max_abs_diff(a, b))
        .fold(0.0, f32::max);
    // The same arithmetic in another order: equal to float rounding. This is what lets the two
    // share a model id (and an index).
    assert!(worst < 1e-4, "fp32 ONNX differs from candle by {worst}");
    assert_eq!(fp32().model_id(), candle().model_id());
}

#[test]
fn fp32_padding_and_order_do_not_change_a_vector() {
    let texts = mixed_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let together = fp32().embed_documents(&refs).expect("batch");
    for (i, t) in refs.iter().enumerate() {
        let alone = fp32().embed_query(t).expect("one");
        let d = max_abs_diff(&alone, &together[i]);
        assert!(d < 1e-4, "text {i} changed by {d} in a padded batch");
    }
}

#[test]
fn int8_graph_stays_within_its_stated_tolerance() {
    let e = int8();
    assert_eq!(e.runtime(), "onnx-int8");
    let texts = mixed_texts();
    let refs: Vec<&str> = texts[..texts.len() - 1]
        .iter()
        .map(String::as_str)
        .collect();
    let q = e.embed_documents(&refs).expect("int8");
    let f = fp32().embed_documents(&refs).expect("fp32");
    // Stated tolerance: cosine to the fp32 vector >= 0.98 for every text (measured 2026-11-23 on
    // FOMC chunks and questions: mean 0.994, min 0.988). Quantisation is not allowed to be
    // exact either: identical vectors would mean the int8 graph is not the one running.
    for (i, (a, b)) in q.iter().zip(&f).enumerate() {
        let cos = dot(a, b);
        assert!(cos > 0.98, "text {i}: int8 cosine to fp32 {cos}");
        assert!((dot(a, a).sqrt() - 1.0).abs() < 1e-5);
    }
    assert!(q.iter().zip(&f).any(|(a, b)| max_abs_diff(a, b) > 1e-4));
    let v = e.embed_documents(&[FED, CAT]).expect("embed");
    assert!(max_abs_diff(&v[0][..8], &FED_FIRST8) < 0.03);
    assert!((dot(&v[0], &v[1]) - FED_CAT_COSINE).abs() < 0.02);
}

#[test]
fn int8_vectors_get_their_own_model_id() {
    assert_eq!(int8().model_id(), format!("{}:int8", candle().model_id()));
}

#[test]
fn int8_keeps_related_texts_closer_than_unrelated_ones() {
    let vs = int8()
        .embed_documents(&[
            "The central bank cut interest rates to support the economy.",
            "The Fed lowered the policy rate to stimulate growth.",
            "My dog likes to chase tennis balls in the park.",
        ])
        .expect("embed");
    assert!(dot(&vs[0], &vs[1]) > dot(&vs[0], &vs[2]) + 0.2);
}

#[test]
fn auto_picks_onnx_when_it_is_installed() {
    let e = load(EmbedRuntime::Auto, Precision::Int8);
    assert_eq!(e.runtime(), "onnx-int8");
    assert!(e.notice().is_none(), "{:?}", e.notice());
}

/// A model folder with the real model's files, and `onnx/` holding what `write` puts there.
fn model_copy(write: impl Fn(&Path)) -> tempfile::TempDir {
    let src = common::model_dir();
    let dir = tempfile::tempdir().expect("tempdir");
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        // A hard link would be cheaper but /tmp may be another filesystem.
        std::fs::copy(src.join(f), dir.path().join(f)).expect("copy model file");
    }
    std::fs::create_dir_all(dir.path().join("onnx")).expect("mkdir onnx");
    write(&dir.path().join("onnx"));
    dir
}

#[test]
fn missing_onnx_file_is_an_error_for_onnx_and_a_notice_for_auto() {
    let dir = model_copy(|_| {});
    let err = Embedder::load(dir.path(), options(EmbedRuntime::Onnx, Precision::Fp32))
        .expect_err("onnx without its graph");
    assert!(matches!(err, EmbedError::MissingFile { .. }), "{err:?}");
    assert!(err.to_string().contains("model.onnx"), "{err}");

    let e = Embedder::load(dir.path(), options(EmbedRuntime::Auto, Precision::Fp32))
        .expect("auto falls back");
    assert_eq!(e.runtime(), "candle");
    let notice = e.notice().expect("a notice says why");
    assert!(
        notice.contains("model.onnx") && notice.contains("candle"),
        "{notice}"
    );
    assert!(!notice.contains('\n'), "one line: {notice}");
    // The fallback is the real model: same vectors as candle loaded directly.
    let v = e.embed_query(FED).expect("embed");
    assert!(max_abs_diff(&v, &candle().embed_query(FED).expect("candle")) < 1e-6);
}

#[test]
fn corrupt_onnx_file_is_an_error_for_onnx_and_a_notice_for_auto() {
    let good = common::model_dir().join("onnx/model_int8.onnx");
    let dir = model_copy(|onnx| {
        // The first kilobytes of the real graph: a truncated download or a full disk.
        let bytes = std::fs::read(&good).expect("read the installed int8 graph");
        std::fs::write(onnx.join("model_int8.onnx"), &bytes[..4096]).expect("write");
    });
    let err = Embedder::load(dir.path(), options(EmbedRuntime::Onnx, Precision::Int8))
        .expect_err("a truncated graph must not load");
    assert!(matches!(err, EmbedError::BadFile { .. }), "{err:?}");
    assert!(err.to_string().contains("model_int8.onnx"), "{err}");

    let e = Embedder::load(dir.path(), options(EmbedRuntime::Auto, Precision::Int8))
        .expect("auto falls back");
    assert_eq!(e.runtime(), "candle");
    assert!(!e.model_id().ends_with(":int8"), "{}", e.model_id());
    assert!(e.notice().expect("notice").contains("model_int8.onnx"));
}

#[test]
fn candle_runtime_never_touches_onnx() {
    // Even with a broken ONNX file beside it, `candle` loads without a notice.
    let dir = model_copy(|onnx| {
        std::fs::write(onnx.join("model.onnx"), b"not a graph").expect("write");
    });
    let e = Embedder::load(dir.path(), options(EmbedRuntime::Candle, Precision::Fp32))
        .expect("candle loads");
    assert_eq!(e.runtime(), "candle");
    assert!(e.notice().is_none());
}

#[test]
fn onnx_without_a_library_path_is_an_error() {
    let opts = EmbedOptions {
        runtime: EmbedRuntime::Onnx,
        onnxruntime_lib: None,
        ..EmbedOptions::default()
    };
    let err = Embedder::load(&common::model_dir(), opts).expect_err("no library");
    assert!(err.to_string().contains("ONNX Runtime"), "{err}");
}

/// `cargo test --test embed_onnx -- --ignored --nocapture throughput`
#[test]
#[ignore = "performance report, not a correctness check"]
fn throughput_of_each_runtime_on_fomc_statements() {
    let pieces = common::statement_pieces(50);
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    for e in [int8(), fp32(), candle()] {
        let tokens: usize = refs.iter().map(|t| e.count_tokens(t).min(256)).sum();
        let start = std::time::Instant::now();
        e.embed_documents(&refs).expect("embed");
        let secs = start.elapsed().as_secs_f64();
        let q = std::time::Instant::now();
        for _ in 0..20 {
            e.embed_query("federal funds rate target range lowered")
                .expect("query");
        }
        let query_ms = q.elapsed().as_secs_f64() * 1000.0 / 20.0;
        println!(
            "{}: {:.0} tokens/s over {} pieces; short query {query_ms:.2} ms",
            e.runtime(),
            tokens as f64 / secs,
            refs.len()
        );
    }
}
