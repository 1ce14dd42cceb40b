//! Confidence bands of an answer and of retrieval. Thresholds are constants of the Manager, not
//! configuration: they define what the words "high" and "partial" promise a user.

use serde::{Deserialize, Serialize};

/// The terminal decision for a coherent query, from the answer's confidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalReason {
    /// ≥ 0.80
    ConfidenceHigh,
    /// 0.70–0.80: the answer carries a caveat.
    ConfidenceMediumCaveated,
    /// 0.50–0.70: a partial-answer limitation is stated.
    ConfidenceLowPartial,
    /// < 0.50: strong clarification notes.
    ConfidenceTooLowClarify,
    /// Guardrail block.
    GuardrailBlocked,
    /// Incoherent plan.
    Incoherent,
    /// No retrieval needed (greeting, small talk).
    NoRetrievalNeeded,
    /// Retrieval stayed insufficient after the allowed reformulations.
    InsufficientEvidence,
    /// Cancelled by the user.
    Cancelled,
    /// A stage failed critically.
    Error,
}

pub const HIGH: f64 = 0.80;
pub const MEDIUM: f64 = 0.70;
pub const PARTIAL: f64 = 0.50;

impl FinalReason {
    /// The band for an answer's confidence (two decimals); each lower bound is inclusive.
    pub fn from_confidence(confidence: f64) -> FinalReason {
        let c = round2(confidence);
        if c >= HIGH {
            FinalReason::ConfidenceHigh
        } else if c >= MEDIUM {
            FinalReason::ConfidenceMediumCaveated
        } else if c >= PARTIAL {
            FinalReason::ConfidenceLowPartial
        } else {
            FinalReason::ConfidenceTooLowClarify
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FinalReason::ConfidenceHigh => "confidence_high",
            FinalReason::ConfidenceMediumCaveated => "confidence_medium_caveated",
            FinalReason::ConfidenceLowPartial => "confidence_low_partial",
            FinalReason::ConfidenceTooLowClarify => "confidence_too_low_clarify",
            FinalReason::GuardrailBlocked => "guardrail_blocked",
            FinalReason::Incoherent => "incoherent",
            FinalReason::NoRetrievalNeeded => "no_retrieval_needed",
            FinalReason::InsufficientEvidence => "insufficient_evidence",
            FinalReason::Cancelled => "cancelled",
            FinalReason::Error => "error",
        }
    }
}

/// Retrieval confidence from the mean relevance of the top results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetrievalConfidence {
    Insufficient,
    Low,
    Medium,
    High,
}

pub const RETRIEVAL_HIGH: f64 = 0.55;
pub const RETRIEVAL_MEDIUM: f64 = 0.40;
pub const RETRIEVAL_LOW: f64 = 0.25;

impl RetrievalConfidence {
    pub fn from_relevance(mean: f64) -> RetrievalConfidence {
        let m = round2(mean);
        if m >= RETRIEVAL_HIGH {
            RetrievalConfidence::High
        } else if m >= RETRIEVAL_MEDIUM {
            RetrievalConfidence::Medium
        } else if m >= RETRIEVAL_LOW {
            RetrievalConfidence::Low
        } else {
            RetrievalConfidence::Insufficient
        }
    }

    /// 0 (insufficient) to 3 (high): the `retrieval_level` routing fact.
    pub fn level(self) -> f64 {
        match self {
            RetrievalConfidence::Insufficient => 0.0,
            RetrievalConfidence::Low => 1.0,
            RetrievalConfidence::Medium => 2.0,
            RetrievalConfidence::High => 3.0,
        }
    }
}

/// Scores are reported and compared with two decimals.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_edges_are_inclusive_lower_bounds() {
        assert_eq!(
            FinalReason::from_confidence(0.80),
            FinalReason::ConfidenceHigh
        );
        assert_eq!(
            FinalReason::from_confidence(0.79),
            FinalReason::ConfidenceMediumCaveated
        );
        assert_eq!(
            FinalReason::from_confidence(0.70),
            FinalReason::ConfidenceMediumCaveated
        );
        assert_eq!(
            FinalReason::from_confidence(0.69),
            FinalReason::ConfidenceLowPartial
        );
        assert_eq!(
            FinalReason::from_confidence(0.50),
            FinalReason::ConfidenceLowPartial
        );
        assert_eq!(
            FinalReason::from_confidence(0.49),
            FinalReason::ConfidenceTooLowClarify
        );
        assert_eq!(
            FinalReason::from_confidence(1.0),
            FinalReason::ConfidenceHigh
        );
        assert_eq!(
            FinalReason::from_confidence(0.0),
            FinalReason::ConfidenceTooLowClarify
        );
        // Two-decimal rounding decides: 0.795 is reported as 0.80.
        assert_eq!(
            FinalReason::from_confidence(0.7951),
            FinalReason::ConfidenceHigh
        );
    }

    #[test]
    fn retrieval_thresholds() {
        assert_eq!(
            RetrievalConfidence::from_relevance(0.55),
            RetrievalConfidence::High
        );
        assert_eq!(
            RetrievalConfidence::from_relevance(0.54),
            RetrievalConfidence::Medium
        );
        assert_eq!(
            RetrievalConfidence::from_relevance(0.40),
            RetrievalConfidence::Medium
        );
        assert_eq!(
            RetrievalConfidence::from_relevance(0.39),
            RetrievalConfidence::Low
        );
        assert_eq!(
            RetrievalConfidence::from_relevance(0.25),
            RetrievalConfidence::Low
        );
        assert_eq!(
            RetrievalConfidence::from_relevance(0.24),
            RetrievalConfidence::Insufficient
        );
    }

    #[test]
    fn reasons_serialise_as_their_names() {
        assert_eq!(
            serde_json::to_string(&FinalReason::ConfidenceMediumCaveated).unwrap(),
            "\"confidence_medium_caveated\""
        );
        assert_eq!(
            FinalReason::ConfidenceLowPartial.as_str(),
            "confidence_low_partial"
        );
    }
}
