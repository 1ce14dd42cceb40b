//! How a query ends, from what the stages produced: a guardrail block or an incoherent plan
//! fail; small talk succeeds without retrieval; an answer with citations gets the band of its
//! confidence; anything else says the documents do not answer confidently. The QA topology's
//! respond stage applies it; the driver applies it to topologies without such a stage.

use super::band::FinalReason;
use super::state::{Verdict, Work};
use super::types::{Coherence, ManagerState};

/// The verdict and the text the user sees (without Sources: citations are data).
pub fn decide(work: &Work) -> (Verdict, String) {
    let verdict = |state, reason| Verdict { state, reason };
    if let Some(g) = &work.guardrail {
        return (
            verdict(ManagerState::Fail, FinalReason::GuardrailBlocked),
            g.safe_reply.clone(),
        );
    }
    if let Some(reply) = work.judgement.as_ref().and_then(|j| j.reply.as_ref()) {
        return (
            verdict(ManagerState::Success, FinalReason::NoRetrievalNeeded),
            reply.clone(),
        );
    }
    if let Some(p) = &work.plan {
        if p.coherence == Coherence::Incoherent {
            return (
                verdict(ManagerState::Fail, FinalReason::Incoherent),
                p.reply.clone().unwrap_or_default(),
            );
        }
        if !p.needs_retrieval {
            return (
                verdict(ManagerState::Success, FinalReason::NoRetrievalNeeded),
                p.reply.clone().unwrap_or_default(),
            );
        }
    }
    match work.reflection.confidence {
        Some(c) if !work.answer.citations.is_empty() => {
            // A graph answered in part is at best a partial answer, whatever each part scored.
            let partial = work
                .graph
                .as_ref()
                .and_then(|g| g.report.as_ref())
                .is_some_and(|r| r.partial);
            let c = if partial {
                c.min(super::band::MEDIUM - 0.01)
            } else {
                c
            };
            let reason = FinalReason::from_confidence(c);
            let mut text = work.answer.text.clone();
            if partial {
                text = format!(
                    "Partial answer: some parts of this question could not be answered.\n\n{text}"
                );
            }
            if let Some(note) = band_note(reason) {
                text.push_str("\n\n");
                text.push_str(note);
            }
            (verdict(ManagerState::Success, reason), text)
        }
        _ => (
            verdict(ManagerState::Success, FinalReason::InsufficientEvidence),
            uncertainty_response(work),
        ),
    }
}

/// The caveat an answer of this band carries.
fn band_note(reason: FinalReason) -> Option<&'static str> {
    match reason {
        FinalReason::ConfidenceMediumCaveated => {
            Some("Note: the passages support most, but not every detail, of this answer.")
        }
        FinalReason::ConfidenceLowPartial => {
            Some("This is a partial answer: the passages found cover only part of the question.")
        }
        FinalReason::ConfidenceTooLowClarify => Some(
            "I could not find passages that clearly answer this. The closest ones are cited above; could you clarify the question, for example with a date or more specific terms?",
        ),
        _ => None,
    }
}

/// How many low-relevance matches the uncertainty response lists.
const SHOW_MATCHES: usize = 3;

/// The documents do not answer confidently: say so, with the queries tried and the best matches.
pub fn uncertainty_response(work: &Work) -> String {
    let r = &work.retrieval;
    let mut text = String::from("The documents do not answer this confidently.");
    if !r.queries_tried.is_empty() {
        let tried: Vec<String> = r.queries_tried.iter().map(|q| format!("\"{q}\"")).collect();
        text.push_str(&format!("\n\nQueries tried: {}.", tried.join("; ")));
    }
    let matches: Vec<String> = r
        .hits
        .iter()
        .zip(r.relevance.iter())
        .take(SHOW_MATCHES)
        .map(|(h, rel)| {
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
                super::band::round2(*rel)
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
