//! Running one case: every line sent, then a liveness probe; every reply read (bounded in time
//! and size) and judged by the [oracles](super::oracle). A case runs on a fresh connection
//! ([`run_case`]: shrinking, confirmation, replay) or on one kept across cases while the server
//! stays healthy ([`Session`]: generation, so an interpreter is not restarted per case).
//!
//! What a case obliges the server to write is worked out from the lines themselves, with the
//! harness's own codec: a request (by the raw text of its id) must be answered once, or not at
//! all if the case also cancels it; a notification or client response must not be answered;
//! an unparseable or invalid line, or a batch, may get one error (id null, or the id it
//! carried). The server's stdout must hold nothing else.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::oracle::{Oracle, Violation, allowed_error_code};
use crate::protocol::{meta, method};
use crate::target::{StartError, Target};
use crate::transport::{LineTransport, Liveness, Recv};
use crate::wire::{DecodeError, Frame, Message};

/// The id of the liveness probe (a `ping`) sent after every case.
pub const PROBE_ID: &str = "mcpspec-fuzz-probe";

/// Bounds for one case.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// How long a reply may take (after the last line heard).
    pub reply_timeout: Duration,
    /// Extra time for a fresh server's first line (measured at start-up for commands).
    pub startup_allowance: Duration,
    /// How long to keep listening once everything expected has arrived (for late duplicates).
    pub quiet: Duration,
    /// The bound on one line the server writes.
    pub max_message: usize,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            reply_timeout: Duration::from_secs(1),
            startup_allowance: Duration::ZERO,
            quiet: Duration::from_millis(5),
            max_message: crate::transport::DEFAULT_MAX_MESSAGE,
        }
    }
}

/// What one case did.
#[derive(Debug, Clone, Default)]
pub struct CaseResult {
    /// The most serious violation, if any.
    pub violation: Option<Violation>,
    /// Lines written to the server (probe and answers included).
    pub sent: usize,
    /// Lines the server wrote.
    pub received: usize,
    /// The server's last stderr lines, when it failed.
    pub stderr_tail: Vec<String>,
}

/// What the case's lines oblige the server to write.
#[derive(Debug, Default)]
struct Expected {
    required: HashMap<String, usize>,
    optional: HashMap<String, usize>,
    notifications: usize,
    /// Raw ids of requests announcing the modern era (envelope or `server/discover`).
    modern_ids: HashSet<String>,
    /// Raw ids of `initialize` requests.
    initialize_ids: HashSet<String>,
    /// Every raw id sent, valid or not.
    sent_ids: HashSet<String>,
}

const NULL: &str = "null";

fn expectations(case: &[Vec<u8>]) -> Expected {
    let mut e = Expected::default();
    let mut cancelled = Vec::new();
    for line in case {
        let frame = Frame::decode(line);
        let raw_id = frame.raw_id().map(Value::to_string);
        if let Some(id) = &raw_id {
            e.sent_ids.insert(id.clone());
        }
        match &frame.parsed {
            Ok(Message::Request {
                method: m, params, ..
            }) => {
                let id = raw_id.unwrap_or_else(|| NULL.into());
                if m == method::DISCOVER || modern_marked(params.as_ref()) {
                    e.modern_ids.insert(id.clone());
                }
                if m == method::INITIALIZE {
                    e.initialize_ids.insert(id.clone());
                }
                if m == "subscriptions/listen" {
                    // A listen request is answered when its subscription ends, which a short
                    // case never waits for: its reply is allowed, not required.
                    *e.optional.entry(id).or_default() += 1;
                    continue;
                }
                *e.required.entry(id).or_default() += 1;
            }
            Ok(Message::Notification { method: m, params }) => {
                e.notifications += 1;
                if m == method::CANCELLED {
                    if let Some(id) = params.as_ref().and_then(|p| p.get("requestId")) {
                        cancelled.push(id.to_string());
                    }
                }
            }
            // An error response with id null is valid JSON-RPC, but a server that takes it
            // for an invalid request and answers -32600 is tolerated (the reference server
            // does): that is a conformance question, not a fuzz finding.
            Ok(Message::Error { id: None, .. }) => {
                *e.optional.entry(NULL.into()).or_default() += 1;
            }
            Ok(Message::Response { .. } | Message::Error { .. }) => {}
            Ok(Message::Batch(_)) => {
                *e.optional.entry(NULL.into()).or_default() += 1;
                let items = frame.json.as_ref().and_then(Value::as_array);
                for item in items.into_iter().flatten() {
                    if let Some(id) = item.get("id").filter(|id| !id.is_null()) {
                        e.sent_ids.insert(id.to_string());
                        *e.optional.entry(id.to_string()).or_default() += 1;
                    }
                }
            }
            Err(_) => {
                *e.optional.entry(NULL.into()).or_default() += 1;
                if let Some(id) = raw_id.filter(|id| id != NULL) {
                    *e.optional.entry(id).or_default() += 1;
                }
            }
        }
    }
    // A cancelled request may go unanswered (the receiver SHOULD NOT answer it).
    for id in cancelled {
        if let Some(n) = e.required.remove(&id) {
            *e.optional.entry(id).or_default() += n;
        }
    }
    e
}

fn modern_marked(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(meta::PROTOCOL_VERSION))
}

/// What was read back.
#[derive(Debug, Default)]
struct Seen {
    replies: HashMap<String, usize>,
    violations: Vec<Violation>,
    probe_answered: bool,
    server_requests: usize,
    modern_success: bool,
    legacy_success: bool,
    closed: bool,
}

impl Seen {
    fn violation(&mut self, oracle: Oracle, detail: impl Into<String>) {
        self.violations.push(Violation {
            oracle,
            detail: detail.into(),
        });
    }
}

/// Runs one case on a fresh connection to `target` (a fresh process for a command), which
/// ends with the case.
pub async fn run_case(
    target: &Target,
    case: &[Vec<u8>],
    options: &ExecOptions,
) -> Result<CaseResult, StartError> {
    let mut transport = target.connect(options.max_message)?;
    let (result, _) = run_on(&mut transport, case, options, Waits::fresh(options)).await;
    transport.terminate(TERMINATE_WITHIN).await;
    Ok(result)
}

/// How long ending a server may take: a killed process is gone in milliseconds, but a loaded
/// machine may be slow to schedule its exit.
const TERMINATE_WITHIN: Duration = Duration::from_secs(2);

/// A connection kept from case to case while the server stays healthy: the case's own
/// probe (`ping`, sent after its lines) is the liveness check before the next case. After a
/// crash or a hang the connection is dropped (its process killed), and after a finding the
/// fuzzer restarts it; the next case starts on another. Every case shares, those that leave state behind (a legacy
/// handshake, an open listen stream) included: whatever an earlier case left can only cause a
/// violation, and a violation seen on a shared connection counts only once a fresh connection
/// reproduces it (see [`crate::fuzz::fuzz`]).
///
/// One warm spare is kept: a connection opened (a process started) before it is needed, so an
/// interpreter's start-up overlaps the cases that run meanwhile.
#[derive(Debug, Default)]
pub struct Session {
    shared: Option<LineTransport>,
    spare: Option<LineTransport>,
    /// Connections opened (server processes started, for a command), spares included.
    pub connections: u64,
}

impl Session {
    /// Runs `case` on the shared connection (the spare, or a new one, when there is none). The
    /// connection is kept while it stays healthy (its probe answered, its output open).
    pub async fn run(
        &mut self,
        target: &Target,
        case: &[Vec<u8>],
        options: &ExecOptions,
    ) -> Result<CaseResult, StartError> {
        // A server that has answered a probe is up: only a new connection's first case gets
        // the start-up allowance.
        let warm = ExecOptions {
            startup_allowance: Duration::ZERO,
            ..options.clone()
        };
        let (mut transport, options) = match self.shared.take() {
            Some(t) => (t, &warm),
            None => (self.fresh(target, options)?, options),
        };
        // Nothing waits for late extras once the case is complete: a stray reply shows up in
        // a later case, as a violation that must then recur on a fresh connection.
        let (result, healthy) = run_on(&mut transport, case, options, Waits::shared()).await;
        if healthy {
            self.shared = Some(transport);
        } else {
            transport.terminate(TERMINATE_WITHIN).await;
        }
        self.refill(target, options)?;
        Ok(result)
    }

    /// Runs `case` on a fresh connection (the warm spare), which ends with the case: how
    /// findings are confirmed and shrunk.
    pub async fn run_fresh(
        &mut self,
        target: &Target,
        case: &[Vec<u8>],
        options: &ExecOptions,
    ) -> Result<CaseResult, StartError> {
        let mut transport = self.fresh(target, options)?;
        self.refill(target, options)?;
        let (result, _) = run_on(&mut transport, case, options, Waits::fresh(options)).await;
        transport.terminate(TERMINATE_WITHIN).await;
        Ok(result)
    }

    /// Ends the shared connection: the next case starts on a fresh one.
    pub async fn restart(&mut self) {
        if let Some(mut shared) = self.shared.take() {
            shared.terminate(TERMINATE_WITHIN).await;
        }
    }

    /// Ends every connection (the shared one and the spare) and waits until their servers are
    /// gone, so none outlives the run.
    pub async fn close(&mut self) {
        self.restart().await;
        if let Some(mut spare) = self.spare.take() {
            spare.terminate(TERMINATE_WITHIN).await;
        }
    }

    fn refill(&mut self, target: &Target, options: &ExecOptions) -> Result<(), StartError> {
        if self.spare.is_none() {
            self.spare = Some(self.connect(target, options)?);
        }
        Ok(())
    }

    /// The spare, or a new connection.
    fn fresh(
        &mut self,
        target: &Target,
        options: &ExecOptions,
    ) -> Result<LineTransport, StartError> {
        match self.spare.take() {
            Some(spare) => Ok(spare),
            None => self.connect(target, options),
        }
    }

    fn connect(
        &mut self,
        target: &Target,
        options: &ExecOptions,
    ) -> Result<LineTransport, StartError> {
        self.connections += 1;
        target.connect(options.max_message)
    }
}

/// How long a case listens once its probe is answered.
#[derive(Debug, Clone, Copy)]
struct Waits {
    /// Once everything expected came: for late extras (duplicates, replies to notifications).
    quiet: Duration,
    /// While a request is still unanswered.
    unanswered: Duration,
}

impl Waits {
    /// A fresh connection: the case is judged in full here.
    fn fresh(options: &ExecOptions) -> Self {
        Waits {
            quiet: options.quiet,
            unanswered: options.reply_timeout,
        }
    }

    /// A shared connection: no quiet period, and a short wait for replies still missing once
    /// the probe came back. Whatever this misses or blames wrongly is settled on a fresh
    /// connection, where every violation is confirmed.
    fn shared() -> Self {
        Waits {
            quiet: Duration::ZERO,
            unanswered: SHARED_UNANSWERED_WAIT,
        }
    }
}

/// On a shared connection, how long a request may stay unanswered after the probe sent after
/// it was answered.
const SHARED_UNANSWERED_WAIT: Duration = Duration::from_millis(50);

/// Runs one case on `transport`: the lines, the probe, the replies judged, listening as long
/// as `waits` says. Also says whether the connection is fit for another case (open, the probe
/// answered).
async fn run_on(
    transport: &mut LineTransport,
    case: &[Vec<u8>],
    options: &ExecOptions,
    waits: Waits,
) -> (CaseResult, bool) {
    let expected = expectations(case);
    let mut outcome = CaseResult::default();
    let mut seen = Seen::default();

    let send_deadline = Instant::now() + options.reply_timeout + options.startup_allowance;
    let probe = json!({"jsonrpc": "2.0", "id": PROBE_ID, "method": method::PING}).to_string();
    for line in case.iter().map(Vec::as_slice).chain([probe.as_bytes()]) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        if transport.send(&bytes, send_deadline).await.is_err() {
            // The server died or stopped reading: the reads below tell which.
            break;
        }
        outcome.sent += 1;
    }

    let started = Instant::now();
    let hard_stop = started + 4 * options.reply_timeout + options.startup_allowance;
    let mut deadline = started + options.reply_timeout + options.startup_allowance;
    // Over HTTP each body comes after a line describing its exchange (status, the POSTed id).
    let mut http: Option<crate::wire::HttpContext> = None;
    loop {
        match transport.recv(deadline.min(hard_stop)).await {
            Recv::Line(bytes) => {
                if let Some(ctx) = bytes.strip_prefix(crate::transport::http::CONTEXT_PREFIX) {
                    http = serde_json::from_slice(ctx).ok();
                    continue;
                }
                if let Some(why) = bytes.strip_prefix(crate::transport::http::FAILURE_PREFIX) {
                    // An exchange without a JSON-RPC body. An empty 2xx is judged by the
                    // missing-reply oracles; anything else (a refused connection, an error page,
                    // a body cut short, a reply that is not HTTP) is output that is not MCP.
                    let status = http.take().map_or(0, |h| h.status);
                    if !(200..300).contains(&status) {
                        seen.violation(
                            Oracle::NonMcpOutput,
                            String::from_utf8_lossy(why).into_owned(),
                        );
                    }
                    continue;
                }
                let Some(bytes) = attribute_http(bytes, http.take()) else {
                    continue;
                };
                outcome.received += 1;
                judge_line(&bytes, &expected, &mut seen, transport, options).await;
                let complete = seen.probe_answered
                    && expected
                        .required
                        .iter()
                        .all(|(id, n)| seen.replies.get(id).copied().unwrap_or(0) >= *n);
                if complete && waits.quiet.is_zero() {
                    break;
                }
                deadline = Instant::now()
                    + if complete {
                        waits.quiet
                    } else if seen.probe_answered {
                        waits.unanswered.min(options.reply_timeout)
                    } else {
                        options.reply_timeout
                    };
            }
            Recv::Overflow { limit, .. } => seen.violation(
                Oracle::OversizedOutput,
                format!("the server wrote a line longer than {limit} bytes"),
            ),
            Recv::Closed => {
                seen.closed = true;
                break;
            }
            Recv::TimedOut => break,
        }
    }

    // Process alive? A closed output or an exit is a crash, whatever else was seen.
    let liveness = if seen.closed {
        transport.wait_exit(Duration::from_millis(500)).await
    } else {
        transport.liveness()
    };
    match liveness {
        Liveness::Exited(info) => {
            let how = crate::fuzz::take_panic_message()
                .map_or(info.how.clone(), |m| format!("{} ({m})", info.how));
            seen.violation(Oracle::Crash, format!("the server exited: {how}"));
        }
        Liveness::Running if seen.closed => {
            seen.violation(Oracle::Crash, "the server closed its output");
        }
        Liveness::Running if !seen.probe_answered => seen.violation(
            Oracle::Hang,
            format!(
                "no reply to a `ping` sent after the case within {:.1} s; the server is running",
                options.reply_timeout.as_secs_f64()
            ),
        ),
        Liveness::Running => {}
    }
    settle(&expected, &mut seen);
    if seen.violations.iter().any(|v| v.oracle == Oracle::Crash) {
        outcome.stderr_tail = transport.stderr_tail();
    }
    let healthy = !seen.closed && seen.probe_answered;
    outcome.violation = seen.violations.into_iter().min_by_key(|v| v.oracle);
    (outcome, healthy)
}

/// Applies the HTTP exchange a body came back on: a 4xx to a notification POST is the
/// transport's rejection (HTTP-3), not a JSON-RPC reply (dropped); an error body whose id is
/// null answers the POST that got it (judged with that id). Other lines are judged as written.
fn attribute_http(bytes: Vec<u8>, ctx: Option<crate::wire::HttpContext>) -> Option<Vec<u8>> {
    let Some(ctx) = ctx else { return Some(bytes) };
    if ctx.rejects_notification() {
        return None;
    }
    let Some(id) = ctx.request_id else {
        return Some(bytes);
    };
    let Ok(mut json) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Some(bytes);
    };
    if json.get("id").is_some_and(serde_json::Value::is_null) && json.get("error").is_some() {
        json["id"] = id;
        return serde_json::to_vec(&json).ok();
    }
    Some(bytes)
}

/// Judges one line the server wrote.
async fn judge_line(
    bytes: &[u8],
    expected: &Expected,
    seen: &mut Seen,
    transport: &mut LineTransport,
    options: &ExecOptions,
) {
    let frame = Frame::decode(bytes);
    match &frame.parsed {
        Err(DecodeError::NotUtf8 { .. } | DecodeError::Json { .. } | DecodeError::Empty) => {
            seen.violation(
                Oracle::NonMcpOutput,
                format!("stdout line {:?}", crate::text::shorten(&frame.text(), 120)),
            );
        }
        // Deeper than the codec parses: no violation can be judged inside it, but its id (read
        // by the shallow scan) still counts as a reply, so the oracle never blames the server for
        // a limit of mcpspec's own parser.
        Err(DecodeError::TooDeep { .. }) => {
            let id = frame.raw_id().map_or_else(|| NULL.into(), Value::to_string);
            *seen.replies.entry(id).or_default() += 1;
        }
        Err(DecodeError::IdType { .. })
            if frame
                .raw_id()
                .is_some_and(|id| expected.sent_ids.contains(&id.to_string())) =>
        {
            // The server echoed an id the harness's codec does not accept (e.g. u64::MAX),
            // as it should.
            let id = frame.raw_id().map_or_else(|| NULL.into(), Value::to_string);
            *seen.replies.entry(id).or_default() += 1;
        }
        Err(e) => seen.violation(
            Oracle::InvalidReply,
            format!("{e}: {}", crate::text::shorten(&frame.text(), 120)),
        ),
        Ok(Message::Batch(items)) => {
            let raw = frame.json.as_ref().and_then(Value::as_array);
            for (item, json) in items.iter().zip(raw.into_iter().flatten()) {
                match item {
                    Ok(m) => judge_message(m, json.get("id"), expected, seen),
                    Err(e) => seen.violation(Oracle::InvalidReply, format!("batch element: {e}")),
                }
            }
        }
        Ok(Message::Request { id, method: m, .. }) => {
            seen.server_requests += 1;
            let answer = if m == method::PING {
                json!({"jsonrpc": "2.0", "id": id.to_json(), "result": {}})
            } else {
                json!({"jsonrpc": "2.0", "id": id.to_json(),
                       "error": {"code": -32601, "message": "mcpspec fuzz answers only ping"}})
            };
            let mut line = answer.to_string().into_bytes();
            line.push(b'\n');
            let _ = transport
                .send(&line, Instant::now() + options.reply_timeout)
                .await;
        }
        Ok(message) => judge_message(message, frame.raw_id(), expected, seen),
    }
}

fn judge_message(message: &Message, raw_id: Option<&Value>, expected: &Expected, seen: &mut Seen) {
    let id = raw_id.map_or_else(|| NULL.into(), Value::to_string);
    match message {
        Message::Response { result, .. } => {
            if id == format!("{PROBE_ID:?}") {
                seen.probe_answered = true;
                return;
            }
            if expected.modern_ids.contains(&id) {
                seen.modern_success = true;
            }
            if expected.initialize_ids.contains(&id) && result.get("protocolVersion").is_some() {
                seen.legacy_success = true;
            }
            *seen.replies.entry(id).or_default() += 1;
        }
        Message::Error { error, .. } => {
            if !allowed_error_code(error.code) {
                seen.violation(
                    Oracle::BadErrorCode,
                    format!(
                        "error code {} ({:?}) in a reply to id {id}",
                        error.code, error.message
                    ),
                );
            }
            if id == format!("{PROBE_ID:?}") {
                seen.probe_answered = true;
                return;
            }
            *seen.replies.entry(id).or_default() += 1;
        }
        Message::Request { .. } => seen.server_requests += 1,
        Message::Notification { .. } | Message::Batch(_) => {}
    }
}

/// The per-id oracles, once everything has been read.
fn settle(expected: &Expected, seen: &mut Seen) {
    if seen.server_requests > 0 && seen.modern_success && !seen.legacy_success {
        seen.violation(
            Oracle::ServerRequestInModernEra,
            format!(
                "{} server->client request(s) on a connection in the modern era",
                seen.server_requests
            ),
        );
    }
    let mut ids: Vec<_> = seen.replies.iter().map(|(k, v)| (k.clone(), *v)).collect();
    ids.sort();
    for (id, got) in ids {
        let allowed = expected.required.get(&id).copied().unwrap_or(0)
            + expected.optional.get(&id).copied().unwrap_or(0);
        if got <= allowed {
            continue;
        }
        let (oracle, detail) = if id == NULL && expected.notifications > 0 {
            (
                Oracle::ReplyToNotification,
                format!(
                    "{got} replies with id null; the case had {} notification(s) and only {allowed} \
                     line(s) that could earn an id-null error",
                    expected.notifications
                ),
            )
        } else if allowed > 0 {
            (
                Oracle::DuplicateReply,
                format!("{got} replies with id {id}, which {allowed} line(s) carried"),
            )
        } else {
            (
                Oracle::UnmatchedReply,
                format!("{got} replies with id {id}, which no line carried"),
            )
        };
        seen.violation(oracle, detail);
    }
    if seen.probe_answered {
        let mut missing: Vec<_> = expected
            .required
            .iter()
            .filter(|(id, n)| seen.replies.get(*id).copied().unwrap_or(0) < **n)
            .map(|(id, _)| id.clone())
            .collect();
        if !missing.is_empty() {
            missing.sort();
            seen.violation(
                Oracle::UnansweredRequest,
                format!(
                    "no reply to the request(s) with id {} although the later probe was answered",
                    missing.join(", ")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(v: &[Value]) -> Vec<Vec<u8>> {
        v.iter().map(|m| m.to_string().into_bytes()).collect()
    }

    #[test]
    fn expectations_follow_the_lines() {
        let case = lines(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            json!({"jsonrpc": "2.0", "method": "notifications/x"}),
            json!({"jsonrpc": "1.0", "id": "a", "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "x"}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 2}}),
        ]);
        let e = expectations(&case);
        assert_eq!(e.required.get("1"), Some(&2));
        assert_eq!(e.required.get("2"), None);
        assert_eq!(e.optional.get("2"), Some(&1));
        assert_eq!(e.optional.get("\"a\""), Some(&1));
        assert_eq!(e.optional.get(NULL), Some(&1));
        assert_eq!(e.notifications, 2);
    }
}
