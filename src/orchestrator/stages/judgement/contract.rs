//! The judgement stage's model half (`judgement_v1` of the stage-runtime contract, with its
//! field names): the model confirms small talk and writes the reply, or turns the input back
//! into an inquiry. Asked only when the offline rules would end the query with a reply.

use super::rules::{JudgementKind, MetaTopic};
use super::{collection_note, record, Judgement};
use crate::orchestrator::chat::ChatBackend;
use crate::orchestrator::contract::schema::{
    field, nullable, Field, Kind, RESPONSE_ID, SESSION_ID,
};
use crate::orchestrator::contract::validate::{blank, str_field};
use crate::orchestrator::contract::{ModelContract, ValidationContext};
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::resilience::budget::TokenAllocation;
use serde::Deserialize;
use serde_json::{Map, Value};

pub struct JudgementContract;

const STAGE: &[&str] = &["judgement_v1"];
const STATUS: &[&str] = &["complete"];
const KINDS: &[&str] = &[
    "inquiry",
    "greeting",
    "thanks",
    "farewell",
    "feedback",
    "meta",
    "small_talk",
];
const NEXT: &[&str] = &["plan", "session_end"];

const FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field("stage", Kind::Enum(STAGE), "Always \"judgement_v1\"."),
    field("stageStatus", Kind::Enum(STATUS), "Always \"complete\"."),
    field(
        "judgements",
        Kind::Enum(KINDS),
        "What the input is: an inquiry about the documents, or which kind of small talk.",
    ),
    nullable(
        "assistantReply",
        Kind::Text,
        "The reply to small talk; null for an inquiry.",
    ),
    field(
        "nextStep",
        Kind::Enum(NEXT),
        "\"plan\" for an inquiry, \"session_end\" for small talk.",
    ),
    nullable(
        "telemetry",
        Kind::Text,
        "A few words on what decided the judgement.",
    ),
];

/// The reply, once validated.
#[derive(Debug, Deserialize)]
struct Reply {
    judgements: JudgementKind,
    #[serde(rename = "assistantReply")]
    assistant_reply: Option<String>,
}

impl ModelContract for JudgementContract {
    fn schema_name(&self) -> &'static str {
        "fathom_judgement"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn directive(&self) -> &'static str {
        include_str!("prompt.md").trim_ascii_end()
    }

    /// Only when the offline rules would end the query: a question they let through is never
    /// put at risk of being swallowed by a reply.
    fn wanted(&self, _chat: &ChatBackend, cx: &StageCx, work: &Work) -> bool {
        work.offline_judgement
            .get(&cx.input.query, cx.retriever.as_ref())
            .kind
            != JudgementKind::Inquiry
    }

    fn runtime_directive(&self, cx: &StageCx, _work: &Work, _: Option<&TokenAllocation>) -> String {
        format!(
            "Judge the user prompt. The collection holds {}.",
            collection_note(cx.retriever.as_ref())
        )
    }

    fn check(&self, obj: &Map<String, Value>, _: &ValidationContext, problems: &mut Vec<String>) {
        let inquiry = str_field(obj, "judgements") == Some("inquiry");
        let next = str_field(obj, "nextStep");
        if inquiry != (next == Some("plan")) {
            problems
                .push("nextStep must be \"plan\" exactly when judgements is \"inquiry\"".into());
        }
        if next == Some("session_end") && blank(obj, "assistantReply") {
            problems.push(
                "assistantReply must be a reply for the user when nextStep is \"session_end\""
                    .into(),
            );
        }
        if next == Some("plan") && obj.get("assistantReply").is_some_and(|v| !v.is_null()) {
            problems.push("assistantReply must be null when nextStep is \"plan\"".into());
        }
    }

    fn apply(
        &self,
        cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        let r: Reply = serde_json::from_value(Value::Object(reply)).map_err(|e| e.to_string())?;
        let topic = (r.judgements == JudgementKind::Meta).then(|| {
            work.offline_judgement
                .get(&cx.input.query, cx.retriever.as_ref())
                .topic
                .unwrap_or(MetaTopic::Capabilities)
        });
        let reply = match r.judgements {
            JudgementKind::Inquiry => None,
            _ => r.assistant_reply,
        };
        Ok(record(
            work,
            Judgement {
                kind: r.judgements,
                topic,
                reply,
            },
            None,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{check as validate_reply, notes, with};
    use serde_json::json;

    fn reply() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1", "stage": "judgement_v1",
               "stageStatus": "complete", "judgements": "greeting",
               "assistantReply": "Hello! Ask me about the documents.", "nextStep": "session_end",
               "telemetry": "a greeting"})
    }

    #[test]
    fn small_talk_needs_a_reply_and_an_inquiry_goes_on_to_plan() {
        assert!(validate_reply(&JudgementContract, &reply()).is_ok());
        let no_reply = with(&reply(), "assistantReply", Some(Value::Null));
        assert!(notes(&JudgementContract, &no_reply).contains("assistantReply must be a reply"));
        let wrong_step = with(&reply(), "nextStep", Some(json!("plan")));
        assert!(
            notes(&JudgementContract, &wrong_step).contains("nextStep must be \"plan\" exactly")
        );
        let inquiry = with(&reply(), "judgements", Some(json!("inquiry")));
        let inquiry = with(&inquiry, "nextStep", Some(json!("plan")));
        assert!(notes(&JudgementContract, &inquiry).contains("assistantReply must be null"));
        let inquiry = with(&inquiry, "assistantReply", Some(Value::Null));
        assert!(validate_reply(&JudgementContract, &inquiry).is_ok());
        let bad_stage = with(&reply(), "stage", Some(json!("judgement")));
        assert!(validate_reply(&JudgementContract, &bad_stage).is_err());
    }
}
