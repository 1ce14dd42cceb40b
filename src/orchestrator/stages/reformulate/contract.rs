//! The reformulate stage's model half: the model writes a better search query after a weak
//! retrieval.

use super::record_attempt;
use crate::orchestrator::contract::schema::{field, Field, Kind, RESPONSE_ID, SESSION_ID};
use crate::orchestrator::contract::validate::str_field;
use crate::orchestrator::contract::{ModelContract, ValidationContext};
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::resilience::budget::TokenAllocation;
use serde::Deserialize;
use serde_json::{json, Map, Value};

pub struct ReformulateContract;

const FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "reformulated_query",
        Kind::Text,
        "A new search query, different from the ones already tried.",
    ),
    field(
        "rationale",
        Kind::Text,
        "One sentence on what changed and why.",
    ),
];

#[derive(Debug, Deserialize)]
struct Reply {
    reformulated_query: String,
    rationale: String,
}

impl ModelContract for ReformulateContract {
    fn schema_name(&self) -> &'static str {
        "fathom_reformulate"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn directive(&self) -> &'static str {
        include_str!("prompt.md").trim_ascii_end()
    }

    fn runtime_directive(&self, cx: &StageCx, work: &Work, _: Option<&TokenAllocation>) -> String {
        let tried = work.retrieval.queries_tried.join(" | ");
        let heads: Vec<String> = work
            .retrieval
            .hits
            .iter()
            .take(3)
            .map(|h| format!("{} ({})", h.document, h.section.as_deref().unwrap_or("—")))
            .collect();
        format!(
            "Retrieval was weak. Queries tried: {tried}. Best (weak) matches: {}. Write one better search query. {}",
            crate::orchestrator::contract::prompt_text(&heads.join("; ")),
            crate::orchestrator::stages::span_note(cx)
        )
    }

    fn check(&self, obj: &Map<String, Value>, _: &ValidationContext, problems: &mut Vec<String>) {
        if str_field(obj, "reformulated_query").is_some_and(|q| q.trim().is_empty()) {
            problems.push("reformulated_query must not be empty".to_string());
        }
    }

    fn apply(
        &self,
        _cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        let r: Reply = serde_json::from_value(Value::Object(reply)).map_err(|e| e.to_string())?;
        let attempts = record_attempt(work, r.reformulated_query.clone());
        Ok(StageOutcome::new(json!({
            "attempt": attempts,
            "reformulated_query": r.reformulated_query,
            "rationale": r.rationale,
        }))
        .number("reformulations", f64::from(attempts)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{check, notes, with};

    #[test]
    fn a_reformulation_must_not_be_empty() {
        let reply = json!({"session_id": "sess_x", "response_id": "resp_1",
               "reformulated_query": "year picker filter", "rationale": "Uses the UI's words."});
        assert!(check(&ReformulateContract, &reply).is_ok());
        let v = with(&reply, "reformulated_query", Some(json!("")));
        assert!(notes(&ReformulateContract, &v).contains("reformulated_query must not be empty"));
        let v = with(&reply, "rationale", Some(Value::Null));
        assert!(notes(&ReformulateContract, &v).contains("rationale must be a string, not null"));
    }
}
