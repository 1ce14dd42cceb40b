//! fathom: ask questions of a folder of dated documents and get cited, confidence-scored answers.
//!
//! Dependencies point one way (docs/architecture.md has the map): `tui → orchestrator::api`;
//! `session → orchestrator::api`; `orchestrator → {index, model, resilience} → corpus`;
//! `wiring` turns a config into an engine for the CLI and the UI; `config` is read by all.

pub mod calendar;
pub mod config;
pub mod corpus;
pub mod eval;
pub mod ids;
pub mod index;
pub mod logging;
pub mod model;
pub mod orchestrator;
pub mod percent;
pub mod query;
pub mod redact;
pub mod resilience;
pub mod sample;
pub mod session;
pub mod text_safety;
pub mod tui;
pub mod wiring;
