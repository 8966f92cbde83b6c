//! The reply verbs a check speaks through its peer: one request with the notifications around
//! it ([`Peer::exchange`]), the frames of a quiet period ([`Peer::frames_within`]), waiting for
//! one frame ([`Peer::wait_for`]), and walking a paginated list ([`Peer::pages`],
//! [`Peer::items`]).

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::{Incoming, Outgoing, Peer, Reply, request};
use crate::outcome::Outcome;
use mcpspec_core::wire::Frame;

/// The cap on pages walked in one list (a server looping its cursors is not followed forever).
const MAX_PAGES: usize = 20;

/// What one request produced: its reply, the notifications that came before it (while it was
/// the only request in flight) and those within the quiet period (`Settings::quiet`) after it.
#[derive(Debug)]
pub struct Exchange {
    pub reply: Reply,
    pub before: Vec<Frame>,
    pub after: Vec<Frame>,
}

impl Peer {
    /// Every page of a list: the page results, in order. A page that is not a result is a Fail.
    pub async fn pages(&mut self, list: &str) -> Result<Vec<Value>, Outcome> {
        let mut pages = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let mut out = request(list);
            if let Some(c) = cursor.take() {
                out = out.param("cursor", c);
            }
            let reply = self.call(out).await;
            let what = format!("{list} page {}", pages.len() + 1);
            let result = reply.expect_result(&what)?.clone();
            let next = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            pages.push(result);
            match next {
                Some(c) if pages.len() < MAX_PAGES => cursor = Some(c),
                Some(_) => {
                    return Err(Outcome::fail(format!(
                        "{list}: still a `nextCursor` after {MAX_PAGES} pages"
                    )));
                }
                None => return Ok(pages),
            }
        }
    }

    /// The items of every page of a list, concatenated.
    pub async fn items(&mut self, list: &str, key: &str) -> Result<Vec<Value>, Outcome> {
        let pages = self.pages(list).await?;
        Ok(pages
            .iter()
            .flat_map(|p| {
                p.get(key)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            })
            .collect())
    }

    /// Sends `out` and collects its [`Exchange`]. Call it with nothing else in flight.
    pub async fn exchange(&mut self, out: Outgoing) -> Exchange {
        self.drain_backlog();
        let reply = self.call(out).await;
        let before = self.drain_backlog();
        let after = if reply.frame().is_some() {
            let quiet = self.settings().quiet;
            self.frames_within(quiet).await
        } else {
            Vec::new()
        };
        Exchange {
            reply,
            before,
            after,
        }
    }

    /// Every frame that arrives within `wait` (the backlog first). Nothing is recorded for the
    /// wait itself, so transcripts do not depend on timing.
    pub async fn frames_within(&mut self, wait: Duration) -> Vec<Frame> {
        let deadline = Instant::now() + wait;
        let mut frames = Vec::new();
        while let Incoming::Frame(f) = self.next(deadline).await {
            frames.push(f);
        }
        frames
    }

    /// Waits up to `wait` for a frame that `want` accepts; frames passed over are returned too.
    pub async fn wait_for(
        &mut self,
        wait: Duration,
        want: impl Fn(&Frame) -> bool,
    ) -> (Option<Frame>, Vec<Frame>) {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        loop {
            match self.next(deadline).await {
                Incoming::Frame(f) if want(&f) => return (Some(f), seen),
                Incoming::Frame(f) => seen.push(f),
                _ => return (None, seen),
            }
        }
    }
}
