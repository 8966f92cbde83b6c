//! The raw HTTP side of the checks, below both HTTP areas (`http.rs`, streamable HTTP, and
//! `legacy_http.rs`, the handshake revisions over HTTP): the target's endpoint, one raw POST
//! through the raw client (exact header sets, the body or the first SSE response read back), and
//! what it produced ([`Answer`]). The areas import this module; this module imports no area.

use serde_json::Value;
use tokio::time::Instant;

use crate::check::Scenario;
use crate::outcome::Outcome;
use mcpspec_core::transport::http::client::{self, Endpoint, Request};

/// What one HTTP exchange produced.
#[derive(Debug)]
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) content_type: String,
    pub(super) session_id: Option<String>,
    /// The JSON-RPC message in the body (the first SSE event's data for event streams).
    pub(super) json: Option<Value>,
    pub(super) body: String,
}

impl Answer {
    pub(super) fn code(&self) -> Option<i64> {
        self.json.as_ref()?.pointer("/error/code")?.as_i64()
    }

    pub(super) fn describe(&self) -> String {
        let body = crate::driver::shorten(&self.body, 160);
        if body.is_empty() {
            format!("HTTP {} (empty body)", self.status)
        } else {
            format!("HTTP {} {body}", self.status)
        }
    }
}

pub(super) fn endpoint(s: &Scenario) -> Result<Endpoint, Outcome> {
    s.endpoint()
        .cloned()
        .ok_or_else(|| Outcome::skipped("not an HTTP target"))
}

/// Sends `req` to the target's endpoint and reads the answer (an event stream up to its first
/// JSON-RPC response), noting both as what the verdict judged.
pub(super) async fn post(s: &Scenario, req: &Request) -> Result<Answer, Outcome> {
    post_judged(s, req, &[]).await
}

/// [`post`] for a DNS-rebinding probe (a foreign `Origin`, HTTP-2, or a foreign `Host`, POL-33):
/// in a refusal with one of `refusals`' statuses, a JSON-RPC error without an `id` (or with
/// `id: null`) is the body the spec itself describes for it, so it is no deviation (POL-29's
/// exception). Any other id-less reply is judged as [`post`] judges it.
pub(super) async fn post_refusal(
    s: &Scenario,
    req: &Request,
    refusals: &[u16],
) -> Result<Answer, Outcome> {
    post_judged(s, req, refusals).await
}

/// [`post`], with the statuses in which an id-less error is the spec's own refusal body.
async fn post_judged(
    s: &Scenario,
    req: &Request,
    idless_refusals: &[u16],
) -> Result<Answer, Outcome> {
    let e = endpoint(s)?;
    let wait = s.settings().expect_timeout + s.settings().startup_timeout;
    let deadline = Instant::now() + wait;
    let wire = String::from_utf8_lossy(&req.to_bytes(&e)).into_owned();
    let head = wire
        .split("\r\n\r\n")
        .next()
        .unwrap_or("")
        .replace("\r\n", " | ");
    let mut response = client::send(&e, req, deadline).await.map_err(|err| {
        s.note_judged(format!("{head} -> {err}"), &err.to_string());
        Outcome::fail(format!("{} {}: {err}", req.method, e.url()))
    })?;
    let content_type = response.content_type();
    let session_id = response.header("mcp-session-id").map(str::to_owned);
    // An event stream is read up to its first JSON-RPC response; other bodies whole.
    let mut body = Vec::new();
    let mut json = None;
    // What an event stream carried before its response (notifications, requests): judged too.
    let mut before = Vec::new();
    if response.is_event_stream() {
        let mut parser =
            mcpspec_core::transport::http::sse::SseParser::new(s.settings().max_message);
        let short = Instant::now() + s.settings().expect_timeout;
        'read: while let Ok(Some(chunk)) = response.chunk(short.min(deadline)).await {
            body.extend_from_slice(&chunk);
            for v in event_messages(&mut parser, &chunk) {
                if is_response(&v) {
                    json = Some(v);
                    break 'read;
                }
                before.push(v);
            }
        }
    } else {
        body = response
            .body(deadline, s.settings().max_message)
            .await
            .unwrap_or_default();
        json = serde_json::from_slice(&body).ok();
    }
    let answer = Answer {
        status: response.status,
        content_type,
        session_id,
        json,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    s.note_judged(
        format!("{head} -> {}", answer.describe()),
        &answer.describe(),
    );
    before.extend(answer.json.clone());
    validate_judged(s, req, answer.status, &before, idless_refusals);
    Ok(answer)
}

/// The JSON messages of the events `chunk` completes (events whose data is not JSON are left
/// to the checks that judge the stream's framing).
pub(super) fn event_messages(
    parser: &mut mcpspec_core::transport::http::sse::SseParser,
    chunk: &[u8],
) -> Vec<Value> {
    parser
        .feed(chunk)
        .unwrap_or_default()
        .iter()
        .filter_map(|ev| serde_json::from_str(&ev.data).ok())
        .collect()
}

/// Whether `message` is a JSON-RPC response (a result or an error), which ends its stream.
pub(super) fn is_response(message: &Value) -> bool {
    message.get("result").is_some() || message.get("error").is_some()
}

/// Messages quoted for a note: each previewed, in order.
pub(super) fn quote_messages(messages: &[Value]) -> String {
    messages
        .iter()
        .map(|m| crate::driver::preview(m, 120))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The JSON-RPC messages of a raw exchange (its answer, and what an event stream carried before
/// it) go through the schema layer like every frame the driver reads (SCHEMA-1, POL-20), judged
/// by the request they belong to; a message whose revision the one request does not tell (a
/// legacy session's later requests) is not judged. `status` is the HTTP status they came with
/// (POL-29: `id: null` for a readable request id is NonStrict in a 4xx, a wrong id elsewhere).
pub(super) fn validate_messages(s: &Scenario, req: &Request, status: u16, received: &[Value]) {
    validate_judged(s, req, status, received, &[]);
}

/// [`validate_messages`]; an error without an id in a response whose status is one of
/// `idless_refusals` is the spec's own refusal body (POL-29's exception, see [`post_refusal`]):
/// noted, not recorded against the check.
fn validate_judged(
    s: &Scenario,
    req: &Request,
    status: u16,
    received: &[Value],
    idless_refusals: &[u16],
) {
    let Ok(sent) = serde_json::from_slice::<Value>(&req.body) else {
        return;
    };
    if !sent.is_object() {
        return; // a batch: its replies are judged by the checks that send one
    }
    let modern = sent
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .is_some();
    let mut asked = crate::schema::Asked::new(modern);
    asked.sent(&sent);
    let mut violations = Vec::new();
    for message in received {
        match null_id(&sent, message) {
            Some(id) if idless_refusals.contains(&status) && message.get("error").is_some() => {
                s.note(format!(
                    "the HTTP {status} refusal of request {id} carries an error without an id, \
                     the body HTTP-2 describes for a DNS-rebinding refusal: no deviation \
                     (POL-29's exception)"
                ));
            }
            Some(id) if (400..500).contains(&status) => s.record_null_id(id, status),
            Some(id) => violations.push(crate::schema::Violation {
                method: format!(
                    "{} reply",
                    sent.get("method").and_then(Value::as_str).unwrap_or("?")
                ),
                pointer: "/id".into(),
                expected: format!(
                    "the id of the request it answers, {id}, in an HTTP {status} response \
                     (RPC-3, POL-29)"
                ),
                actual: message
                    .get("id")
                    .map_or_else(|| "absent".into(), Value::to_string),
                revision: None,
            }),
            None => {}
        }
        violations.extend(envelope_violations(&sent, message));
        violations.extend(asked.validate(&s.settings().schema, message));
    }
    s.record_schema_violations(violations);
}

/// The request's id, when `received` answers it with `id: null` (or no id) although that id
/// was readable (POL-29).
fn null_id(sent: &Value, received: &Value) -> Option<String> {
    let expected = sent.get("id")?;
    mcpspec_core::wire::Id::from_json(expected)?;
    let unreadable = received.get("id").is_none_or(Value::is_null);
    (unreadable && received.get("method").is_none() && is_response(received))
        .then(|| expected.to_string())
}

/// What is wrong with a raw answer's JSON-RPC envelope, which the schema layer (it judges the
/// `result`, `error` or `params` member) does not see and no driver read rejected here: both
/// `result` and `error`, an `id` no request can have, an `id` other than the request's (RPC-3;
/// an error without an id is POL-23's, judged where a check reads the id). The error object
/// itself is the schema layer's.
fn envelope_violations(sent: &Value, received: &Value) -> Vec<crate::schema::Violation> {
    let method = sent.get("method").and_then(Value::as_str).unwrap_or("?");
    let violation = |pointer: &str, expected: String, actual: String| crate::schema::Violation {
        method: format!("{method} reply"),
        pointer: pointer.to_owned(),
        expected,
        actual,
        revision: None,
    };
    if received.get("method").is_some() {
        return Vec::new(); // a request or notification on the stream is not the answer
    }
    let mut found = Vec::new();
    match mcpspec_core::wire::classify(received) {
        Err(mcpspec_core::wire::DecodeError::ResultAndError) => found.push(violation(
            "",
            "either `result` or `error`, never both (JSON-RPC 2.0 §5)".into(),
            format!(
                "both, `result` {} and `error` {}",
                mcpspec_core::text::preview(&received["result"], 40),
                mcpspec_core::text::preview(&received["error"], 60)
            ),
        )),
        Err(mcpspec_core::wire::DecodeError::IdType { found: id }) => {
            found.push(violation("/id", "an integer or a string".into(), id));
        }
        _ => {}
    }
    let expected = sent.get("id");
    let got = received.get("id").filter(|id| !id.is_null());
    if let (Some(expected), Some(got)) = (expected, got) {
        if expected != got && mcpspec_core::wire::Id::from_json(got).is_some() {
            found.push(violation(
                "/id",
                format!("the id of the request it answers, {expected} (RPC-3)"),
                got.to_string(),
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::envelope_violations;

    fn pointers(received: serde_json::Value) -> Vec<String> {
        let sent = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"});
        envelope_violations(&sent, &received)
            .into_iter()
            .map(|v| format!("{} {}", v.pointer, v.actual))
            .collect()
    }

    #[test]
    fn a_well_formed_answer_has_no_envelope_violation() {
        assert!(pointers(json!({"jsonrpc": "2.0", "id": 1, "result": {}})).is_empty());
        let error = json!({"code": -32020, "message": "m"});
        assert!(pointers(json!({"jsonrpc": "2.0", "id": 1, "error": error})).is_empty());
        // An error without an id is POL-23's to judge, where a check reads the id.
        assert!(pointers(json!({"jsonrpc": "2.0", "id": null, "error": error})).is_empty());
    }

    #[test]
    fn both_members_a_wrong_id_and_an_id_of_no_type_are_named() {
        let error = json!({"code": -32020, "message": "m"});
        let both = pointers(json!({"jsonrpc": "2.0", "id": 1, "result": null, "error": error}));
        assert_eq!(both.len(), 1);
        assert!(both[0].starts_with(" both"), "{both:?}");
        assert_eq!(
            pointers(json!({"jsonrpc": "2.0", "id": "server-error", "error": error})),
            [r#"/id "server-error""#]
        );
        assert_eq!(
            pointers(json!({"jsonrpc": "2.0", "id": "1", "result": {}})),
            [r#"/id "1""#]
        );
        assert_eq!(
            pointers(json!({"jsonrpc": "2.0", "id": true, "result": {}})),
            ["/id true"]
        );
    }
}
