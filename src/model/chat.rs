//! The chat-model seam (ARCHITECTURE §1): what the orchestrator needs of any chat backend. The
//! OpenAI-compatible HTTP client is one implementation; the orchestrator adds the breaker, the
//! retry policy and the budget around whichever it is given.

use super::error::ModelError;
use super::openai::{ChatResponse, OpenAiClient, StructuredMode};
use super::ChatMessage;
use futures_util::future::BoxFuture;
use serde_json::Value;

/// Receives each piece of answer text as it arrives.
pub type DeltaSink<'a> = Option<&'a mut (dyn FnMut(&str) + Send)>;

/// One call that must return a JSON object matching `schema`.
pub struct StructuredCall<'a> {
    /// Builds the prompt for a structured-output form (below `json_schema` it must spell out
    /// the schema itself).
    pub messages_for: &'a (dyn Fn(StructuredMode) -> Vec<ChatMessage> + Sync),
    pub schema_name: &'a str,
    pub schema: &'a Value,
    pub temperature: f64,
    pub max_tokens: u32,
    /// Streams the reply as it arrives, when given.
    pub stream: DeltaSink<'a>,
}

pub trait ChatModel: Send + Sync {
    /// The model's name, as configured (shown in results and the breaker panel).
    fn model(&self) -> &str;
    /// Runs one structured call in the strongest form the server accepts; returns the reply and
    /// the form used.
    fn complete_structured<'a>(
        &'a self,
        call: StructuredCall<'a>,
    ) -> BoxFuture<'a, Result<(ChatResponse, StructuredMode), ModelError>>;
}

impl ChatModel for OpenAiClient {
    fn model(&self) -> &str {
        OpenAiClient::model(self)
    }

    fn complete_structured<'a>(
        &'a self,
        call: StructuredCall<'a>,
    ) -> BoxFuture<'a, Result<(ChatResponse, StructuredMode), ModelError>> {
        Box::pin(OpenAiClient::complete_structured(
            self,
            call.messages_for,
            call.schema_name,
            call.schema,
            call.temperature,
            call.max_tokens,
            call.stream,
        ))
    }
}
