//! The schema layer (SCHEMA-1..3, POL-20): every message the server sends, checked against the
//! type the schema of the negotiated revision gives it. It sits between the wire codec and the
//! checks: the driver hands it each received frame with the method of the request the frame
//! answers, and the recorder keeps what it found next to the transcript entry.
//!
//! ```text
//! Frame (wire) ── classify: result of <method> | error | notification <method> |
//!                 server→client request <method>
//!   -> typed.rs      the generated types of the revision (rust-mcp-schema), deserialized
//!                    with serde_path_to_error: the JSON pointer of the first defect
//!   -> exceptions.rs where a generated type disagrees with the official schema.json, the
//!                    official schema wins (one list, each entry proven by a test)
//!   -> Violation { method, pointer, expected, actual }
//! or, with `--schema FILE`:
//!   -> document.rs   the user's schema.json, `#/$defs/<Type>`, with the jsonschema crate
//! and for tools (SCHEMA-2, SCHEMA-3):
//!   -> tool_schema.rs a tool's inputSchema/outputSchema as a JSON Schema document under its
//!                    dialect (meta-schema validation), structuredContent against outputSchema
//! ```
//!
//! Validation never panics and never recurses without bound: the codec already refuses JSON
//! nested deeper than [`mcpspec_core::wire::MAX_DEPTH`], and [`validate`] refuses to descend past
//! [`MAX_DEPTH`] on a value that did not come through it.

pub mod arguments;
pub mod document;
pub mod exceptions;
pub mod tool_schema;
pub mod typed;

use std::sync::Arc;

use serde_json::Value;

/// The deepest value the layer validates; deeper values are one violation at the root.
pub const MAX_DEPTH: usize = mcpspec_core::wire::MAX_DEPTH;

/// What a message is, for the schema: which type its body has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape<'a> {
    /// A `result`, answering a request for `method`.
    Result { method: &'a str },
    /// An `error` object (any method).
    Error { method: Option<&'a str> },
    /// A notification's `params`.
    Notification { method: &'a str },
    /// A server→client request's `params`.
    Request { method: &'a str },
}

impl Shape<'_> {
    /// The method the message is about, as a violation names it.
    pub fn method(&self) -> String {
        match self {
            Shape::Result { method } => format!("{method} result"),
            Shape::Error { method: Some(m) } => format!("{m} error"),
            Shape::Error { method: None } => "error".into(),
            Shape::Notification { method } => format!("{method} notification"),
            Shape::Request { method } => format!("{method} request"),
        }
    }
}

pub use mcpspec_core::transcript::Violation;

/// Which schema messages are validated against.
#[derive(Debug, Clone, Default)]
pub enum Validator {
    /// The generated types of each revision (the default).
    #[default]
    Typed,
    /// A user's `schema.json` (`--schema FILE`), for every revision.
    Document(Arc<document::Document>),
}

impl Validator {
    /// The violations of a message body of `shape` under `revision` (empty when it is valid,
    /// or when the revision or method has no type to check it against).
    /// Each violation names the revision it was judged against.
    pub fn validate(&self, revision: &str, shape: Shape<'_>, body: &Value) -> Vec<Violation> {
        let mut found = if value_depth(body) > MAX_DEPTH {
            vec![Violation {
                method: shape.method(),
                pointer: String::new(),
                expected: format!("a value nested at most {MAX_DEPTH} levels deep"),
                actual: "a deeper value".into(),
                revision: None,
            }]
        } else {
            match self {
                Validator::Typed => validate(revision, shape, body),
                Validator::Document(doc) => doc.validate(shape, body),
            }
        };
        for v in &mut found {
            v.revision = Some(revision.to_owned());
        }
        found
    }
}

/// The violations of a message body of `shape` under `revision`, by the generated types, with
/// the exceptions of [`exceptions`] applied.
pub fn validate(revision: &str, shape: Shape<'_>, body: &Value) -> Vec<Violation> {
    with_repairs(|b| typed::check(revision, shape, b), body)
}

/// A 2026-07-28 type by its official name (see [`typed::check_modern_named`]), with the
/// exceptions applied; `None` when the table does not list the name.
pub fn validate_modern_named(name: &str, body: &Value) -> Option<Vec<Violation>> {
    typed::check_modern_named(name, body)?.ok();
    Some(with_repairs(|b| typed::check_modern_named(name, b), body))
}

/// Runs `check`, and while an exception repairs the violation it reports, runs it again on the
/// repaired body: the first violation no exception excuses, or none.
fn with_repairs(
    check: impl Fn(&Value) -> Option<Result<(), Violation>>,
    body: &Value,
) -> Vec<Violation> {
    let mut repaired: Option<Value> = None;
    for _ in 0..=exceptions::MAX_REPAIRS {
        let current = repaired.as_ref().unwrap_or(body);
        let Some(Err(violation)) = check(current) else {
            return Vec::new();
        };
        let mut next = current.clone();
        let excused = exceptions::EXCEPTIONS
            .iter()
            .any(|e| (e.repair)(&violation, &mut next));
        if !excused {
            return vec![violation];
        }
        repaired = Some(next);
    }
    Vec::new()
}

/// The name of the official schema's type for a message body of `shape` (what `--schema`
/// validates against, and what the differential test compares with).
pub fn type_name(shape: Shape<'_>, body: &Value) -> Option<&'static str> {
    use mcpspec_core::protocol::method as m;
    let input_required = body.get("resultType").and_then(Value::as_str) == Some("input_required");
    Some(match shape {
        Shape::Error { .. } => "Error",
        Shape::Result { method } => match method {
            m::TOOLS_CALL | m::PROMPTS_GET | m::RESOURCES_READ if input_required => {
                "InputRequiredResult"
            }
            m::PING | m::LOGGING_SET_LEVEL | m::RESOURCES_SUBSCRIBE | m::RESOURCES_UNSUBSCRIBE => {
                "EmptyResult"
            }
            m::DISCOVER => "DiscoverResult",
            m::INITIALIZE => "InitializeResult",
            m::TOOLS_LIST => "ListToolsResult",
            m::TOOLS_CALL => "CallToolResult",
            m::RESOURCES_LIST => "ListResourcesResult",
            m::RESOURCES_TEMPLATES_LIST => "ListResourceTemplatesResult",
            m::RESOURCES_READ => "ReadResourceResult",
            m::PROMPTS_LIST => "ListPromptsResult",
            m::PROMPTS_GET => "GetPromptResult",
            m::COMPLETION_COMPLETE => "CompleteResult",
            m::SUBSCRIPTIONS_LISTEN => "SubscriptionsListenResult",
            _ => return None,
        },
        Shape::Notification { method } => match method {
            m::MESSAGE => "LoggingMessageNotificationParams",
            m::PROGRESS => "ProgressNotificationParams",
            m::RESOURCES_UPDATED => "ResourceUpdatedNotificationParams",
            m::CANCELLED => "CancelledNotificationParams",
            m::ACKNOWLEDGED => "SubscriptionsAcknowledgedNotificationParams",
            // Optional params: absent is valid, whatever the type says of an object.
            m::TOOLS_LIST_CHANGED | m::PROMPTS_LIST_CHANGED | m::RESOURCES_LIST_CHANGED
                if !body.is_null() =>
            {
                "NotificationParams"
            }
            _ => return None,
        },
        Shape::Request { method } => match method {
            "sampling/createMessage" => "CreateMessageRequestParams",
            m::ELICITATION_CREATE => "ElicitRequestParams",
            _ => return None,
        },
    })
}

/// The shape of a whole received message (`{"jsonrpc":…}`) and its body: a result needs the
/// method of the request it answers (`None` when unknown: the result is not validated).
pub fn classify<'a>(
    message: &'a Value,
    answered: Option<&'a str>,
) -> Option<(Shape<'a>, &'a Value)> {
    static NULL: Value = Value::Null;
    let obj = message.as_object()?;
    let params = || obj.get("params").unwrap_or(&NULL);
    match (obj.get("method").and_then(Value::as_str), obj.get("id")) {
        (Some(method), Some(_)) => Some((Shape::Request { method }, params())),
        (Some(method), None) => Some((Shape::Notification { method }, params())),
        (None, _) => {
            if let Some(error) = obj.get("error") {
                Some((Shape::Error { method: answered }, error))
            } else {
                Some((Shape::Result { method: answered? }, obj.get("result")?))
            }
        }
    }
}

/// How deeply `value` nests (a scalar is 1), counted without recursion.
pub fn value_depth(value: &Value) -> usize {
    let mut stack = vec![(value, 1usize)];
    let mut deepest = 0;
    while let Some((v, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(members) => stack.extend(members.values().map(|m| (m, depth + 1))),
            _ => {}
        }
    }
    deepest
}

/// What one connection asked, so its replies can be validated: the method and revision of each
/// request by id (the last [`Asked::KEPT`]), and the revision the connection negotiated.
#[derive(Debug, Clone)]
pub struct Asked {
    by_id: std::collections::VecDeque<(String, String, Option<String>)>,
    /// The connection's revision: 2026-07-28 for a modern peer; for a legacy peer, the one its
    /// `initialize` asked for, then the one the server answered.
    revision: Option<String>,
    /// The id of the `initialize` request, whose result sets the revision.
    initialize_id: Option<String>,
    /// The newest legacy revision the server serves (what its probe negotiated): how a legacy
    /// reply to a request that named no version is judged on a connection without a session.
    legacy_fallback: Option<String>,
}

impl Asked {
    /// Requests remembered per connection.
    pub const KEPT: usize = 256;

    pub fn new(modern: bool) -> Self {
        Asked {
            by_id: std::collections::VecDeque::new(),
            revision: modern.then(|| mcpspec_core::protocol::version::MODERN.to_owned()),
            initialize_id: None,
            legacy_fallback: None,
        }
    }

    /// The legacy revision the server serves, for legacy replies outside a session.
    pub fn set_legacy_fallback(&mut self, revision: Option<&str>) {
        self.legacy_fallback = revision
            .filter(|v| mcpspec_core::protocol::version::LEGACY.contains(v))
            .map(str::to_owned);
    }

    /// Notes a message the harness sent: a request's id, method and revision (its
    /// `_meta` protocol version, when it names a known one).
    pub fn sent(&mut self, message: &Value) {
        let (Some(id), Some(method)) = (
            message.get("id"),
            message.get("method").and_then(Value::as_str),
        ) else {
            return;
        };
        let params = message.get("params");
        let named = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(mcpspec_core::protocol::meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .filter(|v| mcpspec_core::protocol::version::is_known(v))
            .map(str::to_owned);
        if method == mcpspec_core::protocol::method::INITIALIZE {
            self.initialize_id = Some(id.to_string());
            if let Some(v) = params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .filter(|v| mcpspec_core::protocol::version::LEGACY.contains(v))
            {
                self.revision = Some(v.to_owned());
            }
        }
        // A probe-profile request that dictates its answer or rewrites its method (mcpspec's
        // own extension, `dev.mcpspec/probe`) gets a result of mcpspec's shape, not the
        // method's: its result is not validated (an error still is).
        let dictated = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(mcpspec_core::protocol::meta::PROBE))
            .is_some_and(|p| p.get("answer").is_some() || p.get("rewrite").is_some());
        let method = if dictated {
            String::new()
        } else {
            method.to_owned()
        };
        if self.by_id.len() == Self::KEPT {
            self.by_id.pop_front();
        }
        self.by_id.push_back((id.to_string(), method, named));
    }

    /// The violations of a received message under the revision and method it belongs to.
    pub fn validate(&mut self, validator: &Validator, message: &Value) -> Vec<Violation> {
        self.judge(message, |revision, shape, body| {
            validator.validate(revision, shape, body)
        })
        .unwrap_or_default()
    }

    /// Hands a received message's revision, shape and body to `judge`; `None` when the message
    /// has nothing to validate (a result whose request is unknown, a legacy result before the
    /// revision is known).
    pub fn judge<R>(
        &mut self,
        message: &Value,
        judge: impl FnOnce(&str, Shape<'_>, &Value) -> R,
    ) -> Option<R> {
        let id = message.get("id").map(ToString::to_string);
        let asked = id
            .as_ref()
            .filter(|_| message.get("method").is_none())
            .and_then(|id| self.by_id.iter().rev().find(|(i, _, _)| i == id));
        let (method, named) = match asked {
            Some((_, m, r)) => ((!m.is_empty()).then(|| m.clone()), r.clone()),
            None => (None, None),
        };
        // The answer to `initialize` fixes the revision of what follows.
        if id.is_some() && id == self.initialize_id {
            if let Some(v) = message
                .pointer("/result/protocolVersion")
                .and_then(Value::as_str)
                .filter(|v| mcpspec_core::protocol::version::LEGACY.contains(v))
            {
                self.revision = Some(v.to_owned());
            }
        }
        let (shape, body) = classify(message, method.as_deref())?;
        let revision = match (self.answered_in(shape, body, named.as_deref()), shape) {
            (Some(r), _) => r,
            // An error object has the same shape in every revision.
            (None, Shape::Error { .. }) => {
                mcpspec_core::protocol::version::LATEST_LEGACY.to_owned()
            }
            (None, _) => return None,
        };
        Some(judge(&revision, shape, body))
    }

    /// The revision a message was sent in, which is the schema it is judged by: the revision
    /// a result names in its `_meta`; else the era the server answered in (a result without
    /// modern stamping, to a request that named no version it knows, is the legacy reading of
    /// that request (POL-19): the session's legacy revision, else the newest legacy one the
    /// server serves); else the revision the request named, else the connection's.
    fn answered_in(&self, shape: Shape<'_>, body: &Value, named: Option<&str>) -> Option<String> {
        use mcpspec_core::protocol::{meta, version};
        let stamp = body.get("_meta");
        if let Shape::Result { .. } = shape {
            if let Some(v) = stamp
                .and_then(|m| m.get(meta::PROTOCOL_VERSION))
                .and_then(Value::as_str)
                .filter(|v| version::is_known(v))
            {
                return Some(v.to_owned());
            }
            let modern_stamped = body.get("resultType").is_some()
                || stamp.and_then(|m| m.get(meta::SERVER_INFO)).is_some();
            if named.is_none()
                && self.revision.as_deref() == Some(version::MODERN)
                && !modern_stamped
            {
                return Some(
                    self.legacy_fallback
                        .clone()
                        .unwrap_or_else(|| version::LATEST_LEGACY.to_owned()),
                );
            }
        }
        named.map(str::to_owned).or_else(|| self.revision.clone())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The revision a received message was judged against, with one defect planted in it.
    fn judged_revision(asked: &mut Asked, reply: Value) -> Option<String> {
        asked
            .validate(&Validator::Typed, &reply)
            .first()
            .and_then(|v| v.revision.clone())
    }

    #[test]
    fn a_legacy_reply_to_a_request_naming_no_version_is_judged_as_legacy() {
        let mut asked = Asked::new(true);
        asked.set_legacy_fallback(Some("2025-06-18"));
        // An envelope-less request: the server read it as legacy and answered without
        // `resultType` (POL-19).
        asked.sent(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}));
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
        assert!(asked.validate(&Validator::Typed, &legacy).is_empty());
        asked.sent(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}));
        let broken = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": "none"}});
        assert_eq!(
            judged_revision(&mut asked, broken).as_deref(),
            Some("2025-06-18")
        );
    }

    #[test]
    fn a_modern_reply_is_judged_as_modern_and_says_so() {
        let mut asked = Asked::new(true);
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}});
        asked.sent(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                           "params": {"_meta": meta}}));
        // Valid under 2025-11-25, not under 2026-07-28 (no `resultType`).
        let reply = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
        assert_eq!(
            judged_revision(&mut asked, reply).as_deref(),
            Some("2026-07-28")
        );
        // An envelope-less request's reply stamped as modern is judged as modern too.
        asked.sent(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}));
        let stamped = json!({"jsonrpc": "2.0", "id": 2,
                             "result": {"resultType": "complete", "tools": "none"}});
        assert_eq!(
            judged_revision(&mut asked, stamped).as_deref(),
            Some("2026-07-28")
        );
    }

    #[test]
    fn a_violation_names_its_revision() {
        let v = Validator::Typed.validate(
            "2025-11-25",
            Shape::Result {
                method: "tools/list",
            },
            &json!({"tools": "none"}),
        );
        assert!(
            v[0].to_string().ends_with("(schema 2025-11-25)"),
            "{}",
            v[0]
        );
    }
}
