//! What one scenario saw: every message the client sent and the peer sent back (with the HTTP
//! request each came in, headers included), and how the client ended. The peer writes it
//! through a [`Log`] while the scenario runs; the checks read the finished [`Observation`].
//!
//! Bounded whatever the client sends: past [`MAX_KEPT`] messages or [`MAX_KEPT_BYTES`] bytes a
//! message is counted, not kept, and the transcript (the report's view of the same events)
//! has its own bounds (`transcript.rs`).

pub mod authorization;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;

use crate::judge::{self, Kind};
use crate::scenario::{Scenario, Transport};
use authorization::{AuthFacts, AuthRequest, AuthTrail, MAX_REQUESTS};
use mcpspec_core::transcript::{Entry, Event, Recorder};
use mcpspec_harness::outcome::Evidence;

/// Messages kept per direction.
pub const MAX_KEPT: usize = 4000;
/// Bytes of messages kept in all.
pub const MAX_KEPT_BYTES: usize = 16 * 1024 * 1024;
/// A message larger than this goes into the transcript as its size and first bytes.
const TRANSCRIPT_WHOLE: usize = 8 * 1024;
/// The bytes of a message a verdict quotes.
const QUOTE: usize = 200;

/// How the client process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientEnd {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it (its number).
    Signaled(i32),
    /// It was still running at the timeout and was killed.
    TimedOut(Duration),
    /// It could not be started.
    NotStarted(String),
}

impl ClientEnd {
    /// `exit status 1`, `killed by signal 11`, …
    pub fn describe(&self) -> String {
        match self {
            ClientEnd::Exited(code) => format!("exit status {code}"),
            ClientEnd::Signaled(sig) => format!("killed by signal {sig}"),
            ClientEnd::TimedOut(after) => format!(
                "still running after {} (killed)",
                mcpspec_core::text::seconds(*after)
            ),
            ClientEnd::NotStarted(why) => format!("could not be started: {why}"),
        }
    }

    pub fn succeeded(&self) -> bool {
        *self == ClientEnd::Exited(0)
    }
}

/// The HTTP request a client message came in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHead {
    /// The peer's number for the exchange.
    pub exchange: u64,
    pub method: String,
    pub target: String,
    /// Every header, names lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The status the peer answered with (once it did).
    pub status: Option<u16>,
    /// The `Mcp-Session-Id` the peer's response set (a legacy `initialize`).
    pub minted_session: Option<String>,
}

impl HttpHead {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// How many times header `name` was sent.
    pub fn header_count(&self, name: &str) -> usize {
        self.headers.iter().filter(|(n, _)| n == name).count()
    }
}

/// One message the client sent: a stdio line, or the body of a POST.
#[derive(Debug, Clone)]
pub struct ClientMessage {
    /// Its transcript entry (`None` once the transcript was full).
    pub entry: Option<u32>,
    /// The connection: the stdio peer process it came through (1, 2, …); 1 over HTTP.
    pub conn: u32,
    pub raw: Vec<u8>,
    /// The JSON it parses to, if it does.
    pub json: Option<Value>,
    /// The HTTP request it came in (HTTP only).
    pub http: Option<HttpHead>,
}

impl ClientMessage {
    pub fn kind(&self) -> Kind<'_> {
        judge::kind(self.json.as_ref())
    }

    pub fn method(&self) -> Option<&str> {
        self.kind().method()
    }

    /// Whether it is a request (an id and a method).
    pub fn is_request(&self) -> bool {
        matches!(self.kind(), Kind::Request { .. })
    }

    pub fn params(&self) -> Option<&Value> {
        self.json.as_ref()?.get("params")
    }

    /// What a verdict quotes of it.
    pub fn evidence(&self) -> Evidence {
        Evidence {
            entry: self.entry.unwrap_or(0),
            conn: self.conn,
            instance: None,
            quote: mcpspec_core::text::shorten(&String::from_utf8_lossy(&self.raw), QUOTE),
        }
    }

    /// `tools/list (#3)`-style words for a verdict: the method, or what it is instead.
    pub fn describe(&self) -> String {
        match self.kind() {
            Kind::Request { method, id } => format!("request `{method}` (id {id})"),
            Kind::Notification { method } => format!("notification `{method}`"),
            Kind::Response { id } => format!("reply to id {id}"),
            Kind::Other => format!(
                "`{}`",
                mcpspec_core::text::shorten(&String::from_utf8_lossy(&self.raw), 60)
            ),
        }
    }
}

/// One message the peer sent the client.
#[derive(Debug, Clone)]
pub struct PeerMessage {
    pub entry: Option<u32>,
    pub conn: u32,
    pub json: Option<Value>,
}

/// A whole scenario's record; see the module doc.
#[derive(Debug, Clone)]
pub struct Observation {
    pub scenario: &'static Scenario,
    pub transport: Transport,
    /// What the client sent, in order.
    pub sent: Vec<ClientMessage>,
    /// What the peer sent, in order.
    pub received: Vec<PeerMessage>,
    /// Every HTTP request (GET and DELETE included), in order.
    pub http: Vec<HttpHead>,
    pub end: ClientEnd,
    /// The last lines the client wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// How long the client ran.
    pub took: Duration,
    pub transcript: Vec<Entry>,
    /// Every HTTP request of an `auth/*` scenario to either origin of the protected peer.
    pub authorization: AuthTrail,
}

impl Observation {
    /// The client's requests, in order.
    pub fn requests(&self) -> impl Iterator<Item = &ClientMessage> {
        self.sent.iter().filter(|m| m.is_request())
    }

    /// The requests of method `method`.
    pub fn requests_of<'a>(&'a self, method: &'a str) -> impl Iterator<Item = &'a ClientMessage> {
        self.requests().filter(move |m| m.method() == Some(method))
    }

    /// The first message the client sent that is a request or a notification.
    pub fn first_call(&self) -> Option<&ClientMessage> {
        self.sent
            .iter()
            .find(|m| matches!(m.kind(), Kind::Request { .. } | Kind::Notification { .. }))
    }

    /// The peer's reply to the client's request with id `id` (exact JSON match).
    pub fn reply_to(&self, id: &Value) -> Option<&PeerMessage> {
        self.received.iter().find(|p| {
            p.json.as_ref().is_some_and(|j| {
                j.get("id") == Some(id) && (j.get("result").is_some() || j.get("error").is_some())
            })
        })
    }

    /// The DELETE requests.
    pub fn deletes(&self) -> impl Iterator<Item = &HttpHead> {
        self.http.iter().filter(|h| h.method == "DELETE")
    }

    /// The message that came in HTTP exchange `exchange`.
    pub fn message_of(&self, exchange: u64) -> Option<&ClientMessage> {
        self.sent
            .iter()
            .find(|m| m.http.as_ref().is_some_and(|h| h.exchange == exchange))
    }

    /// Evidence pointing at the client's end (the last transcript entry).
    pub fn end_evidence(&self) -> Option<Evidence> {
        self.transcript.last().map(Evidence::of)
    }
}

/// The scenario's record while it runs, shared by the peer's parts (the HTTP hook, the stdio
/// tee, the scenario middleware).
#[derive(Debug, Clone, Default)]
pub struct Log(Arc<Mutex<Record>>);

#[derive(Debug, Default)]
struct Record {
    sent: Vec<ClientMessage>,
    received: Vec<PeerMessage>,
    http: Vec<HttpHead>,
    connections: u32,
    kept_bytes: usize,
    dropped: u64,
    transcript: Recorder,
    authorization: AuthTrail,
}

impl Log {
    fn lock(&self) -> MutexGuard<'_, Record> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a message the client sent; returns its index among the messages kept.
    pub fn client_message(&self, conn: u32, raw: &[u8], http: Option<HttpHead>) -> Option<usize> {
        let mut r = self.lock();
        if r.sent.len() >= MAX_KEPT || r.kept_bytes + raw.len() > MAX_KEPT_BYTES {
            r.dropped += 1;
            return None;
        }
        r.kept_bytes += raw.len();
        let json: Option<Value> = serde_json::from_slice(raw).ok();
        let entry = r
            .transcript
            .record(conn, received_event(raw, json.as_ref()));
        r.sent.push(ClientMessage {
            entry,
            conn,
            raw: raw.to_vec(),
            json,
            http,
        });
        Some(r.sent.len() - 1)
    }

    /// Records a message the peer sent.
    pub fn peer_message(&self, conn: u32, raw: &[u8]) {
        let mut r = self.lock();
        if r.received.len() >= MAX_KEPT || r.kept_bytes + raw.len() > MAX_KEPT_BYTES {
            r.dropped += 1;
            return;
        }
        r.kept_bytes += raw.len();
        let json: Option<Value> = serde_json::from_slice(raw).ok();
        let event = match &json {
            Some(message) if raw.len() <= TRANSCRIPT_WHOLE => Event::Send {
                message: message.clone(),
            },
            _ => Event::SendRaw {
                text: mcpspec_core::transcript::clip(&String::from_utf8_lossy(raw)),
            },
        };
        let entry = r.transcript.record(conn, event);
        r.received.push(PeerMessage { entry, conn, json });
    }

    /// Records an HTTP request (before its body, if it has one, is recorded as a message);
    /// its transcript entry. An `Authorization` header is shown (its credential is registered
    /// for redaction when the peer makes it, so it is written `‹redacted›`).
    pub fn http_request(&self, head: HttpHead) -> Option<u32> {
        let mut r = self.lock();
        let mut text = format!("{} {}", head.method, head.target);
        for (name, value) in &head.headers {
            if name.starts_with("mcp-")
                || name == "accept"
                || name == "content-type"
                || name == "authorization"
            {
                text.push_str(&format!(" · {name}: {value}"));
            }
        }
        let entry = r.transcript.record(1, Event::Note { text });
        if r.http.len() < MAX_KEPT {
            r.http.push(head);
        } else {
            r.dropped += 1;
        }
        entry
    }

    /// Records a request of an `auth/*` scenario (counted whatever happens; kept within
    /// [`MAX_REQUESTS`]). A request to the authorization server gets a transcript note here;
    /// one to the MCP server has its entry from [`Log::http_request`] already.
    pub fn auth_request(&self, mut request: AuthRequest) {
        let mut r = self.lock();
        let counts = &mut r.authorization.counts;
        counts.total += 1;
        counts.largest_body = counts.largest_body.max(request.body_len);
        if request.is_well_known() {
            counts.metadata += 1;
        }
        if request.origin == authorization::Origin::AuthServer {
            if request.entry.is_none() {
                let text = format!(
                    "auth server: {} {} ({} byte body)",
                    request.method, request.target, request.body_len
                );
                request.entry = r.transcript.record(1, Event::Note { text });
            }
            let counts = &mut r.authorization.counts;
            let path = request.path();
            if path.ends_with("/register") {
                counts.registrations += 1;
            } else if path.ends_with("/authorize") {
                counts.authorizations += 1;
            } else if path.ends_with("/token") {
                counts.token_requests += 1;
            }
        }
        if request.status == Some(413) {
            r.authorization.counts.oversized += 1;
        }
        if let Some(status) = request.status {
            let text = answer_note(
                status,
                request.location.as_deref(),
                request.challenge.as_deref(),
            );
            r.transcript.record(1, Event::Note { text });
        }
        if r.authorization.requests.len() < MAX_REQUESTS {
            r.authorization.requests.push(request);
        } else {
            r.dropped += 1;
        }
    }

    /// The MCP server answered its exchange `exchange` (an `auth/*` scenario's request).
    pub fn auth_answered(&self, exchange: u64, status: u16, headers: &[(String, String)]) {
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let mut r = self.lock();
        if status == 413 {
            r.authorization.counts.oversized += 1;
        }
        if let Some(req) = r
            .authorization
            .requests
            .iter_mut()
            .rev()
            .find(|q| q.exchange == Some(exchange))
        {
            req.status = Some(status);
            req.location = header("location");
            req.challenge = header("www-authenticate");
        }
        if let Some(challenge) = header("www-authenticate") {
            r.transcript.record(
                1,
                Event::Note {
                    text: format!("www-authenticate: {challenge}"),
                },
            );
        }
    }

    /// The facts of the protected peer, set once it is up.
    pub fn auth_facts(&self, facts: AuthFacts) {
        self.lock().authorization.facts = Some(facts);
    }

    /// The protected peer issued `what` (added to its facts).
    pub fn auth_issued(&self, what: authorization::Issued) {
        let mut r = self.lock();
        let Some(facts) = r.authorization.facts.as_mut() else {
            return;
        };
        match what {
            authorization::Issued::AccessToken(t) => facts.access_tokens.push(t),
            authorization::Issued::RefreshToken(t) => facts.refresh_tokens.push(t),
            authorization::Issued::ClientId(id) => facts.registered.push(id),
        }
    }

    /// Records the status and headers the peer answered exchange `exchange` with.
    pub fn http_response(&self, exchange: u64, status: u16, headers: &[(String, String)]) {
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let minted = header("mcp-session-id");
        let mut guard = self.lock();
        let r = &mut *guard;
        let heads = r
            .http
            .iter_mut()
            .chain(r.sent.iter_mut().filter_map(|m| m.http.as_mut()));
        for h in heads.filter(|h| h.exchange == exchange) {
            h.status = Some(status);
            h.minted_session.clone_from(&minted);
        }
        let mut text = format!("HTTP {status}");
        if let Some(t) = header("content-type") {
            text.push_str(&format!(" · content-type: {t}"));
        }
        if let Some(id) = &minted {
            text.push_str(&format!(" · mcp-session-id: {id}"));
        }
        r.transcript.record(1, Event::Note { text });
    }

    /// A new stdio connection from a peer process; its number.
    pub fn connected(&self, what: String) -> u32 {
        let mut r = self.lock();
        r.connections += 1;
        let conn = r.connections;
        r.transcript.record(conn, Event::Connect { target: what });
        conn
    }

    /// The client closed connection `conn`.
    pub fn closed(&self, conn: u32) {
        self.lock().transcript.record(conn, Event::Closed);
    }

    /// A remark in the transcript.
    pub fn note(&self, conn: u32, text: impl Into<String>) {
        self.lock()
            .transcript
            .record(conn, Event::Note { text: text.into() });
    }

    /// The `Mcp-Session-Id` the request of exchange `exchange` named.
    pub fn session_of(&self, exchange: u64) -> Option<String> {
        let r = self.lock();
        let head = r.http.iter().find(|h| h.exchange == exchange)?;
        head.header("mcp-session-id").map(str::to_owned)
    }

    /// Client message `index`, if kept.
    pub fn client_message_at(&self, index: usize) -> Option<ClientMessage> {
        self.lock().sent.get(index).cloned()
    }

    /// Finishes the record: the client's end is the last transcript entry.
    pub fn finish(
        &self,
        scenario: &'static Scenario,
        transport: Transport,
        end: ClientEnd,
        stderr_tail: Vec<String>,
        took: Duration,
    ) -> Observation {
        let mut r = self.lock();
        if r.dropped > 0 {
            let text = format!(
                "{} messages were counted but not kept (the record's bounds): the checks judged \
                 the rest",
                r.dropped
            );
            r.transcript
                .record(r.connections.max(1), Event::Note { text });
        }
        r.transcript.record(
            r.connections.max(1),
            Event::Exit {
                how: format!("the client: {}", end.describe()),
            },
        );
        Observation {
            scenario,
            transport,
            sent: std::mem::take(&mut r.sent),
            received: std::mem::take(&mut r.received),
            http: std::mem::take(&mut r.http),
            end,
            stderr_tail,
            took,
            transcript: r.transcript.entries(),
            authorization: std::mem::take(&mut r.authorization),
        }
    }
}

/// The note of the authorization server's answer.
fn answer_note(status: u16, location: Option<&str>, challenge: Option<&str>) -> String {
    let mut text = format!("auth server: HTTP {status}");
    if let Some(l) = location {
        text.push_str(&format!(
            " · location: {}",
            mcpspec_core::text::shorten(l, 300)
        ));
    }
    if let Some(c) = challenge {
        text.push_str(&format!(" · www-authenticate: {c}"));
    }
    text
}

/// The transcript event of a message the client sent (from mcpspec's side: received).
fn received_event(raw: &[u8], json: Option<&Value>) -> Event {
    match json {
        Some(message) if raw.len() <= TRANSCRIPT_WHOLE => Event::Recv {
            message: message.clone(),
            http_status: None,
        },
        Some(_) => Event::RecvLarge {
            bytes: raw.len(),
            text: mcpspec_core::transcript::clip(&String::from_utf8_lossy(raw)),
            http_status: None,
        },
        None => Event::RecvInvalid {
            text: mcpspec_core::transcript::clip(&String::from_utf8_lossy(raw)),
            error: "not JSON".into(),
            http_status: None,
        },
    }
}
