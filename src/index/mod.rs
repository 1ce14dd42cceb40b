//! The embedded hybrid index: BM25 (tantivy) + dense vectors on disk, fused with RRF and reranked.

pub mod cross_encoder;
pub mod dense;
pub mod embed;
pub mod error;
pub mod fuse;
pub mod manifest;
mod onnx_bert;
pub mod open;
pub mod rerank;
pub mod retrieve;
pub mod snippet;
pub mod sparse;
pub mod store;

pub use error::IndexError;
