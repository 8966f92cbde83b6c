//! How the client checks read a message: explicit rules over the JSON, written here and shared
//! with nothing the reference client uses (see the crate root), and the names the checks compare
//! against, taken from the reference server's constants.
//!
//! - a request has a string `method` and an `id` member (whatever its value);
//! - a notification has a string `method` and no `id` member;
//! - a response has no `method`, and a `result` or an `error`;
//! - anything else (not JSON, not an object, neither of those) is [`Kind::Other`].

use serde_json::Value;

pub use mcp_reference_server::protocol::{code, meta, method, version};

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind<'a> {
    Request { id: &'a Value, method: &'a str },
    Notification { method: &'a str },
    Response { id: &'a Value },
    Other,
}

impl<'a> Kind<'a> {
    pub fn method(&self) -> Option<&'a str> {
        match self {
            Kind::Request { method, .. } | Kind::Notification { method } => Some(method),
            _ => None,
        }
    }

    pub fn id(&self) -> Option<&'a Value> {
        match self {
            Kind::Request { id, .. } | Kind::Response { id } => Some(id),
            _ => None,
        }
    }
}

/// The kind of `json` (see the module doc).
pub fn kind(json: Option<&Value>) -> Kind<'_> {
    let Some(obj) = json.and_then(Value::as_object) else {
        return Kind::Other;
    };
    match (obj.get("method"), obj.get("id")) {
        (Some(Value::String(method)), Some(id)) => Kind::Request { id, method },
        (Some(Value::String(method)), None) => Kind::Notification { method },
        (None, Some(id)) if obj.contains_key("result") || obj.contains_key("error") => {
            Kind::Response { id }
        }
        _ => Kind::Other,
    }
}

/// `params._meta` of a message.
pub fn meta_of(json: Option<&Value>) -> Option<&serde_json::Map<String, Value>> {
    json?.get("params")?.get("_meta")?.as_object()
}

/// The protocol version a message's `_meta` names.
pub fn meta_version(json: Option<&Value>) -> Option<&str> {
    meta_of(json)?.get(meta::PROTOCOL_VERSION)?.as_str()
}

/// Whether `v` is one of the legacy (handshake) revisions.
pub fn is_legacy(v: &str) -> bool {
    version::LEGACY_SUPPORTED.contains(&v)
}

/// Whether a message carries the 2026-07-28 envelope: `_meta` naming a protocol version.
pub fn is_modern(json: Option<&Value>) -> bool {
    meta_version(json).is_some()
}

/// The methods 2026-07-28 removed (CLI-9): the reference server's list, with the
/// `notifications/initialized` notification.
pub fn removed_in_modern(m: &str) -> bool {
    method::REMOVED_IN_MODERN.contains(&m) || m == method::INITIALIZED
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_follow_the_rules() {
        let r = json!({"jsonrpc": "2.0", "id": null, "method": "ping"});
        assert_eq!(
            kind(Some(&r)),
            Kind::Request {
                id: &Value::Null,
                method: "ping"
            }
        );
        let n = json!({"jsonrpc": "2.0", "method": "x"});
        assert_eq!(kind(Some(&n)), Kind::Notification { method: "x" });
        let a = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert_eq!(kind(Some(&a)), Kind::Response { id: &json!(1) });
        for other in [
            json!([1]),
            json!({"id": 1}),
            json!({"method": 3}),
            json!("x"),
        ] {
            assert_eq!(kind(Some(&other)), Kind::Other, "{other}");
        }
        assert_eq!(kind(None), Kind::Other);
    }
}
