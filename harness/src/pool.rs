//! Where a check's server processes come from (POL-21): the run's process pool.
//!
//! ```text
//!  Scenario::connect ──┬── Shared check, first modern connection ──> lease(): an idle pooled
//!                      │     process (warm, known alive), else a new one
//!                      └── anything else ──> fresh(): a warm spare, else a new spawn
//!
//!  after a Shared check: give_back() ── liveness: a `server/discover` under its own id must
//!    be answered; what arrives before that answer is drained and written into the check's
//!    transcript (marked, never judged); a process that died or went silent is charged to the
//!    check (the runner's verdict says so) and dropped (killed); one with a request of the check
//!    still unanswered, or a connection the check broke, is retired (killed, not charged)
//! ```
//!
//! Warm spares: fresh-process checks of a stdio command take a process spawned earlier, while
//! other checks ran, so an interpreter's start overlaps with work. At most [`SPARES`] wait at a
//! time, and no more than the fresh connections the run still expects. A spare's start-up
//! allowance is measured from its spawn ([`Spawned::at`]), and never shorter than an ordinary
//! wait. The deadlock checks, which time the start itself against a readiness window, spawn
//! their process when they begin (`Scenario::connect_spawned`): a spare older than the window
//! would answer at once whenever it became ready, so no window could be fair on it.
//!
//! With `--isolation fresh` nothing is pooled: every connection is a new spawn, as before.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::driver::lease::{Returned, Slot};
use crate::driver::{Incoming, Peer, Settings, request};
use crate::outcome::Era;
use crate::protocol::method;
use crate::target::{StartError, Target};
use crate::transcript::{Event, Recorder};
use crate::transport::LineTransport;
use crate::wire::Frame;

/// How many warm spares may wait at once.
pub const SPARES: usize = 2;

/// `--isolation`: whether shared-class checks run on pooled processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Mode {
    /// Checks that send only well-formed modern requests share long-lived processes; the
    /// others get fresh ones, spawned ahead as warm spares.
    #[default]
    Shared,
    /// Every check starts its own processes (mcpspec before the pool).
    Fresh,
}

/// A transport and when its server was spawned.
#[derive(Debug)]
pub struct Spawned {
    pub transport: LineTransport,
    /// When the server was spawned: start-up allowances count from here.
    pub at: Instant,
    /// A pooled process that has answered before (no start-up allowance applies).
    pub warm: bool,
    /// Its place among the `--jobs` processes alive at once (POL-24), held as long as it lives.
    pub slot: Slot,
    /// A pooled process: everything earlier checks wrote to it (POL-30), which the check's
    /// verdict may depend on.
    pub prior: Option<crate::transport::SentLog>,
}

/// A pooled process: warm, and known to have answered.
#[derive(Debug)]
struct Idle {
    transport: LineTransport,
    at: Instant,
    slot: Slot,
    /// The check that last ran on it, for what it leaves behind.
    last_check: &'static str,
}

/// The run's processes: the idle shared ones, the warm spares, and the count of all started.
#[derive(Debug)]
pub struct Processes {
    target: Arc<Target>,
    settings: Arc<Settings>,
    mode: Mode,
    idle: Mutex<Vec<Idle>>,
    spares: Mutex<VecDeque<Spawned>>,
    /// `--jobs` places: every process the pool starts holds one while it lives, idle pooled
    /// processes and spares included, so no more than `--jobs` are alive at once (POL-24).
    slots: Arc<Semaphore>,
    /// Fresh connections the run still expects (spares beyond this would be wasted).
    fresh_demand: AtomicI64,
    /// Ids of the liveness requests (never equal to an id a check assigns).
    liveness_ids: AtomicUsize,
    /// Set when the server failed the pool's qualification (see [`Processes::qualify`]): why
    /// shared checks run on fresh processes in this run after all.
    unpooled: Mutex<Option<String>>,
}

/// How a shared process did after its check (see [`Processes::give_back`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterCheck {
    /// It answered the liveness request: back in the pool (or retired, not charged).
    Alive,
    /// It exited or stopped answering: charged to the check.
    Stopped(String),
}

impl Processes {
    /// A pool for `target`; `fresh_demand` is how many fresh connections the run expects.
    pub fn new(
        target: Arc<Target>,
        settings: Arc<Settings>,
        mode: Mode,
        jobs: usize,
        fresh_demand: usize,
    ) -> Self {
        Processes {
            target,
            settings,
            mode,
            idle: Mutex::new(Vec::new()),
            spares: Mutex::new(VecDeque::new()),
            slots: Arc::new(Semaphore::new(jobs.max(1))),
            fresh_demand: AtomicI64::new(i64::try_from(fresh_demand).unwrap_or(i64::MAX)),
            liveness_ids: AtomicUsize::new(0),
            unpooled: Mutex::new(None),
        }
        // No spare yet: the first ones start when a check ends and frees a place, so a run of
        // a single check (or a check that times its own start) never races a spare's start.
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Whether shared checks run on pooled processes: `--isolation shared` and a stdio target
    /// (a command or the embedded server; an HTTP URL is one endpoint mcpspec does not start).
    pub fn pools(&self) -> bool {
        self.mode == Mode::Shared
            && self.target.is_stdio()
            && self.unpooled.lock().is_ok_and(|u| u.is_none())
    }

    /// Why shared checks ran on fresh processes in this run, if the server failed the
    /// qualification.
    pub fn unpooled(&self) -> Option<String> {
        self.unpooled.lock().ok().and_then(|u| u.clone())
    }

    /// The pool is only as good as the era's statelessness (META-3), so the server must show
    /// it first: a new process must serve `first` (a modern request other than
    /// `server/discover`, the one every pooled process has seen) as its very first message. If
    /// it does, that process becomes the pool's first; if not, nothing is pooled in this run
    /// (the checks judge the server, the pool only must not change their verdicts).
    pub async fn qualify(&self, first: &str) {
        if !self.pools() {
            return;
        }
        let Ok(mut spawned) = self.spawn() else {
            return;
        };
        spawned.transport.keep_sent("the pool's qualification");
        let slot = spawned.slot.take();
        let mut peer = Peer::new(
            spawned.transport,
            Recorder::default(),
            1,
            Era::Modern,
            self.settings.clone(),
        )
        .spawned_at(spawned.at);
        // One wait (with the start-up allowance of a new process), no late grace: a server too
        // slow for it is simply not pooled, which costs time, never a verdict.
        peer.set_late_grace(false);
        let reply = peer.call(request(first)).await;
        let served = reply.result().is_some()
            && reply
                .frame()
                .is_some_and(|f| !matches!(f.raw_id(), Some(Value::Null)));
        if served && peer.drain_backlog().is_empty() {
            if let (Some(transport), Ok(mut idle)) = (peer.into_transport(), self.idle.lock()) {
                idle.push(Idle {
                    transport,
                    at: spawned.at,
                    slot,
                    last_check: "the pool's first request",
                });
            }
        } else if let Ok(mut u) = self.unpooled.lock() {
            *u = Some(format!(
                "a new process did not serve {first} as its first message ({}), so no process \
                 is shared in this run (POL-21, META-3)",
                reply.describe()
            ));
        }
    }

    /// A new server in a free place, freeing one first if need be: a waiting spare, then an
    /// idle pooled process, is ended to make room (a running check's process never is).
    fn spawn(&self) -> Result<Spawned, StartError> {
        let slot = loop {
            if let Ok(slot) = self.slots.clone().try_acquire_owned() {
                break Some(slot);
            }
            let spare = self.spares.lock().ok().and_then(|mut s| s.pop_back());
            if spare.is_some() {
                continue;
            }
            let idle = self.idle.lock().ok().and_then(|mut i| i.pop());
            if idle.is_none() {
                break None;
            }
        };
        self.spawn_in(slot)
    }

    fn spawn_in(&self, slot: Slot) -> Result<Spawned, StartError> {
        let at = Instant::now();
        let transport = self.target.connect(self.settings.max_message)?;
        Ok(Spawned {
            transport,
            at,
            warm: false,
            slot,
            prior: None,
        })
    }

    /// Spares are for commands only (an in-memory server starts at no cost), and only in shared
    /// mode (`fresh` keeps the old behaviour exactly).
    fn spares_wanted(&self) -> usize {
        if self.mode != Mode::Shared || !matches!(*self.target, Target::Command { .. }) {
            return 0;
        }
        let demand = usize::try_from(self.fresh_demand.load(Ordering::Relaxed).max(0)).unwrap_or(0);
        SPARES.min(demand)
    }

    /// Spawns spares up to what is wanted, in free places only (a spare never ends another
    /// process); a spawn failure leaves it to the next taker (who then reports it). The runner
    /// calls this after every check, when a place may have come free.
    pub fn refill(&self) {
        let wanted = self.spares_wanted();
        let Ok(mut spares) = self.spares.lock() else {
            return;
        };
        while spares.len() < wanted {
            let Ok(slot) = self.slots.clone().try_acquire_owned() else {
                break;
            };
            match self.spawn_in(Some(slot)) {
                Ok(s) => spares.push_back(s),
                Err(_) => break,
            }
        }
    }

    /// A fresh server: a warm spare when one waits (and `spare` allows it), else a new spawn.
    pub fn fresh(&self, spare: bool) -> Result<Spawned, StartError> {
        self.fresh_demand.fetch_sub(1, Ordering::Relaxed);
        let spare = if spare {
            self.spares.lock().ok().and_then(|mut s| s.pop_front())
        } else {
            None
        };
        let got = match spare {
            Some(s) => Ok(s),
            None => self.spawn(),
        };
        self.refill();
        got
    }

    /// A process for a shared check: an idle pooled one, else a spare, else a new one (a
    /// process new to the pool gets the start-up allowance as any other). What it wrote while
    /// idle is recorded into `rec` (the new check's transcript), marked as left over by the
    /// check before, and never reaches the check. What `check` writes is kept from here on,
    /// and the [`Spawned::prior`] says what earlier checks wrote (POL-30).
    pub async fn lease(
        &self,
        rec: &Recorder,
        conn: u32,
        check: &str,
    ) -> Result<Spawned, StartError> {
        let idle = self.idle.lock().ok().and_then(|mut i| i.pop());
        let Some(mut idle) = idle else {
            let spare = self.spares.lock().ok().and_then(|mut s| s.pop_front());
            let spawned = match spare {
                Some(s) => s,
                None => self.spawn()?,
            };
            let mut spawned = self.admit(spawned).await?;
            spawned.prior = spawned.transport.sent().cloned();
            spawned.transport.mark_sent(check);
            return Ok(spawned);
        };
        let prior = idle.transport.sent().cloned();
        idle.transport.mark_sent(check);
        let mut leftovers = Vec::new();
        // Only what is already buffered: a few milliseconds per line, no waiting.
        for _ in 0..64 {
            match idle
                .transport
                .recv(Instant::now() + Duration::from_millis(2))
                .await
            {
                crate::transport::Recv::Line(bytes) => leftovers.push(bytes),
                crate::transport::Recv::Overflow { head, .. } => leftovers.push(head),
                _ => break,
            }
        }
        for bytes in leftovers {
            rec.record(
                conn,
                Event::Note {
                    text: format!(
                        "left over on the shared process by {} before this check began (drained, \
                         not judged, POL-21): {}",
                        idle.last_check,
                        crate::text::shorten(&String::from_utf8_lossy(&bytes), 300)
                    ),
                },
            );
        }
        Ok(Spawned {
            transport: idle.transport,
            at: idle.at,
            warm: true,
            slot: idle.slot,
            prior: Some(prior.unwrap_or_default()),
        })
    }

    /// A process enters the pool once it answered a liveness `server/discover` (POL-21), so
    /// every shared check runs on a process that has served a request, whichever process it
    /// gets: a verdict that depends on that (POL-30) does not depend on the schedule. The wait
    /// includes the start-up allowance; what the process wrote besides the answer is dropped
    /// (it precedes every check).
    async fn admit(&self, spawned: Spawned) -> Result<Spawned, StartError> {
        let Spawned {
            mut transport,
            at,
            slot,
            ..
        } = spawned;
        transport.keep_sent("liveness");
        let mut peer = Peer::new(
            transport,
            Recorder::default(),
            1,
            Era::Modern,
            self.settings.clone(),
        )
        .spawned_at(at);
        peer.set_late_grace(false);
        let n = self.liveness_ids.fetch_add(1, Ordering::Relaxed);
        let reply = peer
            .call(request(method::DISCOVER).id(json!(format!("mcpspec-liveness-{n}"))))
            .await;
        let answered = reply.frame().is_some();
        peer.drain_backlog();
        let transport = peer.into_transport().ok_or_else(|| {
            StartError::new(format!(
                "a new server process closed before it answered a first server/discover ({})",
                reply.describe()
            ))
        })?;
        Ok(Spawned {
            transport,
            at,
            warm: answered,
            slot,
            prior: None,
        })
    }

    /// A fresh process for a check that would share one: a confirmation of a verdict from a
    /// shared process (POL-30) runs the check exactly as it ran there, liveness after it
    /// included, only on a process nothing was written to before (a spare or a new spawn).
    pub fn fresh_lease(&self, check: &str) -> Result<Spawned, StartError> {
        let mut spawned = match self.spares.lock().ok().and_then(|mut s| s.pop_front()) {
            Some(s) => s,
            None => self.spawn()?,
        };
        spawned.transport.keep_sent(check);
        self.refill();
        Ok(spawned)
    }

    /// After a shared check: proves the process alive with a liveness request under an id no
    /// check uses, drains what came before its answer into `rec` (marked), and puts the process
    /// back in the pool, retires it, or reports that it stopped (charged to `check`).
    /// With `keep` false the process is retired after its liveness answer (a confirmation's
    /// process, POL-30), never pooled.
    pub async fn give_back(
        &self,
        back: Returned,
        check: &'static str,
        rec: &Recorder,
        conn: u32,
        keep: bool,
    ) -> AfterCheck {
        let Returned {
            mut transport,
            at,
            slot,
            mut outstanding,
            broken,
        } = back;
        transport.mark_sent("liveness");
        if broken {
            return AfterCheck::Alive;
        }
        let n = self.liveness_ids.fetch_add(1, Ordering::Relaxed);
        let id = json!(format!("mcpspec-liveness-{n}"));
        let private = Recorder::default();
        let mut peer = Peer::new(transport, private, 1, Era::Modern, self.settings.clone());
        peer.assume_heard();
        peer.send(request(method::DISCOVER).id(id.clone())).await;
        // The wait and one more as its grace (POL-24: a slow answer is an answer).
        let wait = self.settings.expect_timeout * 2;
        let deadline = Instant::now() + wait;
        let verdict = loop {
            match peer.next(deadline).await {
                Incoming::Frame(f) if f.raw_id() == Some(&id) && !f.has_method() => {
                    break if f.is_reply() {
                        AfterCheck::Alive
                    } else {
                        AfterCheck::Stopped(format!(
                            "its answer to a liveness server/discover was not a JSON-RPC reply: {}",
                            crate::text::shorten(&String::from_utf8_lossy(&f.raw), 300)
                        ))
                    };
                }
                // Another reply first: the server is answering, but the stream is not in step (a
                // late reply of the check, or a reply under a wrong id): alive, not reused.
                Incoming::Frame(f) if f.is_reply() => {
                    drained(rec, conn, &f);
                    outstanding.push(id_text(&id));
                    break AfterCheck::Alive;
                }
                Incoming::Frame(f) => drained(rec, conn, &f),
                Incoming::TimedOut => {
                    break AfterCheck::Stopped(format!(
                        "the server stopped answering after this check: a liveness \
                         server/discover got no reply within {}",
                        crate::text::seconds(wait)
                    ));
                }
                Incoming::Closed => {
                    let how = match peer.wait_exit(Duration::from_millis(500)).await {
                        crate::transport::Liveness::Exited(info) => format!(" ({})", info.how),
                        crate::transport::Liveness::Running => String::new(),
                    };
                    break AfterCheck::Stopped(format!(
                        "the server stopped answering after this check: it closed its output{how} \
                         before answering a liveness server/discover"
                    ));
                }
            }
        };
        if keep && verdict == AfterCheck::Alive && outstanding.is_empty() {
            if let (Some(transport), Ok(mut idle)) = (peer.into_transport(), self.idle.lock()) {
                idle.push(Idle {
                    transport,
                    at,
                    slot,
                    last_check: check,
                });
            }
        }
        if let AfterCheck::Stopped(why) = &verdict {
            rec.record(
                conn,
                Event::Note {
                    text: format!("shared process (POL-21): {why}"),
                },
            );
        }
        verdict
    }
}

/// Records a message drained from a shared process after its check, marked as such.
fn drained(rec: &Recorder, conn: u32, frame: &Frame) {
    let text = match &frame.json {
        Some(v) => crate::text::preview(v, 300),
        None => crate::text::shorten(&String::from_utf8_lossy(&frame.raw), 300),
    };
    rec.record(
        conn,
        Event::Note {
            text: format!(
                "after the check, drained from the shared process before its liveness answer \
                 (attributed to this check, not judged, POL-21): {}",
                text
            ),
        },
    );
}

/// The JSON text of an id, as [`Returned::outstanding`] keeps it.
pub fn id_text(id: &Value) -> String {
    id.to_string()
}
