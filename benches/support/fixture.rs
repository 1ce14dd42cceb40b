//! A realistic finished result, shared by the benches (`#[path]`-included: benches cannot share
//! a module otherwise).

use fathom::orchestrator::api::{
    Citation, Date, FinalReason, ManagerState, NodeId, OrchestrationResult, PlanSummary,
    RetrievalConfidence, RetrieveSummary, StageStatus, StageTrace, YearMode,
};
use fathom::orchestrator::types::Coherence;
use std::collections::BTreeMap;

pub const STAGES: [&str; 9] = [
    "guardrail",
    "plan",
    "retrieve",
    "rerank",
    "evaluate",
    "synthesize",
    "validate",
    "reflect",
    "respond",
];

pub fn date(year: i32, month: u8) -> Date {
    Date {
        year,
        month,
        day: 15,
    }
}

pub fn citation(n: usize) -> Citation {
    Citation {
        n,
        chunk_id: format!("c{n}"),
        document: format!("monetary/{}-0{n}-15_statement.md", 2017 + n),
        date: Some(date(2017 + n as i32, n as u8)),
        section: Some("Policy decision".to_string()),
        score: 0.9 - 0.07 * n as f64,
    }
}

pub fn result(query_id: &str) -> OrchestrationResult {
    // About 1,500 characters over several paragraphs, every sentence cited: the wrapping and
    // marker-splitting work of a long real answer.
    let paragraph = "The Committee lowered the target range for the federal funds rate by 1/4 \
        percentage point to 1-3/4 to 2 percent [1], citing the implications of global \
        developments for the economic outlook and muted inflation pressures [2]. It said it \
        would continue to monitor incoming information and act as appropriate to sustain the \
        expansion [3], with a strong labor market and inflation near its symmetric 2 percent \
        objective [4]. Two members preferred to maintain the target range [5].";
    let answer = [paragraph; 3].join("\n\n");
    let mut cached_state = BTreeMap::new();
    cached_state.insert(
        "plan".to_string(),
        serde_json::json!({"revised_query": "federal funds rate target range 2019", "intent": "lookup"}),
    );
    cached_state.insert(
        "retrieve".to_string(),
        serde_json::json!({"year_mode": "explicit", "requested_years": [2019], "hits": (1..=5).map(|n| serde_json::json!({"chunk_id": format!("c{n}"), "score": 0.5})).collect::<Vec<_>>()}),
    );
    OrchestrationResult {
        session_id: "bench".to_string(),
        query_id: query_id.to_string(),
        state: ManagerState::Success,
        final_reason: FinalReason::ConfidenceHigh,
        confidence: Some(0.86),
        retrieval_confidence: Some(RetrievalConfidence::High),
        answer,
        citations: (1..=5).map(citation).collect(),
        applicability_note: Some("Applies to 2019.".to_string()),
        uncertainty_note: None,
        plan: Some(PlanSummary {
            original_query: "What did the Committee do to rates in 2019?".to_string(),
            revised_query: "federal funds rate target range 2019".to_string(),
            coherence: Coherence::Coherent,
            coherence_reason: None,
            intent: fathom::orchestrator::api::IntentType::Factual,
        }),
        retrieve: RetrieveSummary {
            year_mode: YearMode::Explicit,
            requested_years: vec![2019],
            recent_year_window: None,
        },
        stages: STAGES
            .iter()
            .map(|&id| StageTrace {
                id: NodeId::new(id),
                status: StageStatus::Done,
                ms: 12.0,
                fallback: None,
                loop_index: 0,
            })
            .collect(),
        breakers: vec![],
        tokens_used: BTreeMap::new(),
        cached_state,
        dispatches: vec![],
        topology: "qa".to_string(),
        task_graph: None,
        react_log: Default::default(),
        aggregation: None,
        warnings: vec![],
    }
}
