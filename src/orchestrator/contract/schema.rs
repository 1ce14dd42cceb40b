//! The JSON Schema of each stage's reply, in OpenAI's strict style: every property listed in
//! `required` (optional ones are nullable instead), `additionalProperties: false`.
//!
//! The field table here is the single source for both the schema and the type/presence checks of
//! [`super::validate`], so the two cannot drift apart. Rules a schema cannot state (reply only
//! when blocked, dates in order, citations match markers) live in the validator and the
//! directives.

use super::ModelStage;
use serde_json::{json, Map, Value};

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    Bool,
    /// A number in [0, 1] with at most two decimals.
    Score,
    /// An integer in `min..=max`.
    Int {
        min: i64,
        max: i64,
    },
    /// One of the listed strings.
    Enum(&'static [&'static str]),
    /// A calendar date `YYYY-MM-DD`.
    Date,
    /// `[{n: integer >= 1, chunk_id: string}]`.
    Citations,
}

/// One property of a stage's reply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub name: &'static str,
    pub kind: Kind,
    /// `null` allowed (the strict-mode way of saying optional).
    pub nullable: bool,
    pub description: &'static str,
}

const fn field(name: &'static str, kind: Kind, description: &'static str) -> Field {
    Field {
        name,
        kind,
        nullable: false,
        description,
    }
}

const fn nullable(name: &'static str, kind: Kind, description: &'static str) -> Field {
    Field {
        name,
        kind,
        nullable: true,
        description,
    }
}

pub(crate) const COHERENCE: &[&str] = &["coherent", "incoherent"];
pub(crate) const INTENTS: &[&str] = &["lookup", "enumerate", "trend", "small_talk"];
pub(crate) const TOP_K_MIN: i64 = 1;
pub(crate) const TOP_K_MAX: i64 = crate::orchestrator::types::MAX_TOP_K as i64;

const SESSION_ID: Field = field(
    "session_id",
    Kind::Text,
    "Copy cached_state.session_id exactly.",
);
const RESPONSE_ID: Field = field(
    "response_id",
    Kind::Text,
    "A new unique id for this reply, never one used before.",
);

const GUARDRAIL: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "allowed",
        Kind::Bool,
        "true when the question may be answered from the documents.",
    ),
    nullable(
        "reason",
        Kind::Text,
        "Why the question is blocked; null when allowed.",
    ),
    nullable(
        "safe_reply",
        Kind::Text,
        "A short polite reply for the user; required when allowed is false.",
    ),
];

const PLAN: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "revised_query",
        Kind::Text,
        "The question rewritten as a clear, self-contained search query.",
    ),
    field(
        "coherence",
        Kind::Enum(COHERENCE),
        "Whether the question makes sense.",
    ),
    nullable(
        "coherence_reason",
        Kind::Text,
        "Why the question is incoherent; null when coherent.",
    ),
    field(
        "needs_retrieval",
        Kind::Bool,
        "false only for greetings and small talk.",
    ),
    field(
        "intent",
        Kind::Enum(INTENTS),
        "What kind of question it is.",
    ),
    nullable(
        "date_start",
        Kind::Date,
        "First day the question is about, or null.",
    ),
    nullable(
        "date_end",
        Kind::Date,
        "Last day the question is about, or null.",
    ),
    nullable(
        "top_k_hint",
        Kind::Int {
            min: TOP_K_MIN,
            max: TOP_K_MAX,
        },
        "How many passages to retrieve (1-50), or null for the default.",
    ),
    nullable(
        "reply",
        Kind::Text,
        "The reply to the user when needs_retrieval is false or the question is incoherent.",
    ),
];

const REFORMULATE: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "reformulated_query",
        Kind::Text,
        "A new search query, different from the ones already tried.",
    ),
    field(
        "rationale",
        Kind::Text,
        "One sentence on what changed and why.",
    ),
];

const SYNTHESIZE: &[Field] = &[
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

const REFLECT: &[Field] = &[
    SESSION_ID,
    RESPONSE_ID,
    field(
        "support_original",
        Kind::Score,
        "How well the answer's cited passages support the original question, 0 to 1, two decimals.",
    ),
    field(
        "support_revised",
        Kind::Score,
        "How well they support the revised query, 0 to 1, two decimals.",
    ),
    field(
        "applicability_note",
        Kind::Text,
        "Which documents, dates and sections the answer rests on.",
    ),
    field(
        "uncertainty_note",
        Kind::Text,
        "What the passages leave open, or what the user could ask to be more certain.",
    ),
];

/// The fields of a stage's reply, in the order the schema lists them.
pub(crate) fn fields(stage: ModelStage) -> &'static [Field] {
    match stage {
        ModelStage::Guardrail => GUARDRAIL,
        ModelStage::Plan => PLAN,
        ModelStage::Reformulate => REFORMULATE,
        ModelStage::Synthesize => SYNTHESIZE,
        ModelStage::Reflect => REFLECT,
    }
}

/// The `json_schema.name` of a stage's response format.
pub fn schema_name(stage: ModelStage) -> &'static str {
    match stage {
        ModelStage::Guardrail => "fathom_guardrail",
        ModelStage::Plan => "fathom_plan",
        ModelStage::Reformulate => "fathom_reformulate",
        ModelStage::Synthesize => "fathom_synthesize",
        ModelStage::Reflect => "fathom_reflect",
    }
}

fn typed(base: &str, nullable: bool) -> Value {
    if nullable {
        json!([base, "null"])
    } else {
        json!(base)
    }
}

fn property(f: &Field) -> Value {
    let mut p = Map::new();
    match f.kind {
        Kind::Text => {
            p.insert("type".into(), typed("string", f.nullable));
        }
        Kind::Bool => {
            p.insert("type".into(), typed("boolean", f.nullable));
        }
        Kind::Score => {
            p.insert("type".into(), typed("number", f.nullable));
            p.insert("minimum".into(), json!(0));
            p.insert("maximum".into(), json!(1));
        }
        Kind::Int { min, max } => {
            p.insert("type".into(), typed("integer", f.nullable));
            p.insert("minimum".into(), json!(min));
            p.insert("maximum".into(), json!(max));
        }
        Kind::Enum(values) => {
            p.insert("type".into(), typed("string", f.nullable));
            let mut vs: Vec<Value> = values.iter().map(|v| json!(v)).collect();
            if f.nullable {
                vs.push(Value::Null);
            }
            p.insert("enum".into(), Value::Array(vs));
        }
        Kind::Date => {
            p.insert("type".into(), typed("string", f.nullable));
            // A pattern rather than `format: date`: more local servers understand it.
            p.insert("pattern".into(), json!("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"));
        }
        Kind::Citations => {
            p.insert("type".into(), typed("array", f.nullable));
            p.insert(
                "items".into(),
                json!({
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer", "minimum": 1, "description": "The marker number."},
                        "chunk_id": {"type": "string", "description": "The cited passage's chunk_id."}
                    },
                    "required": ["n", "chunk_id"],
                    "additionalProperties": false
                }),
            );
        }
    }
    p.insert("description".into(), json!(f.description));
    Value::Object(p)
}

/// The JSON Schema of a stage's reply.
pub fn schema(stage: ModelStage) -> Value {
    let fields = fields(stage);
    let properties: Map<String, Value> = fields
        .iter()
        .map(|f| (f.name.to_string(), property(f)))
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": fields.iter().map(|f| f.name).collect::<Vec<_>>(),
        "additionalProperties": false
    })
}

/// The OpenAI `response_format` value asking for a stage's reply under its strict schema.
pub fn response_format(stage: ModelStage) -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {
            "name": schema_name(stage),
            "schema": schema(stage),
            "strict": true
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strict mode needs every property required and no extras, at every object level.
    fn assert_strict(v: &Value, path: &str) {
        if v["type"] == json!("object") {
            let props = v["properties"]
                .as_object()
                .unwrap_or_else(|| panic!("{path}: no properties"));
            let required: Vec<&str> = v["required"]
                .as_array()
                .unwrap_or_else(|| panic!("{path}: no required"))
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(props.len(), required.len(), "{path}");
            for (k, p) in props {
                assert!(required.contains(&k.as_str()), "{path}.{k} not required");
                assert_strict(p, &format!("{path}.{k}"));
            }
            assert_eq!(v["additionalProperties"], json!(false), "{path}");
        }
        if let Some(items) = v.get("items") {
            assert_strict(items, &format!("{path}[]"));
        }
    }

    #[test]
    fn every_schema_is_strict() {
        for s in ModelStage::ALL {
            let v = schema(s);
            assert_strict(&v, s.as_str());
            assert_eq!(v["properties"]["session_id"]["type"], json!("string"));
        }
    }

    #[test]
    fn optional_fields_are_nullable_and_enums_listed() {
        let plan = schema(ModelStage::Plan);
        let p = &plan["properties"];
        assert_eq!(p["date_start"]["type"], json!(["string", "null"]));
        assert_eq!(p["top_k_hint"]["type"], json!(["integer", "null"]));
        assert_eq!(p["top_k_hint"]["maximum"], json!(50));
        assert_eq!(p["intent"]["enum"], json!(INTENTS));
        assert_eq!(p["coherence"]["enum"], json!(["coherent", "incoherent"]));
        let reflect = schema(ModelStage::Reflect);
        assert_eq!(
            reflect["properties"]["support_original"]["maximum"],
            json!(1)
        );
        assert!(reflect["properties"].get("confidence").is_none());
    }

    #[test]
    fn response_format_names_the_schema() {
        let rf = response_format(ModelStage::Synthesize);
        assert_eq!(rf["type"], json!("json_schema"));
        assert_eq!(rf["json_schema"]["name"], json!("fathom_synthesize"));
        assert_eq!(rf["json_schema"]["strict"], json!(true));
        assert_eq!(rf["json_schema"]["schema"], schema(ModelStage::Synthesize));
    }
}
