//! The strict-JSON runtime contract of model-backed stages (ARCHITECTURE §3), as generic code
//! that knows no stage by name. A stage's model half implements [`ModelContract`] in its own
//! folder (`stages/<name>/contract.rs`): its schema fields, its directive (`prompt.md`), its
//! runtime directive, the rules a schema cannot state, and how a valid reply is applied.
//!
//! - [`prompt`] builds the messages: the cached persona block plus the stage's directive as the
//!   system message, then one JSON object with the input slots as the user message.
//! - [`schema`] turns a field table into the JSON Schema sent as `response_format`.
//! - [`validate`] checks a reply: one JSON object, ids, fields, then the stage's own rules.
//! - [`run`] is the loop: admit → call → validate → re-issue with telemetry → retry → fall back.
//! - [`stream`] decodes the answer field of a JSON object that is still arriving.

pub mod prompt;
pub mod run;
pub mod schema;
pub mod stream;
pub mod validate;

#[cfg(test)]
pub(crate) mod testing;

pub use prompt::{build_messages, passages_directive, prompt_text, PromptInput, PERSONA};
pub use run::{run_model, ModelOutcome};
pub use schema::{schema, Field, Kind};
pub use stream::AnswerFieldStream;
pub use validate::{validate, ContractViolation, ValidationContext};

use super::chat::ChatBackend;
use super::stage::{StageCx, StageOutcome};
use super::state::Work;
use crate::resilience::budget::TokenAllocation;
use serde_json::{Map, Value};

/// The model half of a stage.
pub trait ModelContract: Send + Sync {
    /// The `json_schema.name` of the stage's response format (`fathom_<stage>`).
    fn schema_name(&self) -> &'static str;
    /// The reply's fields, in the order the schema lists them.
    fn fields(&self) -> &'static [Field];
    /// The stage's directive (its `prompt.md`), after the persona in the system message.
    fn directive(&self) -> &'static str;
    /// Material for this call only: passages, queries tried.
    fn runtime_directive(
        &self,
        cx: &StageCx,
        work: &Work,
        budget: Option<&TokenAllocation>,
    ) -> String;
    /// Applies a valid reply to the work as the offline stage would, and reports the outcome.
    fn apply(
        &self,
        cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String>;

    /// Whether the model should do the stage now (when a model is configured).
    fn wanted(&self, _chat: &ChatBackend, _cx: &StageCx, _work: &Work) -> bool {
        true
    }
    /// The reply's `answer` field is shown to the user as it streams.
    fn streams_answer(&self) -> bool {
        false
    }
    fn temperature(&self, _chat: &ChatBackend) -> f64 {
        0.2
    }
    /// Passages in the prompt and the completion tokens, for stages that send passages.
    fn budget(&self, _chat: &ChatBackend, _cx: &StageCx, _work: &Work) -> Option<TokenAllocation> {
        None
    }
    /// Chunk ids the reply may cite.
    fn citable(&self, _work: &Work) -> Vec<String> {
        Vec::new()
    }
    /// Rules a schema cannot state; each problem phrased as what to fix.
    fn check(
        &self,
        _obj: &Map<String, Value>,
        _ctx: &ValidationContext,
        _problems: &mut Vec<String>,
    ) {
    }
}
