//! The strict-JSON runtime contract of the model-backed stages (ARCHITECTURE §3).
//!
//! A model-backed stage is one prompt in, one JSON object out:
//!
//! - [`prompt`] builds the messages: the cached persona block plus the stage's directive as the
//!   system message, then one JSON object with the input slots as the user message.
//! - [`schema`] gives the stage's JSON Schema for `response_format: json_schema` (or for the
//!   instructions, on servers without it).
//! - [`validate`] checks the reply against the schema and the contract's rules and turns it into a
//!   typed [`StageOutput`]; a [`ContractViolation`]'s notes go back to the model on the re-issue.
//! - [`slice`] is what each stage writes into `cached_state[stage]`.
//! - [`stream`] decodes the synthesis answer out of a JSON object that is still arriving.
//!
//! Everything here is pure: no I/O, no clock, no randomness.

pub mod output;
pub mod prompt;
pub mod schema;
pub mod slice;
pub mod stream;
pub mod validate;

pub use output::{
    CitationRef, GuardrailOutput, PlanOutput, ReflectOutput, ReformulateOutput, StageOutput,
    SynthesizeOutput,
};
pub use prompt::{build_messages, directive, passages_directive, PromptInput, PERSONA};
pub use schema::{response_format, schema, schema_name};
pub use slice::{reflect_confidence, slice};
pub use stream::AnswerFieldStream;
pub use validate::{validate, ContractViolation, ValidationContext};

use super::topology::StageId;
use serde::{Deserialize, Serialize};

/// The stages whose work a chat model does under this contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelStage {
    Guardrail,
    Plan,
    Reformulate,
    Synthesize,
    Reflect,
}

impl ModelStage {
    pub const ALL: [ModelStage; 5] = [
        ModelStage::Guardrail,
        ModelStage::Plan,
        ModelStage::Reformulate,
        ModelStage::Synthesize,
        ModelStage::Reflect,
    ];

    /// The pipeline node this stage runs as.
    pub fn stage_id(self) -> StageId {
        match self {
            ModelStage::Guardrail => StageId::Guardrail,
            ModelStage::Plan => StageId::Plan,
            ModelStage::Reformulate => StageId::Reformulate,
            ModelStage::Synthesize => StageId::Synthesize,
            ModelStage::Reflect => StageId::Reflect,
        }
    }

    /// The model-backed stage for a pipeline node, if that node is one.
    pub fn from_stage_id(id: StageId) -> Option<ModelStage> {
        ModelStage::ALL.into_iter().find(|s| s.stage_id() == id)
    }

    /// The stage's name, as in `cached_state` and `assets/prompts/<name>.md`.
    pub fn as_str(self) -> &'static str {
        self.stage_id().as_str()
    }
}

impl std::fmt::Display for ModelStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_ids_round_trip() {
        for s in ModelStage::ALL {
            assert_eq!(ModelStage::from_stage_id(s.stage_id()), Some(s));
        }
        assert_eq!(ModelStage::from_stage_id(StageId::Retrieve), None);
        assert_eq!(ModelStage::Synthesize.as_str(), "synthesize");
    }
}
