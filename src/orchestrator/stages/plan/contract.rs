//! The plan stage's model half: the model writes the plan; the offline planner's reading of the
//! dates, its abbreviation expansions and its replies fill what the model leaves out.

use super::{outcome, plan_for};
use crate::corpus::Date;
use crate::orchestrator::contract::schema::{
    field, nullable, Field, Kind, RESPONSE_ID, SESSION_ID,
};
use crate::orchestrator::contract::validate::{blank, str_field};
use crate::orchestrator::contract::{ModelContract, ValidationContext};
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::types::{
    Coherence, ExecutionPlan, IntentType, MetadataHints, DEFAULT_TOP_K, MAX_TOP_K,
};
use crate::resilience::budget::TokenAllocation;
use serde::Deserialize;
use serde_json::{Map, Value};

pub struct PlanContract;

const COHERENCE: &[&str] = &["coherent", "incoherent"];
const INTENTS: &[&str] = &[
    "factual",
    "trend",
    "comparative",
    "causal",
    "multi_part",
    "aggregate",
    "exploratory",
];
const TOP_K_MIN: i64 = 1;
const TOP_K_MAX: i64 = MAX_TOP_K as i64;

const FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "revised_query",
        Kind::Text,
        "The question rewritten as a clear, self-contained search query.",
    ),
    field(
        "coherence",
        Kind::Enum(COHERENCE),
        "Whether the question makes sense.",
    ),
    nullable(
        "coherence_reason",
        Kind::Text,
        "Why the question is incoherent; null when coherent.",
    ),
    field(
        "needs_retrieval",
        Kind::Bool,
        "false only for greetings and small talk.",
    ),
    field(
        "intent",
        Kind::Enum(INTENTS),
        "What kind of question it is.",
    ),
    nullable(
        "date_start",
        Kind::Date,
        "First day the question is about, or null.",
    ),
    nullable(
        "date_end",
        Kind::Date,
        "Last day the question is about, or null.",
    ),
    nullable(
        "top_k_hint",
        Kind::Int {
            min: TOP_K_MIN,
            max: TOP_K_MAX,
        },
        "How many passages to retrieve (1-50), or null for the default.",
    ),
    nullable(
        "reply",
        Kind::Text,
        "The reply to the user when needs_retrieval is false or the question is incoherent.",
    ),
];

/// The reply, once validated.
#[derive(Debug, Deserialize)]
struct Reply {
    revised_query: String,
    coherence: Coherence,
    coherence_reason: Option<String>,
    needs_retrieval: bool,
    intent: IntentType,
    date_start: Option<Date>,
    date_end: Option<Date>,
    top_k_hint: Option<u8>,
    reply: Option<String>,
}

impl Reply {
    /// The pipeline's plan for `original_query`, with the defaults the offline planner uses.
    fn to_execution_plan(&self, original_query: &str) -> ExecutionPlan {
        let hints = match (self.date_start, self.date_end) {
            (Some(date_start), Some(date_end)) => Some(MetadataHints {
                date_start,
                date_end,
            }),
            _ => None,
        };
        ExecutionPlan {
            original_query: original_query.to_string(),
            revised_query: self.revised_query.clone(),
            coherence: self.coherence,
            coherence_reason: self.coherence_reason.clone(),
            needs_retrieval: self.needs_retrieval,
            metadata_hints: hints,
            top_k_hint: self.top_k_hint.unwrap_or(DEFAULT_TOP_K).clamp(1, MAX_TOP_K),
            intent: self.intent,
            suggested_years: hints.map(|h| h.years()).unwrap_or_default(),
            reply: self.reply.clone(),
        }
    }
}

impl ModelContract for PlanContract {
    fn schema_name(&self) -> &'static str {
        "fathom_plan"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn directive(&self) -> &'static str {
        include_str!("prompt.md").trim_ascii_end()
    }

    fn runtime_directive(&self, cx: &StageCx, _work: &Work, _: Option<&TokenAllocation>) -> String {
        format!(
            "Plan retrieval for the user prompt. {}{} Resolve follow-ups against chat_context_summary.",
            crate::orchestrator::stages::span_note(cx),
            crate::orchestrator::stages::filter_note(cx),
        )
    }

    fn check(&self, obj: &Map<String, Value>, _: &ValidationContext, problems: &mut Vec<String>) {
        let date = |k| str_field(obj, k).and_then(Date::parse);
        let given = |k| obj.get(k).is_some_and(|v| !v.is_null());
        match (date("date_start"), date("date_end")) {
            (Some(s), Some(e)) if s > e => {
                problems.push(format!("date_start ({s}) must not be after date_end ({e})"))
            }
            _ if given("date_start") != given("date_end") => {
                problems.push("give both date_start and date_end, or neither (null)".to_string())
            }
            _ => {}
        }
        let incoherent = str_field(obj, "coherence") == Some("incoherent");
        let no_retrieval = obj.get("needs_retrieval") == Some(&Value::Bool(false));
        if incoherent && blank(obj, "coherence_reason") {
            problems.push("coherence_reason must say why when coherence is \"incoherent\"".into());
        }
        if (incoherent || no_retrieval) && blank(obj, "reply") {
            problems.push(
                "reply must be a reply for the user when the question is incoherent or needs_retrieval is false"
                    .into(),
            );
        }
        if !incoherent
            && !no_retrieval
            && obj.contains_key("revised_query")
            && blank(obj, "revised_query")
        {
            problems.push("revised_query must not be empty when retrieval is needed".into());
        }
    }

    fn apply(
        &self,
        cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        let r: Reply = serde_json::from_value(Value::Object(reply)).map_err(|e| e.to_string())?;
        // The model's plan, with the offline planner's reading of the dates and its
        // abbreviation expansions where the model gave none.
        let base = plan_for(&cx.input);
        let mut plan = r.to_execution_plan(&cx.input.query);
        if plan.metadata_hints.is_none() {
            plan.metadata_hints = base.metadata_hints;
            plan.suggested_years = base.suggested_years;
        }
        if plan.revised_query.trim().is_empty() {
            plan.revised_query = base.revised_query;
        }
        if plan.reply.is_none() {
            plan.reply = base.reply;
        }
        let out = outcome(&plan).map_err(|e| e.to_string())?;
        work.plan = Some(plan);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{check, notes, with};
    use serde_json::json;

    fn reply() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1",
               "revised_query": "search year filter", "coherence": "coherent",
               "coherence_reason": null, "needs_retrieval": true, "intent": "factual",
               "date_start": "2026-11-01", "date_end": "2026-11-30", "top_k_hint": 12,
               "reply": null})
    }

    #[test]
    fn a_valid_plan_becomes_an_execution_plan() {
        let obj = check(&PlanContract, &reply()).expect("valid");
        let r: Reply = serde_json::from_value(Value::Object(obj)).expect("typed");
        assert_eq!(r.coherence, Coherence::Coherent);
        assert_eq!(r.intent, IntentType::Factual);
        let ep = r.to_execution_plan("how do I filter by year?");
        assert_eq!(ep.suggested_years, vec![2026]);
        assert_eq!(ep.top_k_hint, 12);
        let chat = with(&reply(), "needs_retrieval", Some(json!(false)));
        let chat = with(&chat, "reply", Some(json!("Hello!")));
        let chat = with(&chat, "date_start", Some(Value::Null));
        let chat = with(&chat, "date_end", Some(Value::Null));
        let chat = with(&chat, "top_k_hint", Some(Value::Null));
        assert!(check(&PlanContract, &chat).is_ok());
    }

    #[test]
    fn enums_dates_and_top_k_are_checked() {
        let n = notes(
            &PlanContract,
            &with(&reply(), "intent", Some(json!("search"))),
        );
        assert!(
            n.contains("intent must be one of \"factual\", \"trend\", \"comparative\""),
            "{n}"
        );
        let n = notes(
            &PlanContract,
            &with(&reply(), "date_end", Some(json!("2026-10-01"))),
        );
        assert!(
            n.contains("date_start (2026-11-01) must not be after date_end (2026-10-01)"),
            "{n}"
        );
        let n = notes(
            &PlanContract,
            &with(&reply(), "date_end", Some(Value::Null)),
        );
        assert!(
            n.contains("give both date_start and date_end, or neither"),
            "{n}"
        );
        let n = notes(
            &PlanContract,
            &with(&reply(), "top_k_hint", Some(json!(51))),
        );
        assert!(
            n.contains("top_k_hint must be an integer from 1 to 50 or null"),
            "{n}"
        );
    }

    #[test]
    fn replies_are_required_where_the_user_sees_them() {
        let v = with(&reply(), "coherence", Some(json!("incoherent")));
        let n = notes(&PlanContract, &v);
        assert!(n.contains("coherence_reason must say why"), "{n}");
        assert!(n.contains("reply must be a reply for the user"), "{n}");
        let v = with(&reply(), "needs_retrieval", Some(json!(false)));
        assert!(notes(&PlanContract, &v).contains("reply must be a reply for the user"));
        let v = with(&reply(), "revised_query", Some(json!("")));
        assert!(notes(&PlanContract, &v).contains("revised_query must not be empty"));
    }
}
