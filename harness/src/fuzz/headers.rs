//! The header values the HTTP transport mirrors from a request body (`MCP-Protocol-Version`
//! from the `_meta` envelope, `Mcp-Method`, `Mcp-Name`), and which of them an HTTP header can
//! carry. A value holding a control character (NUL, ESC, DEL; a tab is allowed) makes the POST a
//! malformed HTTP request that a server's HTTP layer rightly refuses before any MCP code sees
//! it: the fuzzer builds one only on purpose ([`super::strategy::malformed_header`]), the guard
//! cleans every other line of them ([`clean`]), and the oracle lets the HTTP layer refuse such
//! a POST ([`super::oracle::sent`]).
//!
//! The rules follow `transport/http.rs` (`headers_for`): the modern headers are sent when the
//! body's `_meta` names a protocol version; legacy requests carry only values the server chose.
//! May import the protocol constants; nothing else.

use serde_json::Value;

use mcpspec_core::protocol::{meta, method};

/// Whether an HTTP header can carry `value` as it is: no control character but a tab.
pub fn carriable(value: &str) -> bool {
    !value.chars().any(is_control)
}

/// Whether a request POSTed with this body would carry a header value HTTP cannot carry.
pub fn malformed(body: &[u8]) -> bool {
    // Control characters are escaped in JSON text (`\u0000`, `\n`) or written raw (DEL): a body
    // with neither mirrors none (most bodies are spared a parse).
    if memchr::memchr2(b'\\', DEL, body).is_none() {
        return false;
    }
    serde_json::from_slice::<Value>(body).is_ok_and(|json| {
        mirrored(&json).iter().any(|p| {
            json.pointer(p)
                .and_then(Value::as_str)
                .is_some_and(|v| !carriable(v))
        })
    })
}

/// `body` with every control character in a mirrored value replaced by `?`, so the POST is a
/// well-formed HTTP request (the body changes only where a header would have broken). Bodies
/// that mirror nothing uncarriable come back unchanged.
pub fn clean(body: Vec<u8>) -> Vec<u8> {
    if !malformed(&body) {
        return body;
    }
    let Ok(mut json) = serde_json::from_slice::<Value>(&body) else {
        return body;
    };
    for pointer in mirrored(&json) {
        if let Some(Value::String(s)) = json.pointer_mut(&pointer) {
            *s = s
                .chars()
                .map(|c| if is_control(c) { '?' } else { c })
                .collect();
        }
    }
    json.to_string().into_bytes()
}

const DEL: u8 = 0x7f;

fn is_control(c: char) -> bool {
    (c.is_ascii_control() && c != '\t') || c == char::from(DEL)
}

/// The JSON pointers of the values the transport puts into headers for this body: none unless
/// its `_meta` names a version (a string); then the version, the method, and the name or URI
/// of the three methods that have one.
fn mirrored(json: &Value) -> Vec<String> {
    let version = format!(
        "/params/_meta/{}",
        meta::PROTOCOL_VERSION.replace('/', "~1")
    );
    if !json.pointer(&version).is_some_and(Value::is_string) {
        return Vec::new();
    }
    let mut pointers = vec![version, "/method".to_owned()];
    match json.get("method").and_then(Value::as_str) {
        Some(method::TOOLS_CALL | "prompts/get") => pointers.push("/params/name".into()),
        Some("resources/read") => pointers.push("/params/uri".into()),
        _ => {}
    }
    pointers
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn modern(version: &str, method: &str, name: &str) -> Vec<u8> {
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {
            "name": name,
            "_meta": {meta::PROTOCOL_VERSION: version}}})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn a_control_character_in_a_mirrored_value_is_malformed() {
        assert!(malformed(&modern("2026-0\u{0}7-28", "ping", "")));
        assert!(malformed(&modern("2026-07-28", "tools/\u{1b}list", "")));
        assert!(malformed(&modern("2026-07-28", "tools/call", "a\u{7f}")));
        assert!(!malformed(&modern("2026-07-28", "tools/call", "a\tb é")));
        // Not mirrored: a name outside the three methods, or no version in `_meta`.
        assert!(!malformed(&modern("2026-07-28", "tools/list", "a\u{0}")));
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "x\u{0}"}).to_string();
        assert!(!malformed(legacy.as_bytes()));
    }

    #[test]
    fn clean_replaces_only_what_would_break_the_header() {
        let cleaned = clean(modern("2026-0\u{0}7-28", "tools/call", "e\u{0}cho\n"));
        assert!(!malformed(&cleaned));
        let json: Value = serde_json::from_slice(&cleaned).unwrap_or_default();
        assert_eq!(json["params"]["name"], "e?cho?");
        let fine = modern("2026-07-28", "tools/call", "écho");
        assert_eq!(clean(fine.clone()), fine);
    }
}
