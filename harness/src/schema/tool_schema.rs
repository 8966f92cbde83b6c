//! Tool schemas (SCHEMA-2) and structured output (SCHEMA-3), with the jsonschema crate.
//!
//! SCHEMA-2: a tool's `inputSchema` (and `outputSchema`, when present) is a JSON Schema object,
//! not null, valid under its dialect (2020-12 when `$schema` is absent: the meta-schema of the
//! dialect validates it), with `type: "object"` at its root. SCHEMA-3: a successful
//! `tools/call` result of a tool that declares `outputSchema` carries `structuredContent` valid
//! under it.

use serde_json::Value;

/// One defect of a tool's schema or output: the tool, where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDefect {
    pub tool: String,
    /// `inputSchema`, `outputSchema` or `structuredContent`.
    pub member: &'static str,
    /// A JSON pointer inside that member.
    pub pointer: String,
    pub problem: String,
}

impl std::fmt::Display for ToolDefect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            String::new()
        } else {
            format!(" at {}", self.pointer)
        };
        write!(
            f,
            "tool `{}`: {}{at}: {}",
            self.tool, self.member, self.problem
        )
    }
}

/// The dialects a tool schema may name in `$schema` (JSON Schema 2020-12 when absent).
const KNOWN_DIALECTS: [&str; 5] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];

/// The SCHEMA-2 defects of one tool (an entry of `tools/list`'s `tools`).
pub fn tool_schema_defects(tool: &Value) -> Vec<ToolDefect> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("(unnamed)")
        .to_owned();
    let mut defects = Vec::new();
    for (member, required) in [("inputSchema", true), ("outputSchema", false)] {
        let defect = |pointer: &str, problem: String| ToolDefect {
            tool: name.clone(),
            member,
            pointer: pointer.to_owned(),
            problem,
        };
        let schema = match tool.get(member) {
            None if required => {
                defects.push(defect("", "absent; a tool must declare it".into()));
                continue;
            }
            None => continue,
            Some(s) => s,
        };
        let Some(obj) = schema.as_object() else {
            defects.push(defect(
                "",
                format!(
                    "expected a JSON Schema object, got {}",
                    mcpspec_core::text::preview(schema, 60)
                ),
            ));
            continue;
        };
        if obj.get("type").and_then(Value::as_str) != Some("object") {
            defects.push(defect(
                "/type",
                format!(
                    "expected \"object\" at the root, got {}",
                    obj.get("type")
                        .map_or_else(|| "absent".into(), |t| mcpspec_core::text::preview(t, 40))
                ),
            ));
        }
        if let Some(dialect) = obj.get("$schema") {
            let known = dialect
                .as_str()
                .is_some_and(|d| KNOWN_DIALECTS.contains(&d.trim_end_matches('#')));
            if !known {
                defects.push(defect(
                    "/$schema",
                    format!(
                        "a dialect mcpspec cannot check against: {}",
                        mcpspec_core::text::preview(dialect, 80)
                    ),
                ));
                continue;
            }
        }
        defects.extend(meta_defects(schema).into_iter().map(|(p, e)| defect(&p, e)));
    }
    defects
}

/// What the dialect's meta-schema says is wrong with `schema` (2020-12 when it names none),
/// and whether it compiles as a schema at all.
fn meta_defects(schema: &Value) -> Vec<(String, String)> {
    let outcome = if schema.get("$schema").is_some() {
        jsonschema::meta::validate(schema)
            .map_err(|e| (e.instance_path().to_string(), e.to_string()))
    } else {
        let mut with_dialect = schema.clone();
        if let Some(obj) = with_dialect.as_object_mut() {
            obj.insert("$schema".into(), Value::String(KNOWN_DIALECTS[0].into()));
        }
        jsonschema::meta::validate(&with_dialect)
            .map_err(|e| (e.instance_path().to_string(), e.to_string()))
    };
    match outcome {
        Err((pointer, e)) => vec![(pointer, format!("not valid under its meta-schema: {e}"))],
        Ok(()) => match compile(schema) {
            Ok(_) => Vec::new(),
            Err(e) => vec![(String::new(), format!("does not compile as a schema: {e}"))],
        },
    }
}

/// The smallest arguments an `inputSchema` accepts as far as its top level says: each required
/// property gets its `default`, first `enum` or `const` value, or a plain value of its `type`
/// (1, "mcpspec", true, [], {}). Enough to call a tool whose output shape is to be judged; a
/// server that rejects them leaves the result unjudged, never judged wrongly.
pub fn minimal_arguments(input_schema: &Value) -> Value {
    let properties = input_schema.get("properties").and_then(Value::as_object);
    let mut arguments = serde_json::Map::new();
    for name in input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let property = properties.and_then(|p| p.get(name));
        arguments.insert(name.to_owned(), property.map_or(Value::Null, plain_value));
    }
    Value::Object(arguments)
}

fn plain_value(property: &Value) -> Value {
    if let Some(v) = property.get("default").or_else(|| property.get("const")) {
        return v.clone();
    }
    if let Some(first) = property
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    // `type` may be a list of types: the first one that is not null.
    let ty = match property.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    };
    match ty {
        Some("integer" | "number") => {
            let minimum = property.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            Value::from(minimum.max(1))
        }
        Some("string") => Value::from("mcpspec"),
        Some("boolean") => Value::Bool(true),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => minimal_arguments(property),
        _ => Value::Null,
    }
}

/// Compiles a tool's schema (2020-12 unless it names its dialect); no `$ref` is fetched.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    let mut options = jsonschema::options();
    if schema.get("$schema").is_none() {
        options = options.with_draft(jsonschema::Draft::Draft202012);
    }
    options.build(schema).map_err(|e| e.to_string())
}

/// The SCHEMA-3 defects of a `tools/call` result of `tool`, whose declared `outputSchema` is
/// `output_schema`: a successful result (not `isError: true`) must carry `structuredContent`
/// valid under it.
pub fn structured_output_defects(
    tool: &str,
    output_schema: &Value,
    result: &Value,
) -> Vec<ToolDefect> {
    let defect = |pointer: String, problem: String| ToolDefect {
        tool: tool.to_owned(),
        member: "structuredContent",
        pointer,
        problem,
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Vec::new();
    }
    let Some(content) = result.get("structuredContent") else {
        return vec![defect(
            String::new(),
            "absent, but the tool declares outputSchema".into(),
        )];
    };
    let validator = match compile(output_schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![defect(
                String::new(),
                format!("cannot be judged: the outputSchema does not compile: {e}"),
            )];
        }
    };
    validator
        .iter_errors(content)
        .take(8)
        .map(|e| {
            defect(
                e.instance_path().to_string(),
                format!("{e} (outputSchema {})", e.schema_path()),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::minimal_arguments;

    #[test]
    fn minimal_arguments_fill_only_what_is_required() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "number"},
                "b": {"type": "integer", "minimum": 3},
                "unit": {"type": "string", "enum": ["m", "ft"]},
                "label": {"type": ["null", "string"]},
                "flag": {"type": "boolean", "default": false},
                "nested": {"type": "object", "properties": {"x": {"type": "array"}}, "required": ["x"]},
                "optional": {"type": "string"}
            },
            "required": ["a", "b", "unit", "label", "flag", "nested", "undeclared"]
        });
        assert_eq!(
            minimal_arguments(&schema),
            json!({"a": 1, "b": 3, "unit": "m", "label": "mcpspec", "flag": false,
                   "nested": {"x": []}, "undeclared": null})
        );
        assert_eq!(minimal_arguments(&json!({"type": "object"})), json!({}));
    }
}
