//! A missing or broken ONNX Runtime library: a clear error for `runtime = "onnx"`, the candle
//! fallback with a notice for `"auto"`. Its own test binary, because a process can load ONNX
//! Runtime only once: the good library must never be loaded here.

mod common;

use std::path::Path;

use fathom::index::embed::{EmbedError, EmbedOptions, EmbedRuntime, Embedder, Precision};

fn options(runtime: EmbedRuntime, lib: &Path) -> EmbedOptions {
    EmbedOptions {
        runtime,
        precision: Precision::Int8,
        onnxruntime_lib: Some(lib.to_path_buf()),
        ..EmbedOptions::default()
    }
}

#[test]
fn missing_library_is_named_and_auto_falls_back_to_candle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("libonnxruntime.so");
    let err = Embedder::load(&common::model_dir(), options(EmbedRuntime::Onnx, &lib))
        .expect_err("no library");
    assert!(matches!(err, EmbedError::MissingFile { .. }), "{err:?}");
    assert!(err.to_string().contains("libonnxruntime.so"), "{err}");

    let e = Embedder::load(&common::model_dir(), options(EmbedRuntime::Auto, &lib))
        .expect("auto falls back");
    assert_eq!(e.runtime(), "candle");
    let notice = e.notice().expect("notice");
    assert!(notice.contains("libonnxruntime.so"), "{notice}");
    assert_eq!(e.embed_query("rates rose").expect("embed").len(), 384);
}

#[test]
fn corrupt_library_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("libonnxruntime.so");
    std::fs::write(&lib, b"\x7fELF but not really a shared library").expect("write");
    let err = Embedder::load(&common::model_dir(), options(EmbedRuntime::Onnx, &lib))
        .expect_err("a broken library must not load");
    assert!(matches!(err, EmbedError::Runtime { .. }), "{err:?}");
    assert!(err.to_string().contains("libonnxruntime.so"), "{err}");

    let e = Embedder::load(&common::model_dir(), options(EmbedRuntime::Auto, &lib))
        .expect("auto falls back");
    assert_eq!(e.runtime(), "candle");
    assert!(e.notice().is_some());
}
