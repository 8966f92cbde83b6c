//! The tools: `echo`, `add`, and (probe profile only) `mcpspec_probe_log` and the tools of
//! [`crate::probe_tools`], which also wraps [`call`] with progress. Shared by both eras; the
//! era modules add their own envelope.

use serde_json::{Map, Number, Value, json};

use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::error::RpcError;

pub const ECHO: &str = "echo";
pub const ADD: &str = "add";
/// Probe profile only: returns the probe middleware's log.
pub const PROBE_LOG: &str = "mcpspec_probe_log";

/// The tool definitions, in a fixed order (LIST-2).
pub(crate) fn list(conn: &Connection) -> Vec<Value> {
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
    ];
    if conn.config.probe_profile {
        tools.push(json!({
            "name": PROBE_LOG,
            "description": "mcpspec probe profile: what the probe middleware observed so far.",
            "inputSchema": { "type": "object", "properties": {} }
        }));
        tools.extend(crate::misbehaviour::probe_tools::list());
    }
    if conn.config.http.header_tool {
        tools.push(crate::transport::http::route_tool());
    }
    tools
}

/// `tools/call`: the CallToolResult (without era-specific stamping) or a protocol error.
pub(crate) fn call(conn: &Connection, params: Option<&Value>) -> Result<Value, RpcError> {
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
        ECHO => echo(args),
        ADD => add(args),
        PROBE_LOG if conn.config.probe_profile => return Ok(probe_log(conn)),
        crate::transport::http::ROUTE if conn.config.http.header_tool => {
            crate::transport::http::route_call(args)
        }
        unknown => {
            let message = format!("unknown tool: {unknown}");
            if conn.has(Fault::UnknownToolAsResult) {
                return Ok(error_result(&message));
            }
            return Err(RpcError::invalid_params(message));
        }
    };
    match outcome {
        Ok(text) => Ok(json!({ "content": [{ "type": "text", "text": text }] })),
        Err(message) if conn.has(Fault::ToolErrorAsProtocolError) => {
            Err(RpcError::invalid_params(message))
        }
        Err(message) => Ok(error_result(&message)),
    }
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
    json!({
        "content": [{ "type": "text", "text": log.to_string() }],
        "structuredContent": log
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
