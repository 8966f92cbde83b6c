//! The transcript: every event of a scenario, in order, numbered (never timestamped), so two
//! runs against the same server give the same transcript and it can be snapshot-tested.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;

use crate::wire::Frame;

/// One recorded event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub seq: u32,
    /// Which connection of the scenario (1-based); checks that respawn use several.
    pub conn: u32,
    #[serde(flatten)]
    pub event: Event,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    /// A connection (a process or in-memory server) was started.
    Connect { target: String },
    /// A JSON message sent.
    Send { message: Value },
    /// Bytes sent as they are (malformed input).
    SendRaw { text: String },
    /// A JSON-RPC message received (over HTTP: with the response status).
    Recv {
        message: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
    },
    /// A line received that is not a valid JSON-RPC message.
    RecvInvalid {
        text: String,
        error: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
    },
    /// The harness answered a server→client request.
    Answer { message: Value },
    /// Nothing arrived within the wait.
    Timeout { waited_ms: u64, waiting_for: String },
    /// A received line exceeded the size bound.
    Overflow { limit: usize },
    /// The server closed its output.
    Closed,
    /// The harness closed the server's input.
    CloseInput,
    /// The server process (or task) ended.
    Exit { how: String },
    /// The harness could not send.
    SendFailed { error: String },
    /// A remark by the check.
    Note { text: String },
}

/// A shared, append-only transcript for one scenario.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<Entry>>>);

impl Recorder {
    pub fn record(&self, conn: u32, event: Event) {
        if let Ok(mut entries) = self.0.lock() {
            let seq = u32::try_from(entries.len())
                .unwrap_or(u32::MAX)
                .saturating_add(1);
            entries.push(Entry { seq, conn, event });
        }
    }

    pub fn received(&self, conn: u32, frame: &Frame) {
        let http_status = frame.http.as_ref().map(|h| h.status);
        let event = match (&frame.parsed, &frame.json) {
            (Ok(_), Some(json)) => Event::Recv {
                message: json.clone(),
                http_status,
            },
            (Err(e), _) => Event::RecvInvalid {
                text: clip(&frame.text()),
                error: e.to_string(),
                http_status,
            },
            (Ok(_), None) => Event::RecvInvalid {
                text: clip(&frame.text()),
                error: "?".into(),
                http_status,
            },
        };
        self.record(conn, event);
    }

    pub fn entries(&self) -> Vec<Entry> {
        self.0.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

/// Keeps transcripts readable when a server sends something huge.
pub fn clip(text: &str) -> String {
    const MAX: usize = 2000;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], text.len())
}
