//! Input-required results (2026-07-28 multi round-trip requests). A handler that needs input
//! from the client answers `{resultType: "input_required", inputRequests, requestState}`; the
//! client retries the same request with `inputResponses` (keyed like `inputRequests`) and the
//! `requestState` echoed back.
//!
//! - Only `tools/call`, `prompts/get` and `resources/read` may answer so (MRTR-1); here only
//!   the probe tool `mcpspec_confirm` does.
//! - `inputRequests` keys are unique (a JSON object) and each value is an `elicitation/create`,
//!   `sampling/createMessage` or `roots/list` request (MRTR-2), only for capabilities the
//!   request declared (MRTR-3). A request that cannot go on without an undeclared capability
//!   gets -32021 with `data.requiredCapabilities` as a ClientCapabilities object (META-4).
//! - `requestState` is `hex(payload).hex(tag)`, the tag a keyed hash (SipHash, two domains,
//!   128 bits) under the configured sealing key, so every instance started from the same
//!   configuration opens what another sealed (SCALE-1); a state whose tag does not verify is
//!   -32602 (MRTR-4). Under `instance-local-request-state` the key is the instance's own.
//! - A retry missing some input responses gets a new InputRequiredResult for the missing ones;
//!   responses to keys never asked for are ignored (MRTR-5).
//! - No `ttlMs`/`cacheScope` on an InputRequiredResult (CACHE-1).

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value, json};

use crate::config::faults::Fault;
use crate::engine::scope::Scope;
use crate::error::RpcError;
use crate::protocol::{cache, code, method};

/// The key `requestState` is sealed with on this instance.
fn key(scope: &Scope) -> u64 {
    let config = &scope.conn.config;
    if scope.has(Fault::InstanceLocalRequestState) {
        config.instance
    } else {
        config.sealing_key
    }
}

fn keyed_hash(key: u64, domain: &str, payload: &str) -> u64 {
    let mut h = DefaultHasher::new();
    (key, domain, payload).hash(&mut h);
    h.finish()
}

fn tag(key: u64, payload: &str) -> String {
    format!(
        "{:016x}{:016x}",
        keyed_hash(key, "mcpspec-state-1", payload),
        keyed_hash(key, "mcpspec-state-2", payload)
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Seals `payload` into an opaque, integrity-protected `requestState`.
pub(crate) fn seal(scope: &Scope, payload: &Value) -> String {
    let text = payload.to_string();
    format!("{}.{}", hex(text.as_bytes()), tag(key(scope), &text))
}

/// The payload of a `requestState` sealed under this instance's key; -32602 if it does not verify
/// (under `request-state-not-verified` only its decoding is checked).
pub(crate) fn open(scope: &Scope, state: &str) -> Result<Value, RpcError> {
    let tampered = || RpcError::invalid_params("`requestState` failed verification");
    let (body, mac) = state.split_once('.').ok_or_else(tampered)?;
    let text = unhex(body)
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(tampered)?;
    if tag(key(scope), &text) != mac && !scope.has(Fault::RequestStateNotVerified) {
        return Err(tampered());
    }
    serde_json::from_str(&text).map_err(|_| tampered())
}

/// An InputRequiredResult (unstamped) asking for `requests`, carrying `state`.
pub(crate) fn input_required(scope: &Scope, requests: Map<String, Value>, state: &Value) -> Value {
    let mut result = Map::new();
    result.insert("resultType".into(), json!("input_required"));
    if !scope.has(Fault::InputRequiredNoRequests) {
        result.insert("inputRequests".into(), Value::Object(requests));
        result.insert("requestState".into(), json!(seal(scope, state)));
    }
    if scope.has(Fault::CacheHintsOnInputRequired) {
        result.insert("ttlMs".into(), json!(cache::TTL_MS));
        result.insert("cacheScope".into(), json!(cache::SCOPE));
    }
    Value::Object(result)
}

/// -32021: the request needs client capabilities it did not declare (META-4).
pub(crate) fn missing_capability(scope: &Scope, required: Value) -> RpcError {
    let message = "this request needs client capabilities it did not declare";
    if scope.has(Fault::MissingCapabilityWrongCode) {
        return RpcError::invalid_params(message);
    }
    let required = if scope.has(Fault::MissingCapabilityWrongShape) {
        let names: Vec<&String> = required
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        json!(names)
    } else {
        required
    };
    RpcError::new(code::MISSING_CLIENT_CAPABILITY, message)
        .with_data(json!({ "requiredCapabilities": required }))
}

/// An `elicitation/create` form request with one boolean field.
pub(crate) fn elicit_confirmation(scope: &Scope, message: &str) -> Value {
    let method_name = if scope.has(Fault::InputRequestWrongMethod) {
        "elicitation/ask"
    } else {
        method::ELICITATION_CREATE
    };
    json!({
        "method": method_name,
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { "confirm": { "type": "boolean", "title": "Confirm" } },
                "required": ["confirm"]
            }
        }
    })
}

/// A `roots/list` input request.
pub(crate) fn list_roots() -> Value {
    json!({ "method": method::ROOTS_LIST, "params": {} })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_junk() {
        assert_eq!(unhex(&hex(b"{\"a\":1}")), Some(b"{\"a\":1}".to_vec()));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn tags_depend_on_the_payload() {
        assert_eq!(tag(1, "x"), tag(1, "x"));
        assert_ne!(tag(1, "x"), tag(1, "y"));
        assert_ne!(tag(1, "x"), tag(2, "x"));
        assert_eq!(tag(1, "x").len(), 32);
    }
}
