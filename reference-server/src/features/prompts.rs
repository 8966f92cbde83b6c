//! The prompts (both eras): `greeting {name}`, `code_review {code, language?}` and
//! `summarize {text}`, in that order. `prompts/get` renders one; an unknown prompt or a
//! missing required argument is -32602 (FEAT-2).

use serde_json::{Map, Value, json};

use crate::config::faults::Fault;
use crate::engine::scope::Scope;
use crate::error::RpcError;
use crate::protocol::code;

/// `(name, description, [(argument, description, required)])`.
type PromptDef = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str, bool)],
);

const PROMPTS: &[PromptDef] = &[
    (
        "greeting",
        "Greets someone by name.",
        &[("name", "Who to greet.", true)],
    ),
    (
        "code_review",
        "Asks for a review of a piece of code.",
        &[
            ("code", "The code to review.", true),
            ("language", "Its language (completable).", false),
        ],
    ),
    (
        "summarize",
        "Asks for a one-paragraph summary of a text.",
        &[("text", "The text to summarize.", true)],
    ),
];

/// Languages `completion/complete` offers for `code_review`'s `language`.
pub(crate) const LANGUAGES: &[&str] = &["go", "python", "rust", "typescript"];

pub(crate) fn list() -> Vec<Value> {
    PROMPTS
        .iter()
        .map(|(name, description, args)| {
            let arguments: Vec<Value> = args
                .iter()
                .map(|(arg, about, required)| {
                    json!({ "name": arg, "description": about, "required": required })
                })
                .collect();
            json!({ "name": name, "description": description, "arguments": arguments })
        })
        .collect()
}

/// Whether `name` is a prompt with an argument `argument`.
pub(crate) fn has_argument(name: &str, argument: &str) -> Option<bool> {
    let (_, _, args) = PROMPTS.iter().find(|(n, _, _)| *n == name)?;
    Some(args.iter().any(|(a, _, _)| *a == argument))
}

/// `prompts/get`.
pub(crate) fn get(scope: &Scope, params: Option<&Value>) -> Result<Value, RpcError> {
    let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
        return Err(scope
            .conn
            .params_error("prompts/get: `name` (a string) is required"));
    };
    let empty = Map::new();
    let args = match params.and_then(|p| p.get("arguments")) {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(args)) if args.values().all(Value::is_string) => args,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "prompts/get: `arguments` must be an object of strings",
            ));
        }
    };
    let Some((_, description, defs)) = PROMPTS.iter().find(|(n, _, _)| *n == name) else {
        if scope.has(Fault::UnknownPromptResult) {
            return Ok(json!({ "messages": [] }));
        }
        return Err(RpcError::invalid_params(format!("unknown prompt: {name}")));
    };
    let arg = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("");
    for (key, _, required) in defs.iter() {
        if *required && !args.contains_key(*key) && !scope.has(Fault::PromptMissingArgumentAccepted)
        {
            return Err(RpcError::invalid_params(format!(
                "prompts/get `{name}`: missing required argument `{key}`"
            )));
        }
    }
    if name == "summarize" && scope.has(Fault::ListedPromptFails) {
        return Err(RpcError::new(
            code::INTERNAL_ERROR,
            "summarize failed (listed-prompt-fails fault)",
        ));
    }
    let text = match name {
        "greeting" => format!("Say hello to {}.", arg("name")),
        "code_review" => {
            let language = match arg("language") {
                "" => String::new(),
                l => format!(" ({l})"),
            };
            format!("Review this code{language}:\n{}", arg("code"))
        }
        _ => format!("Summarize in one paragraph:\n{}", arg("text")),
    };
    let role = if scope.has(Fault::PromptMessageBadRole) {
        "system"
    } else {
        "user"
    };
    let mut content = json!({ "type": "text", "text": text });
    if scope.has(Fault::PromptMessageContentArray) {
        content = json!([content]);
    }
    Ok(json!({
        "description": description,
        "messages": [{ "role": role, "content": content }]
    }))
}
