//! The raw HTTP side of the checks, below both HTTP areas (`http.rs`, streamable HTTP, and
//! `legacy_http.rs`, the handshake revisions over HTTP): the target's endpoint, one raw POST
//! through the raw client (exact header sets, the body or the first SSE response read back), and
//! what it produced ([`Answer`]). The areas import this module; this module imports no area.

use serde_json::Value;
use tokio::time::Instant;

use crate::check::Scenario;
use crate::outcome::Outcome;
use crate::transport::http::client::{self, Endpoint, Request};

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
    if response.is_event_stream() {
        let mut parser = crate::transport::http::sse::SseParser::new(s.settings().max_message);
        let short = Instant::now() + s.settings().expect_timeout;
        'read: while let Ok(Some(chunk)) = response.chunk(short.min(deadline)).await {
            body.extend_from_slice(&chunk);
            for ev in parser.feed(&chunk).unwrap_or_default() {
                let v: Option<Value> = serde_json::from_str(&ev.data).ok();
                if v.as_ref()
                    .is_some_and(|v| v.get("result").is_some() || v.get("error").is_some())
                {
                    json = v;
                    break 'read;
                }
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
    validate_answer(s, req, &answer);
    Ok(answer)
}

/// The JSON-RPC message of a raw exchange goes through the schema layer like every frame the
/// driver reads (SCHEMA-1, POL-20), judged by the request it answers; a message whose revision
/// the one request does not tell (a legacy session's later requests) is not judged.
fn validate_answer(s: &Scenario, req: &Request, answer: &Answer) {
    let Some(received) = &answer.json else {
        return;
    };
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
    s.record_schema_violations(asked.validate(&s.settings().schema, received));
}
