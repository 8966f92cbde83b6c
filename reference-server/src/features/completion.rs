//! `completion/complete` (both eras): values for `code_review`'s `language` argument and
//! for the `topic` of the notes template, by prefix. Other arguments of a known prompt or
//! template complete to nothing; an unknown prompt or template is -32602.

use serde_json::{Value, json};

use crate::config::faults::Fault;
use crate::engine::scope::Scope;
use crate::error::RpcError;
use crate::features::{prompts, resources};
use crate::protocol::code;

pub(crate) fn complete(scope: &Scope, params: Option<&Value>) -> Result<Value, RpcError> {
    let bad = |what: &str| {
        scope
            .conn
            .params_error(format!("completion/complete: {what}"))
    };
    let reference = params
        .and_then(|p| p.get("ref"))
        .ok_or_else(|| bad("`ref` is required"))?;
    let argument = params
        .and_then(|p| p.get("argument"))
        .ok_or_else(|| bad("`argument` is required"))?;
    let (Some(arg_name), Some(value)) = (
        argument.get("name").and_then(Value::as_str),
        argument.get("value").and_then(Value::as_str),
    ) else {
        return Err(bad("`argument` needs string `name` and `value`"));
    };
    let candidates: &[&str] = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
            match prompts::has_argument(name, arg_name) {
                None => return Err(RpcError::invalid_params(format!("unknown prompt: {name}"))),
                Some(_) if name == "code_review" && arg_name == "language" => prompts::LANGUAGES,
                Some(_) => &[],
            }
        }
        Some("ref/resource") => {
            let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
            if scope.has(Fault::TemplateCompletionInternalError) {
                return Err(RpcError::new(
                    code::INTERNAL_ERROR,
                    "completion failed (template-completion-internal-error fault)",
                ));
            }
            if uri != resources::NOTES_TEMPLATE {
                return Err(RpcError::invalid_params(format!(
                    "unknown resource template: {uri}"
                )));
            }
            if arg_name == "topic" {
                resources::NOTE_TOPICS
            } else {
                &[]
            }
        }
        _ => return Err(bad("`ref.type` must be \"ref/prompt\" or \"ref/resource\"")),
    };
    let values: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|c| c.starts_with(value))
        .collect();
    let total = if scope.has(Fault::CompletionTotalBelowCount) {
        0
    } else {
        values.len()
    };
    let values = if scope.has(Fault::CompletionValuesNotStrings) {
        json!((0..values.len()).collect::<Vec<_>>())
    } else {
        json!(values)
    };
    Ok(json!({
        "completion": { "values": values, "total": total, "hasMore": false }
    }))
}
