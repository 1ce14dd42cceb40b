//! The reflect stage's model half: the model scores how well the cited passages support the
//! original and the revised query, and writes the notes; fathom computes the confidence from the
//! two supports itself, so the model cannot misapply the formula.

use super::record;
use crate::orchestrator::chat::ChatBackend;
use crate::orchestrator::contract::run::{passage_budget, retrieved_passages};
use crate::orchestrator::contract::schema::{field, Field, Kind, RESPONSE_ID, SESSION_ID};
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::resilience::budget::TokenAllocation;
use serde::Deserialize;
use serde_json::{Map, Value};

pub struct ReflectContract;

const FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "support_original",
        Kind::Score,
        "How well the answer's cited passages support the original question, 0 to 1, two decimals.",
    ),
    field(
        "support_revised",
        Kind::Score,
        "How well they support the revised query, 0 to 1, two decimals.",
    ),
    field(
        "applicability_note",
        Kind::Text,
        "Which documents, dates and sections the answer rests on.",
    ),
    field(
        "uncertainty_note",
        Kind::Text,
        "What the passages leave open, or what the user could ask to be more certain.",
    ),
];

#[derive(Debug, Deserialize)]
struct Reply {
    support_original: f64,
    support_revised: f64,
    applicability_note: String,
    uncertainty_note: String,
}

impl ModelContract for ReflectContract {
    fn schema_name(&self) -> &'static str {
        "fathom_reflect"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn directive(&self) -> &'static str {
        include_str!("prompt.md").trim_ascii_end()
    }

    fn temperature(&self, chat: &ChatBackend) -> f64 {
        chat.reflection_temperature
    }

    fn budget(&self, chat: &ChatBackend, cx: &StageCx, work: &Work) -> Option<TokenAllocation> {
        Some(passage_budget(chat, cx, work))
    }

    fn runtime_directive(&self, cx: &StageCx, work: &Work, _: Option<&TokenAllocation>) -> String {
        // Up to the last cited passage, so every cited one is shown.
        let cited = &work.answer.citations;
        let last = work
            .retrieval
            .hits
            .iter()
            .rposition(|h| cited.iter().any(|c| c.chunk_id == h.chunk_id));
        let limit = last.map_or(3, |i| i + 1);
        format!(
            "Score how well the answer, as supported by its cited passages, answers the original query ({:?}) and the revised query ({:?}).\n\nAnswer:\n{}\n\n{}",
            cx.input.query,
            work.search_text(&cx.input),
            work.answer.text,
            retrieved_passages(cx, work, limit, None)
        )
    }

    fn apply(
        &self,
        cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        let r: Reply = serde_json::from_value(Value::Object(reply)).map_err(|e| e.to_string())?;
        let slice = record(
            &cx.input,
            work,
            r.support_original,
            r.support_revised,
            Some((r.applicability_note, r.uncertainty_note)),
        );
        let c = work.reflection.confidence.unwrap_or(0.0);
        Ok(StageOutcome::new(slice).confidence(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{check, notes, with};
    use serde_json::json;

    fn reply() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1", "support_original": 0.12,
               "support_revised": 1, "applicability_note": "searching.md, 2026-11-08.",
               "uncertainty_note": "Older releases are not covered."})
    }

    #[test]
    fn supports_are_scores_and_the_model_gives_no_confidence() {
        assert!(check(&ReflectContract, &reply()).is_ok());
        let n = notes(
            &ReflectContract,
            &with(&reply(), "confidence", Some(json!(0.8))),
        );
        assert!(n.contains("remove the unknown field \"confidence\""), "{n}");
        let n = notes(
            &ReflectContract,
            &with(&reply(), "support_original", Some(json!(0.123))),
        );
        assert_eq!(
            n,
            "scores need at most two decimals: support_original=0.123"
        );
    }
}
