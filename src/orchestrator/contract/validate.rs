//! Checking a model's reply against its stage's contract. Every problem is collected (not just
//! the first) and phrased as what to fix, because the notes go back to the model verbatim as
//! `"telemetry": {"notes": ...}` on the re-issue, and one round trip should fix them all.

use super::output::StageOutput;
use super::schema::{fields, Field, Kind};
use super::ModelStage;
use crate::corpus::Date;
use crate::orchestrator::stages::validate::markers;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};
use std::fmt;

/// What a reply is checked against besides its schema.
#[derive(Debug, Clone, Copy)]
pub struct ValidationContext<'a> {
    /// `cached_state.session_id`; the reply must echo it.
    pub session_id: &'a str,
    /// Every `response_id` accepted so far in the session; the reply must bring a new one.
    pub seen_response_ids: &'a HashSet<String>,
    /// The chunk ids of the passages the model was shown; citations may name only these.
    pub allowed_chunk_ids: &'a [String],
}

/// A reply that broke the contract, with everything wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the reply broke the stage contract: {}", self.notes())]
pub struct ContractViolation {
    /// One entry per problem, each phrased as what to fix.
    pub problems: Vec<String>,
}

impl ContractViolation {
    fn one(problem: impl Into<String>) -> ContractViolation {
        ContractViolation {
            problems: vec![problem.into()],
        }
    }

    /// All problems on one line, for `telemetry.notes` on the re-issue.
    pub fn notes(&self) -> String {
        self.problems.join("; ").replace(['\n', '\r'], " ")
    }
}

/// Checks `raw` (the model's whole reply text) against `stage`'s contract and returns the typed
/// output, or every problem found.
pub fn validate(
    stage: ModelStage,
    raw: &str,
    ctx: &ValidationContext,
) -> Result<StageOutput, ContractViolation> {
    let obj = extract_object(raw).map_err(ContractViolation::one)?;
    let mut problems = Vec::new();
    // Ids first: a wrong session_id usually means the model ignored cached_state altogether.
    check_ids(&obj, ctx, &mut problems);
    check_fields(fields(stage), &obj, &mut problems);
    match stage {
        ModelStage::Guardrail => check_guardrail(&obj, &mut problems),
        ModelStage::Plan => check_plan(&obj, &mut problems),
        ModelStage::Reformulate => {
            if str_field(&obj, "reformulated_query").is_some_and(|q| q.trim().is_empty()) {
                problems.push("reformulated_query must not be empty".to_string());
            }
        }
        ModelStage::Synthesize => check_synthesis(&obj, ctx, &mut problems),
        ModelStage::Reflect => {}
    }
    if !problems.is_empty() {
        return Err(ContractViolation { problems });
    }
    typed(stage, Value::Object(obj)).map_err(|e| {
        // The checks above mirror the types, so this is a gap in them, not the model's fault
        // alone; still, report it as a fix the model can make rather than panic.
        ContractViolation::one(format!("the reply must match the schema: {e}"))
    })
}

fn typed(stage: ModelStage, v: Value) -> Result<StageOutput, serde_json::Error> {
    Ok(match stage {
        ModelStage::Guardrail => StageOutput::Guardrail(serde_json::from_value(v)?),
        ModelStage::Plan => StageOutput::Plan(serde_json::from_value(v)?),
        ModelStage::Reformulate => StageOutput::Reformulate(serde_json::from_value(v)?),
        ModelStage::Synthesize => StageOutput::Synthesize(serde_json::from_value(v)?),
        ModelStage::Reflect => StageOutput::Reflect(serde_json::from_value(v)?),
    })
}

/// The top-level members of an object in the order written, duplicates kept: `serde_json::Map`
/// would silently keep the last duplicate, while the streaming UI shows the first.
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = m.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The one JSON object of a reply. Surrounding whitespace and one markdown code fence are
/// tolerated because small models add them even when told not to; anything else is not.
fn extract_object(raw: &str) -> Result<Map<String, Value>, String> {
    let mut text = raw.trim();
    if let Some(rest) = text.strip_prefix("```") {
        let rest = rest
            .strip_prefix("json")
            .or_else(|| rest.strip_prefix("JSON"))
            .unwrap_or(rest);
        text = rest
            .trim_end()
            .strip_suffix("```")
            .ok_or("close the code fence with ``` (or send the JSON object without a fence)")?
            .trim();
    }
    if text.is_empty() {
        return Err("reply with one JSON object; the reply was empty".to_string());
    }
    if text.starts_with('[') {
        return Err("reply with one JSON object, not an array".to_string());
    }
    if !text.starts_with('{') {
        return Err("reply with the JSON object only: no text before the opening {".to_string());
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Entries>();
    let entries = match stream.next() {
        Some(Ok(Entries(entries))) => entries,
        Some(Err(e)) if e.is_eof() => {
            return Err(format!(
                "the JSON object is cut off; send it complete ({e})"
            ))
        }
        Some(Err(e)) => return Err(format!("the reply must be valid JSON ({e})")),
        None => return Err("reply with one JSON object; the reply was empty".to_string()),
    };
    let after = text.get(stream.byte_offset()..).unwrap_or("").trim();
    if after.starts_with('{') {
        return Err("send exactly one JSON object: a second one follows the first".to_string());
    }
    if !after.is_empty() {
        return Err("reply with the JSON object only: no text after the closing }".to_string());
    }
    let mut map = Map::new();
    let mut dups = BTreeSet::new();
    for (k, v) in entries {
        if map.contains_key(&k) {
            dups.insert(k);
        } else {
            map.insert(k, v);
        }
    }
    if !dups.is_empty() {
        let names: Vec<String> = dups.iter().map(|k| format!("\"{k}\"")).collect();
        return Err(format!(
            "give each field once: {} repeated",
            names.join(", ")
        ));
    }
    Ok(map)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// At most two decimals. Compared as f64: `x` written with two decimals parses to the same double
/// as `round(x·100)/100`, while 0.123 does not.
fn two_decimals(x: f64) -> bool {
    (x * 100.0).round() / 100.0 == x
}

/// Presence, unknown fields, JSON types, enums, ranges, date syntax and the two-decimal rule.
fn check_fields(spec: &[Field], obj: &Map<String, Value>, problems: &mut Vec<String>) {
    for key in obj.keys() {
        if !spec.iter().any(|f| f.name == key) {
            problems.push(format!("remove the unknown field \"{key}\""));
        }
    }
    let mut many_decimals = Vec::new();
    for f in spec {
        let Some(v) = obj.get(f.name) else {
            let hint = if f.nullable {
                " (null if it does not apply)"
            } else {
                ""
            };
            problems.push(format!("add the required field \"{}\"{hint}", f.name));
            continue;
        };
        if v.is_null() && f.nullable {
            continue;
        }
        let or_null = if f.nullable { " or null" } else { "" };
        let name = f.name;
        match f.kind {
            Kind::Text if !v.is_string() => problems.push(format!(
                "{name} must be a string{or_null}, not {}",
                json_type(v)
            )),
            Kind::Bool if !v.is_boolean() => problems.push(format!(
                "{name} must be true or false, not {}",
                json_type(v)
            )),
            Kind::Score => match v.as_f64() {
                Some(x) if (0.0..=1.0).contains(&x) => {
                    if !two_decimals(x) {
                        many_decimals.push(format!("{name}={v}"));
                    }
                }
                Some(_) => problems.push(format!("{name} must be a number from 0 to 1: got {v}")),
                None => problems.push(format!(
                    "{name} must be a number from 0 to 1, not {}",
                    json_type(v)
                )),
            },
            Kind::Int { min, max } => match v.as_i64() {
                Some(n) if (min..=max).contains(&n) => {}
                _ => problems.push(format!(
                    "{name} must be an integer from {min} to {max}{or_null}: got {v}"
                )),
            },
            Kind::Enum(values) if !v.as_str().is_some_and(|s| values.contains(&s)) => {
                let listed: Vec<String> = values.iter().map(|s| format!("\"{s}\"")).collect();
                problems.push(format!(
                    "{name} must be one of {}{or_null}: got {v}",
                    listed.join(", ")
                ));
            }
            Kind::Date if v.as_str().and_then(Date::parse).is_none() => problems.push(format!(
                "{name} must be a real date written YYYY-MM-DD{or_null}: got {v}"
            )),
            Kind::Citations => check_citation_items(name, v, problems),
            _ => {}
        }
    }
    if !many_decimals.is_empty() {
        problems.push(format!(
            "scores need at most two decimals: {}",
            many_decimals.join(", ")
        ));
    }
}

fn check_citation_items(name: &str, v: &Value, problems: &mut Vec<String>) {
    let Some(items) = v.as_array() else {
        problems.push(format!(
            "{name} must be an array of {{\"n\", \"chunk_id\"}} objects, not {}",
            json_type(v)
        ));
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let Some(o) = item.as_object() else {
            problems.push(format!(
                "{name}[{i}] must be an object {{\"n\": integer, \"chunk_id\": string}}, not {}",
                json_type(item)
            ));
            continue;
        };
        for key in o.keys() {
            if key != "n" && key != "chunk_id" {
                problems.push(format!(
                    "remove the unknown field \"{key}\" from {name}[{i}]"
                ));
            }
        }
        match o.get("n") {
            None => problems.push(format!("add the required field \"n\" to {name}[{i}]")),
            Some(n) if n.as_u64().is_none_or(|n| n < 1) => problems.push(format!(
                "{name}[{i}].n must be an integer of at least 1: got {n}"
            )),
            Some(_) => {}
        }
        match o.get("chunk_id") {
            None => problems.push(format!(
                "add the required field \"chunk_id\" to {name}[{i}]"
            )),
            Some(c) if !c.is_string() => problems.push(format!(
                "{name}[{i}].chunk_id must be a string, not {}",
                json_type(c)
            )),
            Some(_) => {}
        }
    }
}

fn str_field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

/// A string field that is absent, null or blank.
fn blank(obj: &Map<String, Value>, key: &str) -> bool {
    str_field(obj, key).is_none_or(|s| s.trim().is_empty())
}

fn check_ids(obj: &Map<String, Value>, ctx: &ValidationContext, problems: &mut Vec<String>) {
    if let Some(s) = str_field(obj, "session_id") {
        if s != ctx.session_id {
            problems.push(format!(
                "session_id must be {}",
                Value::String(ctx.session_id.to_string())
            ));
        }
    }
    if let Some(r) = str_field(obj, "response_id") {
        if r.trim().is_empty() {
            problems.push("response_id must not be empty".to_string());
        } else if ctx.seen_response_ids.contains(r) {
            problems.push(format!(
                "response_id {} was already used: send a new one",
                Value::String(r.to_string())
            ));
        }
    }
}

fn check_guardrail(obj: &Map<String, Value>, problems: &mut Vec<String>) {
    if obj.get("allowed") == Some(&Value::Bool(false)) && blank(obj, "safe_reply") {
        problems.push("safe_reply must be a short reply for the user when allowed is false".into());
    }
}

fn check_plan(obj: &Map<String, Value>, problems: &mut Vec<String>) {
    let date = |k| str_field(obj, k).and_then(Date::parse);
    let given = |k| obj.get(k).is_some_and(|v| !v.is_null());
    match (date("date_start"), date("date_end")) {
        (Some(s), Some(e)) if s > e => {
            problems.push(format!("date_start ({s}) must not be after date_end ({e})"))
        }
        _ if given("date_start") != given("date_end") => {
            problems.push("give both date_start and date_end, or neither (null)".to_string())
        }
        _ => {}
    }
    let incoherent = str_field(obj, "coherence") == Some("incoherent");
    let no_retrieval = obj.get("needs_retrieval") == Some(&Value::Bool(false));
    if incoherent && blank(obj, "coherence_reason") {
        problems.push("coherence_reason must say why when coherence is \"incoherent\"".into());
    }
    if (incoherent || no_retrieval) && blank(obj, "reply") {
        problems.push(
            "reply must be a reply for the user when the question is incoherent or needs_retrieval is false"
                .into(),
        );
    }
    if !incoherent
        && !no_retrieval
        && obj.contains_key("revised_query")
        && blank(obj, "revised_query")
    {
        problems.push("revised_query must not be empty when retrieval is needed".into());
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
    let used: BTreeSet<u64> = markers(answer).into_iter().map(|n| n as u64).collect();
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
    use crate::orchestrator::types::{Coherence, Intent};
    use serde_json::json;

    struct Ctx {
        seen: HashSet<String>,
        chunks: Vec<String>,
    }

    impl Ctx {
        fn new() -> Ctx {
            Ctx {
                seen: ["resp_old".to_string()].into_iter().collect(),
                chunks: vec!["c_1".to_string(), "c_2".to_string(), "c_3".to_string()],
            }
        }
        fn get(&self) -> ValidationContext<'_> {
            ValidationContext {
                session_id: "sess_x",
                seen_response_ids: &self.seen,
                allowed_chunk_ids: &self.chunks,
            }
        }
    }

    fn check(stage: ModelStage, v: &Value) -> Result<StageOutput, ContractViolation> {
        validate(stage, &v.to_string(), &Ctx::new().get())
    }

    /// The notes of a reply that must be rejected.
    fn notes(stage: ModelStage, v: &Value) -> String {
        match check(stage, v) {
            Ok(out) => panic!("accepted {v}: {out:?}"),
            Err(e) => e.notes(),
        }
    }

    fn notes_raw(stage: ModelStage, raw: &str) -> String {
        match validate(stage, raw, &Ctx::new().get()) {
            Ok(out) => panic!("accepted {raw}: {out:?}"),
            Err(e) => e.notes(),
        }
    }

    /// `base` with `key` set to `value` (or removed, for `None`).
    fn with(base: &Value, key: &str, value: Option<Value>) -> Value {
        let mut v = base.clone();
        if let Some(o) = v.as_object_mut() {
            match value {
                Some(x) => o.insert(key.to_string(), x),
                None => o.remove(key),
            };
        }
        v
    }

    fn guardrail() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1", "allowed": true,
               "reason": null, "safe_reply": null})
    }

    fn plan() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1",
               "revised_query": "search year filter", "coherence": "coherent",
               "coherence_reason": null, "needs_retrieval": true, "intent": "lookup",
               "date_start": "2026-11-01", "date_end": "2026-11-30", "top_k_hint": 12,
               "reply": null})
    }

    fn reformulate() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1",
               "reformulated_query": "year picker filter", "rationale": "Uses the UI's words."})
    }

    fn synthesize() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1",
               "answer": "Press y to pick years [1]; searches then filter by them [2].",
               "citations": [{"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_3"}]})
    }

    fn reflect() -> Value {
        json!({"session_id": "sess_x", "response_id": "resp_1", "support_original": 0.12,
               "support_revised": 1, "applicability_note": "searching.md, 2026-11-08.",
               "uncertainty_note": "Older releases are not covered."})
    }

    #[test]
    fn valid_replies_pass_for_every_stage() {
        match check(ModelStage::Guardrail, &guardrail()) {
            Ok(StageOutput::Guardrail(g)) => assert!(g.allowed),
            other => panic!("{other:?}"),
        }
        match check(ModelStage::Plan, &plan()) {
            Ok(StageOutput::Plan(p)) => {
                assert_eq!(p.coherence, Coherence::Coherent);
                assert_eq!(p.intent, Intent::Lookup);
                assert_eq!(p.top_k_hint, Some(12));
                let ep = p.to_execution_plan("how do I filter by year?");
                assert_eq!(ep.suggested_years, vec![2026]);
                assert_eq!(ep.top_k_hint, 12);
            }
            other => panic!("{other:?}"),
        }
        match check(ModelStage::Reformulate, &reformulate()) {
            Ok(StageOutput::Reformulate(r)) => {
                assert_eq!(r.reformulated_query, "year picker filter")
            }
            other => panic!("{other:?}"),
        }
        match check(ModelStage::Synthesize, &synthesize()) {
            Ok(StageOutput::Synthesize(s)) => {
                assert_eq!(s.citations.len(), 2);
                assert_eq!(s.citations[1].chunk_id, "c_3");
            }
            other => panic!("{other:?}"),
        }
        match check(ModelStage::Reflect, &reflect()) {
            Ok(out @ StageOutput::Reflect(_)) => {
                assert_eq!(out.response_id(), "resp_1");
                assert_eq!(out.stage(), ModelStage::Reflect);
            }
            other => panic!("{other:?}"),
        }
        // Blocked guardrail, small-talk plan and a plan without dates are valid too.
        let blocked = with(&guardrail(), "allowed", Some(json!(false)));
        let blocked = with(
            &blocked,
            "safe_reply",
            Some(json!("I can help with your documents.")),
        );
        assert!(check(ModelStage::Guardrail, &blocked).is_ok());
        let chat = with(&plan(), "needs_retrieval", Some(json!(false)));
        let chat = with(&chat, "reply", Some(json!("Hello!")));
        let chat = with(&chat, "date_start", Some(Value::Null));
        let chat = with(&chat, "date_end", Some(Value::Null));
        let chat = with(&chat, "top_k_hint", Some(Value::Null));
        assert!(check(ModelStage::Plan, &chat).is_ok());
    }

    #[test]
    fn one_code_fence_and_whitespace_are_accepted() {
        let ctx = Ctx::new();
        let body = synthesize().to_string();
        for raw in [
            format!("  \n{body}\n "),
            format!("```json\n{body}\n```"),
            format!("```\n{body}\n```\n"),
            format!("```{body}```"),
        ] {
            assert!(
                validate(ModelStage::Synthesize, &raw, &ctx.get()).is_ok(),
                "{raw}"
            );
        }
    }

    #[test]
    fn prose_second_objects_and_broken_json_are_rejected() {
        let body = synthesize().to_string();
        let n = notes_raw(
            ModelStage::Synthesize,
            &format!("Here is the answer:\n{body}"),
        );
        assert!(n.contains("no text before"), "{n}");
        let n = notes_raw(
            ModelStage::Synthesize,
            &format!("```json\nSure! {body}\n```"),
        );
        assert!(n.contains("no text before"), "{n}");
        let n = notes_raw(ModelStage::Synthesize, &format!("{body}\n{body}"));
        assert!(n.contains("exactly one JSON object"), "{n}");
        let n = notes_raw(ModelStage::Synthesize, &format!("{body} Hope this helps!"));
        assert!(n.contains("no text after"), "{n}");
        let n = notes_raw(ModelStage::Synthesize, &format!("```json\n{body}"));
        assert!(n.contains("close the code fence"), "{n}");
        let n = notes_raw(ModelStage::Synthesize, &body[..body.len() - 3]);
        assert!(n.contains("cut off"), "{n}");
        let n = notes_raw(ModelStage::Synthesize, &format!("[{body}]"));
        assert!(n.contains("not an array"), "{n}");
        assert!(notes_raw(ModelStage::Synthesize, "  ").contains("empty"));
        let n = notes_raw(
            ModelStage::Reformulate,
            r#"{"session_id":"sess_x","response_id":"a","reformulated_query":"q","reformulated_query":"r","rationale":"x"}"#,
        );
        assert!(
            n.contains("give each field once: \"reformulated_query\""),
            "{n}"
        );
    }

    #[test]
    fn missing_unknown_and_mistyped_fields_are_all_reported() {
        let v = with(&reflect(), "uncertainty_note", None);
        let v = with(&v, "confidence", Some(json!(0.8)));
        let v = with(&v, "applicability_note", Some(json!(3)));
        let n = notes(ModelStage::Reflect, &v);
        assert!(
            n.contains("add the required field \"uncertainty_note\""),
            "{n}"
        );
        assert!(n.contains("remove the unknown field \"confidence\""), "{n}");
        assert!(
            n.contains("applicability_note must be a string, not a number"),
            "{n}"
        );
        let n = notes(
            ModelStage::Guardrail,
            &with(&guardrail(), "allowed", Some(json!("yes"))),
        );
        assert!(
            n.contains("allowed must be true or false, not a string"),
            "{n}"
        );
        let n = notes(ModelStage::Guardrail, &with(&guardrail(), "reason", None));
        assert!(
            n.contains("add the required field \"reason\" (null if it does not apply)"),
            "{n}"
        );
        let n = notes(
            ModelStage::Plan,
            &with(&plan(), "revised_query", Some(Value::Null)),
        );
        assert!(
            n.contains("revised_query must be a string, not null"),
            "{n}"
        );
    }

    #[test]
    fn ids_must_match_the_session_and_be_new() {
        let v = with(&guardrail(), "session_id", Some(json!("sess_other")));
        let v = with(&v, "response_id", Some(json!("resp_old")));
        let err = match check(ModelStage::Guardrail, &v) {
            Err(e) => e,
            Ok(o) => panic!("{o:?}"),
        };
        assert_eq!(err.problems.len(), 2, "all problems are collected");
        let n = err.notes();
        assert!(n.contains("session_id must be \"sess_x\""), "{n}");
        assert!(
            n.contains("response_id \"resp_old\" was already used"),
            "{n}"
        );
        assert!(!n.contains('\n'));
        let n = notes(
            ModelStage::Reformulate,
            &with(&reformulate(), "response_id", Some(json!(" "))),
        );
        assert!(n.contains("response_id must not be empty"), "{n}");
    }

    #[test]
    fn notes_list_every_problem_on_one_line() {
        let v = with(&reflect(), "session_id", Some(json!("sess_y")));
        let v = with(&v, "support_original", Some(json!(0.123)));
        assert_eq!(
            notes(ModelStage::Reflect, &v),
            "session_id must be \"sess_x\"; scores need at most two decimals: support_original=0.123"
        );
        let v = with(&v, "support_revised", Some(json!(0.456)));
        assert!(notes(ModelStage::Reflect, &v)
            .ends_with("support_original=0.123, support_revised=0.456"));
    }

    #[test]
    fn scores_need_two_decimals_and_the_unit_range() {
        // 0.12 and 1 pass in the valid reply; 0.123 does not.
        let v = with(&reflect(), "support_original", Some(json!(0.123)));
        let n = notes(ModelStage::Reflect, &v);
        assert_eq!(
            n,
            "scores need at most two decimals: support_original=0.123"
        );
        let v = with(&reflect(), "support_revised", Some(json!(1.5)));
        assert!(notes(ModelStage::Reflect, &v)
            .contains("support_revised must be a number from 0 to 1: got 1.5"));
        let v = with(&reflect(), "support_revised", Some(json!(-0.1)));
        assert!(notes(ModelStage::Reflect, &v).contains("from 0 to 1"));
        let v = with(&reflect(), "support_revised", Some(json!("0.5")));
        assert!(notes(ModelStage::Reflect, &v)
            .contains("support_revised must be a number from 0 to 1, not a string"));
        for ok in [0.0, 0.1, 0.29, 0.57, 0.99, 1.0] {
            assert!(two_decimals(ok), "{ok}");
        }
        for bad in [0.001, 0.123, 0.555, 0.999] {
            assert!(!two_decimals(bad), "{bad}");
        }
    }

    #[test]
    fn plan_enums_dates_and_top_k_are_checked() {
        let n = notes(
            ModelStage::Plan,
            &with(&plan(), "intent", Some(json!("search"))),
        );
        assert!(n.contains("intent must be one of \"lookup\", \"enumerate\", \"trend\", \"small_talk\": got \"search\""), "{n}");
        let n = notes(
            ModelStage::Plan,
            &with(&plan(), "coherence", Some(json!("maybe"))),
        );
        assert!(
            n.contains("coherence must be one of \"coherent\", \"incoherent\""),
            "{n}"
        );
        let n = notes(
            ModelStage::Plan,
            &with(&plan(), "date_start", Some(json!("2026-02-30"))),
        );
        assert!(
            n.contains("date_start must be a real date written YYYY-MM-DD or null"),
            "{n}"
        );
        let n = notes(
            ModelStage::Plan,
            &with(&plan(), "date_end", Some(json!("Nov 2026"))),
        );
        assert!(n.contains("date_end must be a real date"), "{n}");
        let n = notes(
            ModelStage::Plan,
            &with(&plan(), "date_end", Some(json!("2026-10-01"))),
        );
        assert!(
            n.contains("date_start (2026-11-01) must not be after date_end (2026-10-01)"),
            "{n}"
        );
        let n = notes(
            ModelStage::Plan,
            &with(&plan(), "date_end", Some(Value::Null)),
        );
        assert!(
            n.contains("give both date_start and date_end, or neither"),
            "{n}"
        );
        for bad in [json!(0), json!(51), json!(2.5), json!("10")] {
            let n = notes(ModelStage::Plan, &with(&plan(), "top_k_hint", Some(bad)));
            assert!(
                n.contains("top_k_hint must be an integer from 1 to 50 or null"),
                "{n}"
            );
        }
        for ok in [json!(1), json!(50)] {
            assert!(check(ModelStage::Plan, &with(&plan(), "top_k_hint", Some(ok))).is_ok());
        }
    }

    #[test]
    fn plan_replies_are_required_where_the_user_sees_them() {
        let v = with(&plan(), "coherence", Some(json!("incoherent")));
        let n = notes(ModelStage::Plan, &v);
        assert!(n.contains("coherence_reason must say why"), "{n}");
        assert!(n.contains("reply must be a reply for the user"), "{n}");
        let v = with(&plan(), "needs_retrieval", Some(json!(false)));
        assert!(notes(ModelStage::Plan, &v).contains("reply must be a reply for the user"));
        let v = with(&plan(), "revised_query", Some(json!("")));
        assert!(notes(ModelStage::Plan, &v).contains("revised_query must not be empty"));
    }

    #[test]
    fn blocked_guardrail_needs_a_safe_reply() {
        let v = with(&guardrail(), "allowed", Some(json!(false)));
        let n = notes(ModelStage::Guardrail, &v);
        assert!(
            n.contains("safe_reply must be a short reply for the user when allowed is false"),
            "{n}"
        );
        let v = with(&v, "safe_reply", Some(json!("  ")));
        assert!(notes(ModelStage::Guardrail, &v).contains("safe_reply must be"));
    }

    #[test]
    fn reformulation_must_not_be_empty() {
        let v = with(&reformulate(), "reformulated_query", Some(json!("")));
        assert!(notes(ModelStage::Reformulate, &v).contains("reformulated_query must not be empty"));
        let v = with(&reformulate(), "rationale", Some(Value::Null));
        assert!(notes(ModelStage::Reformulate, &v).contains("rationale must be a string, not null"));
    }

    #[test]
    fn synthesis_citations_must_match_markers_and_passages() {
        // [3] in the answer without a citation.
        let v = with(
            &synthesize(),
            "answer",
            Some(json!("Pick years [1], then search [2] [3].")),
        );
        let n = notes(ModelStage::Synthesize, &v);
        assert!(
            n.contains("marker [3] in the answer has no citation"),
            "{n}"
        );
        // A chunk that was not retrieved.
        let v = with(
            &synthesize(),
            "citations",
            Some(json!([{"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_99"}])),
        );
        let n = notes(ModelStage::Synthesize, &v);
        assert!(
            n.contains("citation [2] names chunk_id \"c_99\", which is not among the passages"),
            "{n}"
        );
        // A citation the answer never uses.
        let v = with(
            &synthesize(),
            "citations",
            Some(json!([
            {"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_3"}, {"n": 4, "chunk_id": "c_2"}])),
        );
        let n = notes(ModelStage::Synthesize, &v);
        assert!(n.contains("citation [4] is not used in the answer"), "{n}");
        // Numbers given twice.
        let v = with(
            &synthesize(),
            "citations",
            Some(json!([
            {"n": 1, "chunk_id": "c_1"}, {"n": 2, "chunk_id": "c_3"}, {"n": 2, "chunk_id": "c_2"}])),
        );
        let n = notes(ModelStage::Synthesize, &v);
        assert!(
            n.contains("citation number 2 appears more than once"),
            "{n}"
        );
        // Malformed entries.
        let v = with(
            &synthesize(),
            "citations",
            Some(json!([
            {"n": 0, "chunk_id": "c_1"}, {"n": 2, "chunk_id": 3, "score": 0.5}, "c_1"])),
        );
        let n = notes(ModelStage::Synthesize, &v);
        assert!(
            n.contains("citations[0].n must be an integer of at least 1: got 0"),
            "{n}"
        );
        assert!(
            n.contains("citations[1].chunk_id must be a string, not a number"),
            "{n}"
        );
        assert!(
            n.contains("remove the unknown field \"score\" from citations[1]"),
            "{n}"
        );
        assert!(n.contains("citations[2] must be an object"), "{n}");
        let v = with(
            &synthesize(),
            "answer",
            Some(json!("Pick years [0] [1] [2].")),
        );
        assert!(notes(ModelStage::Synthesize, &v).contains("renumber the marker [0]"));
        // An empty answer.
        let v = with(&synthesize(), "answer", Some(json!(" ")));
        let v = with(&v, "citations", Some(json!([])));
        assert_eq!(
            notes(ModelStage::Synthesize, &v),
            "answer must not be empty"
        );
        // No citations at all is fine when the answer says the passages do not answer.
        let v = with(
            &synthesize(),
            "answer",
            Some(json!("The passages do not say.")),
        );
        let v = with(&v, "citations", Some(json!([])));
        assert!(check(ModelStage::Synthesize, &v).is_ok());
    }

    #[test]
    fn violations_display_their_notes() {
        let e = ContractViolation {
            problems: vec!["a".into(), "b\nc".into()],
        };
        assert_eq!(e.notes(), "a; b c");
        assert_eq!(e.to_string(), "the reply broke the stage contract: a; b c");
    }
}
