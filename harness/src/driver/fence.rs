//! Fenced waits: how the driver tells a silent server from a slow one without waiting out the
//! whole timeout (POL-24).
//!
//! After input that may legitimately get no reply (invalid JSON, an invalid Request, a batch),
//! a server that answers does so at once: the answer is an error the reader writes, no work.
//! When nothing came within [`FENCE_AFTER`], the driver sends a fence: a harmless request the
//! server must answer (a modern `server/discover`, a legacy `ping`). A stdio stream is read in
//! order, so once the fence is answered the server has read the input before it; the driver then
//! listens for [`FENCE_GRACE`] more (for an answer written by a task that finished after the
//! fence's) and calls it silence. A fence that gets no answer proves nothing: the wait then runs
//! to its full deadline, as an unfenced wait does.
//!
//! Fences are sent only on streams (stdio, in memory): over HTTP every request has its own
//! response, so a later request says nothing about an earlier one. A server that answers within
//! [`FENCE_AFTER`] never sees a fence, so its transcripts are what they were.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Incoming, Peer, Reply, Unrelated, is_idless_error, is_reply_to, millis, request};
use crate::outcome::Era;
use mcpspec_core::protocol::method;
use mcpspec_core::transcript::Event;
use mcpspec_core::wire::Frame;

/// How long the driver waits for an answer to possibly-unanswered input before it sends a
/// fence. Every server that answers such input does so well within it (the reference server
/// in microseconds, the Python and TypeScript SDKs in a few milliseconds), so a server that
/// answers is never fenced and its wire is unchanged.
pub const FENCE_AFTER: Duration = Duration::from_millis(100);

/// How long the driver listens after the fence is answered. What answers the input would be
/// written by a task that ran beside the fence's: it comes within milliseconds of the fence's
/// answer, or it is not an answer to this input.
pub const FENCE_GRACE: Duration = Duration::from_millis(100);

/// What a fenced wait is for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Awaited<'a> {
    /// The first reply, whatever its id (raw input whose id the driver did not assign).
    Any,
    /// The reply to this id.
    Id(&'a Value),
}

/// A fence in flight, and when it was answered.
struct Fence {
    id: Value,
    answered: Option<Duration>,
}

impl Peer {
    /// Waits for what `awaited` names, fencing the silence (see the module's text). Returns
    /// the reply, or `NoReply` with `fenced` set when the server answered a fence and nothing
    /// came for the input before it.
    pub(super) async fn await_fenced(&mut self, awaited: Awaited<'_>) -> Reply {
        if let Awaited::Id(id) = awaited {
            if let Some(pos) = self.backlog.iter().position(|f| is_reply_to(f, id)) {
                if let Some(f) = self.backlog.remove(pos) {
                    return Reply::Frame(f);
                }
            }
        }
        let wait = self.allow_startup(self.settings.expect_timeout);
        let can_fence = self.transport.is_stream() && FENCE_AFTER < wait;
        if let (Awaited::Id(id), false) = (awaited, can_fence) {
            return self.await_reply(id, self.settings.expect_timeout).await;
        }
        let started = Instant::now();
        let full = started + wait;
        // Set once the full wait ran out with the fence unanswered, and the driver listens on
        // for a late reply to the id (POL-24), as an unfenced wait does.
        let mut grace: Option<Duration> = None;
        let mut deadline = if can_fence {
            started + FENCE_AFTER
        } else {
            full
        };
        let mut fence: Option<Fence> = None;
        let mut unrelated = Unrelated::default();
        // Server notifications and requests on the way are kept for later (POL-23: a message
        // with `method` is never a reply).
        let mut passed: Vec<Frame> = Vec::new();
        // An error without an id may answer a request whose id was readable (POL-23); its own
        // reply may still follow, so it is held until the wait is over.
        let mut idless: Option<Frame> = None;
        let reply = loop {
            // Raw input: what waits unclaimed may be its answer (`next` takes the backlog
            // first). By id: the backlog was searched above, and what is kept below goes back
            // to it, so only new lines are read.
            let incoming = match awaited {
                Awaited::Any => self.next(deadline).await,
                Awaited::Id(_) => self.read(deadline).await,
            };
            match incoming {
                Incoming::Frame(f) if f.has_method() => {
                    unrelated.add(&f);
                    passed.push(f);
                }
                Incoming::Frame(f)
                    if fence
                        .as_ref()
                        .is_some_and(|fc| f.raw_id() == Some(&fc.id) && fc.answered.is_none()) =>
                {
                    let after = started.elapsed();
                    let grace_used = grace;
                    let grace = FENCE_GRACE;
                    if let Some(fc) = fence.as_mut() {
                        fc.answered = Some(after);
                    }
                    self.note(format!(
                        "the fence was answered {} ms after the input was sent: the server has \
                         read past it; listening {} ms more",
                        millis(after),
                        millis(grace)
                    ));
                    let listen = Instant::now() + grace;
                    // Past the full wait (in the late grace) the grace still applies.
                    deadline = if grace_used.is_some() {
                        listen
                    } else {
                        full.min(listen)
                    };
                }
                Incoming::Frame(f) if awaited.matches(&f) => {
                    if let Some(held) = idless.take() {
                        self.keep(held);
                    }
                    match (grace, awaited) {
                        (Some(_), Awaited::Id(id)) => {
                            break self.late(f, id, started.elapsed(), wait);
                        }
                        _ => break Reply::Frame(f),
                    }
                }
                Incoming::Frame(f) if matches!(awaited, Awaited::Id(_)) && is_idless_error(&f) => {
                    match idless {
                        None => idless = Some(f),
                        Some(_) => {
                            unrelated.add(&f);
                            self.keep(f);
                        }
                    }
                }
                Incoming::Frame(f) => {
                    unrelated.add(&f);
                    self.keep(f);
                }
                Incoming::TimedOut if fence.is_none() && can_fence && Instant::now() < full => {
                    fence = Some(self.send_fence().await);
                    deadline = full;
                }
                Incoming::TimedOut => {
                    if let (Some(frame), Awaited::Id(id)) = (idless.take(), awaited) {
                        break self.idless_reply(frame, id);
                    }
                    let fenced = fence.as_ref().and_then(|fc| fc.answered);
                    if let (None, None, Awaited::Id(_)) = (fenced, grace, awaited) {
                        let g = self.late_grace();
                        if !g.is_zero() {
                            grace = Some(g);
                            deadline = Instant::now() + g;
                            continue;
                        }
                    }
                    let waited = started.elapsed();
                    // The wait quoted as evidence: the whole of it, or (fenced) the grace
                    // after the fence's answer, which is what showed the silence.
                    let (waited_ms, waiting_for) = match fenced {
                        Some(_) => (
                            millis(FENCE_GRACE),
                            format!("{} once the fence was answered", awaited.describe()),
                        ),
                        None => (millis(waited), awaited.describe()),
                    };
                    self.rec.record(
                        self.conn,
                        Event::Timeout {
                            waited_ms,
                            waiting_for,
                        },
                    );
                    if fence.as_ref().is_some_and(|fc| fc.answered.is_none()) {
                        self.note("the fence got no answer either: the full wait ran out");
                    }
                    self.judging_silence(&match awaited {
                        Awaited::Any => "no reply to the raw input".to_owned(),
                        Awaited::Id(id) => format!("no reply to id {id}"),
                    });
                    break Reply::NoReply {
                        waited,
                        unrelated,
                        fenced,
                    };
                }
                Incoming::Closed => break self.closed_reply().await,
            }
        };
        for f in passed {
            self.keep(f);
        }
        if let Some(fc) = fence.filter(|fc| fc.answered.is_none()) {
            self.collect_fence(&fc.id, full).await;
        }
        reply
    }

    /// Sends a fence: the request the peer's era must answer, under an id no other request of
    /// this check uses.
    async fn send_fence(&mut self) -> Fence {
        let m = match self.era {
            Era::Legacy => method::PING,
            _ => method::DISCOVER,
        };
        let id = json!(format!("mcpspec-fence-{}", self.next_id));
        self.next_id += 1;
        self.note(format!(
            "no answer within {} ms: a fence follows (a {m} the server must answer; once it is \
             answered the server has read the input before it)",
            millis(FENCE_AFTER)
        ));
        self.send(request(m).id(id.clone())).await;
        Fence { id, answered: None }
    }

    /// The reply came while a fence was in flight: the fence's own answer is read too (one
    /// [`FENCE_GRACE`] at most), so it is not left for a later wait or the pool's liveness check.
    async fn collect_fence(&mut self, id: &Value, full: Instant) {
        let deadline = full.min(Instant::now() + FENCE_GRACE);
        let mut other = Vec::new();
        loop {
            match self.read(deadline).await {
                Incoming::Frame(f) if f.raw_id() == Some(id) && !f.has_method() => break,
                Incoming::Frame(f) => other.push(f),
                Incoming::TimedOut | Incoming::Closed => break,
            }
        }
        for f in other {
            self.keep(f);
        }
    }
}

impl Awaited<'_> {
    fn matches(&self, frame: &Frame) -> bool {
        match self {
            Awaited::Any => !frame.has_method(),
            Awaited::Id(id) => is_reply_to(frame, id),
        }
    }

    fn describe(&self) -> String {
        match self {
            Awaited::Any => "any reply".into(),
            Awaited::Id(id) => format!("the reply to id {id}"),
        }
    }
}
