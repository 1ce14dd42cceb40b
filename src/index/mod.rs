//! Retrieval: the [`Retriever`] seam and its backends. The embedded backend is BM25 (tantivy) +
//! dense vectors on disk, fused with RRF and reranked; the memory backend is BM25 over passages
//! held in memory.

pub mod cross_encoder;
pub mod dense;
pub mod embed;
pub mod embedded;
pub mod error;
pub mod fuse;
pub mod manifest;
pub mod memory;
mod onnx_bert;
pub mod open;
pub mod rerank;
pub mod retriever;
pub mod snippet;
pub mod sparse;
pub mod store;

pub use error::IndexError;
pub use retriever::{
    Candidates, DocumentInfo, Hit, Passage, RetrievalSettings, Retriever, RetrieverInfo,
    SearchMode, SearchRequest, SearchResponse, Timings, YearMode,
};
