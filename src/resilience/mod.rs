//! Resilience for every remote backend (chat model, remote store, remote embedder): the circuit
//! breaker, the retry policy and the token budget. Pure decisions with injected clocks, so index
//! and model code can both use them and tests need no network.

pub mod breaker;
pub mod budget;
pub mod policy;

use serde::{Deserialize, Serialize};

/// How an error counts for the error policy and the circuit breaker (ARCHITECTURE §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Worth noting; the stage's result stands.
    Warning,
    /// Likely to pass on its own (5xx, 429, a cut stream): retry; weighs 0.5 on the breaker.
    Transient,
    /// The call failed but another try or the fallback can recover (refused connection,
    /// malformed output): retry, then fall back; weighs 1.
    Recoverable,
    /// No answer within the dispatch timeout: fall back; weighs 0.5.
    Timeout,
    /// The backend cannot serve us at all (bad key, unknown model): weighs 1.
    Critical,
}
