//! Where a check's server processes come from (POL-21, revised): the run's process pool.
//!
//! ```text
//!  Scenario::connect ──┬── Shared check, first modern connection ──> lease(): an idle pooled
//!                      │     process, else a new one admitted by a liveness request
//!                      ├── Shared check, a legacy session at version V ──> session(V): an idle
//!                      │     session of V, else a new one whose handshake is recorded
//!                      └── anything else ──> fresh(): a warm spare, else a new spawn
//!
//!  after a Shared check: give_back() ── liveness: a `server/discover` (a `ping` in a legacy
//!    session) under an id no check uses must be answered; what arrives before that answer is
//!    drained into the check's transcript
//!    (marked, never judged); a process that died or went silent is charged to the check (the
//!    runner's verdict says so) and replaced; one with a request of the check still unanswered,
//!    or a connection the check closed, is retired (killed, not charged)
//! ```
//!
//! Malformed input goes to shared processes too: the liveness request after the check decides
//! whether the process is still fit to serve the next one. A server that still answers it but
//! no longer serves anything else after some input fails the next check on that process; that
//! verdict does not recur on a fresh process, and the earlier traffic that reproduces it (the
//! input, shrunk) opens its transcript (POL-30).
//!
//! The same liveness request follows every shared-class check when it runs on a fresh process
//! (`--isolation fresh`, or a confirmation, POL-30), so a check's verdict never depends on
//! whether its process was shared.
//!
//! Warm spares: fresh-process checks of a stdio command take a process spawned earlier, while
//! other checks ran, so an interpreter's start overlaps with work. How many wait at once comes
//! from the measured start-up time and `--jobs` ([`spares_for`]), never more than the fresh
//! connections the run still expects. A spare's start-up allowance is measured from its spawn
//! ([`Spawned::at`]). The deadlock checks, which time the start itself against a readiness
//! window, spawn their process when they begin (`Scenario::connect_spawned`).
//!
//! The plan (POL-30.3, `plan.rs`): before the first check starts, the runner puts the shared
//! checks in groups, fixed by the selection and the flags, never by `--jobs` or timing. A group
//! runs its checks one after another, and its processes serve that group alone (they are ended
//! with it): which checks came before a check on its process, and in what order, is the same in
//! every run, so a verdict that depends on earlier traffic is the same verdict every time.
//! Spares are clean (nothing but their start), so any group may take one.
//!
//! A fresh process that served a confirmation (POL-30) and then answered its liveness request
//! joins its check's group like any used process ([`Afterwards::Recycled`]): the group's next
//! shared check takes it instead of a new start. When more than [`IDLE_PER_GROUP`] wait in a
//! group, the kind with the most waiting gives one up, so a session the group still needs is
//! not ended for a modern spare (or the reverse).
//!
//! Every process the pool starts is counted by why it was needed ([`Processes::counts`]).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::driver::lease::{Returned, Slot};
use crate::driver::{Handshake, Incoming, Peer, Settings, request};
use crate::outcome::Era;
use crate::target::{StartError, Target, TransportKind};
use mcpspec_core::protocol::method;
use mcpspec_core::transcript::{Event, Recorder};
use mcpspec_core::transport::LineTransport;
use mcpspec_core::wire::Frame;

/// The writer name a session's handshake is kept under in its process's history (POL-30): the
/// history a check's verdict may depend on starts after it.
pub const SESSION_HANDSHAKE: &str = "the session's handshake";

/// `--isolation`: whether shared-class checks run on pooled processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Mode {
    /// Shared-class checks run on long-lived processes (modern ones, and legacy sessions per
    /// version); the others get fresh ones, spawned ahead as warm spares.
    #[default]
    Shared,
    /// Every check starts its own processes.
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
    pub prior: Option<mcpspec_core::transport::SentLog>,
}

/// What a shared check holds: a modern process, or a legacy session with its handshake.
#[derive(Debug, Clone)]
pub enum Held {
    Modern,
    Session(Arc<Handshake>),
}

/// A pooled process: warm, and known to have answered. It holds no place among the `--jobs`
/// while it waits (it does no work then); it takes one again when a check leases it.
#[derive(Debug)]
struct Idle {
    transport: LineTransport,
    at: Instant,
    held: Held,
    /// The check that last ran on it, for what it leaves behind.
    last_check: &'static str,
    /// The group of the plan it serves (POL-30.3).
    group: usize,
}

/// What the pool must know of the server to keep processes: the request a liveness check sends
/// in each era (`server/discover`, `ping`: cheap, and served by every server of the era), and
/// how long a start takes.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The modern liveness request.
    pub modern_liveness: &'static str,
    /// The liveness request in a legacy session.
    pub legacy_liveness: &'static str,
    /// How long the server took to start (spawn to first answer), when measured.
    pub startup: Option<Duration>,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            modern_liveness: method::DISCOVER,
            legacy_liveness: method::PING,
            startup: None,
        }
    }
}

/// How many warm spares may wait at once for a server that takes `startup` to start, with
/// `jobs` processes alive at most: enough that a spare started when a fresh check begins is
/// ready for the fresh check after it (a check takes about [`CHECK_TIME`]), one at least, and
/// never more than `jobs` less the one a running check holds.
pub fn spares_for(startup: Option<Duration>, jobs: usize) -> usize {
    let cap = jobs.saturating_sub(1).max(1);
    let wanted = startup.map_or(1, |s| {
        usize::try_from(s.as_millis().div_ceil(CHECK_TIME.as_millis().max(1))).unwrap_or(cap)
    });
    wanted.clamp(1, cap)
}

/// About how long one check takes against a server that answers at once.
pub const CHECK_TIME: Duration = Duration::from_millis(250);

/// Who wrote the pool's liveness requests, in a process's log of writes.
pub const LIVENESS: &str = "liveness";

/// Who wrote the pool's qualification request (the first request of the run's first pooled
/// process), in its log of writes.
pub const QUALIFICATION: &str = "the pool's qualification";

/// The most pooled processes (modern ones and sessions) that wait at once in one group of the
/// plan; past it the one that waited longest of the kind with the most waiting is ended.
pub const IDLE_PER_GROUP: usize = 2;

/// Why processes were started, for the run's summary and its JSON report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Processes by what they were started for: `pool`, `legacy session`, `fresh: CLASS`,
    /// `confirmation`, `fresh mode`.
    pub by_reason: BTreeMap<String, usize>,
    /// Pooled processes that stopped answering after a check, charged to it and replaced.
    pub replaced: usize,
}

/// The run's processes: the idle shared ones, the warm spares, and the count of all started.
#[derive(Debug)]
pub struct Processes {
    target: Arc<Target>,
    settings: Arc<Settings>,
    mode: Mode,
    plan: Plan,
    idle: Mutex<Vec<Idle>>,
    spares: Mutex<VecDeque<Spawned>>,
    /// How many spares may wait at once ([`spares_for`]).
    spare_cap: usize,
    /// `--jobs` places: every process the pool starts holds one while it lives, idle pooled
    /// processes and spares included, so no more than `--jobs` are alive at once (POL-24).
    slots: Arc<Semaphore>,
    /// Fresh connections the run still expects (spares beyond this would be wasted).
    fresh_demand: AtomicI64,
    /// The group of each planned shared check (POL-30.3); a check not planned is group 0's.
    groups: Mutex<BTreeMap<&'static str, usize>>,
    /// Set when the server failed the pool's qualification (see [`Processes::qualify`]): why
    /// shared checks run on fresh processes in this run after all.
    unpooled: Mutex<Option<String>>,
    counts: Mutex<Counts>,
}

/// What becomes of a process after its check, if it proves alive (see
/// [`Processes::give_back`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Afterwards {
    /// A pooled process: back to the pool; one that stopped is charged and replaced.
    Pooled,
    /// A fresh process a confirmation ran on (POL-30): it joins the pool, so
    /// the next shared check that needs a process takes it instead of a new start; one that
    /// stopped is ended (it was never the pool's, nothing is replaced).
    Recycled,
    /// Ended with the check (`--isolation fresh`, or no pool in this run).
    Ended,
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
        plan: Plan,
    ) -> Self {
        Processes {
            target,
            settings,
            mode,
            spare_cap: spares_for(plan.startup, jobs),
            plan,
            idle: Mutex::new(Vec::new()),
            spares: Mutex::new(VecDeque::new()),
            slots: Arc::new(Semaphore::new(jobs.max(1))),
            fresh_demand: AtomicI64::new(i64::try_from(fresh_demand).unwrap_or(i64::MAX)),
            groups: Mutex::new(BTreeMap::new()),
            unpooled: Mutex::new(None),
            counts: Mutex::new(Counts::default()),
        }
        // No spare yet: the first ones start when a check ends and frees a place, so a run of
        // a single check (or a check that times its own start) never races a spare's start.
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Takes the run's plan (`plan.rs`): each shared check's group.
    pub fn set_plan(&self, assignments: impl IntoIterator<Item = (&'static str, usize)>) {
        if let Ok(mut groups) = self.groups.lock() {
            groups.extend(assignments);
        }
    }

    /// The group `check` runs in (0 when it is not planned).
    fn group_of(&self, check: &str) -> usize {
        self.groups
            .lock()
            .ok()
            .and_then(|g| g.get(check).copied())
            .unwrap_or(0)
    }

    /// A group has run its last check: the processes it kept are ended (no other group may
    /// inherit what its checks did).
    pub fn end_group(&self, group: usize) {
        let ended: Vec<Idle> = match self.idle.lock() {
            Ok(mut idle) => {
                let (gone, kept): (Vec<Idle>, Vec<Idle>) =
                    idle.drain(..).partition(|i| i.group == group);
                idle.extend(kept);
                gone
            }
            Err(_) => Vec::new(),
        };
        // Dropped here, out of the lock: each process is killed.
        drop(ended);
    }

    /// Whether shared checks run on pooled processes: `--isolation shared` and a stdio target
    /// (a command or the embedded server; an HTTP URL is one endpoint mcpspec does not start).
    pub fn pools(&self) -> bool {
        self.mode == Mode::Shared && self.starts_processes() && self.unpooled().is_none()
    }

    /// Whether connections are processes (or in-memory servers) mcpspec starts: a stdio target.
    pub fn starts_processes(&self) -> bool {
        match self.target.kind() {
            TransportKind::Stdio => true,
            TransportKind::Http => false,
        }
    }

    /// Why shared checks ran on fresh processes in this run, if the server failed the
    /// qualification.
    pub fn unpooled(&self) -> Option<String> {
        self.unpooled.lock().ok().and_then(|u| u.clone())
    }

    /// The processes started so far, by why.
    pub fn counts(&self) -> Counts {
        self.counts.lock().map(|c| c.clone()).unwrap_or_default()
    }

    fn count_replaced(&self) {
        if let Ok(mut c) = self.counts.lock() {
            c.replaced += 1;
        }
    }

    fn count(&self, reason: &str) {
        if let Ok(mut c) = self.counts.lock() {
            *c.by_reason.entry(reason.to_owned()).or_default() += 1;
        }
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
        self.count("pool");
        spawned.transport.keep_sent(QUALIFICATION);
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
            if let Some(transport) = peer.into_transport() {
                self.keep_idle(Idle {
                    transport,
                    at: spawned.at,
                    held: Held::Modern,
                    last_check: "the pool's first request",
                    group: 0,
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

    /// A new server in a free place, freeing one first if need be: a waiting spare is ended to
    /// make room (a running check's process never is).
    fn spawn(&self) -> Result<Spawned, StartError> {
        let slot = self.place();
        self.spawn_in(slot)
    }

    /// A place among the `--jobs` processes at work, a waiting spare ended for it if need be;
    /// `None` when every place is a running check's.
    fn place(&self) -> Slot {
        loop {
            if let Ok(slot) = self.slots.clone().try_acquire_owned() {
                return Some(slot);
            }
            // A spare ended (dropped) for the place; none left: no place to take.
            self.spares.lock().ok().and_then(|mut s| s.pop_back())?;
        }
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

    /// A warm spare when one waits, else a new spawn.
    fn spare_or_spawn(&self) -> Result<Spawned, StartError> {
        match self.spares.lock().ok().and_then(|mut s| s.pop_front()) {
            Some(s) => Ok(s),
            None => self.spawn(),
        }
    }

    /// Spares started ahead of need that no check has taken (yet: at the end of a run, never).
    pub fn unused_spares(&self) -> usize {
        self.spares.lock().map_or(0, |s| s.len())
    }

    /// Spares are for commands only (an in-memory server starts at no cost).
    fn spares_wanted(&self) -> usize {
        match *self.target {
            Target::Command { .. } => {}
            Target::Embedded(_) | Target::Url(_) => return 0,
        }
        let demand = usize::try_from(self.fresh_demand.load(Ordering::Relaxed).max(0)).unwrap_or(0);
        self.spare_cap.min(demand)
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

    /// A fresh server for a fresh-class check (`reason`: its class): a warm spare when one
    /// waits (and `spare` allows it), else a new spawn.
    pub fn fresh(&self, spare: bool, reason: &str) -> Result<Spawned, StartError> {
        self.fresh_demand.fetch_sub(1, Ordering::Relaxed);
        let got = if spare {
            self.spare_or_spawn()
        } else {
            self.spawn()
        };
        if got.is_ok() {
            self.count(reason);
        }
        self.refill();
        got
    }

    /// A process for a shared check: an idle pooled one, else a spare or a new one, admitted
    /// by a liveness request first. What it wrote while idle is recorded into `rec` (the new
    /// check's transcript), marked as left over by the check before, and never reaches the
    /// check. What `check` writes is kept from here on, and [`Spawned::prior`] says what
    /// earlier checks wrote (POL-30).
    pub async fn lease(
        &self,
        rec: &Recorder,
        conn: u32,
        check: &str,
    ) -> Result<Spawned, StartError> {
        let group = self.group_of(check);
        let idle = self.take_idle(group, |held| matches!(held, Held::Modern));
        let Some(idle) = idle else {
            let spawned = self.spare_or_spawn()?;
            self.count("pool");
            let mut spawned = self.admit(spawned).await?;
            spawned.prior = spawned.transport.sent().cloned();
            spawned.transport.mark_sent(check);
            return Ok(spawned);
        };
        Ok(self.reuse(idle, rec, conn, check).await.0)
    }

    /// A legacy session at `version` for a shared check: an idle one, else a new one (a spare
    /// or a spawn) whose handshake is made and recorded here, once, for every check that
    /// shares it. [`Spawned::prior`] holds what earlier checks wrote after the handshake.
    pub async fn session(
        &self,
        rec: &Recorder,
        conn: u32,
        check: &str,
        version: &str,
    ) -> Result<(Spawned, Arc<Handshake>), StartError> {
        let group = self.group_of(check);
        let idle = self.take_idle(
            group,
            |held| matches!(held, Held::Session(h) if h.asked == version),
        );
        let Some(idle) = idle else {
            let spawned = self.spare_or_spawn()?;
            self.count("legacy session");
            let (mut spawned, handshake) = self.begin(spawned, version).await?;
            spawned.prior = Some(mcpspec_core::transport::SentLog::default());
            spawned.transport.mark_sent(check);
            return Ok((spawned, handshake));
        };
        let (spawned, held) = self.reuse(idle, rec, conn, check).await;
        let Held::Session(handshake) = held else {
            return Err(StartError::new(
                "the pool mixed up a modern process and a session",
            ));
        };
        Ok((spawned, handshake))
    }

    /// A fresh process for a check that would share one (`reason`: a confirmation, POL-30, or
    /// `--isolation fresh`): the check runs exactly as it runs on a shared one, proved alive
    /// after it, only on a process nothing was written to before. Nothing is sent before the
    /// check, so the transcript is everything the process was ever sent: a confirmation's
    /// evidence carries no hidden traffic.
    pub async fn fresh_lease(&self, check: &str, reason: &str) -> Result<Spawned, StartError> {
        self.fresh_demand.fetch_sub(1, Ordering::Relaxed);
        let mut spawned = self.spare_or_spawn()?;
        self.count(reason);
        spawned.transport.keep_sent(check);
        self.refill();
        Ok(spawned)
    }

    /// As [`Processes::fresh_lease`], for a legacy session: its own handshake at `version`.
    pub async fn fresh_session(
        &self,
        check: &str,
        version: &str,
        reason: &str,
    ) -> Result<(Spawned, Arc<Handshake>), StartError> {
        self.fresh_demand.fetch_sub(1, Ordering::Relaxed);
        let spawned = self.spare_or_spawn()?;
        self.count(reason);
        let (mut spawned, handshake) = self.begin(spawned, version).await?;
        spawned.transport.mark_sent(check);
        self.refill();
        Ok((spawned, handshake))
    }

    /// The process of `group` that fits and was given back last.
    fn take_idle(&self, group: usize, fits: impl Fn(&Held) -> bool) -> Option<Idle> {
        let mut idle = self.idle.lock().ok()?;
        let at = idle
            .iter()
            .rposition(|i| i.group == group && fits(&i.held))?;
        Some(idle.remove(at))
    }

    /// Puts a process in its group; past [`IDLE_PER_GROUP`] in that group, the one that waited
    /// longest of the kind with the most waiting (modern, or a session of one version) is
    /// ended, so a kind the group still needs is not ended to keep a spare of another (each
    /// would cost a new start). Only the group's own checks decide what it keeps.
    fn keep_idle(&self, process: Idle) {
        let group = process.group;
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(process);
            if idle.iter().filter(|i| i.group == group).count() > IDLE_PER_GROUP {
                let kind = |i: &Idle| match &i.held {
                    Held::Modern => None,
                    Held::Session(h) => Some(h.asked.clone()),
                };
                let mine = |i: &&Idle| i.group == group;
                let most = idle
                    .iter()
                    .filter(mine)
                    .map(kind)
                    .max_by_key(|k| idle.iter().filter(mine).filter(|i| kind(i) == *k).count());
                if let Some(at) =
                    most.and_then(|k| idle.iter().position(|i| i.group == group && kind(i) == k))
                {
                    idle.remove(at);
                }
            }
        }
    }

    /// Hands an idle process to `check`: what it wrote while idle drained into `rec`, what was
    /// written to it before (the session's handshake aside) as its prior history.
    async fn reuse(
        &self,
        mut idle: Idle,
        rec: &Recorder,
        conn: u32,
        check: &str,
    ) -> (Spawned, Held) {
        let prior = idle
            .transport
            .sent()
            .map(|log| log.without(SESSION_HANDSHAKE));
        idle.transport.mark_sent(check);
        let mut leftovers = Vec::new();
        // Only what is already buffered: a few milliseconds per line, no waiting.
        for _ in 0..64 {
            match idle
                .transport
                .recv(Instant::now() + Duration::from_millis(2))
                .await
            {
                mcpspec_core::transport::Recv::Line(bytes) => leftovers.push(bytes),
                mcpspec_core::transport::Recv::Exchange(exchange) => {
                    leftovers.push(exchange.into_frame().raw);
                }
                mcpspec_core::transport::Recv::Overflow { head, .. } => leftovers.push(head),
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
                        mcpspec_core::text::shorten(&String::from_utf8_lossy(&bytes), 300)
                    ),
                },
            );
        }
        // A free place if there is one; a waiting spare is not ended for it (the check's own
        // permit already bounds the work).
        let spawned = Spawned {
            transport: idle.transport,
            at: idle.at,
            warm: true,
            slot: self.slots.clone().try_acquire_owned().ok(),
            prior: Some(prior.unwrap_or_default()),
        };
        (spawned, idle.held)
    }

    /// A process enters the pool once it answered a liveness request (POL-21), so every
    /// shared check runs on a process that has served a request, whichever process it gets: a
    /// verdict that depends on that (POL-30) does not depend on the schedule. The wait
    /// includes the start-up allowance; what the process wrote besides the answer is dropped
    /// (it precedes every check).
    async fn admit(&self, spawned: Spawned) -> Result<Spawned, StartError> {
        let Spawned {
            mut transport,
            at,
            slot,
            ..
        } = spawned;
        transport.keep_sent(LIVENESS);
        let id = liveness_id(&transport);
        let mut peer = Peer::new(
            transport,
            Recorder::default(),
            1,
            Era::Modern,
            self.settings.clone(),
        )
        .spawned_at(at);
        peer.set_late_grace(false);
        let reply = peer.call(request(self.plan.modern_liveness).id(id)).await;
        let answered = reply.frame().is_some();
        peer.drain_backlog();
        let transport = peer.into_transport().ok_or_else(|| {
            StartError::new(format!(
                "a new server process closed before it answered a first {} ({})",
                self.plan.modern_liveness,
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

    /// Begins a legacy session at `version` on a new process: its handshake, recorded.
    async fn begin(
        &self,
        spawned: Spawned,
        version: &str,
    ) -> Result<(Spawned, Arc<Handshake>), StartError> {
        let Spawned {
            mut transport,
            at,
            slot,
            ..
        } = spawned;
        transport.keep_sent(SESSION_HANDSHAKE);
        let mut peer = Peer::new(
            transport,
            Recorder::default(),
            1,
            Era::Legacy,
            self.settings.clone(),
        )
        .spawned_at(at);
        let handshake = Arc::new(peer.begin_session(version).await);
        peer.drain_backlog();
        // A server that closed during the handshake is handed over as it is: the check judges
        // the handshake's reply, and the session is never pooled (it did not begin).
        let transport = peer.take_transport();
        let spawned = Spawned {
            transport,
            at,
            warm: true,
            slot,
            prior: None,
        };
        Ok((spawned, handshake))
    }

    /// After a shared check: proves the process alive with a liveness request (`ping` in a
    /// session), under an id no check uses; drains what came before
    /// its answer into `rec` (marked); and puts the process in the pool (unless `afterwards`
    /// says it ends with the check, and
    /// a session only if its handshake began it), retires it, or reports that it stopped
    /// (charged to `check`).
    pub async fn give_back(
        &self,
        back: Returned,
        held: &Held,
        check: &'static str,
        rec: &Recorder,
        conn: u32,
        afterwards: Afterwards,
    ) -> AfterCheck {
        let charged = afterwards == Afterwards::Pooled;
        // The place is freed when the check ends; the process keeps none while it waits.
        let Returned {
            mut transport,
            at,
            slot: _,
            mut outstanding,
            broken,
            died,
        } = back;
        if died {
            let why = "the server stopped during this check: it closed its output (or stopped \
                       reading its input), which the check did not ask for";
            rec.record(
                conn,
                Event::Note {
                    text: format!("shared process (POL-21): {why}"),
                },
            );
            if charged {
                self.count_replaced();
            }
            return AfterCheck::Stopped(why.into());
        }
        if broken {
            return AfterCheck::Alive;
        }
        // A check that sent `initialize` on a modern shared process has changed what the
        // connection is (a legacy session in its handshake: a server may now wait for
        // `notifications/initialized` and refuse anything else): proved alive, then retired.
        let handshook = matches!(held, Held::Modern)
            && transport
                .sent()
                .is_some_and(|log| sent_initialize(log, check));
        transport.mark_sent(LIVENESS);
        let (era, liveness) = match held {
            Held::Modern => (Era::Modern, self.plan.modern_liveness),
            Held::Session(_) => (Era::Legacy, self.plan.legacy_liveness),
        };
        let group = self.group_of(check);
        let id = liveness_id(&transport);
        let mut peer = Peer::new(
            transport,
            Recorder::default(),
            1,
            era,
            self.settings.clone(),
        );
        peer.assume_heard();
        peer.send(request(liveness).id(id.clone())).await;
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
                            "its answer to a liveness {liveness} was not a JSON-RPC reply: {}",
                            mcpspec_core::text::shorten(&String::from_utf8_lossy(&f.raw), 300)
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
                        "the server stopped answering after this check: a liveness {liveness} \
                         got no reply within {}",
                        mcpspec_core::text::seconds(wait)
                    ));
                }
                Incoming::Closed => {
                    let how = match peer.wait_exit(Duration::from_millis(500)).await {
                        mcpspec_core::transport::Liveness::Exited(info) => {
                            format!(" ({})", info.how)
                        }
                        mcpspec_core::transport::Liveness::Running => String::new(),
                    };
                    break AfterCheck::Stopped(format!(
                        "the server stopped answering after this check: it closed its output{how} \
                         before answering a liveness {liveness}"
                    ));
                }
            }
        };
        let poolable = match held {
            Held::Modern => true,
            Held::Session(h) => h.began(),
        };
        // A request left unanswered under an id a later check may use again (an integer or a
        // string) could still be answered during that check: the process is retired. Ids no
        // reply can carry (null, a boolean, a fraction: POL-5) leave nothing to wait for.
        let in_step = outstanding.iter().all(|o| {
            serde_json::from_str::<Value>(o)
                .is_ok_and(|id| mcpspec_core::wire::Id::from_json(&id).is_none())
        });
        let kept = afterwards != Afterwards::Ended;
        if kept && poolable && !handshook && verdict == AfterCheck::Alive && in_step {
            if let Some(transport) = peer.into_transport() {
                self.keep_idle(Idle {
                    transport,
                    at,
                    held: held.clone(),
                    last_check: check,
                    group,
                });
            }
        }
        if let AfterCheck::Stopped(why) = &verdict {
            if charged {
                self.count_replaced();
            }
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

/// The id of the next liveness request to the process behind `transport`:
/// `mcpspec-liveness-N`, N the liveness requests written to it before. It is a function of
/// the process's own history, so a process that served the same checks carries the same ids in
/// every run (the earlier traffic a verdict may depend on reads the same, POL-30.3).
fn liveness_id(transport: &LineTransport) -> Value {
    let before: usize = transport.sent().map_or(0, |log| {
        log.chunks()
            .filter(|c| c.by == LIVENESS)
            .map(|c| c.writes.len())
            .sum()
    });
    json!(format!("mcpspec-liveness-{before}"))
}

/// Whether `check`'s writes (the log's last chunk, when it is that check's) hold an
/// `initialize` request.
fn sent_initialize(log: &mcpspec_core::transport::SentLog, check: &str) -> bool {
    log.chunks().last().is_some_and(|chunk| {
        chunk.by == check
            && chunk.writes.iter().any(|w| {
                serde_json::from_slice::<Value>(w).is_ok_and(|v| {
                    v.get("method").and_then(Value::as_str)
                        == Some(mcpspec_core::protocol::method::INITIALIZE)
                })
            })
    })
}

/// Records a message drained from a shared process after its check, marked as such.
fn drained(rec: &Recorder, conn: u32, frame: &Frame) {
    let text = match &frame.json {
        Some(v) => mcpspec_core::text::preview(v, 300),
        None => mcpspec_core::text::shorten(&String::from_utf8_lossy(&frame.raw), 300),
    };
    rec.record_about_received(
        conn,
        format!(
            "after the check, drained from the shared process before its liveness answer \
             (attributed to this check, not judged, POL-21): {text}"
        ),
    );
}

/// The JSON text of an id, as [`Returned::outstanding`] keeps it.
pub fn id_text(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spares_follow_the_start_up_time_within_the_jobs() {
        let ms = Duration::from_millis;
        // A server that starts at once needs one spare; an interpreter that takes a second
        // wants four, but two jobs leave room for one beside the running check.
        assert_eq!(spares_for(Some(ms(5)), 8), 1);
        assert_eq!(spares_for(Some(ms(1000)), 8), 4);
        assert_eq!(spares_for(Some(ms(1000)), 2), 1);
        assert_eq!(spares_for(Some(ms(600)), 4), 3);
        assert_eq!(spares_for(None, 4), 1);
    }
}
