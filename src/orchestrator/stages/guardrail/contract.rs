//! The guardrail's model half: the model screens a question the offline rules let through.

use super::{check, ID};
use crate::orchestrator::chat::ChatBackend;
use crate::orchestrator::contract::schema::{
    field, nullable, Field, Kind, RESPONSE_ID, SESSION_ID,
};
use crate::orchestrator::contract::validate::blank;
use crate::orchestrator::contract::{ModelContract, ValidationContext};
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::types::GuardrailsViolationError;
use crate::resilience::budget::TokenAllocation;
use serde::Deserialize;
use serde_json::{json, Map, Value};

pub struct GuardrailContract;

const FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "allowed",
        Kind::Bool,
        "true when the question may be answered from the documents.",
    ),
    nullable(
        "reason",
        Kind::Text,
        "Why the question is blocked; null when allowed.",
    ),
    nullable(
        "safe_reply",
        Kind::Text,
        "A short polite reply for the user; required when allowed is false.",
    ),
];

/// The reply, once validated.
#[derive(Debug, Deserialize)]
struct Reply {
    allowed: bool,
    reason: Option<String>,
    safe_reply: Option<String>,
}

impl ModelContract for GuardrailContract {
    fn schema_name(&self) -> &'static str {
        "fathom_guardrail"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn directive(&self) -> &'static str {
        include_str!("prompt.md").trim_ascii_end()
    }

    /// Only when configured (`llm.guardrail`), and only for what the offline rules let through.
    fn wanted(&self, chat: &ChatBackend, cx: &StageCx, _work: &Work) -> bool {
        chat.guardrail && check(&cx.input.query).is_ok()
    }

    fn runtime_directive(&self, cx: &StageCx, _work: &Work, _: Option<&TokenAllocation>) -> String {
        format!(
            "Check the user prompt. {}",
            crate::orchestrator::stages::span_note(cx)
        )
    }

    fn check(&self, obj: &Map<String, Value>, _: &ValidationContext, problems: &mut Vec<String>) {
        if obj.get("allowed") == Some(&Value::Bool(false)) && blank(obj, "safe_reply") {
            problems
                .push("safe_reply must be a short reply for the user when allowed is false".into());
        }
    }

    fn apply(
        &self,
        _cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        let r: Reply = serde_json::from_value(Value::Object(reply)).map_err(|e| e.to_string())?;
        if !r.allowed {
            work.guardrail = Some(GuardrailsViolationError {
                stage: ID,
                reason: r
                    .reason
                    .clone()
                    .unwrap_or_else(|| "blocked by the model".into()),
                safe_reply: r.safe_reply.clone().unwrap_or_default(),
            });
        }
        Ok(StageOutcome::new(json!({
            "allowed": r.allowed,
            "blocked": !r.allowed,
            "reason": r.reason,
            "safe_reply": r.safe_reply,
        }))
        .flag("blocked", !r.allowed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{check as validate_reply, notes, with};

    fn reply() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1", "allowed": true,
               "reason": null, "safe_reply": null})
    }

    #[test]
    fn valid_replies_pass_and_a_block_needs_a_safe_reply() {
        assert!(validate_reply(&GuardrailContract, &reply()).is_ok());
        let blocked = with(&reply(), "allowed", Some(json!(false)));
        let n = notes(&GuardrailContract, &blocked);
        assert!(
            n.contains("safe_reply must be a short reply for the user when allowed is false"),
            "{n}"
        );
        let blank = with(&blocked, "safe_reply", Some(json!("  ")));
        assert!(notes(&GuardrailContract, &blank).contains("safe_reply must be"));
        let ok = with(
            &blocked,
            "safe_reply",
            Some(json!("I can help with your documents.")),
        );
        assert!(validate_reply(&GuardrailContract, &ok).is_ok());
    }
}
