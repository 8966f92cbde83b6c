//! What came back for one request, and the expectations checks state about it.

use std::time::Duration;

use serde_json::Value;

use crate::outcome::{Evidence, Outcome};
use mcpspec_core::text::{preview, seconds, shorten};
use mcpspec_core::wire::{DecodeError, ErrorObject, Frame, Message};

/// How many stderr lines a "closed its output" verdict quotes.
const STDERR_IN_VERDICT: usize = 5;

/// The answer (or its absence) to one request.
// Short-lived and matched right away: boxing the frame would only add an allocation per reply.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
#[allow(
    clippy::enum_variant_names,
    reason = "`Reply::NoReply` reads as the outcome it is"
)]
pub enum Reply {
    /// A line whose `id` matches the request (it may still be invalid JSON-RPC).
    Frame(Frame),
    /// The reply came after the wait's deadline, within the grace the driver keeps listening
    /// for (POL-24: slow is not silent). Its content is judged like [`Reply::Frame`]'s; the
    /// runner turns the check's verdict NonStrict ("late (N ms)"), or adds the lateness to a
    /// Fail.
    Late {
        frame: Frame,
        /// From the start of the wait to its arrival.
        latency: Duration,
        /// The wait it missed.
        waited: Duration,
    },
    /// Nothing matching arrived within the wait (and the late-reply grace after it), or, on a
    /// stream, before a later request (a fence) was answered and a quiet period passed.
    NoReply {
        waited: Duration,
        unrelated: Unrelated,
        /// When the fence sent after the input was answered, counted from the input: the
        /// server had read past the input by then (see `driver::fence`).
        fenced: Option<Duration>,
    },
    /// Only an error without an id came (POL-23), or over HTTP a reply with `id: null` in a
    /// response that is not a 4xx rejection (POL-29). It answers the request, but the request's
    /// id was readable, so the reply's id is wrong (RPC-3): it is never taken as valid.
    IdLess { frame: Frame, awaited: Value },
    /// The server closed its output first: how it ended (if it did so promptly) and the last
    /// lines of its stderr.
    Closed {
        exit: Option<String>,
        stderr: Vec<String>,
    },
}

/// What arrived instead of an awaited reply: counted, the first few kept as short texts.
#[derive(Debug, Clone, Default)]
pub struct Unrelated {
    pub count: u64,
    pub first: Vec<String>,
    /// The first of them that is a reply (result or error, no `method`) with another id.
    pub wrong_id: Option<String>,
}

impl Unrelated {
    const KEPT: usize = 3;

    pub fn add(&mut self, frame: &Frame) {
        self.count += 1;
        if frame.is_reply() && self.wrong_id.is_none() {
            self.wrong_id = Some(shorten(&frame.text(), 200));
        }
        if self.first.len() < Self::KEPT {
            self.first.push(shorten(&frame.text(), 200));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl Reply {
    pub fn message(&self) -> Option<&Message> {
        match self {
            Reply::Frame(f) | Reply::Late { frame: f, .. } => f.parsed.as_ref().ok(),
            _ => None,
        }
    }

    /// The frame that answered, on time or late (a valid reply or not).
    pub fn answered(&self) -> Option<&Frame> {
        match self {
            Reply::Frame(f) | Reply::Late { frame: f, .. } => Some(f),
            _ => None,
        }
    }

    pub fn frame(&self) -> Option<&Frame> {
        match self {
            Reply::Frame(f) | Reply::Late { frame: f, .. } | Reply::IdLess { frame: f, .. } => {
                Some(f)
            }
            _ => None,
        }
    }

    /// The error object, if this is a valid error response.
    pub fn error(&self) -> Option<&ErrorObject> {
        match self.message() {
            Some(Message::Error { error, .. }) => Some(error),
            _ => None,
        }
    }

    /// The result, if this is a valid result response.
    pub fn result(&self) -> Option<&Value> {
        match self.message() {
            Some(Message::Response { result, .. }) => Some(result),
            _ => None,
        }
    }

    /// One phrase saying what came back, for verdict messages. A late reply is described by
    /// its content: the runner says it was late, once per check.
    pub fn describe(&self) -> String {
        match self {
            Reply::Frame(f) | Reply::Late { frame: f, .. } => match &f.parsed {
                Ok(Message::Error { error, .. }) => {
                    format!("error {} \"{}\"", error.code, shorten(&error.message, 80))
                }
                Ok(Message::Response { result, .. }) => {
                    format!("a result {}", preview(result, 120))
                }
                Ok(other) => format!("a {}", kind_name(other)),
                Err(DecodeError::Http(why)) => format!("no JSON-RPC reply: {why}"),
                Err(e) if e.is_unreadable() => format!(
                    "a reply mcpspec could not read, because it is {e}: {}",
                    shorten(&f.text(), 120)
                ),
                Err(e) => format!(
                    "an invalid JSON-RPC line ({e}): {}",
                    shorten(&f.text(), 120)
                ),
            },
            Reply::IdLess { frame, awaited } => format!(
                "{} without an id ({}), though the request's id {awaited} was readable: a reply \
                 whose id is wrong (RPC-3, POL-23{})",
                if frame
                    .json
                    .as_ref()
                    .is_some_and(|j| j.get("error").is_some())
                {
                    "an error"
                } else {
                    "a result"
                },
                shorten(&frame.text(), 160),
                match &frame.http {
                    Some(h) => format!(", POL-29: in an HTTP {} response", h.status),
                    None => String::new(),
                }
            ),
            Reply::NoReply {
                waited,
                unrelated,
                fenced,
            } => {
                let none = match fenced {
                    Some(_) => format!(
                        "no reply: the server answered a later request (a fence), so it had read \
                         the input, and nothing came in the {} ms after",
                        super::fence::FENCE_GRACE.as_millis()
                    ),
                    None => format!("no reply within {}", seconds(*waited)),
                };
                if unrelated.is_empty() {
                    return none;
                }
                match &unrelated.wrong_id {
                    Some(reply) => format!(
                        "{none}; a reply with the wrong id came instead: {}",
                        shorten(reply, 120)
                    ),
                    None => format!(
                        "{none} ({} unrelated line(s) instead, first: {})",
                        unrelated.count,
                        shorten(&unrelated.first[0], 120)
                    ),
                }
            }
            Reply::Closed { exit, stderr } => {
                let mut text = match exit {
                    Some(how) => format!("the server closed its output ({how})"),
                    None => "the server closed its output".into(),
                };
                if !stderr.is_empty() {
                    let tail = &stderr[stderr.len().saturating_sub(STDERR_IN_VERDICT)..];
                    text.push_str(&format!("; its stderr ends: {}", tail.join(" | ")));
                }
                text
            }
        }
    }

    /// The transcript entry of the frame this reply is, quoted (a reply that is no frame, a
    /// timeout or a close, is found by the runner from the transcript).
    pub fn evidence(&self) -> Option<Evidence> {
        self.frame().and_then(evidence_of)
    }

    /// Expects an error response; anything else is a Fail naming what came instead.
    pub fn expect_error(&self, what: &str) -> Result<&ErrorObject, Outcome> {
        self.error().ok_or_else(|| {
            Outcome::mismatch(what, "an error", self.describe()).with_evidence(self.evidence())
        })
    }

    /// Expects a result response; anything else is a Fail naming what came instead.
    pub fn expect_result(&self, what: &str) -> Result<&Value, Outcome> {
        self.result().ok_or_else(|| {
            Outcome::mismatch(what, "a result", self.describe()).with_evidence(self.evidence())
        })
    }

    /// Expects an error with exactly `code`.
    pub fn expect_code(&self, what: &str, code: i64) -> Result<&ErrorObject, Outcome> {
        let error = self.expect_error(what)?;
        if error.code == code {
            Ok(error)
        } else {
            Err(
                Outcome::mismatch(what, format!("error {code}"), self.describe())
                    .with_evidence(self.evidence()),
            )
        }
    }
}

/// A received frame's transcript entry with its first bytes as they came (raw, not
/// re-serialised), when the frame was kept in the transcript.
pub(crate) fn evidence_of(frame: &Frame) -> Option<Evidence> {
    let at = frame.entry?;
    let max = mcpspec_core::transcript::EVIDENCE_BYTES;
    let head = &frame.raw[..frame.raw.len().min(max + 4)];
    let mut quote = shorten(&String::from_utf8_lossy(head), max);
    if frame.raw.len() > head.len() && !quote.ends_with('…') {
        quote.push('…');
    }
    Some(Evidence {
        entry: at.seq,
        conn: at.conn,
        instance: None,
        quote,
    })
}

fn kind_name(m: &Message) -> &'static str {
    match m {
        Message::Request { .. } => "request",
        Message::Notification { .. } => "notification",
        Message::Response { .. } => "result",
        Message::Error { .. } => "error",
        Message::Batch(_) => "batch",
    }
}
