//! Test helpers for contracts: a small contract of every field kind, a validation context and
//! a way to change one field of a reply.

use super::schema::{field, nullable, Field, Kind, RESPONSE_ID, SESSION_ID};
use super::{ModelContract, ValidationContext};
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::resilience::budget::TokenAllocation;
use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// A contract with one field of each kind and no rules of its own.
pub struct TestContract;

pub const TEST_FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field("answer", Kind::Text, "text"),
    field("allowed", Kind::Bool, "bool"),
    field("support", Kind::Score, "score"),
    nullable("top_k", Kind::Int { min: 1, max: 50 }, "int"),
    field("mode", Kind::Enum(&["coherent", "incoherent"]), "enum"),
    nullable("since", Kind::Date, "date"),
    field("citations", Kind::Citations, "citations"),
];

impl ModelContract for TestContract {
    fn schema_name(&self) -> &'static str {
        "fathom_test"
    }
    fn fields(&self) -> &'static [Field] {
        TEST_FIELDS
    }
    fn directive(&self) -> &'static str {
        "Stage: test.\n\n- session_id (string)"
    }
    fn runtime_directive(&self, _: &StageCx, _: &Work, _: Option<&TokenAllocation>) -> String {
        String::new()
    }
    fn apply(
        &self,
        _: &StageCx,
        _: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        Ok(StageOutcome::new(Value::Object(reply)))
    }
}

/// A valid reply to [`TestContract`].
pub fn test_reply() -> Value {
    json!({"session_id": "sess_x", "response_id": "resp_1", "answer": "Yes [1].",
           "allowed": true, "support": 0.12, "top_k": null, "mode": "coherent",
           "since": "2026-11-01", "citations": [{"n": 1, "chunk_id": "c_1"}]})
}

/// The session, seen response ids and citable chunks replies are checked against.
pub struct Ctx {
    pub seen: HashSet<String>,
    pub chunks: Vec<String>,
}

impl Ctx {
    pub fn new() -> Ctx {
        Ctx {
            seen: ["resp_old".to_string()].into_iter().collect(),
            chunks: vec!["c_1".to_string(), "c_2".to_string(), "c_3".to_string()],
        }
    }

    pub fn get(&self) -> ValidationContext<'_> {
        ValidationContext {
            session_id: "sess_x",
            seen_response_ids: &self.seen,
            allowed_chunk_ids: &self.chunks,
        }
    }
}

/// `base` with `key` set to `value` (or removed, for `None`).
pub fn with(base: &Value, key: &str, value: Option<Value>) -> Value {
    let mut v = base.clone();
    if let Some(o) = v.as_object_mut() {
        match value {
            Some(x) => o.insert(key.to_string(), x),
            None => o.remove(key),
        };
    }
    v
}

/// Validates `v` against `contract`, as the model's raw reply text.
pub fn check(
    contract: &dyn ModelContract,
    v: &Value,
) -> Result<Map<String, Value>, super::ContractViolation> {
    super::validate(contract, &v.to_string(), &Ctx::new().get())
}

/// The notes of a reply that must be rejected.
pub fn notes(contract: &dyn ModelContract, v: &Value) -> String {
    notes_raw(contract, &v.to_string())
}

pub fn notes_raw(contract: &dyn ModelContract, raw: &str) -> String {
    match super::validate(contract, raw, &Ctx::new().get()) {
        Ok(out) => panic!("accepted {raw}: {out:?}"),
        Err(e) => e.notes(),
    }
}
