//! The server's own JSON-RPC codec (deliberately shares nothing with the harness's): one line
//! of bytes in -> [`Inbound`], one [`Outbound`] -> one line of bytes out.
//!
//! Classification is by explicit rules, in this order:
//! 1. not JSON -> [`Inbound::ParseError`]; a JSON array -> [`Inbound::Batch`];
//! 2. not an object -> invalid request (id null);
//! 3. an `id` member that is not a string or an integer (null, boolean, fraction, object,
//!    array) -> invalid request (id null);
//! 4. `method` present: not a string -> invalid request; with `id` -> request, without ->
//!    notification. A request with `jsonrpc` other than `"2.0"` or non-structured `params` is
//!    invalid; a notification with those defects is dropped silently (it has no id to answer);
//! 5. no `method`, `result` or `error` present with an `id` -> a response (to a server->client
//!    request); anything else -> invalid request.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::config::faults::{Fault, Faults};
use crate::error::RpcError;
use crate::protocol::code;

/// A request id as the client sent it (a string or an integer; `null` only under a fault).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestId(Value);

impl RequestId {
    pub fn as_json(&self) -> &Value {
        &self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One decoded line.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// Not JSON at all (the detail is for logs only).
    ParseError(ParseDetail),
    /// A JSON array; elements are classified one by one if the era accepts batches.
    Batch(Vec<Value>),
    /// Not a valid JSON-RPC message; answer `error` with `id` (null when unreadable).
    Invalid {
        id: Value,
        error: RpcError,
    },
    /// A notification that cannot be served (bad `jsonrpc` or `params`): dropped silently.
    DroppedNotification(String),
    Message(Message),
}

/// A well-formed JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A reply to a server->client request: `Ok(result)` or `Err(error object)`.
    Response {
        id: Value,
        outcome: Result<Value, Value>,
    },
}

/// Decodes one line (without its newline).
pub fn decode(line: &[u8], faults: &Faults) -> Inbound {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Array(items)) => Inbound::Batch(items),
        Ok(value) => classify(value, faults),
        Err(e) => Inbound::ParseError(ParseDetail(Arc::new(e))),
    }
}

/// Why a line is not JSON: the parser's error, put into words only when shown (in a log line;
/// most lines are never logged, and the words cost more than the parse).
#[derive(Debug, Clone)]
pub struct ParseDetail(Arc<serde_json::Error>);

impl fmt::Display for ParseDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for ParseDetail {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

/// Classifies one parsed JSON value (a line, or one element of a batch).
pub fn classify(value: Value, faults: &Faults) -> Inbound {
    let Value::Object(mut obj) = value else {
        return invalid(Value::Null, "a JSON-RPC message must be an object");
    };
    let has_id = obj.contains_key("id");
    let id = match obj.remove("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
        Some(Value::Null) if faults.has(Fault::NullIdAnswered) => Some(Value::Null),
        Some(_) => {
            return invalid(
                Value::Null,
                "`id` must be a string or an integer (not null, boolean, fraction or structure)",
            );
        }
    };
    let jsonrpc_ok = obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        || faults.has(Fault::AcceptAnyJsonrpcVersion);
    let id_or_null = id.clone().unwrap_or(Value::Null);

    match obj.remove("method") {
        Some(Value::String(method)) => {
            let params = obj.remove("params");
            let params_ok = matches!(params, None | Some(Value::Object(_) | Value::Array(_)));
            match id {
                None => {
                    if !jsonrpc_ok || !params_ok {
                        return Inbound::DroppedNotification(method);
                    }
                    Inbound::Message(Message::Notification { method, params })
                }
                Some(id) => {
                    if !jsonrpc_ok {
                        return invalid(id, "`jsonrpc` must be \"2.0\"");
                    }
                    if !params_ok {
                        return invalid(id, "`params` must be an object or an array");
                    }
                    Inbound::Message(Message::Request {
                        id: RequestId(id),
                        method,
                        params,
                    })
                }
            }
        }
        Some(_) if faults.has(Fault::InvalidRequestWrongCode) => Inbound::Invalid {
            id: id_or_null,
            error: RpcError::new(code::INTERNAL_ERROR, "`method` must be a string"),
        },
        Some(_) => invalid(id_or_null, "`method` must be a string"),
        None if has_id && (obj.contains_key("result") || obj.contains_key("error")) => {
            let outcome = match (obj.remove("result"), obj.remove("error")) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(error),
                _ => return invalid(id_or_null, "a response has `result` or `error`, not both"),
            };
            Inbound::Message(Message::Response {
                id: id_or_null,
                outcome,
            })
        }
        None => {
            let code = if faults.has(Fault::InvalidRequestWrongCode) {
                code::INTERNAL_ERROR
            } else {
                code::INVALID_REQUEST
            };
            Inbound::Invalid {
                id: id_or_null,
                error: RpcError::new(code, "not a JSON-RPC request: `method` is missing"),
            }
        }
    }
}

fn invalid(id: Value, message: &str) -> Inbound {
    Inbound::Invalid {
        id,
        error: RpcError::invalid_request(message),
    }
}

/// One message to write.
#[derive(Debug, Clone, PartialEq)]
pub enum Outbound {
    Reply {
        id: Value,
        outcome: Result<Value, RpcError>,
    },
    /// A server->client request.
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A server->client notification (log, progress, listen-stream messages).
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A batch reply (2025-03-26): one array of replies on one line.
    Batch(Vec<Outbound>),
    /// Text written verbatim (only under the `log-to-stdout` fault).
    Raw(String),
}

/// Encodes outbound messages, applying the output faults. Stateful only for `stale-reply-id`.
#[derive(Debug)]
pub struct Encoder {
    faults: Faults,
    last_reply_id: Option<Value>,
}

impl Encoder {
    pub fn new(faults: Faults) -> Self {
        Self {
            faults,
            last_reply_id: None,
        }
    }

    /// The bytes of one line, newline included.
    pub fn encode(&mut self, msg: &Outbound) -> Vec<u8> {
        if let Outbound::Raw(text) = msg {
            let mut bytes = text.clone().into_bytes();
            bytes.push(b'\n');
            return bytes;
        }
        let mut bytes = if self.faults.has(Fault::PrettyPrint) {
            // Serializing a `Value` cannot fail (string keys only); fall back to a valid error.
            serde_json::to_vec_pretty(&self.json_of(msg)).unwrap_or_else(|_| {
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"encode"}}"#.into()
            })
        } else {
            let mut bytes = Vec::with_capacity(128);
            self.write_compact(&mut bytes, msg);
            bytes
        };
        bytes.push(b'\n');
        bytes
    }

    /// `msg` as compact JSON: the bytes of `serde_json::to_vec(&self.json_of(msg))`, written
    /// member by member instead of building the object first.
    fn write_compact(&mut self, out: &mut Vec<u8>, msg: &Outbound) {
        let open: &[u8] = if self.faults.has(Fault::WrongJsonrpcVersionOut) {
            br#"{"jsonrpc":"2""#
        } else {
            br#"{"jsonrpc":"2.0""#
        };
        match msg {
            Outbound::Reply { id, outcome } => {
                let id = self.reply_id(id);
                out.extend_from_slice(open);
                member(out, "id", &id);
                match outcome {
                    Ok(result) => member(out, "result", result),
                    Err(error) => {
                        if self.faults.has(Fault::ResultAndError) {
                            out.extend_from_slice(br#","result":{}"#);
                        }
                        out.extend_from_slice(br#","error":{"code":"#);
                        put(out, &error.code);
                        if !self.faults.has(Fault::ErrorWithoutMessage) {
                            member(out, "message", &error.message);
                        }
                        if let Some(data) = &error.data {
                            member(out, "data", data);
                        }
                        out.push(b'}');
                    }
                }
            }
            Outbound::Request { id, method, params } => {
                out.extend_from_slice(open);
                member(out, "id", id);
                member(out, "method", method);
                if let Some(params) = params {
                    member(out, "params", params);
                }
            }
            Outbound::Notification { method, params } => {
                out.extend_from_slice(open);
                member(out, "method", method);
                if let Some(params) = params {
                    member(out, "params", params);
                }
            }
            Outbound::Batch(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.write_compact(out, item);
                }
                out.push(b']');
                return;
            }
            Outbound::Raw(text) => {
                put(out, text);
                return;
            }
        }
        out.push(b'}');
    }

    fn json_of(&mut self, msg: &Outbound) -> Value {
        let jsonrpc = if self.faults.has(Fault::WrongJsonrpcVersionOut) {
            "2"
        } else {
            "2.0"
        };
        match msg {
            Outbound::Reply { id, outcome } => {
                let id = self.reply_id(id);
                let mut obj = Map::new();
                obj.insert("jsonrpc".into(), jsonrpc.into());
                obj.insert("id".into(), id);
                match outcome {
                    Ok(result) => {
                        obj.insert("result".into(), result.clone());
                    }
                    Err(error) => {
                        if self.faults.has(Fault::ResultAndError) {
                            obj.insert("result".into(), json!({}));
                        }
                        let mut error = error.to_json();
                        if self.faults.has(Fault::ErrorWithoutMessage) {
                            if let Some(e) = error.as_object_mut() {
                                e.remove("message");
                            }
                        }
                        obj.insert("error".into(), error);
                    }
                }
                Value::Object(obj)
            }
            Outbound::Request { id, method, params } => {
                let mut obj = Map::new();
                obj.insert("jsonrpc".into(), jsonrpc.into());
                obj.insert("id".into(), id.clone());
                obj.insert("method".into(), method.clone().into());
                if let Some(params) = params {
                    obj.insert("params".into(), params.clone());
                }
                Value::Object(obj)
            }
            Outbound::Notification { method, params } => {
                let mut obj = Map::new();
                obj.insert("jsonrpc".into(), jsonrpc.into());
                obj.insert("method".into(), method.clone().into());
                if let Some(params) = params {
                    obj.insert("params".into(), params.clone());
                }
                Value::Object(obj)
            }
            Outbound::Batch(items) => Value::Array(items.iter().map(|m| self.json_of(m)).collect()),
            Outbound::Raw(text) => Value::String(text.clone()),
        }
    }

    fn reply_id(&mut self, id: &Value) -> Value {
        let mut id = id.clone();
        if self.faults.has(Fault::StaleReplyId) {
            let previous = self.last_reply_id.replace(id.clone());
            if let Some(previous) = previous {
                id = previous;
            }
        }
        if self.faults.has(Fault::IdAsNumber) {
            if let Some(n) = id.as_str().and_then(|s| s.parse::<i64>().ok()) {
                id = n.into();
            }
        }
        if self.faults.has(Fault::IdAsString) && (id.is_i64() || id.is_u64()) {
            id = Value::String(id.to_string());
        }
        id
    }
}

/// Appends `,"name":` and `value` (compact JSON; `name` is a plain ASCII key).
fn member<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, name: &str, value: &T) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    put(out, value);
}

/// Appends `value` as compact JSON. Writing into a `Vec` cannot fail, nor can serializing a
/// `Value` (string keys only), a string or an integer.
fn put<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> Faults {
        Faults::none()
    }

    #[test]
    fn the_compact_writer_writes_what_the_json_object_serializes_to() {
        let reply = |id: Value, outcome| Outbound::Reply { id, outcome };
        let messages = vec![
            reply(
                json!(1),
                Ok(json!({"b": [1, 2.5, null], "a": {"z": "é\n\"", "y": true}})),
            ),
            reply(json!("7"), Err(RpcError::invalid_params("bad \"x\"\u{1}"))),
            reply(
                Value::Null,
                Err(RpcError::internal("x").with_data(json!({"k": [1]}))),
            ),
            reply(json!(u64::MAX), Ok(json!({}))),
            reply(json!(-3), Ok(json!([]))),
            Outbound::Request {
                id: json!("srv-1"),
                method: "ping".into(),
                params: None,
            },
            Outbound::Request {
                id: json!("srv-2"),
                method: "roots/list".into(),
                params: Some(json!({"_meta": {}})),
            },
            Outbound::Notification {
                method: "notifications/message".into(),
                params: Some(json!({"level": "info", "data": "\u{7f}"})),
            },
            Outbound::Notification {
                method: "n".into(),
                params: None,
            },
            Outbound::Batch(vec![]),
            Outbound::Batch(vec![
                reply(json!(1), Ok(json!({}))),
                reply(json!("2"), Err(RpcError::invalid_request("no"))),
                Outbound::Raw("raw \"text\"".into()),
            ]),
        ];
        let fault_sets = [
            none(),
            none().with(Fault::WrongJsonrpcVersionOut),
            none().with(Fault::ResultAndError),
            none().with(Fault::StaleReplyId),
            none().with(Fault::IdAsNumber).with(Fault::IdAsString),
            none().with(Fault::ErrorWithoutMessage),
        ];
        for faults in fault_sets {
            let mut compact = Encoder::new(faults.clone());
            let mut object = Encoder::new(faults);
            for msg in &messages {
                let mut want = serde_json::to_vec(&object.json_of(msg)).unwrap();
                want.push(b'\n');
                let got = compact.encode(msg);
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{msg:?}"
                );
            }
        }
    }

    #[test]
    fn classifies_requests_notifications_and_responses() {
        let req = decode(
            br#"{"jsonrpc":"2.0","id":7,"method":"m","params":{}}"#,
            &none(),
        );
        assert!(matches!(req, Inbound::Message(Message::Request { .. })));
        let note = decode(br#"{"jsonrpc":"2.0","method":"n"}"#, &none());
        assert!(matches!(
            note,
            Inbound::Message(Message::Notification { .. })
        ));
        let resp = decode(br#"{"jsonrpc":"2.0","id":"srv-1","result":{}}"#, &none());
        assert!(matches!(resp, Inbound::Message(Message::Response { .. })));
    }

    #[test]
    fn bad_ids_are_invalid_with_null_id() {
        for line in [
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"m"}"#,
        ] {
            match decode(line.as_bytes(), &none()) {
                Inbound::Invalid { id, error } => {
                    assert_eq!(id, Value::Null, "{line}");
                    assert_eq!(error.code, code::INVALID_REQUEST);
                }
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn readable_id_is_kept_on_invalid_request() {
        match decode(br#"{"jsonrpc":"1.0","id":"a","method":"m"}"#, &none()) {
            Inbound::Invalid { id, .. } => assert_eq!(id, json!("a")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parse_errors_and_batches() {
        assert!(matches!(decode(b"{oops", &none()), Inbound::ParseError(_)));
        assert!(matches!(decode(b"[]", &none()), Inbound::Batch(v) if v.is_empty()));
        assert!(matches!(decode(b"42", &none()), Inbound::Invalid { .. }));
    }

    #[test]
    fn encoder_applies_id_faults() {
        let mut enc = Encoder::new(Faults::none().with(Fault::IdAsString));
        let out = enc.encode(&Outbound::Reply {
            id: json!(3),
            outcome: Ok(json!({})),
        });
        assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"id\":\"3\",\"result\":{}}\n");
    }
}
