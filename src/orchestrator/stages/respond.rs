//! Respond: the terminal stage. Composes the text the user sees for every way a query can end.

use super::synthesize::sources_block;
use super::{r2, StageError};
use crate::orchestrator::band::FinalReason;
use crate::orchestrator::state::QueryState;
use crate::orchestrator::types::ManagerState;
use serde_json::json;

/// How many low-relevance matches the uncertainty response lists.
const SHOW_MATCHES: usize = 3;

/// The decision and the final text.
pub fn decide(st: &QueryState) -> (ManagerState, FinalReason, String) {
    if let Some(g) = &st.guardrail {
        return (
            ManagerState::Fail,
            FinalReason::GuardrailBlocked,
            g.safe_reply.clone(),
        );
    }
    if let Some(p) = &st.plan {
        if p.coherence == crate::orchestrator::types::Coherence::Incoherent {
            return (
                ManagerState::Fail,
                FinalReason::Incoherent,
                p.reply.clone().unwrap_or_default(),
            );
        }
        if !p.needs_retrieval {
            return (
                ManagerState::Success,
                FinalReason::NoRetrievalNeeded,
                p.reply.clone().unwrap_or_default(),
            );
        }
    }
    match st.confidence {
        Some(c) if !st.citations.is_empty() => {
            let reason = FinalReason::from_confidence(c);
            let note = match reason {
                FinalReason::ConfidenceMediumCaveated => Some("Note: the passages support most, but not every detail, of this answer."),
                FinalReason::ConfidenceLowPartial => Some("This is a partial answer: the passages found cover only part of the question."),
                FinalReason::ConfidenceTooLowClarify => Some(
                    "I could not find passages that clearly answer this. The closest ones are cited above; could you clarify the question, for example with a date or more specific terms?",
                ),
                _ => None,
            };
            let mut text = st.answer.clone();
            if let Some(n) = note {
                text.push_str("\n\n");
                text.push_str(n);
            }
            text.push_str("\n\n");
            text.push_str(&sources_block(&st.citations));
            (ManagerState::Success, reason, text)
        }
        _ => (
            ManagerState::Success,
            FinalReason::InsufficientEvidence,
            uncertainty_response(st),
        ),
    }
}

/// The documents do not answer confidently: say so, with the queries tried and the best matches.
pub fn uncertainty_response(st: &QueryState) -> String {
    let mut text = String::from("The documents do not answer this confidently.");
    if !st.queries_tried.is_empty() {
        let tried: Vec<String> = st
            .queries_tried
            .iter()
            .map(|q| format!("\"{q}\""))
            .collect();
        text.push_str(&format!("\n\nQueries tried: {}.", tried.join("; ")));
    }
    let matches: Vec<String> = st
        .retrieved_chunks
        .iter()
        .zip(st.relevance.iter())
        .take(SHOW_MATCHES)
        .map(|(h, r)| {
            let date = h
                .date
                .map(|d| d.to_string())
                .unwrap_or_else(|| "undated".into());
            format!(
                "- {}, {}, §{} (chunk {}): relevance {:.2}",
                h.document,
                date,
                h.section.as_deref().unwrap_or("—"),
                h.chunk_id,
                r2(*r)
            )
        })
        .collect();
    if matches.is_empty() {
        text.push_str("\n\nNo passages matched.");
    } else {
        text.push_str("\n\nBest matches, all of low relevance:\n");
        text.push_str(&matches.join("\n"));
    }
    text
}

pub fn run(st: &mut QueryState) -> Result<serde_json::Value, StageError> {
    let (state, reason, text) = decide(st);
    let low_coverage = st
        .mean_relevance
        .is_some_and(|m| m < crate::orchestrator::band::RETRIEVAL_MEDIUM);
    st.answer = text;
    Ok(json!({
        "state": state,
        "final_reason": reason,
        "confidence": st.confidence,
        "diagnostics": if low_coverage { vec!["low_coverage"] } else { vec![] },
    }))
}
