//! State merge: what each model-backed stage writes into `cached_state[stage]`.
//!
//! The inspector shows exactly this map, so a slice is the typed reply as the model gave it,
//! minus `session_id` (it already sits at the top of `cached_state`), plus what the
//! orchestrator derives from it. Scores are rounded to two decimals, as everywhere in
//! `cached_state`. No slice holds anything secret: replies carry no keys or credentials.
//!
//! | stage         | keys it owns                                                                |
//! |---------------|-----------------------------------------------------------------------------|
//! | `guardrail`   | `response_id`, `allowed`, `blocked` (= !allowed, as the offline stage), `reason`, `safe_reply` |
//! | `plan`        | `response_id`, `revised_query`, `coherence`, `coherence_reason`, `needs_retrieval`, `intent`, `date_start`, `date_end`, `top_k_hint`, `reply` |
//! | `reformulate` | `response_id`, `reformulated_query`, `rationale`                            |
//! | `synthesize`  | `response_id`, `answer`, `citations` (`[{n, chunk_id}]`)                    |
//! | `reflect`     | `response_id`, `support_original`, `support_revised`, `confidence`, `band`, `applicability_note`, `uncertainty_note` |

use super::output::{ReflectOutput, StageOutput};
use crate::orchestrator::band::{round2, FinalReason};
use crate::orchestrator::stages::reflect::confidence;
use serde_json::{json, Value};

/// The answer's confidence: 0.7 · support_original + 0.3 · support_revised, two decimals.
/// Computed here rather than by the model, so the model cannot misapply the formula.
pub fn reflect_confidence(out: &ReflectOutput) -> f64 {
    confidence(out.support_original, out.support_revised)
}

/// The documented slice a stage's validated reply writes into `cached_state[stage]`.
pub fn slice(output: &StageOutput) -> Value {
    match output {
        StageOutput::Guardrail(o) => json!({
            "response_id": o.response_id,
            "allowed": o.allowed,
            "blocked": !o.allowed,
            "reason": o.reason,
            "safe_reply": o.safe_reply,
        }),
        StageOutput::Plan(o) => json!({
            "response_id": o.response_id,
            "revised_query": o.revised_query,
            "coherence": o.coherence,
            "coherence_reason": o.coherence_reason,
            "needs_retrieval": o.needs_retrieval,
            "intent": o.intent,
            "date_start": o.date_start.map(|d| d.to_string()),
            "date_end": o.date_end.map(|d| d.to_string()),
            "top_k_hint": o.top_k_hint,
            "reply": o.reply,
        }),
        StageOutput::Reformulate(o) => json!({
            "response_id": o.response_id,
            "reformulated_query": o.reformulated_query,
            "rationale": o.rationale,
        }),
        StageOutput::Synthesize(o) => json!({
            "response_id": o.response_id,
            "answer": o.answer,
            "citations": o
                .citations
                .iter()
                .map(|c| json!({"n": c.n, "chunk_id": c.chunk_id}))
                .collect::<Vec<_>>(),
        }),
        StageOutput::Reflect(o) => {
            let c = reflect_confidence(o);
            json!({
                "response_id": o.response_id,
                "support_original": round2(o.support_original),
                "support_revised": round2(o.support_revised),
                "confidence": c,
                "band": FinalReason::from_confidence(c),
                "applicability_note": o.applicability_note,
                "uncertainty_note": o.uncertainty_note,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::output::{CitationRef, GuardrailOutput, SynthesizeOutput};

    fn reflect(a: f64, b: f64) -> ReflectOutput {
        ReflectOutput {
            session_id: "s".into(),
            response_id: "r".into(),
            support_original: a,
            support_revised: b,
            applicability_note: "a".into(),
            uncertainty_note: "u".into(),
        }
    }

    #[test]
    fn confidence_weights_original_seventy_percent_and_rounds() {
        assert_eq!(reflect_confidence(&reflect(1.0, 0.0)), 0.7);
        assert_eq!(reflect_confidence(&reflect(0.0, 1.0)), 0.3);
        // 0.7·0.83 + 0.3·0.61 = 0.764
        assert_eq!(reflect_confidence(&reflect(0.83, 0.61)), 0.76);
    }

    #[test]
    fn reflect_slice_carries_the_computed_confidence_and_band() {
        let s = slice(&StageOutput::Reflect(reflect(0.9, 0.8)));
        assert_eq!(s["confidence"], json!(0.87));
        assert_eq!(s["band"], json!("confidence_high"));
        assert_eq!(s["support_original"], json!(0.9));
        assert!(s.get("session_id").is_none());
    }

    #[test]
    fn slices_hold_the_documented_keys() {
        let g = slice(&StageOutput::Guardrail(GuardrailOutput {
            session_id: "s".into(),
            response_id: "r1".into(),
            allowed: false,
            reason: Some("injection".into()),
            safe_reply: Some("I can only answer questions about your documents.".into()),
        }));
        let mut keys: Vec<&str> = g
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["allowed", "blocked", "reason", "response_id", "safe_reply"]
        );
        assert_eq!(g["blocked"], json!(true));
        let s = slice(&StageOutput::Synthesize(SynthesizeOutput {
            session_id: "s".into(),
            response_id: "r2".into(),
            answer: "Yes [1].".into(),
            citations: vec![CitationRef {
                n: 1,
                chunk_id: "c1".into(),
            }],
        }));
        assert_eq!(s["citations"], json!([{"n": 1, "chunk_id": "c1"}]));
    }
}
