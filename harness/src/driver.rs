//! The scripted driver: a client that reads like a script against a peer.
//!
//! ```ignore
//! let mut peer = scenario.connect().await?;
//! let reply = peer.call(request("tools/list")).await;
//! peer.send(raw(b"{oops")).await;
//! let silence = peer.expect_silence().await;
//! ```
//!
//! Every wait is bounded; a timeout is an event in the transcript, never a hang. Server→client
//! requests are recorded and answered (ping with `{}`, anything else with -32601).
//!
//! Owns `driver/`: the peer and its verbs (`conversation.rs`), outgoing-message builders
//! (`builder.rs`), reply classification and evidence (`reply.rs`). May import the transports,
//! the wire codec, the transcript and the leaves (`protocol`, `outcome`, `text`); never a check,
//! the catalogue or the runner.

mod builder;
mod conversation;
mod fence;
pub mod lease;
mod prefix;
mod reply;
mod session;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

pub use builder::{Outgoing, notification, raw, request};
pub use conversation::Exchange;
pub use mcpspec_core::text::{preview, seconds, shorten};
pub use reply::{Reply, Unrelated};
pub use session::{Handshake, initialize_request};

use crate::outcome::Era;
use mcpspec_core::protocol::method;
use mcpspec_core::transcript::{Event, Recorder};
use mcpspec_core::transport::{LineTransport, Liveness, Recv};
use mcpspec_core::wire::{EntryRef, Frame, Message};

/// Timeouts and bounds (POL-13).
#[derive(Debug, Clone)]
pub struct Settings {
    /// How long to wait for one expected message.
    pub expect_timeout: Duration,
    /// The cap on one whole scenario.
    pub scenario_timeout: Duration,
    /// How long "nothing arrives" must hold for a silence expectation.
    pub quiet: Duration,
    /// The bound on one received message.
    pub max_message: usize,
    /// Extra time a fresh server gets for its first line (interpreters and JITs start slowly;
    /// a start-up delay is not a missing reply).
    pub startup_timeout: Duration,
    /// How long a fresh server may take to answer a first ping where readiness itself is
    /// judged (deadlock detection's "not ready" verdict).
    pub ready_timeout: Duration,
    /// What every received message is validated against (SCHEMA-1, POL-20): the generated
    /// types of its revision, or a user's `--schema` document.
    pub schema: crate::schema::Validator,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            expect_timeout: Duration::from_secs(2),
            scenario_timeout: Duration::from_secs(15),
            quiet: Duration::from_millis(150),
            max_message: mcpspec_core::transport::DEFAULT_MAX_MESSAGE,
            startup_timeout: Duration::from_secs(10),
            ready_timeout: Duration::from_secs(3),
            schema: crate::schema::Validator::default(),
        }
    }
}

/// Server→client requests kept whole per connection (more are counted, and answered up to
/// [`MAX_ANSWERED`]).
const MAX_SERVER_REQUESTS_KEPT: usize = 64;
/// Server→client requests answered per connection; past this a burst is only counted, so a
/// server that floods requests cannot keep the driver busy answering.
const MAX_ANSWERED: u64 = 256;
/// Unclaimed frames kept per connection; past this the oldest are dropped (and counted).
const MAX_BACKLOG: usize = 256;

/// One connection to the server under test.
pub struct Peer {
    transport: LineTransport,
    rec: Recorder,
    conn: u32,
    next_id: i64,
    /// Lines received but not yet claimed by an expectation.
    backlog: VecDeque<Frame>,
    /// The first server→client requests seen, in order (at most
    /// [`MAX_SERVER_REQUESTS_KEPT`]; [`Peer::server_request_count`] counts them all).
    pub server_requests: Vec<Frame>,
    server_requests_seen: u64,
    /// Unclaimed frames dropped from a full backlog.
    backlog_dropped: u64,
    /// Whether requests get the modern envelope by default.
    pub era: Era,
    /// Whether server→client requests are answered.
    pub answer_server_requests: bool,
    closed: bool,
    /// Whether the server has written anything yet (until then waits include the start-up
    /// allowance).
    heard: bool,
    /// Whether the server has answered anything on this connection (a result or an error, no
    /// `method`): only then is it known to be ready, so only then is its silence evidence
    /// (POL-24). A line it wrote on its own (a log notification at start-up) is not enough.
    answered: bool,
    /// Whether a wait for a reply by id that ran out listens on for a late reply (POL-24).
    late_grace: bool,
    /// What each request this peer sent asked (by id), so a reply is validated as its
    /// method's result under its revision (SCHEMA-1).
    asked: crate::schema::Asked,
    settings: Arc<Settings>,
    /// When the server was spawned: the start-up allowance counts from here (a warm spare
    /// spawned earlier has already had part of it).
    spawned: Instant,
    /// Where the connection goes when the peer is dropped (a shared process, POL-21).
    hand_back: Option<lease::ReturnSlot>,
    /// Ids of requests sent and not answered yet (as JSON text; bounded), for the pool.
    outstanding: Vec<String>,
    /// The server's place among the processes alive at once (POL-24), freed with the peer.
    slot: lease::Slot,
    /// The connection can no longer be handed to another check (closed, input closed or a
    /// failed write).
    broken: bool,
    /// Whether what arrives is the check's to judge: off while earlier traffic is replayed
    /// before it (POL-30), whose answers are recorded but never validated.
    judging: bool,
    /// The check ended the server on purpose (closed its input, or terminated it).
    ended_on_purpose: bool,
    /// A write to the server failed.
    write_failed: bool,
}

/// Outstanding ids kept per connection; past this the connection counts as broken.
const MAX_OUTSTANDING: usize = 1024;

impl Drop for Peer {
    fn drop(&mut self) {
        let Some(slot) = self.hand_back.take() else {
            return;
        };
        let back = lease::Returned {
            transport: std::mem::replace(&mut self.transport, LineTransport::detached()),
            at: self.spawned,
            slot: self.slot.take(),
            outstanding: std::mem::take(&mut self.outstanding),
            broken: self.broken || self.closed,
            died: (self.closed || self.write_failed) && !self.ended_on_purpose,
        };
        if let Ok(mut slot) = slot.lock() {
            *slot = Some(back);
        }
    }
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("conn", &self.conn)
            .field("era", &self.era)
            .finish_non_exhaustive()
    }
}

/// What one read produced, after the driver dealt with server→client requests.
// Short-lived and matched right away: boxing the frame would only add an allocation per line.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Incoming {
    Frame(Frame),
    Closed,
    TimedOut,
}

impl Peer {
    pub fn new(
        transport: LineTransport,
        rec: Recorder,
        conn: u32,
        era: Era,
        settings: Arc<Settings>,
    ) -> Self {
        transport.set_modern(era == Era::Modern);
        Peer {
            transport,
            rec,
            conn,
            next_id: 1,
            backlog: VecDeque::new(),
            server_requests: Vec::new(),
            server_requests_seen: 0,
            backlog_dropped: 0,
            era,
            answer_server_requests: true,
            closed: false,
            heard: false,
            answered: false,
            late_grace: true,
            asked: crate::schema::Asked::new(era == Era::Modern),
            settings,
            spawned: Instant::now(),
            hand_back: None,
            outstanding: Vec::new(),
            slot: None,
            broken: false,
            judging: true,
            ended_on_purpose: false,
            write_failed: false,
        }
    }

    /// Numbers this peer's requests from `first` on (a shared legacy session: ids are unique
    /// within a session, whichever checks share it).
    pub fn ids_from(mut self, first: i64) -> Self {
        self.next_id = first.max(1);
        self
    }

    /// The legacy revision the server serves (its probe's `initialize`): a legacy reply to a
    /// request that named no version is judged by that revision's schema (see
    /// [`crate::schema::Asked`]).
    pub fn serving_legacy(mut self, revision: Option<&str>) -> Self {
        self.asked.set_legacy_fallback(revision);
        self
    }

    /// Holds the server's place among the processes alive at once until the peer is dropped.
    pub fn holding(mut self, slot: lease::Slot) -> Self {
        self.slot = slot;
        self
    }

    /// The server was spawned at `at` (a warm spare): its start-up allowance counts from then.
    pub fn spawned_at(mut self, at: Instant) -> Self {
        self.spawned = at;
        self
    }

    /// A connection to a pooled process: handed back into `slot` when the peer is dropped.
    pub fn leased(mut self, slot: lease::ReturnSlot) -> Self {
        self.hand_back = Some(slot);
        self
    }

    /// Treats the server as up (it answered on an earlier connection): no start-up allowance.
    pub fn assume_heard(&mut self) {
        self.heard = true;
    }

    /// The transport whatever state it is in (a server that closed during a handshake: the
    /// check that takes it reads the close).
    pub fn take_transport(mut self) -> LineTransport {
        self.hand_back = None;
        std::mem::replace(&mut self.transport, LineTransport::detached())
    }

    /// The transport, for the pool to keep; `None` once the peer broke the connection.
    pub fn into_transport(mut self) -> Option<LineTransport> {
        if self.broken || self.closed {
            return None;
        }
        self.hand_back = None;
        Some(std::mem::replace(
            &mut self.transport,
            LineTransport::detached(),
        ))
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Records a remark in the transcript.
    pub fn note(&self, text: impl Into<String>) {
        self.rec
            .record(self.conn, Event::Note { text: text.into() });
    }

    /// Sends a frame; returns the id it carried (as JSON), if any. A failed write is recorded
    /// and shows up as a closed peer on the next expectation.
    pub async fn send(&mut self, out: Outgoing) -> Option<Value> {
        // Malformed input does not break a shared connection (POL-21, revised): the liveness
        // request after the check decides whether the process still serves.
        let (bytes, id) = out.render(self.next_id, self.era == Era::Modern);
        if matches!(id, Some(Value::Number(ref n)) if n.as_i64() == Some(self.next_id)) {
            self.next_id += 1;
        }
        if let Some(id) = &id {
            if self.outstanding.len() < MAX_OUTSTANDING {
                self.outstanding.push(id.to_string());
            } else {
                self.broken = true;
            }
        }
        self.send_bytes(&bytes).await;
        id
    }

    async fn send_bytes(&mut self, bytes: &[u8]) {
        let line = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let event = match serde_json::from_slice::<Value>(line) {
            Ok(message) if !line.contains(&b'\n') => {
                self.asked.sent(&message);
                Event::Send { message }
            }
            _ => Event::SendRaw {
                text: mcpspec_core::transcript::clip(&String::from_utf8_lossy(line)),
            },
        };
        self.rec.record(self.conn, event);
        let deadline = Instant::now() + self.settings.expect_timeout;
        if let Err(e) = self.transport.send(bytes, deadline).await {
            self.broken = true;
            self.write_failed = true;
            self.rec.record(
                self.conn,
                Event::SendFailed {
                    error: e.to_string(),
                },
            );
        }
    }

    /// Sends a request and waits for its reply.
    pub async fn call(&mut self, out: Outgoing) -> Reply {
        match self.send(out).await {
            Some(id) => self.expect_reply(&id).await,
            None => Reply::NoReply {
                waited: Duration::ZERO,
                unrelated: Unrelated::default(),
                fenced: None,
            },
        }
    }

    /// Sends a request and waits at most `wait` for its reply (the start-up allowance does
    /// not apply: the caller chose the bound).
    pub async fn call_within(&mut self, out: Outgoing, wait: Duration) -> Reply {
        let heard = std::mem::replace(&mut self.heard, true);
        let reply = match self.send(out).await {
            Some(id) => self.expect_reply_within(&id, wait).await,
            None => Reply::NoReply {
                waited: Duration::ZERO,
                unrelated: Unrelated::default(),
                fenced: None,
            },
        };
        self.heard = heard || reply.frame().is_some();
        reply
    }

    /// Reads the next frame, answering server→client requests on the way.
    pub async fn next(&mut self, deadline: Instant) -> Incoming {
        if let Some(f) = self.backlog.pop_front() {
            return Incoming::Frame(f);
        }
        self.read(deadline).await
    }

    async fn read(&mut self, deadline: Instant) -> Incoming {
        loop {
            if self.closed {
                return Incoming::Closed;
            }
            let mut frame = match self.transport.recv(deadline).await {
                Recv::Line(bytes) => Frame::decode_owned(bytes),
                Recv::Exchange(exchange) => exchange.into_frame(),
                Recv::Overflow { limit, head } => Frame::oversized(&head, limit),
                Recv::Closed => {
                    self.closed = true;
                    self.rec.record(self.conn, Event::Closed);
                    return Incoming::Closed;
                }
                Recv::TimedOut => return Incoming::TimedOut,
            };
            self.heard = true;
            if frame.is_reply() {
                self.answered = true;
                if let Some(id) = frame.raw_id() {
                    let id = id.to_string();
                    self.outstanding.retain(|o| *o != id);
                }
            }
            if let Ok(Message::Request { id, method: m, .. }) = &frame.parsed {
                let (id, m) = (id.clone(), m.clone());
                self.server_request(frame, &id, &m, deadline).await;
                continue;
            }
            frame.entry = self.rec.received(self.conn, &frame).map(|seq| EntryRef {
                conn: self.conn,
                seq,
            });
            self.validate(frame.json.as_ref(), frame.entry.map(|e| e.seq));
            return Incoming::Frame(frame);
        }
    }

    /// Validates a received frame against the schema of its revision (SCHEMA-1) and hands what
    /// is wrong with it to the recorder, next to the frame's transcript entry (POL-20).
    fn validate(&mut self, json: Option<&Value>, seq: Option<u32>) {
        let Some(json) = json else {
            return;
        };
        if !self.judging {
            return;
        }
        let violations = self.asked.validate(&self.settings.schema, json);
        if !violations.is_empty() {
            self.rec.schema_violations(self.conn, seq, violations);
        }
    }

    /// Records a server→client request and answers it (ping with `{}`, anything else with
    /// -32601), within the read's deadline; a burst past the bounds is only counted.
    async fn server_request(
        &mut self,
        frame: Frame,
        id: &mcpspec_core::wire::Id,
        m: &str,
        deadline: Instant,
    ) {
        self.server_requests_seen += 1;
        let seen = self.server_requests_seen;
        if self.server_requests.len() < MAX_SERVER_REQUESTS_KEPT {
            let seq = self.rec.received(self.conn, &frame);
            self.validate(frame.json.as_ref(), seq);
            self.server_requests.push(frame);
        } else if self.server_requests.len() == MAX_SERVER_REQUESTS_KEPT
            && seen == MAX_SERVER_REQUESTS_KEPT as u64 + 1
        {
            self.note(format!(
                "more than {MAX_SERVER_REQUESTS_KEPT} server→client requests: later ones are counted, not kept"
            ));
        }
        if !self.answer_server_requests || seen > MAX_ANSWERED {
            if seen == MAX_ANSWERED + 1 && self.answer_server_requests {
                self.note(format!(
                    "stopped answering server→client requests after {MAX_ANSWERED}"
                ));
            }
            return;
        }
        let mut bytes = mcpspec_core::protocol::answer_server_request(
            m == method::PING,
            &serde_json::to_vec(&id.to_json()).unwrap_or_default(),
        );
        if seen <= MAX_SERVER_REQUESTS_KEPT as u64 {
            self.rec.record(
                self.conn,
                Event::Answer {
                    message: serde_json::from_slice(&bytes).unwrap_or_default(),
                },
            );
        }
        bytes.push(b'\n');
        // A server that stops reading its input cannot hold the driver past the read's deadline.
        let write_by = deadline
            .min(Instant::now() + self.settings.expect_timeout)
            .max(Instant::now() + Duration::from_millis(50));
        if let Err(e) = self.transport.send(&bytes, write_by).await {
            self.rec.record(
                self.conn,
                Event::SendFailed {
                    error: e.to_string(),
                },
            );
        }
    }

    /// How many server→client requests arrived on this connection (kept or not).
    pub fn server_request_count(&self) -> u64 {
        self.server_requests_seen
    }

    /// Keeps an unclaimed frame for later expectations; a full backlog drops its oldest.
    fn keep(&mut self, frame: Frame) {
        if self.backlog.len() >= MAX_BACKLOG {
            self.backlog.pop_front();
            self.backlog_dropped += 1;
            if self.backlog_dropped == 1 {
                self.note(format!(
                    "more than {MAX_BACKLOG} unclaimed messages: the oldest are dropped"
                ));
            }
        }
        self.backlog.push_back(frame);
    }

    /// Waits for the reply whose `id` matches. The match is loose about the id's JSON type
    /// (`7` for `"7"`) so a check can report a wrong type instead of a timeout.
    pub async fn expect_reply(&mut self, id: &Value) -> Reply {
        self.expect_reply_within(id, self.settings.expect_timeout)
            .await
    }

    /// `wait`, plus the start-up allowance while the server has not written anything yet.
    /// Counted from the spawn: a warm spare spawned earlier has had part of it already, and
    /// never gets less than `wait`.
    fn allow_startup(&self, wait: Duration) -> Duration {
        if self.heard {
            wait
        } else {
            let since_spawn = self.spawned.elapsed();
            (wait + self.settings.startup_timeout)
                .saturating_sub(since_spawn)
                .max(wait)
        }
    }

    /// Makes sure the server is up before a check sends input that may legitimately get no
    /// reply (POL-24): a request it must answer (with anything) is sent first, for the peer's
    /// era: a modern `server/discover`, or a legacy `ping` (allowed before `initialize`).
    pub async fn warm_up(&mut self) -> Result<(), crate::outcome::Outcome> {
        let m = match self.era {
            Era::Legacy => method::PING,
            _ => method::DISCOVER,
        };
        let reply = self.call(request(m)).await;
        if reply.frame().is_some() {
            return Ok(());
        }
        Err(crate::outcome::Outcome::error(format!(
            "the server did not answer a first {m} ({}), so silence cannot be judged",
            reply.describe()
        )))
    }

    /// Turns the late-reply grace off (or back on) for this connection: for an algorithm that
    /// tells slow from stalled with its own probes (deadlock detection).
    pub fn set_late_grace(&mut self, on: bool) {
        self.late_grace = on;
    }

    /// Whether the server has answered anything on this connection yet.
    pub fn has_answered(&self) -> bool {
        self.answered
    }

    /// Called where silence (or "no reply") is about to be judged: on a stream (stdio or
    /// in-memory) whose server has answered nothing yet, silence proves nothing (it may still
    /// be starting), so the scenario remembers it and the runner makes the verdict an Error
    /// unless it is a Fail or Error already (POL-24). Checks call [`Peer::warm_up`] first.
    fn judging_silence(&self, what: &str) {
        if !self.answered && self.transport.is_stream() {
            self.rec.record_unready_silence(what.to_owned());
            self.note(format!(
                "{what} judged before the server answered anything (POL-24: no warm-up)"
            ));
        }
    }

    /// How long the driver keeps listening after a wait for a reply by id ran out (POL-24): one
    /// expected-message timeout, less if the scenario would end first (what is left of it,
    /// less one more timeout for the check to judge and finish).
    fn late_grace(&self) -> Duration {
        if !self.late_grace {
            return Duration::ZERO;
        }
        let t = self.settings.expect_timeout;
        match self.rec.ends() {
            Some(ends) => t.min(
                ends.saturating_duration_since(Instant::now())
                    .saturating_sub(t),
            ),
            None => t,
        }
    }

    pub async fn expect_reply_within(&mut self, id: &Value, wait: Duration) -> Reply {
        let reply = self.await_reply(id, wait).await;
        self.hand_over(reply)
    }

    /// Marks what a check is handed as an answer as the evidence its verdict will quote: the
    /// frame's own entry, or the timeout or close just recorded.
    fn hand_over(&self, reply: Reply) -> Reply {
        let reply = self.id_null_over_http(reply);
        let evidence = match &reply {
            Reply::Frame(_) | Reply::IdLess { .. } | Reply::Late { .. } => reply.evidence(),
            Reply::NoReply { .. } | Reply::Closed { .. } => self.rec.last_wait_end(),
        };
        self.rec.mark_judged(evidence);
        reply
    }

    /// POL-29. Over HTTP a response answers its POST whatever its body's id; when that id is
    /// null (or absent) though the request's id was readable: a 4xx rejection (decided from the
    /// headers, before the body was read) is remembered for a NonStrict verdict, and any other
    /// status is a reply whose id is wrong (RPC-3).
    fn id_null_over_http(&self, reply: Reply) -> Reply {
        let Reply::Frame(frame) = reply else {
            return reply;
        };
        let Some(http) = frame.http.as_ref() else {
            return Reply::Frame(frame);
        };
        let Some(awaited) = http.request_id.clone() else {
            return Reply::Frame(frame);
        };
        let body_id = frame
            .raw_id()
            .or(frame.envelope.as_ref().and_then(|e| e.id.as_ref()));
        let readable = mcpspec_core::wire::Id::from_json(&awaited).is_some();
        if !readable || body_id.is_some_and(|id| !id.is_null()) || !frame.is_reply() {
            return Reply::Frame(frame);
        }
        if (400..500).contains(&http.status) {
            self.rec.record_null_id(awaited.to_string(), http.status);
            self.note(format!(
                "the HTTP {} rejection of request {awaited} carries `id: null`: taken as its \
                 reply, NonStrict (POL-29: the request's id was readable)",
                http.status
            ));
            return Reply::Frame(frame);
        }
        Reply::IdLess { frame, awaited }
    }

    /// An error without an id came, and nothing else, instead of the reply to `id`: taken as
    /// its reply, whose id is wrong (POL-23).
    fn idless_reply(&self, frame: Frame, id: &Value) -> Reply {
        self.note(format!(
            "an error without an id came instead of the reply to id {id}: taken as its reply \
             (POL-23)"
        ));
        Reply::IdLess {
            frame,
            awaited: id.clone(),
        }
    }

    async fn await_reply(&mut self, id: &Value, wait: Duration) -> Reply {
        let asked = wait;
        let wait = self.allow_startup(wait);
        if let Some(pos) = self.backlog.iter().position(|f| is_reply_to(f, id)) {
            if let Some(f) = self.backlog.remove(pos) {
                return Reply::Frame(f);
            }
        }
        let started = Instant::now();
        let mut deadline = started + wait;
        let mut wait = wait;
        // Set once the wait ran out and the driver listens on for a late reply (POL-24).
        let mut grace: Option<Duration> = None;
        let mut unrelated = Unrelated::default();
        // An error without an id may answer this request (POL-23); the request's own reply may
        // still follow it, so it is held until the wait is over.
        let mut idless: Option<Frame> = None;
        loop {
            match self.read(deadline).await {
                Incoming::Frame(f) if is_reply_to(&f, id) => {
                    if let Some(held) = idless.take() {
                        self.keep(held);
                    }
                    if grace.is_some() {
                        return self.late(f, id, started.elapsed(), wait);
                    }
                    return Reply::Frame(f);
                }
                // A null, boolean or fractional id cannot be read back: an error without an id
                // is its right reply (POL-2, POL-5).
                Incoming::Frame(f)
                    if is_idless_error(&f) && mcpspec_core::wire::Id::from_json(id).is_none() =>
                {
                    return Reply::Frame(f);
                }
                Incoming::Frame(f) if idless.is_none() && is_idless_error(&f) => {
                    idless = Some(f);
                }
                Incoming::Frame(f) => {
                    unrelated.add(&f);
                    self.keep(f);
                    // The server has spoken, so it is up: the start-up allowance ends here.
                    if wait > asked && grace.is_none() {
                        wait = asked;
                        deadline = deadline.min(Instant::now() + asked);
                    }
                }
                Incoming::TimedOut => {
                    if let Some(frame) = idless {
                        return self.idless_reply(frame, id);
                    }
                    if grace.is_none() {
                        let g = self.late_grace();
                        if !g.is_zero() {
                            grace = Some(g);
                            deadline = Instant::now() + g;
                            continue;
                        }
                    }
                    let waited = wait + grace.unwrap_or_default();
                    self.rec.record(
                        self.conn,
                        Event::Timeout {
                            waited_ms: millis(waited),
                            waiting_for: format!("the reply to id {id}"),
                        },
                    );
                    self.judging_silence(&format!("no reply to id {id}"));
                    return Reply::NoReply {
                        waited,
                        unrelated,
                        fenced: None,
                    };
                }
                Incoming::Closed => return self.closed_reply().await,
            }
        }
    }

    /// A reply that came within the grace: noted in the transcript and remembered for the
    /// runner's verdict (POL-24).
    fn late(&mut self, frame: Frame, id: &Value, latency: Duration, waited: Duration) -> Reply {
        self.note(format!(
            "the reply to id {id} came late: {} ms after the wait began, past its {} wait (POL-24: slow is not silent)",
            millis(latency),
            seconds(waited)
        ));
        self.rec.record_late(mcpspec_core::transcript::Late {
            id: id.to_string(),
            latency,
            waited,
        });
        Reply::Late {
            frame,
            latency,
            waited,
        }
    }

    /// The reply for a closed output: how the server ended and the tail of its stderr.
    async fn closed_reply(&mut self) -> Reply {
        let exit = self.exit_soon().await;
        if exit.is_some() {
            self.transport
                .stderr_settled(Duration::from_millis(200))
                .await;
        }
        Reply::Closed {
            exit,
            stderr: self.stderr_tail(),
        }
    }

    /// The next frame as a [`Reply`], whatever its id (for raw input whose id the driver did not
    /// assign: nothing else is in flight, so the first line is the answer). Server
    /// notifications and requests on the way are kept for later: a message with `method` is
    /// never a reply (POL-23). On a stream the silence is fenced (see [`fence`]).
    pub async fn expect_next(&mut self) -> Reply {
        let reply = self.await_fenced(fence::Awaited::Any).await;
        self.hand_over(reply)
    }

    /// Sends a request that a server may not take for one (an invalid Request) and waits for
    /// its reply, the silence fenced on a stream (see [`fence`]).
    pub async fn call_fenced(&mut self, out: Outgoing) -> Reply {
        match self.send(out).await {
            Some(id) => {
                let reply = self.await_fenced(fence::Awaited::Id(&id)).await;
                self.hand_over(reply)
            }
            None => Reply::NoReply {
                waited: Duration::ZERO,
                unrelated: Unrelated::default(),
                fenced: None,
            },
        }
    }

    /// Expects nothing to arrive for the quiet period. Returns what arrived instead.
    pub async fn expect_silence(&mut self) -> Option<Incoming> {
        self.expect_silence_for(self.settings.quiet).await
    }

    pub async fn expect_silence_for(&mut self, quiet: Duration) -> Option<Incoming> {
        self.judging_silence("silence");
        let deadline = Instant::now() + quiet;
        match self.next(deadline).await {
            Incoming::TimedOut => {
                self.rec.record(
                    self.conn,
                    Event::Note {
                        text: format!("silent for {} ms", millis(quiet)),
                    },
                );
                None
            }
            Incoming::Frame(f) => {
                self.rec.mark_judged(reply::evidence_of(&f));
                Some(Incoming::Frame(f))
            }
            other => Some(other),
        }
    }

    /// Replies nobody asked for: the unclaimed backlog and everything that arrives within the
    /// quiet period, less server notifications and requests (POL-23: a message with `method` is
    /// never a reply, whatever it follows). HTTP 4xx rejections of notification POSTs (HTTP-3)
    /// are left in: the caller tells them apart.
    pub async fn unasked_replies(&mut self) -> Vec<Frame> {
        self.judging_silence("the absence of unasked replies");
        let mut frames = self.drain_backlog();
        let deadline = Instant::now() + self.settings.quiet;
        let mut silent = true;
        while let Incoming::Frame(f) = self.next(deadline).await {
            silent = false;
            frames.push(f);
        }
        if silent {
            self.note(format!("silent for {} ms", millis(self.settings.quiet)));
        }
        frames.retain(|f| !f.has_method());
        if let Some(first) = frames.first() {
            self.rec.mark_judged(reply::evidence_of(first));
        }
        frames
    }

    /// Frames received but not claimed yet (notifications, stray replies), and removes them.
    pub fn drain_backlog(&mut self) -> Vec<Frame> {
        self.backlog.drain(..).collect()
    }

    /// Closes the stream request `id`'s reply comes on, as an HTTP client cancels a streaming
    /// request (a listen stream, SUB-7): the exchange is dropped and its connection closed, and
    /// the transcript says so. `None`: this transport has no per-request streams (stdio, in
    /// memory), so nothing was closed; `Some(false)`: the stream had already ended.
    pub fn close_stream(&mut self, id: &Value) -> Option<bool> {
        let closed = self.transport.close_stream(id)?;
        self.note(if closed {
            format!("closed the HTTP response stream of request {id}")
        } else {
            format!("the HTTP response stream of request {id} had already ended")
        });
        Some(closed)
    }

    /// Closes the server's input (EOF on its stdin).
    pub async fn close_input(&mut self) {
        self.broken = true;
        self.ended_on_purpose = true;
        self.rec.record(self.conn, Event::CloseInput);
        self.transport.close_input().await;
    }

    /// Waits up to `within` for the server to exit; records the exit.
    pub async fn wait_exit(&mut self, within: Duration) -> Liveness {
        let l = self.transport.wait_exit(within).await;
        if let Liveness::Exited(info) = &l {
            self.rec.record(
                self.conn,
                Event::Exit {
                    how: info.how.clone(),
                },
            );
        }
        l
    }

    /// Ends the server on purpose (an instance lost mid-flow) and waits until it is gone;
    /// records how it ended.
    pub async fn terminate(&mut self, within: Duration) -> Liveness {
        self.broken = true;
        self.ended_on_purpose = true;
        self.transport.terminate(within).await;
        let l = self.transport.liveness();
        let how = match &l {
            Liveness::Exited(info) => format!("stopped by mcpspec: {}", info.how),
            Liveness::Running => "stopped by mcpspec".to_owned(),
        };
        self.rec.record(self.conn, Event::Exit { how });
        l
    }

    /// After the output closed: how the server ended, if it did so promptly.
    async fn exit_soon(&mut self) -> Option<String> {
        match self.wait_exit(Duration::from_millis(500)).await {
            Liveness::Exited(info) => Some(info.how),
            Liveness::Running => None,
        }
    }

    pub fn stderr_tail(&self) -> Vec<String> {
        self.transport.stderr_tail()
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// An error reply whose `id` is missing or null (POL-23: it answers the request that could not be
/// read just before it).
fn is_idless_error(frame: &Frame) -> bool {
    frame.is_reply()
        && frame
            .json
            .as_ref()
            .is_some_and(|j| j.get("error").is_some() && j.get("id").is_none_or(Value::is_null))
}

/// Whether `frame` answers the request with `id`: a frame without `method` (POL-23) whose `id`
/// equals it, or equals it up to the JSON type (a number for a numeric string and the other way
/// round). Frames that could not be parsed whole match by the id a shallow scan read (a reply
/// too deep, not UTF-8 or over the bound is a reply mcpspec could not read, not "no reply").
fn is_reply_to(frame: &Frame, id: &Value) -> bool {
    // Over HTTP the response to a POST answers that POST, even when its body's id is null.
    let answers_post = frame
        .http
        .as_ref()
        .is_some_and(|h| h.request_id.as_ref() == Some(id));
    if frame.has_method() {
        return false;
    }
    let Some(got) = frame.raw_id() else {
        return answers_post;
    };
    if got.is_null() && answers_post {
        return true;
    }
    if got == id {
        return true;
    }
    match (got, id) {
        (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n)) => {
            n.to_string() == *s
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
