//! Replaying earlier traffic before a check (POL-30): the writes that went to a shared process
//! before the check are written again, in order, to a fresh process, each request waited for,
//! so the process is in the state the check met. What comes back is recorded in the transcript
//! (the prefix is part of the evidence) but never judged: it is not the check's traffic.

use serde_json::Value;
use tokio::time::Instant;

use super::{Incoming, Peer};
use crate::transcript::Event;

impl Peer {
    /// Writes `writes` in order; after each, waits for the replies to the requests it carried
    /// (one expected-message wait at most), or for a quiet period when it carried none (a
    /// notification, malformed input). Returns how many requests went unanswered.
    pub async fn replay_prefix(&mut self, writes: &[Vec<u8>]) -> usize {
        let judging = std::mem::replace(&mut self.judging, false);
        self.note(format!(
            "prefix: {} message(s) of earlier traffic on the same connection, replayed before \
             the check (POL-30); their answers are recorded, not judged",
            writes.iter().map(|w| lines(w).count()).sum::<usize>()
        ));
        let mut unanswered = 0;
        for write in writes {
            self.send_bytes(write).await;
            let mut awaited: Vec<Value> = lines(write).filter_map(request_id).collect();
            // A write that carried requests is done once each is answered; one that carried
            // none gets a quiet period, for whatever it makes the server write.
            let requests = !awaited.is_empty();
            let wait = if requests {
                self.settings.expect_timeout
            } else {
                self.settings.quiet
            };
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
            unanswered += awaited.len();
            if self.closed {
                break;
            }
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
