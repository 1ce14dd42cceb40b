//! The JSON Schema of a stage's reply, in OpenAI's strict style: every property listed in
//! `required` (optional ones are nullable instead), `additionalProperties: false`.
//!
//! A stage's field table (in its `contract.rs`) is the single source for both the schema and the
//! type/presence checks of [`super::validate`], so the two cannot drift apart. Rules a schema
//! cannot state (reply only when blocked, dates in order, citations match markers) live in the
//! stage's `check` and its directive.

use serde_json::{json, Map, Value};

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
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
    /// A task graph's tasks: `[{id, question, tools, depends_on, date_start, date_end}]`,
    /// checked leniently (the graph is normalised afterwards).
    Tasks,
}

/// One property of a stage's reply.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    /// `null` allowed (the strict-mode way of saying optional).
    pub nullable: bool,
    pub description: &'static str,
}

pub const fn field(name: &'static str, kind: Kind, description: &'static str) -> Field {
    Field {
        name,
        kind,
        nullable: false,
        description,
    }
}

pub const fn nullable(name: &'static str, kind: Kind, description: &'static str) -> Field {
    Field {
        name,
        kind,
        nullable: true,
        description,
    }
}

/// Every reply echoes the session id…
pub const SESSION_ID: Field = field(
    "session_id",
    Kind::Text,
    "Copy cached_state.session_id exactly.",
);
/// …and brings a response id never used before.
pub const RESPONSE_ID: Field = field(
    "response_id",
    Kind::Text,
    "A new unique id for this reply, never one used before.",
);

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
        Kind::Tasks => {}
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
    if f.kind == Kind::Tasks {
        p.insert("type".into(), typed("array", f.nullable));
        p.insert(
            "items".into(),
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "question": {"type": "string"},
                    "tools": {"type": "array", "items": {"type": "string"}},
                    "depends_on": {"type": "array", "items": {"type": "string"}},
                    "date_start": {"type": ["string", "null"]},
                    "date_end": {"type": ["string", "null"]}
                },
                "required": ["id", "question", "tools", "depends_on", "date_start", "date_end"],
                "additionalProperties": false
            }),
        );
    }
    p.insert("description".into(), json!(f.description));
    Value::Object(p)
}

/// The JSON Schema of a reply with `fields`.
pub fn schema(fields: &[Field]) -> Value {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Strict mode needs every property required and no extras, at every object level.
    pub(crate) fn assert_strict(v: &Value, path: &str) {
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

    const KINDS: &[Field] = &[
        SESSION_ID,
        RESPONSE_ID,
        nullable("when", Kind::Date, "a date"),
        nullable("k", Kind::Int { min: 1, max: 50 }, "k"),
        field("mode", Kind::Enum(&["a", "b"]), "mode"),
        nullable("pick", Kind::Enum(&["x"]), "pick"),
        field("score", Kind::Score, "score"),
        field("cites", Kind::Citations, "cites"),
    ];

    #[test]
    fn schemas_are_strict_and_optional_fields_nullable() {
        let v = schema(KINDS);
        assert_strict(&v, "kinds");
        let p = &v["properties"];
        assert_eq!(p["session_id"]["type"], json!("string"));
        assert_eq!(p["when"]["type"], json!(["string", "null"]));
        assert_eq!(p["when"]["pattern"], json!("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"));
        assert_eq!(p["k"]["type"], json!(["integer", "null"]));
        assert_eq!(p["k"]["maximum"], json!(50));
        assert_eq!(p["mode"]["enum"], json!(["a", "b"]));
        assert_eq!(p["pick"]["enum"], json!(["x", null]));
        assert_eq!(p["score"]["maximum"], json!(1));
        assert_eq!(p["cites"]["items"]["required"], json!(["n", "chunk_id"]));
    }
}
