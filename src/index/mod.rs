//! The embedded hybrid index: BM25 (tantivy) + dense vectors on disk, fused with RRF and reranked.
//! Stored as generations (see `generation`): built beside the served one, switched atomically.

pub mod build;
pub mod chunk_table;
pub mod cross_encoder;
pub mod dense;
pub mod embed;
pub mod error;
mod eta;
pub mod fsio;
pub mod fuse;
pub mod generation;
mod hold;
mod legacy;
pub mod manifest;
pub mod open;
pub mod rerank;
pub mod retrieve;
pub mod snippet;
pub mod sparse;
pub mod store;
pub mod vector_cache;

pub use error::IndexError;
