//! Retrieval: the [`Retriever`] seam and its backends. The embedded backend is BM25 (tantivy) +
//! dense vectors on disk, fused with RRF and reranked, stored as generations (see `generation`:
//! built beside the served one, switched atomically); the memory backend is BM25 over passages
//! held in memory.

pub mod build;
pub mod chunk_table;
pub mod cross_encoder;
pub mod dense;
pub mod embed;
pub mod embed_error;
pub mod embedded;
pub mod error;
mod eta;
pub mod fsio;
pub mod fuse;
pub mod generation;
mod hold;
mod legacy;
pub mod manifest;
pub mod memory;
mod onnx_bert;
pub mod open;
pub mod rerank;
pub mod retriever;
pub mod snippet;
pub mod sparse;
pub mod store;
pub mod vector_cache;

pub use error::IndexError;
pub use retriever::{
    Candidates, DocumentInfo, Hit, Passage, RetrievalSettings, Retriever, RetrieverInfo,
    SearchMode, SearchRequest, SearchResponse, SentenceVectors, Timings, YearMode,
};
