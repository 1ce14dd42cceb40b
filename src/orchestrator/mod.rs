//! The orchestrator: a driver that runs any topology of stages (ARCHITECTURE §1–4).
//!
//! - [`api`]: all the UI, the sessions and the CLI see — commands, events, results.
//! - [`topology`]: topologies as data; [`machine`]: the pure routing, fallback and budget
//!   decisions; [`driver`]: performs them; [`runtime`]: the task and the engine handle.
//! - [`stage`], [`registry`], [`stages`]: what a stage is, where stages are found, the stages.
//! - [`contract`]: the strict-JSON loop for model-backed stages; [`chat`]: the chat backend.
//! - [`state`], [`dispatch`], [`verdict`], [`band`], [`citations`]: the values a query produces.

pub mod api;
pub mod asks;
pub mod band;
pub mod chat;
pub mod citations;
pub mod contract;
pub mod dispatch;
pub mod driver;
pub mod examples;
pub mod followup;
pub mod graph;
pub mod machine;
pub mod registry;
pub mod relevance;
pub mod runtime;
pub mod stage;
pub mod stages;
pub mod state;
pub mod text;
pub mod topology;
pub mod types;
pub mod verdict;
