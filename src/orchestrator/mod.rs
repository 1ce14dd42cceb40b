//! The orchestrator: a contract-driven pipeline of stages, routed by a topology that is data.

pub mod backend;
pub mod band;
pub mod breaker;
pub mod budget;
pub mod contract;
pub mod dispatch;
pub mod events;
pub mod followup;
pub mod manager;
pub mod model_stage;
pub mod policy;
pub mod relevance;
pub mod runtime;
pub mod stages;
pub mod state;
pub mod text;
pub mod topology;
pub mod types;
