//! The wire codec: bytes <-> [`Frame`], lossless and explicit.
//!
//! Every frame keeps the exact bytes it came from next to the parse result, so a transcript can
//! show what the server really wrote. Classification follows explicit rules (never trial
//! deserialization): an object with a string `method` is a request (with `id`) or a notification
//! (without); an object with `result` or `error` is a response; anything else is a
//! [`DecodeError`] that names the rule it broke.

use std::fmt;

use serde_json::{Map, Value};

/// A JSON-RPC request id. The JSON type is part of the identity: `7` and `"7"` differ.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    Int(i64),
    Str(String),
}

impl Id {
    pub fn to_json(&self) -> Value {
        match self {
            Id::Int(n) => Value::from(*n),
            Id::Str(s) => Value::from(s.as_str()),
        }
    }

    /// Reads an id exactly: integers and strings only.
    pub fn from_json(value: &Value) -> Option<Id> {
        match value {
            Value::Number(n) => n.as_i64().map(Id::Int),
            Value::String(s) => Some(Id::Str(s.clone())),
            _ => None,
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(n) => write!(f, "{n}"),
            Id::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

/// A classified JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: Id,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A result response.
    Response { id: Id, result: Value },
    /// An error response; `id` is `None` when it was `null` or absent.
    Error { id: Option<Id>, error: ErrorObject },
    /// A JSON array of messages (only legal in 2025-03-26).
    Batch(Vec<Result<Message, DecodeError>>),
}

impl Message {
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            _ => None,
        }
    }

    /// The id of a response or error (`None` for requests, notifications and batches).
    pub fn reply_id(&self) -> Option<&Id> {
        match self {
            Message::Response { id, .. } => Some(id),
            Message::Error { id, .. } => id.as_ref(),
            _ => None,
        }
    }

    /// Encodes to JSON (no trailing newline).
    pub fn to_json(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("jsonrpc".into(), "2.0".into());
        match self {
            Message::Request { id, method, params } => {
                obj.insert("id".into(), id.to_json());
                obj.insert("method".into(), method.as_str().into());
                if let Some(p) = params {
                    obj.insert("params".into(), p.clone());
                }
            }
            Message::Notification { method, params } => {
                obj.insert("method".into(), method.as_str().into());
                if let Some(p) = params {
                    obj.insert("params".into(), p.clone());
                }
            }
            Message::Response { id, result } => {
                obj.insert("id".into(), id.to_json());
                obj.insert("result".into(), result.clone());
            }
            Message::Error { id, error } => {
                obj.insert("id".into(), id.as_ref().map_or(Value::Null, Id::to_json));
                let mut e = Map::new();
                e.insert("code".into(), error.code.into());
                e.insert("message".into(), error.message.as_str().into());
                if let Some(d) = &error.data {
                    e.insert("data".into(), d.clone());
                }
                obj.insert("error".into(), Value::Object(e));
            }
            Message::Batch(items) => {
                // Only well-formed elements can be re-encoded; a batch with broken elements
                // is never produced by the harness itself.
                return Value::Array(
                    items
                        .iter()
                        .filter_map(|m| m.as_ref().ok())
                        .map(Message::to_json)
                        .collect(),
                );
            }
        }
        Value::Object(obj)
    }

    /// Encodes as one newline-terminated line.
    pub fn encode(&self) -> Vec<u8> {
        encode_value(&self.to_json())
    }
}

/// Serializes a JSON value as one newline-terminated line.
pub fn encode_value(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Why bytes are not a JSON-RPC message. Each variant names the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("not UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 { offset: usize },
    #[error("empty line")]
    Empty,
    #[error("not JSON: {message} (line {line}, column {column})")]
    Json {
        message: String,
        line: usize,
        column: usize,
    },
    #[error("not a JSON object (found {found})")]
    NotAnObject { found: &'static str },
    #[error("`jsonrpc` member is {found}, expected \"2.0\"")]
    Version { found: String },
    #[error("`method` is {found}, expected a string")]
    MethodType { found: &'static str },
    #[error("`id` is {found}, expected an integer or a string")]
    IdType { found: String },
    #[error("has both `result` and `error`")]
    ResultAndError,
    #[error("has none of `method`, `result`, `error`")]
    Unclassifiable,
    #[error("a response without `id`")]
    MissingId,
    #[error("malformed `error` object: {0}")]
    ErrorObject(String),
    #[error("`params` is {found}, expected an object or array")]
    ParamsType { found: &'static str },
    #[error("nested {depth} levels deep, deeper than mcpspec's parsing limit of {limit}")]
    TooDeep { depth: usize, limit: usize },
    #[error("longer than the {limit}-byte message bound (--max-message)")]
    TooLarge { limit: usize },
    /// The HTTP exchange failed or carried no JSON-RPC body (HTTP targets only); the text says
    /// what came instead (a status and reason, a redirect, a body cut short, a garbage status
    /// line).
    #[error("{0}")]
    Http(String),
}

impl DecodeError {
    /// Whether the bytes could not be read as JSON at all (as opposed to JSON that breaks a
    /// JSON-RPC rule): a reply in this state is "a reply mcpspec could not read".
    pub fn is_unreadable(&self) -> bool {
        matches!(
            self,
            DecodeError::NotUtf8 { .. }
                | DecodeError::Json { .. }
                | DecodeError::TooDeep { .. }
                | DecodeError::TooLarge { .. }
        )
    }
}

/// The deepest nesting the codec parses. serde_json's own recursion limit, reported as such: no
/// real MCP message comes near it, and parsing deeper on a worker thread's stack would risk an
/// overflow.
pub const MAX_DEPTH: usize = 128;

/// How many leading bytes of a line over the message bound are kept (for id matching and the
/// transcript); the rest is discarded unread.
pub const OVERSIZED_HEAD: usize = 4096;

/// One line received from (or sent to) a peer: its exact bytes and what they decode to.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The bytes, without the line terminator.
    pub raw: Vec<u8>,
    /// The JSON value, when the bytes are JSON at all (kept even if not valid JSON-RPC, so a
    /// reply with a wrong `jsonrpc` member can still be matched to its request by id).
    pub json: Option<Value>,
    pub parsed: Result<Message, DecodeError>,
    /// The HTTP exchange the frame came back on (HTTP targets only).
    pub http: Option<HttpContext>,
    /// The top-level members of a line that could not be parsed whole (too deep, not UTF-8,
    /// cut at the size bound), read by a shallow scan so a reply can still be matched to its
    /// request by id. `None` when `json` is present (it says more) or nothing could be read.
    pub envelope: Option<Envelope>,
    /// The transcript entry that recorded this frame, once recorded and kept: the evidence a
    /// verdict about it points at.
    pub entry: Option<EntryRef>,
}

/// A transcript entry: its connection and its `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef {
    pub conn: u32,
    pub seq: u32,
}

/// What a shallow scan of an unparseable object found at its top level.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Envelope {
    /// The `id` member, when it is a scalar that parses.
    pub id: Option<Value>,
    pub has_method: bool,
    pub has_result: bool,
    pub has_error: bool,
}

/// Where an HTTP-borne frame came from: the status of the response that carried it and the
/// id of the request whose POST it answered (the JSON-RPC id inside may be null).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HttpContext {
    pub status: u16,
    /// The JSON-RPC id of the POSTed message, if it had one.
    pub request_id: Option<Value>,
}

impl HttpContext {
    /// Whether this exchange was the POST of the request with `id` (its response answers
    /// that request, even when the body's own id is null).
    pub fn answers(&self, id: &Value) -> bool {
        self.request_id.as_ref() == Some(id)
    }

    /// A 4xx to a POSTed notification: HTTP's rejection of it (HTTP-3), not a JSON-RPC reply.
    pub fn rejects_notification(&self) -> bool {
        self.request_id.is_none() && (400..500).contains(&self.status)
    }
}

impl Frame {
    /// Decodes one line (a trailing `\r` is tolerated and kept out of the raw bytes).
    pub fn decode(line: &[u8]) -> Frame {
        Frame::decode_owned(line.to_vec())
    }

    /// As [`Frame::decode`], taking the line's bytes without copying them.
    pub fn decode_owned(mut raw: Vec<u8>) -> Frame {
        if raw.last() == Some(&b'\r') {
            raw.pop();
        }
        let (json, parsed) = match parse_json(&raw) {
            Ok(json) => {
                let parsed = classify(&json);
                (Some(json), parsed)
            }
            Err(e) => (None, Err(e)),
        };
        let envelope = if json.is_none() {
            scan_envelope(&raw)
        } else {
            None
        };
        Frame {
            raw,
            json,
            parsed,
            http: None,
            envelope,
            entry: None,
        }
    }

    /// The frame as carried by the HTTP exchange `http`.
    pub fn over(mut self, http: HttpContext) -> Frame {
        self.http = Some(http);
        self
    }

    /// A line that exceeded the message bound: only its first bytes were kept.
    pub fn oversized(head: &[u8], limit: usize) -> Frame {
        Frame {
            raw: head.to_vec(),
            json: None,
            parsed: Err(DecodeError::TooLarge { limit }),
            http: None,
            envelope: scan_envelope(head),
            entry: None,
        }
    }

    /// An HTTP exchange that produced no JSON-RPC body; `why` says what came instead.
    pub fn http_failure(why: String, http: HttpContext) -> Frame {
        Frame {
            raw: why.clone().into_bytes(),
            json: None,
            parsed: Err(DecodeError::Http(why)),
            http: Some(http),
            envelope: None,
            entry: None,
        }
    }

    /// Whether the frame is shaped as a reply (POL-23): a `result` or an `error` member and no
    /// `method`, valid JSON-RPC or not.
    pub fn is_reply(&self) -> bool {
        !self.has_method()
            && match &self.json {
                Some(j) => j.get("result").is_some() || j.get("error").is_some(),
                None => self
                    .envelope
                    .as_ref()
                    .is_some_and(|e| e.has_result || e.has_error),
            }
    }

    /// Whether the frame has a top-level `method` member (a request or notification, never a
    /// reply: POL-23).
    pub fn has_method(&self) -> bool {
        match &self.json {
            Some(json) => json.get("method").is_some(),
            None => self.envelope.as_ref().is_some_and(|e| e.has_method),
        }
    }

    /// The `id` member as the peer wrote it, even for frames that are not valid JSON-RPC.
    /// The shallow scan supplies it when the line could not be parsed whole.
    pub fn raw_id(&self) -> Option<&Value> {
        match &self.json {
            Some(json) => json.get("id"),
            None => self.envelope.as_ref()?.id.as_ref(),
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }
}

/// Parses bytes as JSON, naming why they are not: not UTF-8, empty, nested past [`MAX_DEPTH`],
/// or not JSON.
pub fn parse_json(raw: &[u8]) -> Result<Value, DecodeError> {
    let text = std::str::from_utf8(raw).map_err(|e| DecodeError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    if text.trim().is_empty() {
        return Err(DecodeError::Empty);
    }
    serde_json::from_str(text).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            DecodeError::TooDeep {
                depth: nesting_depth(raw),
                limit: MAX_DEPTH,
            }
        } else {
            DecodeError::Json {
                message: json_error_text(&e),
                line: e.line(),
                column: e.column(),
            }
        }
    })
}

/// The deepest nesting of `[`/`{` in JSON-ish bytes, strings skipped (no recursion, any depth).
pub fn nesting_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Reads the top-level members of an object without parsing nested values, so a line too deep,
/// not UTF-8 or cut short can still be matched by its `id`. Stops quietly at the first byte it
/// cannot follow and returns what it found; `None` when the bytes do not start an object.
pub fn scan_envelope(bytes: &[u8]) -> Option<Envelope> {
    let mut scan = Scanner { bytes, at: 0 };
    scan.skip_ws();
    if scan.peek()? != b'{' {
        return None;
    }
    scan.at += 1;
    let mut envelope = Envelope::default();
    loop {
        scan.skip_ws();
        let start = scan.at;
        if !scan.skip_string() {
            break;
        }
        let key: Option<String> = serde_json::from_slice(&bytes[start..scan.at]).ok();
        scan.skip_ws();
        if scan.peek() != Some(b':') {
            break;
        }
        scan.at += 1;
        scan.skip_ws();
        let value_start = scan.at;
        if !scan.skip_value() {
            break;
        }
        match key.as_deref() {
            Some("id") => envelope.id = serde_json::from_slice(&bytes[value_start..scan.at]).ok(),
            Some("method") => envelope.has_method = true,
            Some("result") => envelope.has_result = true,
            Some("error") => envelope.has_error = true,
            _ => {}
        }
        scan.skip_ws();
        if scan.peek() != Some(b',') {
            break;
        }
        scan.at += 1;
    }
    Some(envelope)
}

/// A cursor over JSON-ish bytes that skips values without building them.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Skips a complete string (the cursor on its opening quote); false if it does not end.
    fn skip_string(&mut self) -> bool {
        if self.peek() != Some(b'"') {
            return false;
        }
        let mut i = self.at + 1;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                b'\\' => i += 2,
                b'"' => {
                    self.at = i + 1;
                    return true;
                }
                _ => i += 1,
            }
        }
        false
    }

    /// Skips one value of any depth (strings, scalars, balanced brackets); false if it does not
    /// end within the bytes.
    fn skip_value(&mut self) -> bool {
        match self.peek() {
            Some(b'"') => self.skip_string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                while let Some(b) = self.peek() {
                    match b {
                        b'"' => {
                            if !self.skip_string() {
                                return false;
                            }
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return true;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
                false
            }
            Some(_) => {
                let start = self.at;
                while matches!(self.peek(), Some(b) if !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.at += 1;
                }
                self.at > start && self.peek().is_some()
            }
            None => false,
        }
    }
}

fn json_error_text(e: &serde_json::Error) -> String {
    // serde_json appends " at line X column Y"; we report those separately.
    let full = e.to_string();
    match full.rfind(" at line ") {
        Some(i) => full[..i].to_owned(),
        None => full,
    }
}

/// Classifies a JSON value by explicit rules.
pub fn classify(value: &Value) -> Result<Message, DecodeError> {
    let obj = match value {
        Value::Object(o) => o,
        Value::Array(items) => return Ok(Message::Batch(items.iter().map(classify).collect())),
        other => {
            return Err(DecodeError::NotAnObject {
                found: type_name(other),
            });
        }
    };
    match obj.get("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => {}
        Some(other) => {
            return Err(DecodeError::Version {
                found: other.to_string(),
            });
        }
        None => {
            return Err(DecodeError::Version {
                found: "absent".into(),
            });
        }
    }
    let id = match obj.get("id") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => match Id::from_json(v) {
            Some(id) => Some(Some(id)),
            None => {
                return Err(DecodeError::IdType {
                    found: v.to_string(),
                });
            }
        },
    };
    if let Some(m) = obj.get("method") {
        let Value::String(method) = m else {
            return Err(DecodeError::MethodType {
                found: type_name(m),
            });
        };
        let params = match obj.get("params") {
            None => None,
            Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p.clone()),
            Some(p) => {
                return Err(DecodeError::ParamsType {
                    found: type_name(p),
                });
            }
        };
        let method = method.clone();
        return match id {
            None => Ok(Message::Notification { method, params }),
            Some(Some(id)) => Ok(Message::Request { id, method, params }),
            Some(None) => Err(DecodeError::IdType {
                found: "null".into(),
            }),
        };
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) => Err(DecodeError::ResultAndError),
        (Some(result), None) => match id {
            Some(Some(id)) => Ok(Message::Response {
                id,
                result: result.clone(),
            }),
            Some(None) => Err(DecodeError::IdType {
                found: "null".into(),
            }),
            None => Err(DecodeError::MissingId),
        },
        (None, Some(error)) => {
            let error = error_object(error)?;
            Ok(Message::Error {
                id: id.flatten(),
                error,
            })
        }
        (None, None) => Err(DecodeError::Unclassifiable),
    }
}

fn error_object(value: &Value) -> Result<ErrorObject, DecodeError> {
    let Value::Object(e) = value else {
        return Err(DecodeError::ErrorObject(format!(
            "{} instead of an object",
            type_name(value)
        )));
    };
    let code = match e.get("code") {
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| DecodeError::ErrorObject(format!("`code` {n} is not an integer")))?,
        Some(other) => {
            return Err(DecodeError::ErrorObject(format!(
                "`code` is {}",
                type_name(other)
            )));
        }
        None => return Err(DecodeError::ErrorObject("no `code`".into())),
    };
    let message = match e.get("message") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(DecodeError::ErrorObject(format!(
                "`message` is {}",
                type_name(other)
            )));
        }
        None => return Err(DecodeError::ErrorObject("no `message`".into())),
    };
    Ok(ErrorObject {
        code,
        message,
        data: e.get("data").cloned(),
    })
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(s: &str) -> Result<Message, DecodeError> {
        Frame::decode(s.as_bytes()).parsed
    }

    #[test]
    fn classifies_each_kind() {
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Ok(Message::Request { id: Id::Int(1), .. })
        ));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","method":"notifications/x"}"#),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Ok(Message::Response { id: Id::Str(_), .. })
        ));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#),
            Ok(Message::Error { id: None, .. })
        ));
    }

    #[test]
    fn names_the_broken_rule() {
        assert_eq!(decode(""), Err(DecodeError::Empty));
        assert!(matches!(
            decode("{oops"),
            Err(DecodeError::Json { line: 1, .. })
        ));
        assert_eq!(
            decode("3"),
            Err(DecodeError::NotAnObject { found: "a number" })
        );
        assert_eq!(
            decode(r#"{"jsonrpc":"2","id":1,"result":{}}"#),
            Err(DecodeError::Version {
                found: "\"2\"".into()
            })
        );
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#),
            Err(DecodeError::ResultAndError)
        );
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#),
            Err(DecodeError::IdType {
                found: "1.5".into()
            })
        );
        assert_eq!(
            decode(r#"{"jsonrpc":"2.0","result":{}}"#),
            Err(DecodeError::MissingId)
        );
        assert!(matches!(
            Frame::decode(b"\xff\xfe").parsed,
            Err(DecodeError::NotUtf8 { offset: 0 })
        ));
    }

    #[test]
    fn keeps_json_of_invalid_rpc_for_id_matching() {
        let f = Frame::decode(br#"{"jsonrpc":"1.0","id":4,"result":{}}"#);
        assert!(f.parsed.is_err());
        assert_eq!(f.raw_id(), Some(&json!(4)));
    }

    #[test]
    fn a_reply_too_deep_is_named_and_keeps_its_id() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{}1{}}}"#,
            r#"{"a":"#.repeat(100_000),
            "}".repeat(100_000)
        );
        let f = Frame::decode(deep.as_bytes());
        assert_eq!(
            f.parsed,
            Err(DecodeError::TooDeep {
                depth: 100_001,
                limit: MAX_DEPTH
            })
        );
        assert!(f.json.is_none());
        assert_eq!(f.raw_id(), Some(&json!(7)));
        assert!(!f.has_method());
        // The id may come after the deep member too.
        let late = format!(
            r#"{{"result":{}{},"id":"x"}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        assert_eq!(Frame::decode(late.as_bytes()).raw_id(), Some(&json!("x")));
    }

    #[test]
    fn a_reply_not_utf8_keeps_its_id() {
        let f = Frame::decode(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"x\":\"\xff\"}}");
        assert!(matches!(f.parsed, Err(DecodeError::NotUtf8 { offset: 39 })));
        assert_eq!(f.raw_id(), Some(&json!(3)));
        assert!(f.parsed.as_ref().is_err_and(DecodeError::is_unreadable));
    }

    #[test]
    fn an_oversized_head_keeps_its_id_when_it_comes_first() {
        let f = Frame::oversized(
            br#"{"jsonrpc":"2.0","id":"a\"b","result":{"text":"xxxx"#,
            10,
        );
        assert_eq!(f.parsed, Err(DecodeError::TooLarge { limit: 10 }));
        assert_eq!(f.raw_id(), Some(&json!("a\"b")));
        let f = Frame::oversized(br#"{"jsonrpc":"2.0","result":{"text":"xxxx"#, 10);
        assert_eq!(f.raw_id(), None);
    }

    #[test]
    fn the_scan_never_panics_on_fragments() {
        for text in [
            "",
            "{",
            "{\"",
            "{\"id\"",
            "{\"id\":",
            "{\"id\":1",
            "{\"id\":[1,",
            "[1,2]",
            "{\"a\\",
            "{\"method\":\"x\",\"id\":null}",
            "{:}",
            "{\"a\":}",
            "}}}",
        ] {
            let _ = scan_envelope(text.as_bytes());
            let _ = nesting_depth(text.as_bytes());
        }
        let e = scan_envelope(br#"{"method":"x","id":null}"#).unwrap();
        assert!(e.has_method);
        assert_eq!(e.id, Some(Value::Null));
        assert_eq!(nesting_depth(br#"{"a":"{{{[[[","b":[[1]]}"#), 3);
    }

    #[test]
    fn round_trips() {
        let m = Message::Request {
            id: Id::Str("7".into()),
            method: "tools/list".into(),
            params: Some(json!({"_meta": {}})),
        };
        assert_eq!(
            Frame::decode(&m.encode()[..m.encode().len() - 1]).parsed,
            Ok(m)
        );
    }
}
