//! A hostile peer script: what the peer does to its replies, step by step. Each step names the
//! client's request it acts on (`at`, counting the client's requests from 0) and one action;
//! every action but the replacements adds messages around the real reply, so a correct client
//! still gets an answer and can finish (CLI-10 asks it to end with a result or an error).
//!
//! The script is serde data: a reproducer file holds it as it is, and `mcpspec client replay`
//! reads it back.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::peer::inject::{Injection, Injector, as_sse};
use mcp_reference_server::config::http_hook::HookResponse;

/// One thing the peer does in answer to one client request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case")]
pub enum Action {
    /// Before the reply: a reply to an id the client never used.
    ReplyWrongId { id: Value },
    /// Before the reply: a result without an `id`.
    ReplyMissingId,
    /// Before the reply: an error reply with `"id": null`.
    ReplyNullId,
    /// The reply, and the same reply again.
    Duplicate,
    /// Before the reply: a notification no client knows.
    UnknownNotification { method: String, params: Value },
    /// Before the reply: this many server→client requests (`ping` and unknown methods).
    ServerRequests { count: u16 },
    /// Before the reply: a line of these bytes (not JSON, or not UTF-8).
    Garbage { bytes: Vec<u8> },
    /// Before the reply: a notification holding a string of this many bytes.
    Huge { bytes: usize },
    /// Before the reply: a notification whose params are nested this deep.
    Deep { depth: usize },
    /// In place of the reply: this error.
    ErrorReply { code: i64, message: String },
    /// The reply with one more member in its result.
    ResultExtra { key: String, value: Value },
    /// HTTP: in place of the response, this status, content type and body.
    Status {
        status: u16,
        content_type: String,
        body: String,
    },
    /// HTTP: the messages as an SSE stream framed this way.
    Framing { framing: Framing },
}

/// Ways to frame an SSE stream that a client's reader must take (they are all valid SSE), or
/// may meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Framing {
    /// Lines end in `\r\n`.
    Crlf,
    /// Lines end in `\r` alone.
    Cr,
    /// Comment lines and a `retry:` field between events.
    Comments,
    /// Each message split over several `data:` lines.
    SplitData,
    /// An event with an `id:` but no data (a priming event) first.
    EmptyEvent,
    /// A byte-order mark before the first event.
    Bom,
    /// Every byte written as its own chunk.
    Trickle,
}

/// One step of a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The client request it acts on (0: the first request the client sends).
    pub at: usize,
    #[serde(flatten)]
    pub action: Action,
}

/// A whole script.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Case {
    pub steps: Vec<Step>,
}

impl Case {}

impl Injector for Case {
    fn touches(&self, n: usize, _request: &Value) -> bool {
        self.steps.iter().any(|s| s.at == n)
    }

    fn inject(&self, n: usize, _request: &Value, reply: Vec<Vec<u8>>) -> Injection {
        let mut before: Vec<Vec<u8>> = Vec::new();
        let mut replies = reply;
        let mut after: Vec<Vec<u8>> = Vec::new();
        let mut framing = None;
        for step in self.steps.iter().filter(|s| s.at == n) {
            match &step.action {
                Action::ReplyWrongId { id } => before.push(line(&json!({
                    "jsonrpc": "2.0", "id": id, "result": {}
                }))),
                Action::ReplyMissingId => {
                    before.push(line(&json!({"jsonrpc": "2.0", "result": {}})));
                }
                Action::ReplyNullId => before.push(line(&json!({
                    "jsonrpc": "2.0", "id": null,
                    "error": {"code": -32600, "message": "mcpspec: a reply to no request"}
                }))),
                Action::Duplicate => after.extend(replies.iter().cloned()),
                Action::UnknownNotification { method, params } => before.push(line(&json!({
                    "jsonrpc": "2.0", "method": method, "params": params
                }))),
                Action::ServerRequests { count } => {
                    for i in 0..*count {
                        let method = if i % 2 == 0 {
                            "ping"
                        } else {
                            "mcpspec/fuzz-request"
                        };
                        before.push(line(&json!({
                            "jsonrpc": "2.0", "id": format!("fuzz-{n}-{i}"), "method": method
                        })));
                    }
                }
                Action::Garbage { bytes } => {
                    // A line break would end the line early: the bytes stay on one line.
                    before.push(bytes.iter().copied().filter(|&b| b != b'\n').collect());
                }
                Action::Huge { bytes } => {
                    let mut text = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":""#.to_vec();
                    text.extend(std::iter::repeat_n(b'x', *bytes));
                    text.extend_from_slice(br#""}}"#);
                    before.push(text);
                }
                Action::Deep { depth } => {
                    let mut text = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"#.to_vec();
                    text.extend(std::iter::repeat_n(b'[', *depth));
                    text.extend(std::iter::repeat_n(b']', *depth));
                    text.extend_from_slice(b"}}");
                    before.push(text);
                }
                Action::ErrorReply { code, message } => {
                    replies = replies
                        .iter()
                        .map(|r| with_error(r, *code, message))
                        .collect();
                }
                Action::ResultExtra { key, value } => {
                    replies = replies.iter().map(|r| with_extra(r, key, value)).collect();
                }
                Action::Status {
                    status,
                    content_type,
                    body,
                } => {
                    return Injection::Http(HookResponse::new(*status, content_type, body.clone()));
                }
                Action::Framing { framing: f } => framing = Some(*f),
            }
        }
        let mut messages = before;
        messages.extend(replies);
        messages.extend(after);
        match framing {
            Some(f) => Injection::Http(framed(&messages, f)),
            None => Injection::Messages(messages),
        }
    }
}

fn line(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// `reply` (a JSON-RPC reply) with its result replaced by an error; not a reply: unchanged.
fn with_error(reply: &[u8], code: i64, message: &str) -> Vec<u8> {
    match serde_json::from_slice::<Value>(reply) {
        Ok(Value::Object(mut obj)) if obj.contains_key("id") && !obj.contains_key("method") => {
            obj.remove("result");
            obj.insert("error".into(), json!({"code": code, "message": message}));
            line(&Value::Object(obj))
        }
        _ => reply.to_vec(),
    }
}

/// `reply` with one more member in its result.
fn with_extra(reply: &[u8], key: &str, value: &Value) -> Vec<u8> {
    match serde_json::from_slice::<Value>(reply) {
        Ok(mut v) => {
            if let Some(Value::Object(result)) = v.get_mut("result") {
                result.insert(key.to_owned(), value.clone());
            }
            line(&v)
        }
        Err(_) => reply.to_vec(),
    }
}

/// `messages` as an SSE response framed as `f` says.
fn framed(messages: &[Vec<u8>], f: Framing) -> HookResponse {
    let plain = as_sse(messages).body();
    let (body, chunks): (Vec<u8>, bool) = match f {
        Framing::Crlf => (replace_newlines(&plain, b"\r\n"), false),
        Framing::Cr => (replace_newlines(&plain, b"\r"), false),
        Framing::Comments => {
            let mut b = b": mcpspec comment\nretry: 1000\n\n".to_vec();
            for m in messages {
                b.extend_from_slice(b": between events\nevent: message\ndata: ");
                b.extend_from_slice(m);
                b.extend_from_slice(b"\n\n");
            }
            (b, false)
        }
        Framing::SplitData => {
            let mut b = Vec::new();
            for m in messages {
                b.extend_from_slice(b"event: message\n");
                // A JSON text split at its top-level commas is still the same JSON once the
                // data lines are joined with newlines.
                for part in split_outside_strings(m) {
                    b.extend_from_slice(b"data: ");
                    b.extend_from_slice(&part);
                    b.push(b'\n');
                }
                b.push(b'\n');
            }
            (b, false)
        }
        Framing::EmptyEvent => {
            let mut b = b"id: 0\ndata:\n\n".to_vec();
            b.extend_from_slice(&plain);
            (b, false)
        }
        Framing::Bom => {
            let mut b = "\u{feff}".as_bytes().to_vec();
            b.extend_from_slice(&plain);
            (b, false)
        }
        Framing::Trickle => (plain, true),
    };
    let mut response = HookResponse::new(200, "text/event-stream", Vec::new());
    response.chunks = if chunks {
        body.iter().map(|b| vec![*b]).collect()
    } else {
        vec![body]
    };
    response
}

fn replace_newlines(text: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for &b in text {
        if b == b'\n' {
            out.extend_from_slice(with);
        } else {
            out.push(b);
        }
    }
    out
}

/// `json` cut after each comma that is outside a string.
fn split_outside_strings(json: &[u8]) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    let mut current = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        current.push(b);
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            parts.push(std::mem::take(&mut current));
        }
    }
    parts.push(current);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peer::inject::take_events;

    #[test]
    fn scripts_round_trip_through_json() {
        let case = Case {
            steps: vec![
                Step {
                    at: 1,
                    action: Action::Deep { depth: 70 },
                },
                Step {
                    at: 0,
                    action: Action::Framing {
                        framing: Framing::Cr,
                    },
                },
            ],
        };
        let text = serde_json::to_string(&case).expect("serializes");
        assert!(
            text.contains(r#"{"at":1,"do":"deep","depth":70}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Case>(&text).expect("parses"), case);
    }

    #[test]
    fn every_framing_still_carries_the_same_messages() {
        let messages = vec![br#"{"a":1,"b":"x,y"}"#.to_vec(), br#"{"id":2}"#.to_vec()];
        for f in [
            Framing::Crlf,
            Framing::Comments,
            Framing::SplitData,
            Framing::EmptyEvent,
            Framing::Trickle,
        ] {
            let mut body = framed(&messages, f).body();
            let events: Vec<Value> = take_events(&mut body)
                .iter()
                .filter(|e| !e.is_empty())
                .map(|e| serde_json::from_slice(e).expect("an event is JSON"))
                .collect();
            assert_eq!(
                events,
                vec![json!({"a": 1, "b": "x,y"}), json!({"id": 2})],
                "{f:?}"
            );
        }
    }
}
