//! Model backends: the shared message and error vocabulary, the OpenAI-compatible HTTP client,
//! and (in the orchestrator) the offline stages that stand in when no model is configured.

pub mod error;
pub mod openai;
pub mod sse;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One message of a chat-completions request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: Role::System,
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: Role::User,
            content: content.into(),
        }
    }
}

/// Tokens a call used, as the server reported them (0 when it did not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

impl TokenUsage {
    /// Both counts added, saturating: the numbers come from the server, which may send anything.
    pub fn total(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

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
