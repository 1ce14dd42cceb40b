//! The decompose stage's model half: the model returns the task graph; it goes through the
//! same normalisation as the offline planner's (strings made lists, unknown dependencies pruned,
//! cycles broken, size capped), and the prompt, the raw reply and the graph are recorded.

use super::{dated_documents, install, question_of};
use crate::orchestrator::contract::schema::{field, Field, Kind, RESPONSE_ID, SESSION_ID};
use crate::orchestrator::contract::{ModelContract, ValidationContext};
use crate::orchestrator::graph::routing::IntentType;
use crate::orchestrator::graph::task::{record_planner_trace, set_task_graph, ReactLog};
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::resilience::budget::TokenAllocation;
use serde_json::{Map, Value};

pub struct DecomposeContract;

const INTENTS: &[&str] = &[
    "factual",
    "trend",
    "comparative",
    "causal",
    "multi_part",
    "aggregate",
    "exploratory",
];

const FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "intent",
        Kind::Enum(INTENTS),
        "What kind of question it is.",
    ),
    field(
        "tasks",
        Kind::Tasks,
        "The sub-questions: one per side, meeting or part; an empty list when one question will do.",
    ),
    field(
        "rationale",
        Kind::Text,
        "One sentence on why the question was split this way.",
    ),
];

impl ModelContract for DecomposeContract {
    fn schema_name(&self) -> &'static str {
        "fathom_decompose"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn directive(&self) -> &'static str {
        include_str!("prompt.md").trim_ascii_end()
    }

    fn runtime_directive(&self, cx: &StageCx, work: &Work, _: Option<&TokenAllocation>) -> String {
        let docs = dated_documents(cx);
        let hint = work.plan.as_ref().and_then(|p| p.metadata_hints);
        let dates: Vec<String> = match hint {
            Some(h) => {
                let mut ds: Vec<String> = docs
                    .iter()
                    .filter(|d| h.contains(d.date))
                    .map(|d| d.date.to_string())
                    .collect();
                ds.dedup();
                ds
            }
            None => Vec::new(),
        };
        let meetings = if dates.is_empty() {
            String::new()
        } else {
            format!(
                " Documents in the dates the question names are dated: {}.",
                dates.join(", ")
            )
        };
        format!(
            "Decompose the question: {:?}. {}{meetings}",
            question_of(cx, work),
            crate::orchestrator::stages::span_note(cx)
        )
    }

    fn check(&self, obj: &Map<String, Value>, _: &ValidationContext, problems: &mut Vec<String>) {
        if let Some(Value::Array(tasks)) = obj.get("tasks") {
            if tasks.len() == 1 {
                problems.push(
                    "give at least two tasks, or an empty list when one question will do".into(),
                );
            }
        }
    }

    fn apply(
        &self,
        cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        let intent: IntentType = reply
            .get("intent")
            .cloned()
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| e.to_string())?
            .unwrap_or(IntentType::Factual);
        let raw = reply
            .get("tasks")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let rationale = reply
            .get("rationale")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let mut log = ReactLog::default();
        let at = cx.started.elapsed().as_millis() as u64;
        let graph = set_task_graph(&raw, &mut log, at);
        let prompt = format!(
            "{}\n\n{}",
            self.directive(),
            self.runtime_directive(cx, work, None)
        );
        record_planner_trace(
            &mut log,
            at,
            &prompt,
            &Value::Object(reply).to_string(),
            &graph,
        );
        if let Some(p) = work.plan.as_mut() {
            p.intent = intent;
        }
        Ok(install(work, intent, graph, log, &rationale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{check, notes, with};
    use serde_json::json;

    fn reply() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1", "intent": "comparative",
               "tasks": [{"id": "a", "question": "June 2004?", "tools": ["search"], "depends_on": [],
                          "date_start": "2004-06-01", "date_end": "2004-06-30"},
                         {"id": "b", "question": "June 2006?", "tools": "search", "depends_on": "a",
                          "date_start": null, "date_end": null}],
               "rationale": "One task per side."})
    }

    #[test]
    fn a_loose_graph_passes_the_contract_and_one_task_does_not() {
        assert!(
            check(&DecomposeContract, &reply()).is_ok(),
            "strings where lists belong are normalised later"
        );
        let one = with(
            &reply(),
            "tasks",
            Some(json!([{"id": "a", "question": "Q?"}])),
        );
        assert!(notes(&DecomposeContract, &one).contains("at least two tasks"));
        let bad = with(&reply(), "tasks", Some(json!("all of them")));
        assert!(notes(&DecomposeContract, &bad).contains("tasks must be an array"));
        let bad = with(
            &reply(),
            "tasks",
            Some(json!([{"id": "a"}, {"question": "ok"}])),
        );
        assert!(notes(&DecomposeContract, &bad).contains("tasks[0] needs a question"));
    }
}
