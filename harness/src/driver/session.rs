//! Legacy sessions shared per negotiated version (POL-21): the handshake a session begins with,
//! done once and recorded, and handed to every check that shares the session.
//!
//! ```text
//!  begin_session(v):  initialize(v) ─ result ─ quiet period (server→client requests before
//!                     `initialized` are noted) ─ notifications/initialized ─ ping ─ quiet period
//!                     (replies nothing asked for are noted)        => Handshake { entries, … }
//!  adopt_handshake:   the recorded entries written again into the sharing check's transcript;
//!                     the initialize reply validated (SCHEMA-1) and handed over as the check's
//!                     own Reply, its evidence pointing at the copy
//! ```
//!
//! The checks that judge the handshake's result, what came before `initialized` and what
//! answered it read the one handshake of their session instead of making their own.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Outgoing, Peer, Reply, notification, request};
use mcpspec_core::protocol::method;
use mcpspec_core::transcript::Entry;
use mcpspec_core::wire::EntryRef;

/// The legacy `initialize` request at `version` (no modern envelope).
pub fn initialize_request(version: &str, client_name: &str) -> Outgoing {
    request(method::INITIALIZE)
        .bare()
        .param("protocolVersion", json!(version))
        .param("capabilities", json!({}))
        .param(
            "clientInfo",
            json!({"name": client_name, "version": env!("CARGO_PKG_VERSION")}),
        )
}

/// How a legacy session began, as recorded then.
#[derive(Debug, Clone)]
pub struct Handshake {
    /// The version `initialize` asked for (sessions are shared by it).
    pub asked: String,
    /// The `initialize` request as sent.
    pub request: Value,
    /// Its reply.
    pub reply: Reply,
    /// Server→client requests (other than `ping` and log messages) before
    /// `notifications/initialized` was sent (LEG-3): their methods.
    pub early_requests: Vec<String>,
    /// Replies nothing asked for after `notifications/initialized`, ordered by a ping round
    /// trip (LEG-3: a notification gets no reply): their text.
    pub stray_replies: Vec<String>,
    /// The ids of the server→client requests that came during the handshake (LEG-14: unique
    /// within the session), in order.
    pub server_request_ids: Vec<Value>,
    /// Every event of the handshake, as recorded.
    pub entries: Vec<Entry>,
}

impl Handshake {
    /// Whether `initialize` got a result, so the session can serve requests.
    pub fn began(&self) -> bool {
        self.reply.result().is_some()
    }
}

impl Peer {
    /// Begins a legacy session at `version` on this (new) connection and records how; the
    /// peer's recorder holds the handshake's events, which [`Handshake::entries`] copies.
    pub async fn begin_session(&mut self, version: &str) -> Handshake {
        let out = initialize_request(version, "mcpspec");
        let (bytes, _) = out.render(self.next_id, false);
        let sent = serde_json::from_slice(bytes.strip_suffix(b"\n").unwrap_or(&bytes))
            .unwrap_or(Value::Null);
        let reply = self.call(out).await;
        let mut handshake = Handshake {
            asked: version.to_owned(),
            request: sent,
            reply,
            early_requests: Vec::new(),
            stray_replies: Vec::new(),
            server_request_ids: Vec::new(),
            entries: Vec::new(),
        };
        if handshake.began() {
            let _ = self.expect_silence().await;
            handshake.early_requests = self
                .server_requests
                .iter()
                .filter_map(|f| f.parsed.as_ref().ok()?.method().map(str::to_owned))
                .filter(|m| m != method::PING && m != method::MESSAGE)
                .collect();
            self.send(notification(method::INITIALIZED)).await;
            // A ping round trip after `initialized` orders any reply to it before the ping's.
            let _ = self.call(request(method::PING)).await;
            handshake.stray_replies = self
                .unasked_replies()
                .await
                .iter()
                .map(mcpspec_core::wire::Frame::text)
                .collect();
        }
        handshake.server_request_ids = self
            .server_requests
            .iter()
            .map(|f| f.raw_id().cloned().unwrap_or(Value::Null))
            .collect();
        handshake.entries = self.rec.entries();
        handshake
    }

    /// Writes `handshake`'s events into this peer's transcript, marked as the shared session's
    /// own, and takes its `initialize` reply as this peer's: validated against the schema of
    /// its revision (which the session now speaks) and returned with its evidence pointing at
    /// the copy.
    pub fn adopt_handshake(&mut self, handshake: &Handshake) -> Reply {
        self.note(format!(
            "the legacy session this check shares (POL-21): its handshake at {}, as recorded \
             when the session began",
            handshake.asked
        ));
        let mut moved = BTreeMap::new();
        for entry in &handshake.entries {
            if let Some(seq) = self.rec.record(self.conn, entry.event.clone()) {
                moved.insert(entry.seq, seq);
            }
        }
        self.note("the session's handshake ends: the check begins");
        self.asked.sent(&handshake.request);
        let mut reply = handshake.reply.clone();
        if let Reply::Frame(frame) | Reply::Late { frame, .. } = &mut reply {
            frame.entry = frame
                .entry
                .and_then(|at| moved.get(&at.seq))
                .map(|&seq| EntryRef {
                    conn: self.conn,
                    seq,
                });
            if let Some(json) = frame.json.clone() {
                self.validate(Some(&json), frame.entry.map(|e| e.seq));
            }
            // The process answered the session's handshake: it is up (POL-24), and this
            // check's silences are judged without a start-up allowance.
            self.heard = true;
            self.answered = true;
        }
        self.rec.mark_judged(reply.evidence());
        reply
    }
}
