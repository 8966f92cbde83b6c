//! The tools: `echo`, `add`, `showcase` (every content block type and structured output,
//! `features/showcase.rs`), (probe profile only) `mcpspec_probe_log`, and the tools of the
//! server's [`ToolExtensions`] (the probe profile's, the HTTP `route` tool), which the crate
//! root supplies. `tools/call` reports progress (two steps) for every tool but the ones an
//! extension serves whole. Shared by both eras; the era modules add their own envelope.

use serde_json::{Map, Number, Value, json};

use crate::config::Era;
use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::engine::scope::Scope;
use crate::engine::tool_extension::ToolExtensions;
use crate::error::RpcError;
use crate::features::progress::Progress;
use crate::features::showcase;
use crate::protocol::method;

pub const ECHO: &str = "echo";
pub const ADD: &str = "add";
/// Probe profile only: returns the probe middleware's log.
pub const PROBE_LOG: &str = "mcpspec_probe_log";

/// The tool definitions, in a fixed order (LIST-2).
pub(crate) fn list(conn: &Connection, extensions: &ToolExtensions) -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": ECHO,
            "description": "Returns its `text` argument unchanged.",
            "inputSchema": {
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"]
            }
        }),
        json!({
            "name": ADD,
            "description": "Returns the sum of the numbers `a` and `b` as text.",
            "inputSchema": {
                "type": "object",
                "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
                "required": ["a", "b"]
            }
        }),
        showcase::definition(),
    ];
    if conn.config.probe_profile {
        tools.push(json!({
            "name": PROBE_LOG,
            "description": "mcpspec probe profile: what the probe middleware observed so far.",
            "inputSchema": { "type": "object", "properties": {} },
            "outputSchema": {
                "type": "object",
                "properties": { "entries": { "type": "array" } },
                "required": ["entries"]
            }
        }));
    }
    if conn.has(Fault::ToolWithoutInputSchema) {
        if let Some(echo) = tools[0].as_object_mut() {
            echo.remove("inputSchema");
        }
    }
    if conn.has(Fault::InvalidInputSchema) {
        tools[1]["inputSchema"]["properties"]["a"] = json!({ "type": "numbr" });
    }
    tools.extend(extensions.list());
    tools
}

/// `tools/call`, both eras: the CallToolResult (without era-specific stamping) or a protocol
/// error. A tool an extension serves whole answers for itself; every other call reports
/// progress in two steps (with a `progressToken`).
pub(crate) async fn call(
    scope: &Scope,
    params: Option<&Value>,
    extensions: &ToolExtensions,
) -> Result<Value, RpcError> {
    let modern = scope.era == Some(Era::Modern);
    if modern && scope.has(Fault::ListenCancelledByServerForRequest) {
        if let Some(id) = &scope.id {
            scope.notify(
                method::CANCELLED,
                json!({ "requestId": id, "reason": "listen-cancelled-by-server-for-request fault" }),
            );
        }
    }
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
    if let Some(served) = name.and_then(|name| extensions.serve(scope, name, params)) {
        return served.await;
    }
    let mut progress = Progress::new(scope, 2);
    progress.step(scope, "started");
    let result = run(&scope.conn, params, extensions);
    if result.is_ok() {
        progress.step(scope, "done");
    }
    progress.finish(scope);
    result
}

/// A built-in or plain extension tool, without progress.
fn run(
    conn: &Connection,
    params: Option<&Value>,
    extensions: &ToolExtensions,
) -> Result<Value, RpcError> {
    let Some(params) = params.and_then(Value::as_object) else {
        return Err(conn.params_error("tools/call needs params with a `name`"));
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(conn.params_error("tools/call: `name` (a string) is required"));
    };
    let empty = Map::new();
    let args = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(args)) => args,
        Some(_) => return Err(conn.params_error("tools/call: `arguments` must be an object")),
    };
    if conn.has(Fault::PanicOnDunderArgument)
        && args
            .iter()
            .any(|(k, v)| k.starts_with("__") && v.is_array())
    {
        panic!("panic-on-dunder-argument fault: `__`-prefixed argument holding an array");
    }
    let outcome = match name {
        ECHO => echo(args).map(text_result),
        ADD => add(args).map(text_result),
        showcase::SHOWCASE => showcase::run(conn, args),
        PROBE_LOG if conn.config.probe_profile => return Ok(probe_log(conn)),
        other => match extensions.run(other, args) {
            Some(outcome) => outcome.map(text_result),
            None => {
                let message = format!("unknown tool: {other}");
                if conn.has(Fault::UnknownToolAsResult) {
                    return Ok(error_result(&message));
                }
                return Err(RpcError::invalid_params(message));
            }
        },
    };
    match outcome {
        Ok(mut result) => {
            if conn.has(Fault::ContentUnknownType) {
                if let Some(first) = result.pointer_mut("/content/0/type") {
                    *first = json!("txt");
                }
            }
            if conn.has(Fault::ToolResultIsErrorString) {
                result["isError"] = json!("false");
            }
            Ok(result)
        }
        Err(message) if conn.has(Fault::ToolErrorAsProtocolError) => {
            Err(RpcError::invalid_params(message))
        }
        Err(message) => Ok(error_result(&message)),
    }
}

/// A successful tool's text, as a CallToolResult.
fn text_result(text: String) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

/// A tool failure, reported to the model rather than as a protocol error (FEAT-2).
fn error_result(message: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": message }], "isError": true })
}

fn echo(args: &Map<String, Value>) -> Result<String, String> {
    match args.get("text") {
        Some(Value::String(text)) => Ok(text.clone()),
        Some(_) => Err("echo: `text` must be a string".into()),
        None => Err("echo: missing argument `text`".into()),
    }
}

fn add(args: &Map<String, Value>) -> Result<String, String> {
    let number = |key: &str| match args.get(key) {
        Some(Value::Number(n)) => Ok(n.clone()),
        Some(_) => Err(format!("add: `{key}` must be a number")),
        None => Err(format!("add: missing argument `{key}`")),
    };
    let (a, b) = (number("a")?, number("b")?);
    let sum = match (a.as_i64(), b.as_i64()) {
        (Some(a), Some(b)) => a.checked_add(b).map(Number::from),
        _ => None,
    }
    .or_else(|| Number::from_f64(a.as_f64()? + b.as_f64()?))
    .ok_or("add: the sum is not a finite number")?;
    Ok(sum.to_string())
}

fn probe_log(conn: &Connection) -> Value {
    let log = json!({ "entries": conn.probe_log() });
    let structured = if conn.has(Fault::StructuredOutputMismatch) {
        json!({ "entries": { "mismatch": "an object where the outputSchema says array" } })
    } else {
        log.clone()
    };
    let kind = if conn.has(Fault::ContentUnknownType) {
        "txt"
    } else {
        "text"
    };
    json!({
        "content": [{ "type": kind, "text": log.to_string() }],
        "structuredContent": structured
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn add_keeps_integers_and_handles_fractions() {
        assert_eq!(add(&args(json!({"a": 1, "b": 2}))), Ok("3".into()));
        assert_eq!(add(&args(json!({"a": 1.5, "b": 2}))), Ok("3.5".into()));
        assert!(add(&args(json!({"a": "x", "b": 2}))).is_err());
        assert!(add(&args(json!({"a": 1}))).is_err());
    }
}
