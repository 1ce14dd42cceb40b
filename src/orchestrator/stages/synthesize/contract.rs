//! The synthesize stage's model half: the model writes the answer from the passages, citing
//! each claim with `[n]` and listing what each `n` points to; the answer streams as it comes.

use super::with_context;
use crate::orchestrator::chat::ChatBackend;
use crate::orchestrator::citations::markers as marker_list;
use crate::orchestrator::citations::numbers;
use crate::orchestrator::contract::run::{passage_budget, retrieved_passages};
use crate::orchestrator::contract::schema::{field, Field, Kind, RESPONSE_ID, SESSION_ID};
use crate::orchestrator::contract::validate::str_field;
use crate::orchestrator::contract::{ModelContract, ValidationContext};
use crate::orchestrator::stage::{r2, StageCx, StageOutcome};
use crate::orchestrator::state::{AnswerSentence, Work};
use crate::orchestrator::text::sentences;
use crate::orchestrator::types::Citation;
use crate::resilience::budget::TokenAllocation;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

pub struct SynthesizeContract;

const FIELDS: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "answer",
        Kind::Text,
        "The answer, using only the passages, with [n] markers after the claims they support.",
    ),
    field(
        "citations",
        Kind::Citations,
        "One entry per marker number used in the answer.",
    ),
];

#[derive(Debug, Deserialize)]
struct CitationRef {
    n: usize,
    chunk_id: String,
}

#[derive(Debug, Deserialize)]
struct Reply {
    answer: String,
    citations: Vec<CitationRef>,
}

impl ModelContract for SynthesizeContract {
    fn schema_name(&self) -> &'static str {
        "fathom_synthesize"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn directive(&self) -> &'static str {
        include_str!("prompt.md").trim_ascii_end()
    }

    fn streams_answer(&self) -> bool {
        true
    }

    fn budget(&self, chat: &ChatBackend, cx: &StageCx, work: &Work) -> Option<TokenAllocation> {
        Some(passage_budget(chat, cx, work))
    }

    fn citable(&self, work: &Work) -> Vec<String> {
        work.retrieval
            .hits
            .iter()
            .map(|h| h.chunk_id.clone())
            .collect()
    }

    fn runtime_directive(
        &self,
        cx: &StageCx,
        work: &Work,
        budget: Option<&TokenAllocation>,
    ) -> String {
        let limit = budget.map_or(5, |b| b.chunks_in_prompt.max(1));
        let cut = budget.and_then(|b| b.truncate_first_to);
        format!(
            "Answer the user prompt from these passages only, citing each claim with [n] and listing n → chunk_id in citations.{}\n\n{}",
            crate::orchestrator::stages::filter_note(cx),
            retrieved_passages(cx, work, limit, cut)
        )
    }

    fn check(&self, obj: &Map<String, Value>, ctx: &ValidationContext, problems: &mut Vec<String>) {
        check_synthesis(obj, ctx, problems);
    }

    fn apply(
        &self,
        cx: &StageCx,
        work: &mut Work,
        reply: Map<String, Value>,
    ) -> Result<StageOutcome, String> {
        let r: Reply = serde_json::from_value(Value::Object(reply)).map_err(|e| e.to_string())?;
        let hits = &work.retrieval.hits;
        let mut citations: Vec<Citation> = r
            .citations
            .iter()
            .filter_map(|c| {
                let h = hits.iter().find(|h| h.chunk_id == c.chunk_id)?;
                Some(Citation {
                    n: c.n,
                    chunk_id: h.chunk_id.clone(),
                    document: h.document.clone(),
                    date: h.date,
                    section: h.section.clone(),
                    score: r2(f64::from(h.score)),
                })
            })
            .collect();
        citations.sort_by_key(|c| c.n);
        let text = r.answer.trim().to_string();
        // Sentences with their markers, for an offline reflection should the model's fail.
        let answer_sentences: Vec<AnswerSentence> = sentences(&text)
            .into_iter()
            .map(|s| {
                let ns = numbers(s);
                let plain = crate::orchestrator::citations::without_markers(s);
                let read = ns
                    .first()
                    .and_then(|n| citations.iter().find(|c| c.n == *n))
                    .and_then(|c| hits.iter().find(|h| h.chunk_id == c.chunk_id))
                    .map(|h| with_context(&plain, h))
                    .unwrap_or(plain);
                AnswerSentence {
                    display: s.to_string(),
                    text: read,
                    citations: ns,
                }
            })
            .collect();
        let texts: Vec<&str> = answer_sentences.iter().map(|s| s.text.as_str()).collect();
        let vectors = cx
            .retriever
            .embed_texts(&texts)
            .ok()
            .flatten()
            .unwrap_or_default();
        let slice = json!({
            "answer": text,
            "citations": citations.iter().map(|c| json!({"n": c.n, "chunk_id": c.chunk_id})).collect::<Vec<_>>(),
        });
        let a = &mut work.answer;
        a.text = text;
        a.sentences = answer_sentences;
        a.vectors = vectors;
        a.citations = citations;
        Ok(StageOutcome::new(slice))
    }
}

fn check_synthesis(obj: &Map<String, Value>, ctx: &ValidationContext, problems: &mut Vec<String>) {
    let answer = str_field(obj, "answer");
    if answer.is_some_and(|a| a.trim().is_empty()) {
        problems.push("answer must not be empty".to_string());
    }
    // Only well-formed entries take part in the cross-checks; malformed ones were reported.
    let cites: Vec<(u64, &str)> = obj
        .get("citations")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|c| Some((c.get("n")?.as_u64()?, c.get("chunk_id")?.as_str()?)))
                .filter(|(n, _)| *n >= 1)
                .collect()
        })
        .unwrap_or_default();
    let mut numbers = BTreeSet::new();
    let mut repeated = BTreeSet::new();
    for (n, chunk) in &cites {
        if !numbers.insert(*n) {
            repeated.insert(*n);
        }
        if !ctx.allowed_chunk_ids.iter().any(|c| c == chunk) {
            problems.push(format!(
                "citation [{n}] names chunk_id {}, which is not among the passages: cite only their chunk_ids",
                Value::String(chunk.to_string())
            ));
        }
    }
    for n in repeated {
        problems.push(format!(
            "citation number {n} appears more than once: list each number once"
        ));
    }
    let Some(answer) = answer else { return };
    let used: BTreeSet<u64> = marker_list(answer)
        .into_iter()
        .map(|m| m.n as u64)
        .collect();
    for n in used.difference(&numbers) {
        if *n == 0 {
            problems.push("renumber the marker [0]: citation numbers start at 1".to_string());
            continue;
        }
        problems.push(format!(
            "marker [{n}] in the answer has no citation: add {{\"n\": {n}, \"chunk_id\": ...}} or remove [{n}]"
        ));
    }
    for n in numbers.difference(&used) {
        problems.push(format!(
            "citation [{n}] is not used in the answer: put [{n}] after the claim it supports or remove the citation"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{check, notes, with};

    fn reply() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1",
               "answer": "Press y to pick years [1]; searches then filter by them [2].",
               "citations": [{"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_3"}]})
    }

    #[test]
    fn citations_must_match_markers_and_passages() {
        assert!(check(&SynthesizeContract, &reply()).is_ok());
        let v = with(
            &reply(),
            "answer",
            Some(json!("Pick years [1], then search [2] [3].")),
        );
        assert!(notes(&SynthesizeContract, &v).contains("marker [3] in the answer has no citation"));
        let v = with(
            &reply(),
            "citations",
            Some(json!([{"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_99"}])),
        );
        let n = notes(&SynthesizeContract, &v);
        assert!(
            n.contains("citation [2] names chunk_id \"c_99\", which is not among the passages"),
            "{n}"
        );
        let v = with(
            &reply(),
            "citations",
            Some(
                json!([{"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_3"}, {"n": 4, "chunk_id": "c_2"}]),
            ),
        );
        assert!(notes(&SynthesizeContract, &v).contains("citation [4] is not used in the answer"));
        let v = with(
            &reply(),
            "citations",
            Some(
                json!([{"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_3"}, {"n": 2, "chunk_id": "c_2"}]),
            ),
        );
        assert!(notes(&SynthesizeContract, &v).contains("citation number 2 appears more than once"));
        let v = with(&reply(), "answer", Some(json!("Pick years [0] [1] [2].")));
        assert!(notes(&SynthesizeContract, &v).contains("renumber the marker [0]"));
        let v = with(&reply(), "answer", Some(json!(" ")));
        let v = with(&v, "citations", Some(json!([])));
        assert_eq!(notes(&SynthesizeContract, &v), "answer must not be empty");
        // No citations at all is fine when the answer says the passages do not answer.
        let v = with(&reply(), "answer", Some(json!("The passages do not say.")));
        let v = with(&v, "citations", Some(json!([])));
        assert!(check(&SynthesizeContract, &v).is_ok());
    }
}
