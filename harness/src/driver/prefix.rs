//! Replaying earlier traffic before a check (POL-30): the writes that went to a shared process
//! before the check are written again, in order, to a fresh process, each request waited for,
//! so the process is in the state the check met. What comes back is recorded in the transcript
//! (the prefix is part of the evidence) but never judged: it is not the check's traffic.
//!
//! Every check on a shared process began after the pool's liveness request was answered
//! (POL-21), and a process's history ends with it. A shrunk prefix may end on a write that
//! carried no request (a malformed line) instead: the replay then ends with the liveness request
//! itself, so whatever the prefix made the server write (the -32700) is read before the check
//! begins, on a server known to be up (POL-24), however long a fresh process takes to start. A
//! quiet period alone would race the start: a line answered after it lands in the check, and
//! the verdict would depend on timing.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Incoming, Peer, request};
use crate::outcome::Era;
use mcpspec_core::protocol::method;
use mcpspec_core::transcript::Event;

/// The id of the liveness request that ends a replay (never one a check or a prefix uses).
const LIVENESS_ID: &str = "mcpspec-prefix-liveness";

impl Peer {
    /// Writes `writes` in order; after each, waits for the replies to the requests it carried
    /// (one expected-message wait at most, with the start-up allowance while the server has
    /// written nothing), or for a quiet period when it carried none (a notification, malformed
    /// input); after a last write of that kind, the liveness request, waited for likewise.
    /// Returns how many requests went unanswered.
    pub async fn replay_prefix(&mut self, writes: &[Vec<u8>]) -> usize {
        let judging = std::mem::replace(&mut self.judging, false);
        self.note(format!(
            "prefix: {} message(s) of earlier traffic on the same connection, replayed before \
             the check (POL-30); their answers are recorded, not judged",
            writes.iter().map(|w| lines(w).count()).sum::<usize>()
        ));
        let mut unanswered = 0;
        let mut ends_quiet = false;
        for write in writes {
            self.send_bytes(write).await;
            let awaited: Vec<Value> = lines(write).filter_map(request_id).collect();
            // A write that carried requests is done once each is answered; one that carried
            // none gets a quiet period, for whatever it makes the server write.
            let requests = !awaited.is_empty();
            ends_quiet = !requests;
            let wait = if requests {
                self.allow_startup(self.settings.expect_timeout)
            } else {
                self.settings.quiet
            };
            unanswered += self.await_replies(awaited, requests, wait).await;
            if self.closed {
                break;
            }
        }
        if ends_quiet && !self.closed {
            // The request `warm_up` sends, and the pool's liveness request: a modern
            // `server/discover`, a `ping` in a legacy session.
            let liveness = match self.era {
                Era::Legacy => method::PING,
                _ => method::DISCOVER,
            };
            let id = json!(LIVENESS_ID);
            self.send(request(liveness).id(id.clone())).await;
            let wait = self.allow_startup(self.settings.expect_timeout);
            unanswered += self.await_replies(vec![id], true, wait).await;
        }
        self.rec.record(
            self.conn,
            Event::Note {
                text: "prefix ends: the check begins".into(),
            },
        );
        self.judging = judging;
        unanswered
    }

    /// Reads until every id of `awaited` is answered (when the write carried `requests`) or
    /// `wait` runs out; how many went unanswered.
    async fn await_replies(
        &mut self,
        mut awaited: Vec<Value>,
        requests: bool,
        wait: std::time::Duration,
    ) -> usize {
        let deadline = Instant::now() + wait;
        while !(requests && awaited.is_empty()) {
            match self.next(deadline).await {
                Incoming::Frame(f) => {
                    if let Some(id) = f.raw_id().filter(|_| f.is_reply()) {
                        awaited.retain(|a| a != id);
                    }
                }
                Incoming::TimedOut | Incoming::Closed => break,
            }
        }
        awaited.len()
    }
}

/// The lines of one write.
fn lines(write: &[u8]) -> impl Iterator<Item = &[u8]> {
    write
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
}

/// The id of a request line (a JSON object with `method` and a non-null `id`).
fn request_id(line: &[u8]) -> Option<Value> {
    let value: Value = serde_json::from_slice(line).ok()?;
    value.get("method")?.as_str()?;
    value.get("id").filter(|id| !id.is_null()).cloned()
}
