//! fathom: ask questions of a folder of dated documents and get cited, confidence-scored answers.
//!
//! Dependency direction is one way: `orchestrator → index → corpus`; `config` is read by all.

pub mod config;
pub mod corpus;
pub mod eval;
pub mod index;
pub mod logging;
pub mod model;
pub mod orchestrator;
pub mod query;
pub mod redact;
pub mod sample;
pub mod session;
pub mod text_safety;
pub mod tui;
