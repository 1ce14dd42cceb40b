//! Checking a model's reply against its stage's contract. Every problem is collected (not just
//! the first) and phrased as what to fix, because the notes go back to the model verbatim as
//! `"telemetry": {"notes": ...}` on the re-issue, and one round trip should fix them all.

use super::schema::{Field, Kind};
use super::ModelContract;
use crate::corpus::Date;
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
    pub fn one(problem: impl Into<String>) -> ContractViolation {
        ContractViolation {
            problems: vec![problem.into()],
        }
    }

    /// All problems on one line, for `telemetry.notes` on the re-issue.
    pub fn notes(&self) -> String {
        self.problems.join("; ").replace(['\n', '\r'], " ")
    }
}

/// Checks `raw` (the model's whole reply text) against a stage's contract: one JSON object, the
/// ids, the fields of its schema, then the stage's own rules. Returns the object, or every
/// problem found.
pub fn validate(
    contract: &dyn ModelContract,
    raw: &str,
    ctx: &ValidationContext,
) -> Result<Map<String, Value>, ContractViolation> {
    let obj = extract_object(raw).map_err(ContractViolation::one)?;
    let mut problems = Vec::new();
    // Ids first: a wrong session_id usually means the model ignored cached_state altogether.
    check_ids(&obj, ctx, &mut problems);
    check_fields(contract.fields(), &obj, &mut problems);
    contract.check(&obj, ctx, &mut problems);
    if problems.is_empty() {
        Ok(obj)
    } else {
        Err(ContractViolation { problems })
    }
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
pub fn extract_object(raw: &str) -> Result<Map<String, Value>, String> {
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
            Kind::Tasks => check_task_items(name, v, problems),
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

/// Tasks need only be objects with a question: their other fields are normalised afterwards.
fn check_task_items(name: &str, v: &Value, problems: &mut Vec<String>) {
    let Some(items) = v.as_array() else {
        problems.push(format!(
            "{name} must be an array of task objects, not {}",
            json_type(v)
        ));
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let question = item.get("question").and_then(Value::as_str);
        if question.is_none_or(|q| q.trim().is_empty()) {
            problems.push(format!("{name}[{i}] needs a question (a non-empty string)"));
        }
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

pub fn str_field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

/// A string field that is absent, null or blank.
pub fn blank(obj: &Map<String, Value>, key: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::contract::testing::{
        check, notes, notes_raw, test_reply, with, Ctx, TestContract,
    };
    use serde_json::json;

    const T: &TestContract = &TestContract;

    #[test]
    fn a_valid_reply_passes() {
        let obj = check(T, &test_reply()).expect("valid");
        assert_eq!(obj["answer"], json!("Yes [1]."));
        let v = with(&test_reply(), "top_k", Some(json!(50)));
        assert!(check(T, &v).is_ok());
        let v = with(&test_reply(), "since", Some(Value::Null));
        assert!(check(T, &v).is_ok());
    }

    #[test]
    fn one_code_fence_and_whitespace_are_accepted() {
        let ctx = Ctx::new();
        let body = test_reply().to_string();
        for raw in [
            format!("  \n{body}\n "),
            format!("```json\n{body}\n```"),
            format!("```\n{body}\n```\n"),
            format!("```{body}```"),
        ] {
            assert!(validate(T, &raw, &ctx.get()).is_ok(), "{raw}");
        }
    }

    #[test]
    fn prose_second_objects_and_broken_json_are_rejected() {
        let body = test_reply().to_string();
        let n = notes_raw(T, &format!("Here is the answer:\n{body}"));
        assert!(n.contains("no text before"), "{n}");
        let n = notes_raw(T, &format!("```json\nSure! {body}\n```"));
        assert!(n.contains("no text before"), "{n}");
        let n = notes_raw(T, &format!("{body}\n{body}"));
        assert!(n.contains("exactly one JSON object"), "{n}");
        let n = notes_raw(T, &format!("{body} Hope this helps!"));
        assert!(n.contains("no text after"), "{n}");
        let n = notes_raw(T, &format!("```json\n{body}"));
        assert!(n.contains("close the code fence"), "{n}");
        let n = notes_raw(T, &body[..body.len() - 3]);
        assert!(n.contains("cut off"), "{n}");
        let n = notes_raw(T, &format!("[{body}]"));
        assert!(n.contains("not an array"), "{n}");
        assert!(notes_raw(T, "  ").contains("empty"));
        let n = notes_raw(
            T,
            r#"{"session_id":"sess_x","response_id":"a","answer":"q","answer":"r"}"#,
        );
        assert!(n.contains("give each field once: \"answer\""), "{n}");
    }

    #[test]
    fn missing_unknown_and_mistyped_fields_are_all_reported() {
        let v = with(&test_reply(), "answer", None);
        let v = with(&v, "confidence", Some(json!(0.8)));
        let v = with(&v, "allowed", Some(json!("yes")));
        let v = with(&v, "top_k", None);
        let n = notes(T, &v);
        assert!(n.contains("add the required field \"answer\""), "{n}");
        assert!(n.contains("remove the unknown field \"confidence\""), "{n}");
        assert!(
            n.contains("allowed must be true or false, not a string"),
            "{n}"
        );
        assert!(
            n.contains("add the required field \"top_k\" (null if it does not apply)"),
            "{n}"
        );
        let n = notes(T, &with(&test_reply(), "answer", Some(Value::Null)));
        assert!(n.contains("answer must be a string, not null"), "{n}");
    }

    #[test]
    fn ids_must_match_the_session_and_be_new() {
        let v = with(&test_reply(), "session_id", Some(json!("sess_other")));
        let v = with(&v, "response_id", Some(json!("resp_old")));
        let err = match check(T, &v) {
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
        let n = notes(T, &with(&test_reply(), "response_id", Some(json!(" "))));
        assert!(n.contains("response_id must not be empty"), "{n}");
    }

    #[test]
    fn notes_list_every_problem_on_one_line() {
        let v = with(&test_reply(), "session_id", Some(json!("sess_y")));
        let v = with(&v, "support", Some(json!(0.123)));
        assert_eq!(
            notes(T, &v),
            "session_id must be \"sess_x\"; scores need at most two decimals: support=0.123"
        );
    }

    #[test]
    fn scores_need_two_decimals_and_the_unit_range() {
        let n = notes(T, &with(&test_reply(), "support", Some(json!(0.123))));
        assert_eq!(n, "scores need at most two decimals: support=0.123");
        let n = notes(T, &with(&test_reply(), "support", Some(json!(1.5))));
        assert!(
            n.contains("support must be a number from 0 to 1: got 1.5"),
            "{n}"
        );
        let n = notes(T, &with(&test_reply(), "support", Some(json!(-0.1))));
        assert!(n.contains("from 0 to 1"), "{n}");
        let n = notes(T, &with(&test_reply(), "support", Some(json!("0.5"))));
        assert!(
            n.contains("support must be a number from 0 to 1, not a string"),
            "{n}"
        );
        for ok in [0.0, 0.1, 0.29, 0.57, 0.99, 1.0] {
            assert!(two_decimals(ok), "{ok}");
        }
        for bad in [0.001, 0.123, 0.555, 0.999] {
            assert!(!two_decimals(bad), "{bad}");
        }
    }

    #[test]
    fn enums_dates_and_integer_ranges_are_checked() {
        let n = notes(T, &with(&test_reply(), "mode", Some(json!("maybe"))));
        assert!(
            n.contains("mode must be one of \"coherent\", \"incoherent\": got \"maybe\""),
            "{n}"
        );
        let n = notes(T, &with(&test_reply(), "since", Some(json!("2026-02-30"))));
        assert!(
            n.contains("since must be a real date written YYYY-MM-DD or null"),
            "{n}"
        );
        let n = notes(T, &with(&test_reply(), "since", Some(json!("Nov 2026"))));
        assert!(n.contains("since must be a real date"), "{n}");
        for bad in [json!(0), json!(51), json!(2.5), json!("10")] {
            let n = notes(T, &with(&test_reply(), "top_k", Some(bad)));
            assert!(
                n.contains("top_k must be an integer from 1 to 50 or null"),
                "{n}"
            );
        }
    }

    #[test]
    fn citation_items_are_checked_one_by_one() {
        let v = with(
            &test_reply(),
            "citations",
            Some(
                json!([{"n": 0, "chunk_id": "c_1"}, {"n": 2, "chunk_id": 3, "score": 0.5}, "c_1"]),
            ),
        );
        let n = notes(T, &v);
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
        let n = notes(T, &with(&test_reply(), "citations", Some(json!("c_1"))));
        assert!(n.contains("citations must be an array"), "{n}");
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
