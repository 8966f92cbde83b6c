//! The 2026-07-28 request headers, checked against the body before the chain runs. Every
//! failure is -32020 HeaderMismatch (HTTP 400, POL-10):
//!
//! - `Mcp-Method` (every request and notification): present once, visible ASCII, equal to
//!   `method` (case-sensitive: `TOOLS/LIST` is refused; surrounding whitespace is ignored);
//! - `MCP-Protocol-Version`: present once, visible ASCII; equal to
//!   `_meta["io.modelcontextprotocol/protocolVersion"]` when the body has one (a body without
//!   it is left to the envelope check: -32602);
//! - `Mcp-Name` for `tools/call` and `prompts/get` (`params.name`) and `resources/read`
//!   (`params.uri`) when the body has that string: present once, decoded if it is
//!   `=?base64?…?=` (standard alphabet, UTF-8; an invalid payload is refused), then equal;
//! - `Mcp-Param-{Name}` for every `tools/call` argument whose `inputSchema` property carries
//!   `"x-mcp-header": "{Name}"` and whose value is not null: present once, decoded like
//!   `Mcp-Name`, then equal (strings exactly, integers and numbers numerically, booleans as
//!   `true`/`false`). Header names are case-insensitive throughout (HTTP).

use axum::http::HeaderMap;
use serde_json::{Map, Value, json};

use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::engine::tool_extension::ToolExtension;
use crate::error::RpcError;
use crate::protocol::{code, meta, method};
use crate::transport::http::shared::header_name;

/// The `route` tool (listed with `HttpOptions::header_tool`): its arguments are mirrored in
/// `Mcp-Param-*` headers.
pub(crate) const ROUTE: &str = "route";

/// The `route` tool as a tool extension, supplied by the crate root with
/// `HttpOptions::header_tool` (on any transport).
pub(crate) struct RouteTool;

impl ToolExtension for RouteTool {
    fn list(&self) -> Vec<Value> {
        vec![route_tool()]
    }

    fn run(&self, name: &str, args: &Map<String, Value>) -> Option<Result<String, String>> {
        (name == ROUTE).then(|| route_call(args))
    }
}

fn route_tool() -> Value {
    json!({
        "name": ROUTE,
        "description": "Returns its arguments as text. Over streamable HTTP each argument is \
                        mirrored in an `Mcp-Param-*` header (`x-mcp-header`).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "priority": { "type": "integer", "x-mcp-header": "Priority" },
                "urgent": { "type": "boolean", "x-mcp-header": "Urgent" }
            },
            "required": ["region"]
        }
    })
}

/// `route`: `region=R priority=P urgent=U` (absent arguments omitted), or a tool error.
fn route_call(args: &Map<String, Value>) -> Result<String, String> {
    let Some(region) = args.get("region").and_then(Value::as_str) else {
        return Err("route: `region` (a string) is required".into());
    };
    let mut text = format!("region={region}");
    for key in ["priority", "urgent"] {
        match args.get(key) {
            None | Some(Value::Null) => {}
            Some(v @ (Value::Number(_) | Value::Bool(_))) => text.push_str(&format!(" {key}={v}")),
            Some(_) => return Err(format!("route: `{key}` has the wrong type")),
        }
    }
    Ok(text)
}

/// Checks the standard and custom headers of one modern message (see the module doc).
pub(crate) fn check(
    headers: &HeaderMap,
    method_name: &str,
    params: Option<&Value>,
    conn: &Connection,
    is_request: bool,
) -> Result<(), RpcError> {
    let mismatch = |message: String| {
        let code = if conn.has(Fault::HttpHeaderErrorWrongCode) {
            code::INVALID_PARAMS
        } else {
            code::HEADER_MISMATCH
        };
        RpcError::new(code, message)
    };
    let check_names = !conn.has(Fault::HttpHeaderMismatchAccepted);

    if check_names {
        match one(headers, header_name::METHOD).map_err(&mismatch)? {
            None => return Err(mismatch("missing Mcp-Method header".into())),
            Some(value) => {
                let same = if conn.has(Fault::HttpMethodHeaderCaseInsensitive) {
                    value.eq_ignore_ascii_case(method_name)
                } else {
                    value == method_name
                };
                if !same {
                    return Err(mismatch(format!(
                        "Header mismatch: Mcp-Method header value '{value}' does not match \
                         body value '{method_name}'"
                    )));
                }
            }
        }
    }

    let body_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    match one(headers, header_name::PROTOCOL_VERSION).map_err(&mismatch)? {
        None if conn.has(Fault::HttpMissingVersionHeaderAccepted) => {}
        None => return Err(mismatch("missing MCP-Protocol-Version header".into())),
        Some(value) => {
            if let Some(body) = body_version {
                if value != body && !conn.has(Fault::HttpVersionHeaderMismatchAccepted) {
                    return Err(mismatch(format!(
                        "Header mismatch: MCP-Protocol-Version header value '{value}' does not \
                         match body value '{body}'"
                    )));
                }
            }
        }
    }
    if !is_request {
        return Ok(());
    }

    let name_key = match method_name {
        method::TOOLS_CALL | method::PROMPTS_GET => Some("name"),
        method::RESOURCES_READ => Some("uri"),
        _ => None,
    };
    let body_name = name_key
        .and_then(|key| params.and_then(|p| p.get(key)))
        .and_then(Value::as_str);
    if check_names {
        if let Some(body) = body_name {
            match one(headers, header_name::NAME).map_err(&mismatch)? {
                None => return Err(mismatch("missing Mcp-Name header".into())),
                Some(raw) => {
                    let value =
                        decode(&raw, conn).map_err(|why| mismatch(format!("Mcp-Name: {why}")))?;
                    if value != body {
                        return Err(mismatch(format!(
                            "Header mismatch: Mcp-Name header value '{value}' does not match \
                             body value '{body}'"
                        )));
                    }
                }
            }
        }
    }

    if method_name == method::TOOLS_CALL && !conn.has(Fault::HttpParamHeaderNotChecked) {
        if let Some(tool) = body_name {
            check_params(headers, tool, params, conn, &mismatch)?;
        }
    }
    Ok(())
}

/// HTTP-11: the `Mcp-Param-*` headers of a `tools/call`.
fn check_params(
    headers: &HeaderMap,
    tool: &str,
    params: Option<&Value>,
    conn: &Connection,
    mismatch: &dyn Fn(String) -> RpcError,
) -> Result<(), RpcError> {
    // The only tool whose arguments carry `x-mcp-header` annotations is `route`, listed with
    // the header tool.
    let definition = (conn.config.http.header_tool && tool == ROUTE).then(route_tool);
    let Some(properties) = definition
        .as_ref()
        .and_then(|t| t.pointer("/inputSchema/properties"))
        .and_then(Value::as_object)
    else {
        return Ok(());
    };
    let arguments = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object);
    for (property, schema) in properties {
        let Some(header) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let name = format!(
            "{}{}",
            header_name::PARAM_PREFIX,
            header.to_ascii_lowercase()
        );
        let body = arguments.and_then(|a| a.get(property));
        let raw =
            one(headers, &name).map_err(|why| mismatch(format!("Mcp-Param-{header}: {why}")))?;
        let (body, raw) = match (body, raw) {
            // A null or absent value: no header expected.
            (None | Some(Value::Null), _) => continue,
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "missing Mcp-Param-{header} header (argument `{property}` is in the body)"
                )));
            }
            (Some(body), Some(raw)) => (body, raw),
        };
        let value =
            decode(&raw, conn).map_err(|why| mismatch(format!("Mcp-Param-{header}: {why}")))?;
        let same = match body {
            Value::String(s) => *s == value,
            Value::Bool(b) => value == if *b { "true" } else { "false" },
            Value::Number(n) => match (n.as_i64(), value.parse::<i64>()) {
                (Some(a), Ok(b)) => a == b,
                _ => n
                    .as_f64()
                    .zip(value.parse::<f64>().ok())
                    .is_some_and(|(a, b)| a == b),
            },
            _ => false,
        };
        if !same {
            return Err(mismatch(format!(
                "Header mismatch: Mcp-Param-{header} header value '{value}' does not match body \
                 value {body}"
            )));
        }
    }
    Ok(())
}

/// One header's value with surrounding whitespace removed; an error if it is duplicated or has
/// characters outside visible ASCII (space and tab inside are allowed).
fn one(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(format!("duplicated {name} header"));
    }
    let bytes = value.as_bytes();
    if !bytes
        .iter()
        .all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b))
    {
        return Err(format!("invalid characters in the {name} header"));
    }
    // Visible ASCII only, checked just above.
    let text = String::from_utf8_lossy(bytes);
    Ok(Some(text.trim_matches([' ', '\t']).to_owned()))
}

/// Decodes `=?base64?…?=` (HTTP-10); any other value is literal.
fn decode(raw: &str, conn: &Connection) -> Result<String, String> {
    if conn.has(Fault::HttpNoBase64Decoding) {
        return Ok(raw.to_owned());
    }
    let Some(inner) = raw
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(raw.to_owned());
    };
    let bytes = base64_decode(inner).ok_or("invalid base64 in an =?base64?…?= value")?;
    String::from_utf8(bytes).map_err(|_| "the base64 value is not UTF-8".to_owned())
}

/// Standard-alphabet base64; padding optional but, if present, correct.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim_end_matches('=');
    let padding = text.len() - trimmed.len();
    if padding > 2 || (padding > 0 && text.len() % 4 != 0) || trimmed.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in trimmed.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be zero (canonical encoding).
    (acc == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_rejects_garbage() {
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(
            base64_decode("PT9iYXNlNjQ/bGl0ZXJhbD89").as_deref(),
            Some(&b"=?base64?literal?="[..])
        );
        assert_eq!(base64_decode("").as_deref(), Some(&b""[..]));
        for bad in ["a", "a===", "!!!!", "aGVsbG8*", "aGVsbG9=x"] {
            assert!(base64_decode(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn route_formats_arguments() {
        let args = json!({"region": "eu", "priority": 3, "urgent": true});
        assert_eq!(
            route_call(args.as_object().unwrap_or(&Map::new())),
            Ok("region=eu priority=3 urgent=true".into())
        );
        assert!(route_call(&Map::new()).is_err());
    }
}
