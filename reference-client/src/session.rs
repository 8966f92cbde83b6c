//! The reference client's session: ids, the era it speaks, negotiation, requests and their
//! replies, and the server's requests answered on the way.
//!
//! Negotiation (SEP-2575, as the design's dual-era client does it): a legacy version asked for
//! (`MCP_CONFORMANCE_PROTOCOL_VERSION`) goes straight to the handshake; otherwise
//! `server/discover` at 2026-07-28. A DiscoverResult listing it: modern. -32022 listing a
//! version the client has: one retry at it. Anything else (-32601, another error, an HTTP
//! status without a message, a DiscoverResult without a modern version): the `initialize`
//! handshake at 2025-11-25. The handshake's own -32022 ends the session: the client has no
//! other version to offer.
//!
//! Authorization (HTTP): a request the endpoint refuses (401, or 403 `insufficient_scope`) goes
//! to the [`Authorizer`]; when it obtains a token, the link sends it from then on and the
//! request is sent again, as it was (its id included: the server never took it); when it gives
//! up, so does the request ([`Failure::Authorization`]), and the session with it.

use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::faults::{Fault, Faults};
use super::link::{Bearer, Headers, Incoming, Link};
use super::oauth::{Authorizer, Verdict};
use mcpspec_core::protocol::{code, meta, method, version};
use mcpspec_core::wire::{Frame, Message};
use mcpspec_harness::driver::{Outgoing, notification, request};

/// How long the client waits for one reply.
pub const REPLY_WAIT: Duration = Duration::from_secs(10);
/// The retries the `loop-on-version-error` fault makes before it gives up.
const LOOP_LIMIT: usize = 50;
/// The rounds of input_required a request may take.
const MAX_ROUNDS: usize = 3;

/// The era the session speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    Modern(String),
    Legacy(String),
}

/// Why a request did not end in a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// A JSON-RPC error reply.
    Rpc {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    /// An HTTP response without a JSON-RPC message (status 0: none at all), with its
    /// `WWW-Authenticate` values.
    Http {
        status: u16,
        text: String,
        challenges: Vec<String>,
    },
    /// The endpoint refused the request and authorization failed: why.
    Authorization(String),
    Closed,
    TimedOut,
    /// The session is over for this client (a version it does not support).
    Refused(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Rpc { code, message, .. } => write!(f, "error {code}: {message}"),
            Failure::Http { status, text, .. } => write!(f, "HTTP {status}: {text}"),
            Failure::Authorization(why) => write!(f, "authorization failed: {why}"),
            Failure::Closed => f.write_str("the server closed the connection"),
            Failure::TimedOut => write!(f, "no reply within {} s", REPLY_WAIT.as_secs()),
            Failure::Refused(why) => f.write_str(why),
        }
    }
}

/// One client session.
#[derive(Debug)]
pub struct Session {
    link: Link,
    pub faults: Faults,
    pub era: Option<Era>,
    next_id: i64,
    requests_sent: usize,
    /// The ids this client used (for telling a stray reply from its own).
    used: Vec<Value>,
    /// What answers the endpoint's refusals (HTTP only).
    authorizer: Option<Authorizer>,
}

/// The capabilities the client declares in the legacy handshake: roots and sampling, not
/// elicitation (so both halves of CLI-6 are exercised).
fn legacy_capabilities() -> Value {
    json!({"roots": {"listChanged": false}, "sampling": {}})
}

/// What it declares on modern requests: elicitation (MRTR input requests).
fn modern_capabilities() -> Value {
    json!({"elicitation": {}})
}

impl Session {
    pub fn new(link: Link, faults: Faults) -> Self {
        Self {
            link,
            faults,
            era: None,
            next_id: 1,
            requests_sent: 0,
            used: Vec::new(),
            authorizer: None,
        }
    }

    /// The session answers the endpoint's refusals with `authorizer`.
    pub fn with_authorizer(mut self, authorizer: Authorizer) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    fn has(&self, fault: Fault) -> bool {
        self.faults.has(fault)
    }

    /// Negotiates as the module doc says, `preferred` being the scenario's version.
    pub async fn connect(&mut self, preferred: Option<&str>) -> Result<(), Failure> {
        let legacy_asked = preferred.is_some_and(|v| version::LEGACY.contains(&v));
        if legacy_asked || self.has(Fault::InitializeFirst) {
            let v = preferred
                .filter(|_| legacy_asked)
                .unwrap_or(version::LATEST_LEGACY);
            return self.handshake(v).await;
        }
        let mut asked = version::MODERN.to_owned();
        let mut attempts = 0;
        loop {
            attempts += 1;
            self.era = Some(Era::Modern(asked.clone()));
            match self.request(method::DISCOVER, Value::Null).await {
                Ok(result) => {
                    let modern = result
                        .get("supportedVersions")
                        .and_then(Value::as_array)
                        .is_some_and(|vs| vs.iter().any(|v| v == version::MODERN));
                    if modern {
                        self.era = Some(Era::Modern(version::MODERN.to_owned()));
                        if self.has(Fault::PingAfterDiscover) {
                            let _ = self.request(method::PING, Value::Null).await;
                        }
                        return Ok(());
                    }
                    return self.handshake(version::LATEST_LEGACY).await;
                }
                Err(Failure::Rpc {
                    code: code::UNSUPPORTED_VERSION,
                    data,
                    ..
                }) => {
                    let listed = data
                        .as_ref()
                        .and_then(|d| d.get("supported"))
                        .and_then(Value::as_array)
                        .is_some_and(|vs| vs.iter().any(|v| v == version::MODERN));
                    if self.has(Fault::LoopOnVersionError) && attempts < LOOP_LIMIT {
                        continue;
                    }
                    if listed && attempts == 1 && !self.has(Fault::IgnoreSupportedList) {
                        version::MODERN.clone_into(&mut asked);
                        continue;
                    }
                    if self.has(Fault::NeverFallBack) {
                        return Err(Failure::Refused(
                            "server/discover was refused (-32022) and this client does not fall back"
                                .into(),
                        ));
                    }
                    return self.handshake(version::LATEST_LEGACY).await;
                }
                Err(Failure::Closed) => return Err(Failure::Closed),
                Err(Failure::Authorization(why)) => return Err(Failure::Authorization(why)),
                Err(other) => {
                    if self.has(Fault::NeverFallBack) {
                        return Err(Failure::Refused(format!(
                            "server/discover failed ({other}) and this client does not fall back"
                        )));
                    }
                    return self.handshake(version::LATEST_LEGACY).await;
                }
            }
        }
    }

    /// The legacy handshake at `v`: `initialize`, `notifications/initialized`, and over HTTP
    /// the session's GET stream.
    pub async fn handshake(&mut self, v: &str) -> Result<(), Failure> {
        self.era = Some(Era::Legacy(v.to_owned()));
        if self.has(Fault::RequestBeforeInitialize) {
            let _ = self.request(method::TOOLS_LIST, Value::Null).await;
        }
        let params = json!({
            "protocolVersion": v,
            "capabilities": legacy_capabilities(),
            "clientInfo": {"name": "mcpspec-reference-client", "version": env!("CARGO_PKG_VERSION")},
        });
        let mut tries = 0;
        let result = loop {
            tries += 1;
            match self.request(method::INITIALIZE, params.clone()).await {
                Err(Failure::Rpc {
                    code: code::UNSUPPORTED_VERSION,
                    ..
                }) if self.has(Fault::LoopOnVersionError) && tries < LOOP_LIMIT => continue,
                other => break other?,
            }
        };
        let answered = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if !version::LEGACY.contains(&answered.as_str())
            && !self.has(Fault::AcceptUnsupportedVersion)
        {
            return Err(Failure::Refused(format!(
                "the server answered protocolVersion `{answered}`, which this client does not support"
            )));
        }
        self.era = Some(Era::Legacy(answered));
        if self.has(Fault::RequestBeforeInitialized) {
            let _ = self.request(method::TOOLS_LIST, Value::Null).await;
        }
        if !self.has(Fault::SkipInitialized) {
            let mut n = notification(method::INITIALIZED).bare();
            if self.has(Fault::NotificationWithId) {
                n = n.id(json!("initialized-1"));
            }
            self.send(n).await?;
        }
        let headers = self.legacy_headers();
        if let Some(http) = self.link.http() {
            http.open_get_stream(headers).await;
        }
        Ok(())
    }

    /// The headers of a legacy request over HTTP: the negotiated version and the session.
    fn legacy_headers(&mut self) -> Headers {
        let mut h = Headers::default();
        if let Some(Era::Legacy(v)) = &self.era {
            h.set("MCP-Protocol-Version", v.clone());
        }
        let session = self.link.http().and_then(|h| h.session_id());
        if let (Some(s), false) = (session, self.has(Fault::IgnoreSessionId)) {
            h.set("Mcp-Session-Id", s);
        }
        h
    }

    /// The headers of a modern message over HTTP (SEP-2243).
    fn modern_headers(&self, message: &Value, v: &str) -> Headers {
        let mut h = Headers::default();
        let header_version = if self.has(Fault::VersionHeaderMismatch) {
            version::LATEST_LEGACY
        } else {
            v
        };
        h.set("MCP-Protocol-Version", header_version);
        if self.has(Fault::NoMethodHeader) {
            return h;
        }
        let m = message.get("method").and_then(Value::as_str);
        if let Some(m) = m {
            h.set("Mcp-Method", m);
            let key = match m {
                method::TOOLS_CALL | method::PROMPTS_GET => Some("name"),
                method::RESOURCES_READ => Some("uri"),
                _ => None,
            };
            if let Some(name) = key
                .and_then(|k| message.pointer(&format!("/params/{k}")))
                .and_then(Value::as_str)
            {
                h.set("Mcp-Name", name);
            }
        }
        h
    }

    /// The id of the next request.
    fn take_id(&mut self) -> Value {
        if self.has(Fault::ReuseIds) {
            return json!(1);
        }
        let id = json!(self.next_id);
        self.next_id += 1;
        id
    }

    /// Builds `method` with `params` for the session's era, with `id` (a request) or without.
    fn build(&self, mut out: Outgoing, params: Value) -> Value {
        if let Value::Object(p) = params {
            out = out.params(Value::Object(p));
        }
        match &self.era {
            Some(Era::Modern(v)) => {
                let drop_meta = self.has(Fault::DropMetaAfterFirst) && self.requests_sent > 0;
                out = out
                    .version(v)
                    .meta_entry(meta::CLIENT_CAPABILITIES, modern_capabilities());
                if drop_meta {
                    out = out.no_meta();
                }
            }
            _ => out = out.bare(),
        }
        if self.has(Fault::Jsonrpc1) {
            out = out.jsonrpc(json!("1.0"));
        }
        let (bytes, _) = out.render(0, false);
        serde_json::from_slice(&bytes).unwrap_or(Value::Null)
    }

    /// Sends a built notification or reply.
    async fn send(&mut self, out: Outgoing) -> Result<(), Failure> {
        let message = self.build(out, Value::Null);
        self.send_value(&message).await
    }

    async fn send_value(&mut self, message: &Value) -> Result<(), Failure> {
        let headers = match &self.era {
            Some(Era::Modern(v)) => self.modern_headers(message, &v.clone()),
            _ => self.legacy_headers(),
        };
        self.link
            .send(message, headers)
            .await
            .map_err(|e| Failure::Http {
                status: 0,
                text: e,
                challenges: Vec::new(),
            })
    }

    /// Sends request `method` and waits for its reply; over HTTP a 404 for the session starts a
    /// new one (a new handshake) and sends the request again, once.
    pub async fn request(&mut self, m: &str, params: Value) -> Result<Value, Failure> {
        let id = self.take_id();
        self.request_with_id(m, params, id).await
    }

    async fn request_with_id(
        &mut self,
        m: &str,
        params: Value,
        id: Value,
    ) -> Result<Value, Failure> {
        let message = self.build(request(m).id(id.clone()), params.clone());
        match self.exchange(&message, &id).await {
            Err(Failure::Http { status: 404, .. })
                if matches!(self.era, Some(Era::Legacy(_)))
                    && m != method::INITIALIZE
                    && !self.has(Fault::NoReinitializeOn404) =>
            {
                if let Some(h) = self.link.http() {
                    h.forget_session();
                }
                let v = match &self.era {
                    Some(Era::Legacy(v)) => v.clone(),
                    _ => version::LATEST_LEGACY.to_owned(),
                };
                Box::pin(self.handshake(&v)).await?;
                let id = self.take_id();
                let message = self.build(request(m).id(id.clone()), params);
                self.exchange(&message, &id).await
            }
            other => other,
        }
    }

    /// Sends `message` (a request with `id`) and reads until its reply; a refusal the
    /// authorizer answers with a token sends it again.
    async fn exchange(&mut self, message: &Value, id: &Value) -> Result<Value, Failure> {
        self.used.push(id.clone());
        self.requests_sent += 1;
        loop {
            let outcome = self.exchange_once(message, id).await;
            let (
                Err(Failure::Http {
                    status: status @ (401 | 403),
                    challenges,
                    ..
                }),
                Some(authorizer),
            ) = (&outcome, self.authorizer.as_mut())
            else {
                return outcome;
            };
            match authorizer.refused(*status, challenges).await {
                Verdict::Retry(token) => {
                    let bearer = if self.faults.has(Fault::TokenInQuery) {
                        Bearer::Query(token)
                    } else {
                        Bearer::Header(token)
                    };
                    if let Some(http) = self.link.http() {
                        http.set_bearer(bearer);
                    }
                }
                Verdict::NotMine => return outcome,
                Verdict::GiveUp(why) => return Err(Failure::Authorization(why)),
            }
        }
    }

    /// Sends `message` once and reads until its reply.
    async fn exchange_once(&mut self, message: &Value, id: &Value) -> Result<Value, Failure> {
        self.send_value(message).await?;
        let deadline = Instant::now() + REPLY_WAIT;
        loop {
            match self.link.next(deadline).await {
                Incoming::Message(frame) => {
                    if let Some(reply) = self.take(*frame, id).await {
                        return reply;
                    }
                }
                Incoming::Failure {
                    status,
                    text,
                    id: Some(failed),
                    challenges,
                } if &failed == id => {
                    return Err(Failure::Http {
                        status,
                        text,
                        challenges,
                    });
                }
                Incoming::Failure { .. } => {}
                Incoming::Closed => return Err(Failure::Closed),
                Incoming::TimedOut => return Err(Failure::TimedOut),
            }
        }
    }

    /// Deals with one frame while waiting for the reply to `id`: the reply ends the wait;
    /// server requests are answered; anything else is ignored (or, under
    /// `crash-on-unexpected`, aborts the process).
    async fn take(&mut self, frame: Frame, id: &Value) -> Option<Result<Value, Failure>> {
        let crash = self.has(Fault::CrashOnUnexpected);
        match frame.parsed {
            Ok(Message::Response { id: got, result }) if &got.to_json() == id => Some(Ok(result)),
            Ok(Message::Error {
                id: Some(got),
                error,
            }) if &got.to_json() == id => Some(Err(Failure::Rpc {
                code: error.code,
                message: error.message,
                data: error.data,
            })),
            Ok(Message::Request {
                id: asked,
                method: m,
                params,
            }) => {
                self.answer(asked.to_json(), &m, params.as_ref()).await;
                None
            }
            Ok(Message::Notification { method: m, .. }) => {
                if crash
                    && !m.starts_with("notifications/message")
                    && !KNOWN_NOTIFICATIONS.contains(&m.as_str())
                {
                    std::process::abort();
                }
                None
            }
            Ok(Message::Response { id: got, .. }) => {
                if crash && !self.used.contains(&got.to_json()) {
                    std::process::abort();
                }
                None
            }
            _ => {
                if crash {
                    std::process::abort();
                }
                None
            }
        }
    }

    /// Answers a server request: ping with `{}`, the declared capabilities' requests with a
    /// result, everything else with -32601 (as the faults say otherwise).
    async fn answer(&mut self, asked: Value, m: &str, _params: Option<&Value>) {
        if self.has(Fault::IgnoreServerRequests) {
            return;
        }
        let legacy = matches!(self.era, Some(Era::Legacy(_)));
        let outcome: Result<Value, (i64, &str)> = match m {
            method::PING if self.has(Fault::PingError) => {
                Err((code::INTERNAL_ERROR, "ping failed"))
            }
            method::PING => Ok(json!({})),
            method::ROOTS_LIST | method::SAMPLING_CREATE_MESSAGE
                if legacy && self.has(Fault::ErrorOnDeclared) =>
            {
                Err((code::INTERNAL_ERROR, "the client failed"))
            }
            method::ROOTS_LIST if legacy => {
                Ok(json!({"roots": [{"uri": "file:///tmp/mcpspec", "name": "mcpspec"}]}))
            }
            method::SAMPLING_CREATE_MESSAGE if legacy => Ok(json!({
                "role": "assistant",
                "content": {"type": "text", "text": "Hello."},
                "model": "mcpspec-reference-client",
                "stopReason": "endTurn"
            })),
            method::ELICITATION_CREATE if self.has(Fault::ResultForUndeclared) => {
                Ok(json!({"action": "decline"}))
            }
            _ if self.has(Fault::UnknownMethodResult)
                && ![
                    method::ELICITATION_CREATE,
                    method::ROOTS_LIST,
                    method::SAMPLING_CREATE_MESSAGE,
                ]
                .contains(&m) =>
            {
                Ok(json!({}))
            }
            _ => Err((code::METHOD_NOT_FOUND, "method not found")),
        };
        let id = if self.has(Fault::AnswerWithWrongId) {
            json!(format!(
                "{}-wrong",
                asked
                    .as_str()
                    .map_or_else(|| asked.to_string(), str::to_owned)
            ))
        } else {
            asked
        };
        let mut reply = Map::new();
        reply.insert("jsonrpc".into(), json!("2.0"));
        reply.insert("id".into(), id);
        match outcome {
            Ok(result) => reply.insert("result".into(), result),
            Err((c, message)) => {
                reply.insert("error".into(), json!({"code": c, "message": message}))
            }
        };
        let _ = self.send_value(&Value::Object(reply)).await;
    }

    /// A request that may answer input_required: retried with the input responses and the
    /// `requestState` (as the faults say), at most [`MAX_ROUNDS`] times.
    pub async fn request_with_input(&mut self, m: &str, params: Value) -> Result<Value, Failure> {
        let mut id = self.take_id();
        let mut result = self.request_with_id(m, params.clone(), id.clone()).await?;
        for _ in 0..MAX_ROUNDS {
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let mut retry = params.clone();
            let Value::Object(p) = &mut retry else {
                return Ok(result);
            };
            if !self.has(Fault::DropInputResponses) {
                let responses: Map<String, Value> = result
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .map(|asked| {
                        asked
                            .iter()
                            .map(|(key, request)| (key.clone(), input_response(request)))
                            .collect()
                    })
                    .unwrap_or_default();
                p.insert("inputResponses".into(), Value::Object(responses));
            }
            match result.get("requestState") {
                Some(state) if self.has(Fault::MangleRequestState) => {
                    p.insert("requestState".into(), mangled(state));
                }
                Some(state) => {
                    p.insert("requestState".into(), state.clone());
                }
                None if self.has(Fault::InventRequestState) => {
                    p.insert("requestState".into(), json!("mcpspec-invented-state"));
                }
                None => {}
            }
            if !self.has(Fault::ReuseIdOnRetry) {
                id = self.take_id();
            }
            result = self.request_with_id(m, retry, id.clone()).await?;
        }
        Ok(result)
    }

    /// Ends the session: `DELETE` over HTTP (legacy), the server's input closed over stdio.
    pub async fn close(&mut self) {
        let deletes = matches!(self.era, Some(Era::Legacy(_))) && !self.has(Fault::NoDelete);
        let headers = self.legacy_headers();
        if let (Some(http), true) = (self.link.http(), deletes) {
            if http.session_id().is_some() {
                http.delete(headers).await;
            }
        }
        self.link.close().await;
    }
}

/// Notifications the client knows (under `crash-on-unexpected` any other one aborts it).
const KNOWN_NOTIFICATIONS: &[&str] = &[
    "notifications/progress",
    "notifications/cancelled",
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/updated",
];

/// The client's answer to one input request: an elicitation accepted, a sampling message,
/// its roots.
fn input_response(request: &Value) -> Value {
    match request.get("method").and_then(Value::as_str) {
        Some(method::ELICITATION_CREATE) => {
            json!({"action": "accept", "content": {"confirmed": true}})
        }
        Some(method::SAMPLING_CREATE_MESSAGE) => json!({
            "role": "assistant",
            "content": {"type": "text", "text": "Hello."},
            "model": "mcpspec-reference-client"
        }),
        Some(method::ROOTS_LIST) => json!({"roots": []}),
        _ => json!({}),
    }
}

/// `state` parsed and written again (the `mangle-request-state` fault): a JSON text loses its
/// spacing, number forms and escapes; anything else gets a character more.
fn mangled(state: &Value) -> Value {
    let text = state.as_str().unwrap_or_default();
    match serde_json::from_str::<Value>(text) {
        Ok(parsed) => Value::from(parsed.to_string()),
        Err(_) => Value::from(format!("{text} ")),
    }
}
