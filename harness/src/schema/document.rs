//! `--schema FILE`: a user's `schema.json` (a draft, or a revision newer than mcpspec knows)
//! in place of the generated types. A message is validated against `#/$defs/<Type>` (or
//! `#/definitions/<Type>` in a draft-07 document) with the jsonschema crate, each type's
//! validator built once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{Shape, Violation};

/// A loaded schema document.
#[derive(Debug)]
pub struct Document {
    root: Value,
    /// `$defs` or `definitions`.
    defs_key: &'static str,
    built: Mutex<HashMap<&'static str, Option<Arc<jsonschema::Validator>>>>,
}

impl Document {
    /// Reads `path`; an error names what is wrong with it.
    pub fn load(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the schema {}: {e}", path.display()))?;
        let root: Value = serde_json::from_str(&text)
            .map_err(|e| format!("the schema {} is not JSON: {e}", path.display()))?;
        Self::new(root).map_err(|e| format!("the schema {}: {e}", path.display()))
    }

    /// A document from its JSON.
    pub fn new(root: Value) -> Result<Self, String> {
        let defs_key = if root.get("$defs").is_some_and(Value::is_object) {
            "$defs"
        } else if root.get("definitions").is_some_and(Value::is_object) {
            "definitions"
        } else {
            return Err("it has neither `$defs` nor `definitions`".into());
        };
        Ok(Document {
            root,
            defs_key,
            built: Mutex::new(HashMap::new()),
        })
    }

    /// Whether the document defines `name`.
    pub fn defines(&self, name: &str) -> bool {
        self.root
            .get(self.defs_key)
            .is_some_and(|d| d.get(name).is_some())
    }

    /// The validator of the type `name`, built once; `None` when the document does not define
    /// it (or it does not build).
    fn validator(&self, name: &'static str) -> Option<Arc<jsonschema::Validator>> {
        let mut built = self.built.lock().ok()?;
        built
            .entry(name)
            .or_insert_with(|| {
                if !self.defines(name) {
                    return None;
                }
                let mut schema = self.root.clone();
                let obj = schema.as_object_mut()?;
                obj.insert(
                    "$ref".into(),
                    Value::String(format!("#/{}/{name}", self.defs_key)),
                );
                jsonschema::validator_for(&schema).ok().map(Arc::new)
            })
            .clone()
    }

    /// The violations of `body` against the type `name` (empty when valid or not defined).
    pub fn validate_as(&self, name: &'static str, method: String, body: &Value) -> Vec<Violation> {
        let Some(validator) = self.validator(name) else {
            return Vec::new();
        };
        validator
            .iter_errors(body)
            .take(16)
            .map(|e| Violation {
                method: method.clone(),
                pointer: e.instance_path().to_string(),
                expected: format!(
                    "a value valid under {} ({})",
                    e.schema_path(),
                    short_kind(&e)
                ),
                actual: mcpspec_core::text::preview(e.instance(), 80),
                revision: None,
            })
            .collect()
    }

    /// The violations of a message body of `shape`.
    pub fn validate(&self, shape: Shape<'_>, body: &Value) -> Vec<Violation> {
        match super::type_name(shape, body) {
            Some(name) => self.validate_as(name, shape.method(), body),
            None => Vec::new(),
        }
    }
}

/// What a jsonschema error says is wrong, without the instance it quotes.
fn short_kind(e: &jsonschema::ValidationError<'_>) -> String {
    let text = e.to_string();
    let instance = e.instance().to_string();
    let text = text
        .strip_prefix(instance.as_str())
        .map_or(text.as_str(), str::trim_start);
    mcpspec_core::text::shorten(text, 120)
}
