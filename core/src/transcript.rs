//! The transcript: every event of a scenario, in order, numbered, so two runs against the same
//! server give the same transcript and it can be snapshot-tested. Each entry also carries its
//! time offset (`at_ms`, for the HTML report's conversation view); snapshots leave it out.

mod prefix;

pub use prefix::Prefix;

use std::fmt;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::wire::Frame;

/// One recorded event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub seq: u32,
    /// Which connection of the scenario (1-based); checks that respawn use several.
    pub conn: u32,
    /// Milliseconds since the scenario's first event: when it happened (volatile; the one
    /// field that differs between two runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
    /// With several instances of the server (POL-22): the instance the connection goes to
    /// (A, B, C, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    #[serde(flatten)]
    pub event: Event,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// A message too large to keep whole in the transcript: its size and first bytes.
    RecvLarge {
        bytes: usize,
        text: String,
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
    /// The received message of entry `entry` breaks the schema of its revision (SCHEMA-1,
    /// POL-20): each violation with its method, JSON pointer, expected and actual.
    SchemaViolations {
        #[serde(skip_serializing_if = "Option::is_none")]
        entry: Option<u32>,
        violations: Vec<Violation>,
    },
    /// The transcript's budget ran out: this many later events (mostly received messages)
    /// were counted but not kept.
    Dropped { events: u64, bytes: u64 },
}

/// A shared, append-only transcript for one scenario. Bounded whatever the server sends: past
/// [`MAX_KEPT_BYTES`] of received text or [`MAX_KEPT_ENTRIES`] entries, messages are counted
/// instead of kept, and the count closes the transcript as one [`Event::Dropped`].
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Log>>);

#[derive(Debug, Default)]
struct Log {
    entries: Vec<Entry>,
    kept_bytes: usize,
    dropped_events: u64,
    dropped_bytes: u64,
    /// The run's budget, shared by every transcript of the run.
    run_budget: Option<Arc<RunBudget>>,
    /// The last message (or timeout, or close) handed to the check as the answer it waited
    /// for: what a verdict is most likely about.
    judged: Option<Evidence>,
    /// Replies that came after their wait's deadline, within the grace (POL-24).
    late: Vec<Late>,
    /// HTTP rejections (4xx) whose JSON-RPC error had `id: null` though the request's id was
    /// readable (POL-29): the id awaited and the status, the first few.
    null_ids: Vec<(String, u16)>,
    /// The first time silence (or "no reply") was judged on a stream whose server had not
    /// answered anything yet: what was waited for (POL-24).
    unready_silence: Option<String>,
    /// When the scenario ends (its cap); the late-reply grace stops short of it.
    ends: Option<tokio::time::Instant>,
    /// The schema violations of received messages (SCHEMA-1), with the entry of each message.
    schema: Vec<SchemaFinding>,
    /// When the first event was recorded: entries' `at_ms` count from here.
    started: Option<std::time::Instant>,
    /// The instance each connection goes to, when the check uses several (POL-22).
    instances: std::collections::BTreeMap<u32, String>,
}

/// The schema violations of one received message and where it is in the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFinding {
    /// The message's entry (its evidence), when it was kept.
    pub evidence: Option<Evidence>,
    pub violations: Vec<Violation>,
}

/// The schema findings one scenario keeps (more are counted by the first ones' presence).
const MAX_SCHEMA_FINDINGS: usize = 64;

/// A reply that came after its wait's deadline but before the check ended (POL-24).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Late {
    /// The id it answered, as JSON text.
    pub id: String,
    /// From the start of the wait to its arrival.
    pub latency: std::time::Duration,
    /// The wait it missed.
    pub waited: std::time::Duration,
}

/// The memory one transcript's kept messages may hold, as [`held_bytes`] estimates it: a
/// budget of text alone let a flood of small notifications (a parsed message holds five to ten
/// times its text) take ~1.6 MiB per check.
pub const MAX_KEPT_BYTES: usize = 512 * 1024;
/// The most entries one transcript keeps.
pub const MAX_KEPT_ENTRIES: usize = 1000;

/// Memory all the transcripts of one run may hold together (as [`held_bytes`] estimates it): a
/// server that floods every check cannot make a run hold 177 full transcripts.
#[derive(Debug)]
pub struct RunBudget {
    left: std::sync::atomic::AtomicUsize,
}

impl RunBudget {
    /// The default for one run: ten times what the reference server's whole catalogue holds
    /// (320 KB of received text, ~1.5 MiB held).
    pub const DEFAULT: usize = 16 * 1024 * 1024;

    pub fn new(bytes: usize) -> Arc<Self> {
        Arc::new(RunBudget {
            left: std::sync::atomic::AtomicUsize::new(bytes),
        })
    }

    /// Takes `n` bytes if they are left.
    fn take(&self, n: usize) -> bool {
        use std::sync::atomic::Ordering;
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }
}
/// A received message larger than this is kept as its size and first bytes only.
pub const MAX_MESSAGE_KEPT: usize = 64 * 1024;

/// What carried a message that breaks its schema, and so is the finding's evidence.
#[derive(Debug, Clone, Copy)]
enum Carrier {
    /// The received message of this entry (`None`: it has no entry).
    Entry(Option<u32>),
    /// A raw exchange's message, noted last with [`Recorder::note_judged`].
    LastJudged,
}

impl Recorder {
    /// A recorder that also draws on the run's shared budget.
    pub fn with_run_budget(budget: Arc<RunBudget>) -> Self {
        Recorder(Arc::new(Mutex::new(Log {
            run_budget: Some(budget),
            ..Log::default()
        })))
    }

    /// Records an event; returns its `seq`, or `None` when the budget made it only counted.
    pub fn record(&self, conn: u32, event: Event) -> Option<u32> {
        let held = held_by_event(&event);
        self.record_sized(conn, event, Sized { text: 64, held }, false)
    }

    /// Records a note about a received message (one drained after its check): kept like a
    /// received message, within the budgets, so a flood drained note by note stays bounded.
    pub fn record_about_received(&self, conn: u32, text: String) -> Option<u32> {
        let size = Sized {
            text: text.len(),
            held: block(text.len()) + std::mem::size_of::<Entry>(),
        };
        self.record_sized(conn, Event::Note { text }, size, true)
    }

    /// Names the instance connection `conn` goes to: every later entry of it carries the name.
    pub fn set_instance(&self, conn: u32, instance: String) {
        if let Ok(mut log) = self.0.lock() {
            log.instances.insert(conn, instance);
        }
    }

    /// Remembers a late reply (the runner turns the check's verdict NonStrict, POL-24).
    pub fn record_late(&self, late: Late) {
        if let Ok(mut log) = self.0.lock() {
            log.late.push(late);
        }
    }

    /// The late replies of this scenario, in order.
    pub fn lates(&self) -> Vec<Late> {
        self.0.lock().map(|l| l.late.clone()).unwrap_or_default()
    }

    /// Remembers an HTTP rejection whose error had `id: null` for a readable request id (the
    /// runner turns the check's verdict NonStrict, POL-29).
    pub fn record_null_id(&self, id: String, status: u16) {
        if let Ok(mut log) = self.0.lock() {
            if log.null_ids.len() < 8 {
                log.null_ids.push((id, status));
            }
        }
    }

    /// The POL-29 rejections of this scenario: the awaited id and the HTTP status of each.
    pub fn null_ids(&self) -> Vec<(String, u16)> {
        self.0
            .lock()
            .map(|l| l.null_ids.clone())
            .unwrap_or_default()
    }

    /// Remembers that silence was judged before the server answered anything (the first time
    /// only).
    pub fn record_unready_silence(&self, what: String) {
        if let Ok(mut log) = self.0.lock() {
            log.unready_silence.get_or_insert(what);
        }
    }

    pub fn unready_silence(&self) -> Option<String> {
        self.0.lock().ok().and_then(|l| l.unready_silence.clone())
    }

    /// Sets when the scenario ends.
    pub fn set_ends(&self, ends: tokio::time::Instant) {
        if let Ok(mut log) = self.0.lock() {
            log.ends = Some(ends);
        }
    }

    pub fn ends(&self) -> Option<tokio::time::Instant> {
        self.0.lock().ok().and_then(|l| l.ends)
    }

    /// Records an event of `size`; a message (or a note `about_received` one) over the budget
    /// is only counted.
    fn record_sized(
        &self,
        conn: u32,
        event: Event,
        size: Sized,
        about_received: bool,
    ) -> Option<u32> {
        let Ok(mut log) = self.0.lock() else {
            return None;
        };
        let is_message = about_received
            || matches!(
                event,
                Event::Recv { .. }
                    | Event::RecvLarge { .. }
                    | Event::RecvInvalid { .. }
                    | Event::Answer { .. }
            );
        let over_budget = log.kept_bytes + size.held > MAX_KEPT_BYTES
            || log.entries.len() >= MAX_KEPT_ENTRIES
            || (is_message && log.run_budget.as_ref().is_some_and(|b| !b.take(size.held)));
        // Control events (timeouts, exits, notes) are kept a while longer than messages, so a
        // flood cannot hide how the scenario ended.
        if (is_message && over_budget) || log.entries.len() >= 2 * MAX_KEPT_ENTRIES {
            log.dropped_events += 1;
            log.dropped_bytes += size.text as u64;
            return None;
        }
        log.kept_bytes += size.held;
        let seq = u32::try_from(log.entries.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        // Something new was sent: what the check judges from here on is its answer, not an
        // earlier one.
        if matches!(event, Event::Send { .. } | Event::SendRaw { .. }) {
            log.judged = None;
        }
        let started = *log.started.get_or_insert_with(std::time::Instant::now);
        let at_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let instance = log.instances.get(&conn).cloned();
        log.entries.push(Entry {
            seq,
            conn,
            at_ms: Some(at_ms),
            instance,
            event,
        });
        Some(seq)
    }

    /// Marks `evidence` as the answer handed to the check (see [`Recorder::evidence`]).
    pub fn mark_judged(&self, evidence: Option<Evidence>) {
        if let (Some(evidence), Ok(mut log)) = (evidence, self.0.lock()) {
            log.judged = Some(evidence);
        }
    }

    /// The last entry recorded, as evidence (a note just recorded).
    pub fn last_entry(&self) -> Option<Evidence> {
        self.0.lock().ok()?.entries.last().map(Evidence::of)
    }

    /// The last timeout or close recorded, as evidence (what a missing reply points at).
    pub fn last_wait_end(&self) -> Option<Evidence> {
        self.0
            .lock()
            .ok()?
            .entries
            .iter()
            .rev()
            .find(|e| matches!(e.event, Event::Timeout { .. } | Event::Closed))
            .map(Evidence::of)
    }

    /// Evidence for a verdict: what was last handed to the check as an answer since it last
    /// sent something; else what came after that last send (the last message, or a timeout or
    /// close); else the send itself, which nothing answered.
    pub fn evidence(&self) -> Option<Evidence> {
        let log = self.0.lock().ok()?;
        if let Some(judged) = &log.judged {
            return Some(judged.clone());
        }
        let since_send = log
            .entries
            .iter()
            .rposition(|e| matches!(e.event, Event::Send { .. } | Event::SendRaw { .. }));
        let after = &log.entries[since_send.map_or(0, |i| i + 1)..];
        let found = |pick: fn(&Event) -> bool| after.iter().rev().find(|e| pick(&e.event));
        if let Some(e) = found(|e| {
            matches!(
                e,
                Event::Recv { .. } | Event::RecvLarge { .. } | Event::RecvInvalid { .. }
            )
        })
        .or_else(|| found(|e| matches!(e, Event::Timeout { .. } | Event::Closed)))
        {
            return Some(Evidence::of(e));
        }
        let sent = &log.entries[since_send?];
        let mut evidence = Evidence::of(sent);
        evidence.quote = format!("nothing came back to {}", evidence.quote);
        Some(evidence)
    }

    /// Records a note that a verdict judges, quoting `quote` as its evidence (an HTTP exchange
    /// a check made itself: the note holds the request too, the quote only the response).
    pub fn note_judged(&self, conn: u32, text: String, quote: &str) {
        if let Some(seq) = self.record(conn, Event::Note { text }) {
            self.mark_judged(Some(Evidence {
                entry: seq,
                conn,
                instance: None,
                quote: crate::text::shorten(quote, EVIDENCE_BYTES),
            }));
        }
    }

    /// Records that the received message of entry `seq` breaks its schema: the transcript marks
    /// it with an [`Event::SchemaViolations`] entry, and the runner makes the check a Fail
    /// (POL-20).
    pub fn schema_violations(&self, conn: u32, seq: Option<u32>, violations: Vec<Violation>) {
        self.schema_violations_of(conn, Carrier::Entry(seq), violations);
    }

    /// Records that a message received outside the driver (a raw HTTP exchange, which has no
    /// entry of its own) breaks its schema; the evidence is the exchange noted as judged just
    /// before (see [`Recorder::note_judged`]), the one that carried it.
    pub fn raw_schema_violations(&self, conn: u32, violations: Vec<Violation>) {
        self.schema_violations_of(conn, Carrier::LastJudged, violations);
    }

    fn schema_violations_of(&self, conn: u32, carrier: Carrier, violations: Vec<Violation>) {
        let seq = match carrier {
            Carrier::Entry(seq) => seq,
            Carrier::LastJudged => None,
        };
        {
            let Ok(mut log) = self.0.lock() else {
                return;
            };
            if log.schema.len() >= MAX_SCHEMA_FINDINGS {
                return;
            }
            let evidence = match carrier {
                Carrier::Entry(seq) => seq
                    .and_then(|seq| log.entries.iter().find(|e| e.seq == seq))
                    .map(Evidence::of),
                Carrier::LastJudged => log.judged.clone(),
            };
            log.schema.push(SchemaFinding {
                evidence,
                violations: violations.clone(),
            });
        }
        self.record(
            conn,
            Event::SchemaViolations {
                entry: seq,
                violations,
            },
        );
    }

    /// Takes the schema findings recorded so far: a check that judges them itself (the
    /// `schema/*` family) reports them in its own verdict, so the runner does not repeat them.
    pub fn take_schema_findings(&self) -> Vec<SchemaFinding> {
        self.0
            .lock()
            .map(|mut l| std::mem::take(&mut l.schema))
            .unwrap_or_default()
    }

    /// The schema findings of this scenario, in order.
    pub fn schema_findings(&self) -> Vec<SchemaFinding> {
        self.0.lock().map(|l| l.schema.clone()).unwrap_or_default()
    }

    /// Records a received frame; returns its `seq` when kept.
    pub fn received(&self, conn: u32, frame: &Frame) -> Option<u32> {
        let http_status = frame.http.as_ref().map(|h| h.status);
        let event = match (&frame.parsed, &frame.json) {
            (Ok(_), Some(_)) if frame.raw.len() > MAX_MESSAGE_KEPT => Event::RecvLarge {
                bytes: frame.raw.len(),
                text: clip(&frame.text()),
                http_status,
            },
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
        let held = held_by_event(&event);
        let text = frame.raw.len().min(MAX_MESSAGE_KEPT);
        self.record_sized(conn, event, Sized { text, held }, false)
    }

    /// The entries, closed by the count of what was dropped, if anything was.
    pub fn entries(&self) -> Vec<Entry> {
        let Ok(log) = self.0.lock() else {
            return Vec::new();
        };
        let mut entries = log.entries.clone();
        if log.dropped_events > 0 {
            let seq = u32::try_from(entries.len())
                .unwrap_or(u32::MAX)
                .saturating_add(1);
            entries.push(Entry {
                seq,
                conn: entries.last().map_or(1, |e| e.conn),
                at_ms: entries.last().and_then(|e| e.at_ms),
                instance: None,
                event: Event::Dropped {
                    events: log.dropped_events,
                    bytes: log.dropped_bytes,
                },
            });
        }
        entries
    }
}

/// What one event weighs against the budgets.
#[derive(Debug, Clone, Copy)]
struct Sized {
    /// Its text as received (what [`Event::Dropped`] counts).
    text: usize,
    /// The memory its entry holds (what the budgets count).
    held: usize,
}

/// The memory an entry holding `event` takes, estimated from glibc's allocation sizes: the
/// entry itself, and every heap block of its strings and parsed JSON.
fn held_by_event(event: &Event) -> usize {
    let heap = match event {
        Event::Send { message } | Event::Recv { message, .. } | Event::Answer { message } => {
            held_bytes(message)
        }
        Event::SendRaw { text }
        | Event::RecvLarge { text, .. }
        | Event::Note { text }
        | Event::Connect { target: text }
        | Event::Exit { how: text }
        | Event::SendFailed { error: text } => block(text.len()),
        Event::RecvInvalid { text, error, .. } => block(text.len()) + block(error.len()),
        Event::Timeout { waiting_for, .. } => block(waiting_for.len()),
        Event::SchemaViolations { violations, .. } => violations.len() * 4 * block(EVIDENCE_BYTES),
        Event::Overflow { .. } | Event::Closed | Event::CloseInput | Event::Dropped { .. } => 0,
    };
    std::mem::size_of::<Entry>() + heap
}

/// The heap memory a parsed JSON value holds (its own `Value` is counted by its parent):
/// strings one block each; arrays one block of values; objects (an `IndexMap`) a block of
/// entries and a block of hash indices, and each key a string.
pub fn held_bytes(value: &Value) -> usize {
    const VALUE: usize = std::mem::size_of::<Value>();
    // An IndexMap entry: the hash, the key, the value.
    const BUCKET: usize = 8 + std::mem::size_of::<String>() + VALUE;
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        Value::String(s) => block(s.len()),
        Value::Array(items) => {
            block(items.len() * VALUE) + items.iter().map(held_bytes).sum::<usize>()
        }
        Value::Object(map) => {
            let slots = map.len().next_power_of_two().max(4);
            block(map.len() * BUCKET)
                + block(slots * 9 + 16)
                + map
                    .iter()
                    .map(|(k, v)| block(k.len()) + held_bytes(v))
                    .sum::<usize>()
        }
    }
}

/// A heap block for `n` bytes: glibc's smallest chunk is 32 bytes, and each carries 8 bytes of
/// header rounded to 16.
fn block(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (n + 8).div_ceil(16).max(2) * 16
    }
}

/// The bytes of evidence a verdict quotes.
pub const EVIDENCE_BYTES: usize = 200;

/// Where a verdict's evidence is: a transcript entry and its first bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The entry's `seq` in the check's transcript.
    pub entry: u32,
    /// The connection it was on (1-based).
    pub conn: u32,
    /// The instance the connection went to, when the check used several (POL-22).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The message's first bytes, or what happened instead of a message.
    pub quote: String,
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "transcript entry {} (connection {}",
            self.entry, self.conn
        )?;
        if let Some(instance) = &self.instance {
            write!(f, ", instance {instance}")?;
        }
        write!(f, "): {}", self.quote)
    }
}

impl Evidence {
    /// What `entry` shows, quoted: a message's first [`EVIDENCE_BYTES`] bytes, or what
    /// happened instead (a timeout, a close, an HTTP exchange's note).
    pub fn of(entry: &Entry) -> Evidence {
        let quote = match &entry.event {
            Event::Recv { message, .. } => crate::text::preview(message, EVIDENCE_BYTES),
            Event::RecvLarge { text, .. } | Event::RecvInvalid { text, .. } => {
                crate::text::shorten(text, EVIDENCE_BYTES)
            }
            Event::Timeout {
                waited_ms,
                waiting_for,
            } => format!("nothing: waited {waited_ms} ms for {waiting_for}"),
            Event::Closed => "the server closed its output".into(),
            Event::Note { text } => crate::text::shorten(text, EVIDENCE_BYTES),
            Event::SchemaViolations { violations, .. } => crate::text::shorten(
                &violations
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; "),
                EVIDENCE_BYTES,
            ),
            Event::Send { message } | Event::Answer { message } => {
                crate::text::preview(message, EVIDENCE_BYTES)
            }
            Event::SendRaw { text } => crate::text::shorten(text, EVIDENCE_BYTES),
            other => crate::text::shorten(
                &serde_json::to_string(other).unwrap_or_default(),
                EVIDENCE_BYTES,
            ),
        };
        Evidence {
            entry: entry.seq,
            conn: entry.conn,
            instance: entry.instance.clone(),
            quote,
        }
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

/// One way a message breaks its schema (POL-20: method, JSON pointer, expected, actual).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The method and the kind of message (`tools/list result`).
    pub method: String,
    /// Where in the message body (the `result`, `error` or `params` member): a JSON pointer.
    pub pointer: String,
    /// What the schema expects there.
    pub expected: String,
    /// What came.
    pub actual: String,
    /// The revision whose schema it was judged against (set by [`Validator::validate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{} at {at}: expected {}, got {}",
            self.method, self.expected, self.actual
        )?;
        match &self.revision {
            Some(revision) => write!(f, " (schema {revision})"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod evidence_tests {
    use super::*;

    fn recv(rec: &Recorder, message: Value) {
        rec.record(
            1,
            Event::Recv {
                message,
                http_status: None,
            },
        );
    }

    #[test]
    fn a_send_nothing_answered_is_the_evidence_not_an_earlier_reply() {
        let rec = Recorder::default();
        rec.record(
            1,
            Event::Send {
                message: serde_json::json!({"id": 1}),
            },
        );
        recv(&rec, serde_json::json!({"id": 1, "result": {}}));
        rec.mark_judged(rec.last_entry());
        rec.record(
            1,
            Event::SendRaw {
                text: "[1,2]".into(),
            },
        );
        let evidence = rec.evidence().expect("evidence");
        assert_eq!(evidence.entry, 3);
        assert_eq!(evidence.quote, "nothing came back to [1,2]");
        // A message after the send is what is judged.
        recv(&rec, serde_json::json!({"error": {"code": -32600}}));
        assert_eq!(rec.evidence().expect("evidence").entry, 4);
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;

    fn flood_note(n: u32) -> Value {
        serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "logger": "hostile", "data": format!("flood {n}")},
        })
    }

    #[test]
    fn a_parsed_message_weighs_more_than_its_text() {
        let message = flood_note(1);
        let text = message.to_string().len();
        let held = held_bytes(&message);
        // Two maps, six keys, four strings: several times the 110 bytes of text.
        assert!(held > 4 * text, "held {held} for {text} bytes of text");
        assert!(held < 20 * text, "held {held} for {text} bytes of text");
    }

    #[test]
    fn a_flood_of_small_messages_is_kept_within_the_budget() {
        let rec = Recorder::default();
        for n in 0..5000 {
            rec.record(
                1,
                Event::Recv {
                    message: flood_note(n),
                    http_status: None,
                },
            );
        }
        let entries = rec.entries();
        let held: usize = entries.iter().map(|e| held_by_event(&e.event)).sum();
        assert!(held <= MAX_KEPT_BYTES + 1024, "{held}");
        let Some(Event::Dropped { events, .. }) = entries.last().map(|e| &e.event) else {
            panic!("the flood's tail is counted: {:?}", entries.last());
        };
        assert_eq!(*events as usize + entries.len() - 1, 5000);
    }

    #[test]
    fn notes_about_drained_messages_share_the_message_budget() {
        let rec = Recorder::default();
        for n in 0..5000 {
            rec.record_about_received(1, format!("drained: {}", flood_note(n)));
        }
        // Before, each was a control note kept up to 2 × MAX_KEPT_ENTRIES.
        assert!(rec.entries().len() <= MAX_KEPT_ENTRIES + 1);
        // A control event after the flood is still kept: how the scenario ended shows.
        assert!(rec.record(1, Event::Closed).is_some());
    }
}
