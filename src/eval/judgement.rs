//! Inquiry judgement: does an input get a direct reply (greetings, thanks, small talk, questions
//! about the assistant) or a retrieved answer (anything that asks about the documents, however
//! politely wrapped)? Input: JSON lines `{"id", "input", "expect": "reply"|"answer", "why"}`.
//!
//! An input was **replied to** when the query succeeded without retrieval
//! (`no_retrieval_needed`, no retrieval ran); it was **answered** when retrieval ran: the
//! `retrieve` stage, or `coordinate` for a question decomposed into a task graph. Anything else (a guardrail block, an incoherent input) is neither, and wrong
//! for both expectations.

use super::metrics::{median, percentile};
use super::EvalError;
use crate::orchestrator::band::FinalReason;
use crate::orchestrator::types::OrchestrationResult;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What an input should get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// A direct reply, without retrieval.
    Reply,
    /// A retrieved answer.
    Answer,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct JudgementItem {
    #[serde(default)]
    pub id: String,
    pub input: String,
    pub expect: Expect,
    #[serde(default)]
    pub why: String,
}

pub fn load(path: &Path) -> Result<Vec<JudgementItem>, EvalError> {
    super::read_jsonl(path)
}

/// What the pipeline did with an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Reply,
    Answer,
    /// Blocked, judged incoherent or failed: neither a reply nor an answer.
    Other,
}

pub fn outcome(result: &OrchestrationResult) -> Outcome {
    // A decomposed question retrieves inside its task graph (coordinate), not in a retrieve node.
    let retrieved = result
        .stages
        .iter()
        .any(|s| s.id == "retrieve" || s.id == "coordinate");
    if retrieved {
        Outcome::Answer
    } else if result.final_reason == FinalReason::NoRetrievalNeeded {
        Outcome::Reply
    } else {
        Outcome::Other
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct JudgementScores {
    pub items: usize,
    /// Share of all inputs handled as expected.
    pub accuracy: f64,
    /// Inputs expecting a reply, and how many got one.
    pub reply_items: usize,
    pub reply_correct: usize,
    /// Inputs expecting an answer, and how many got one.
    pub answer_items: usize,
    pub answer_correct: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    /// `id (why): expected X, got Y: first words of the response`.
    pub failures: Vec<String>,
}

/// Runs every input through the engine and compares what it did with what was expected.
pub async fn evaluate(
    engine: &crate::orchestrator::api::Engine,
    items: &[JudgementItem],
) -> JudgementScores {
    let (mut reply_items, mut reply_correct, mut answer_items, mut answer_correct) = (0, 0, 0, 0);
    let mut times = Vec::with_capacity(items.len());
    let mut failures = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let (result, ms) = super::ask_timed(engine, &item.input, format!("judge{i}")).await;
        times.push(ms);
        let got = outcome(&result);
        let ok = match item.expect {
            Expect::Reply => {
                reply_items += 1;
                reply_correct += usize::from(got == Outcome::Reply);
                got == Outcome::Reply
            }
            Expect::Answer => {
                answer_items += 1;
                answer_correct += usize::from(got == Outcome::Answer);
                got == Outcome::Answer
            }
        };
        if !ok {
            let first: String = result.answer.replace('\n', " ").chars().take(120).collect();
            failures.push(format!(
                "{} ({}): expected {:?}, got {:?}: {first}",
                item.id, item.why, item.expect, got
            ));
        }
    }
    let n = items.len();
    JudgementScores {
        items: n,
        accuracy: (reply_correct + answer_correct) as f64 / n.max(1) as f64,
        reply_items,
        reply_correct,
        answer_items,
        answer_correct,
        median_ms: median(&times),
        p95_ms: percentile(&times, 0.95),
        failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_parse_and_bad_expectations_are_rejected_with_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.jsonl");
        std::fs::write(
            &p,
            "{\"id\":\"a\",\"input\":\"hi\",\"expect\":\"reply\",\"why\":\"greeting\"}\n{\"id\":\"b\",\"input\":\"rates 2008?\",\"expect\":\"answer\"}\n",
        )
        .unwrap();
        let items = load(&p).unwrap();
        assert_eq!(items[0].expect, Expect::Reply);
        assert_eq!(items[1].expect, Expect::Answer);
        std::fs::write(&p, "{\"input\":\"hi\",\"expect\":\"maybe\"}\n").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains(":1:"));
    }
}
