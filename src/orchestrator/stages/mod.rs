//! The stages, one folder each: the offline implementation, the model contract (schema, prompt,
//! validation rules, state slice) where a model can do the stage, and the tests. A new stage is
//! a new folder plus one line in [`all`] and its node and edges in a topology.

pub mod aggregate;
pub mod coordinate;
pub mod decompose;
pub mod evaluate;
pub mod guardrail;
pub mod judgement;
pub mod plan;
pub mod reflect;
pub mod reformulate;
pub mod rerank;
pub mod respond;
pub mod retrieve;
pub mod synthesize;
pub mod validate;

use super::stage::{Stage, StageCx};
use std::sync::Arc;

/// Every built-in stage, for the registry.
pub fn all() -> Vec<Arc<dyn Stage>> {
    vec![
        Arc::new(guardrail::Guardrail),
        Arc::new(judgement::JudgementStage),
        Arc::new(plan::Plan),
        Arc::new(decompose::Decompose),
        Arc::new(coordinate::Coordinate::default()),
        Arc::new(aggregate::Aggregate::default()),
        Arc::new(retrieve::Retrieve),
        Arc::new(rerank::Rerank),
        Arc::new(evaluate::Evaluate),
        Arc::new(reformulate::Reformulate),
        Arc::new(synthesize::Synthesize),
        Arc::new(validate::Validate),
        Arc::new(reflect::Reflect),
        Arc::new(respond::Respond),
    ]
}

/// "The documents are dated A to B." for model directives.
pub(crate) fn span_note(cx: &StageCx) -> String {
    let years = cx.retriever.years();
    match (years.keys().next(), years.keys().next_back()) {
        (Some(a), Some(b)) => format!("The documents are dated {a} to {b}."),
        _ => "The documents carry no dates.".to_string(),
    }
}

/// " The user restricted the search to …" when years are chosen, for model directives.
pub(crate) fn filter_note(cx: &StageCx) -> String {
    let years = &cx.input.requested_years;
    if years.is_empty() {
        String::new()
    } else {
        let ys: Vec<String> = years.iter().map(|y| y.to_string()).collect();
        format!(" The user restricted the search to {}.", ys.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::schema::{schema, tests::assert_strict};

    #[test]
    fn every_model_contract_is_strict_and_its_directive_names_its_stage_and_fields() {
        let mut names = Vec::new();
        for stage in all() {
            let Some(c) = stage.model() else { continue };
            let id = stage.id();
            assert_eq!(c.schema_name(), format!("fathom_{id}"));
            let v = schema(c.fields());
            assert_strict(&v, id.as_str());
            assert_eq!(
                v["properties"]["session_id"]["type"],
                serde_json::json!("string")
            );
            assert!(c.directive().contains(&format!("Stage: {id}.")), "{id}");
            for f in c.fields() {
                assert!(
                    c.directive().contains(&format!("- {} (", f.name)),
                    "{id} directive lacks {}",
                    f.name
                );
            }
            names.push(id.to_string());
        }
        assert_eq!(
            names,
            [
                "guardrail",
                "judgement",
                "plan",
                "decompose",
                "reformulate",
                "synthesize",
                "reflect"
            ]
        );
    }

    #[test]
    fn stage_ids_are_unique_and_cover_the_qa_topology() {
        let ids: Vec<String> = all().iter().map(|s| s.id().to_string()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len());
        let t = crate::orchestrator::topology::qa::topology(2);
        for n in &t.nodes {
            assert!(ids.contains(&n.to_string()), "{n} has no stage");
        }
    }
}
