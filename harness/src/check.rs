//! What a check is: stable id, cited requirements, level, what it needs, how it is shown to
//! fail, and the script that runs it against a [`Scenario`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::driver::{Peer, Reply, Settings};
use crate::outcome::{Era, Level, Outcome};
use crate::target::Target;
use mcpspec_core::transcript::{Entry, Event, Recorder};

/// A boxed future the catalogue can store.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A check's conclusion. `Err` carries an early verdict (a failed expectation, a start failure)
/// so scripts can use `?`; both sides are outcomes.
pub type Verdict = Result<Outcome, Outcome>;

/// The script of a check.
pub type Script = for<'a> fn(&'a mut Scenario) -> BoxFuture<'a, Verdict>;

/// What a check needs from the target; the runner skips the check (with the reason) otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The server serves 2026-07-28.
    Modern,
    /// The server serves 2026-07-28 or a legacy revision (POL-28): the check runs on the modern
    /// era when it is served, otherwise after the `initialize` handshake on the negotiated
    /// legacy version ([`Scenario::connect_any_era`]).
    AnyEra,
    /// The target is a stdio process or the embedded server (not a URL).
    Stdio,
    /// The target is a streamable HTTP URL.
    Http,
    /// The server advertises this capability in its discover result.
    Capability(&'static str),
    /// The server serves a legacy (initialize-handshake) revision.
    Legacy,
    /// The server serves the modern era only (no legacy handshake).
    ModernOnly,
    /// The run was started with `--probe-profile`.
    ProbeProfile,
    /// The user allowed at least one tool (`--allow-tool`).
    AllowedTool,
    /// mcpspec may call some tool: the probe profile's (`--probe-profile`) or an allowed one.
    CallableTool,
    /// Two or more instances of the server: `--replicas N` or several `--url`s (POL-22).
    Replicas,
}

/// Where a check runs (POL-21, revised): on a process that earlier checks used, or on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// The check's subject is what a server answers, not the process: it runs on a process
    /// earlier checks used, once that process answered a liveness request (a modern process
    /// from the run's pool, or a legacy session shared per negotiated version), malformed input
    /// included. After it, the process must answer a liveness request again (else the check is
    /// charged with stopping it), and a non-pass verdict is confirmed on a fresh process
    /// (POL-30). With `--isolation fresh` it gets a fresh process, and the same liveness
    /// request after it.
    Shared,
    /// The check's subject is the process itself: it needs one of its own, for this reason.
    Fresh(Fresh),
}

/// Why a check needs a process of its own (POL-21): what about the process it judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fresh {
    /// What the process writes from its first byte.
    Startup,
    /// What a process answers to its very first message: a request naming no version is only
    /// ambiguous before the process saw anything else (POL-19), and a served request needs no
    /// `server/discover` before it.
    FirstMessage,
    /// The legacy `initialize` handshake as such: it must be the process's first request.
    Handshake,
    /// The process's exit.
    Exit,
    /// Deadlock detection times the process's start against a readiness window (design.md).
    Deadlock,
    /// Reads the probe middleware's log of everything the process received.
    ProbeLog,
    /// Runs on the run's instances of the server, each started for it (POL-22).
    Instances,
}

impl Fresh {
    /// A short name (`mcpspec list --isolation`, the JSON report's process counts).
    pub fn label(self) -> &'static str {
        match self {
            Fresh::Startup => "startup",
            Fresh::FirstMessage => "first-message",
            Fresh::Handshake => "handshake",
            Fresh::Exit => "exit",
            Fresh::Deadlock => "deadlock",
            Fresh::ProbeLog => "probe-log",
            Fresh::Instances => "instances",
        }
    }

    /// Why the check cannot share a process, in a sentence.
    pub fn reason(self) -> &'static str {
        match self {
            Fresh::Startup => "it judges what the process writes from its first byte",
            Fresh::FirstMessage => {
                "it judges what a process answers to its first message (a request naming no \
                 version is ambiguous only before anything else, POL-19)"
            }
            Fresh::Handshake => {
                "it judges the legacy `initialize` handshake, which must be the process's first \
                 request"
            }
            Fresh::Exit => "it judges how the process exits",
            Fresh::Deadlock => "it times the process's start against a readiness window",
            Fresh::ProbeLog => {
                "it reads the probe middleware's log of everything the process received"
            }
            Fresh::Instances => "it runs on instances of the server started for it (POL-22)",
        }
    }
}

impl Isolation {
    /// `shared`, or `fresh: REASON-LABEL`.
    pub fn label(self) -> String {
        match self {
            Isolation::Shared => "shared".into(),
            Isolation::Fresh(why) => format!("fresh: {}", why.label()),
        }
    }

    pub fn is_shared(self) -> bool {
        self == Isolation::Shared
    }
}

/// One conformance check.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// Stable hierarchical id: `area/topic/behaviour`.
    pub id: &'static str,
    /// Requirement ids from requirements.yaml, then policy ids.
    pub requirements: &'static [&'static str],
    pub level: Level,
    pub era: Era,
    /// Whether the check may share a process with other checks (POL-21).
    pub isolation: Isolation,
    pub needs: &'static [Need],
    /// What is checked, one line.
    pub description: &'static str,
    /// What a conforming server does, one line.
    pub expectation: &'static str,
    /// Reference-server faults under which this check must not pass (the mutation test):
    /// `NAME`, `NAME --eras MODE` when the fault needs a one-era server, `NAME --http` to run
    /// over streamable HTTP a check that runs on either transport.
    pub faults: &'static [&'static str],
    pub script: Script,
}

impl Check {
    /// The area a check is grouped under in reports: the id without its last segment.
    pub fn area(&self) -> &'static str {
        self.id.rsplit_once('/').map_or(self.id, |(area, _)| area)
    }

    /// Whether `--select`/`--skip` pattern `p` names this check: an id prefix (whole
    /// segments) or a cited requirement/policy id.
    pub fn matches(&self, p: &str) -> bool {
        let p = p.trim_end_matches('/');
        self.id == p
            || self
                .id
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
            || self.requirements.contains(&p)
    }
}

/// What the runner learned about the target before the checks ran.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The discover result, when the server serves the modern era.
    pub discover: Option<serde_json::Value>,
    /// What the discover probe saw, in one phrase (for skip reasons).
    pub discover_seen: String,
    /// The InitializeResult of a legacy handshake on a fresh connection, when the server
    /// serves the legacy era.
    pub initialize: Option<serde_json::Value>,
    /// What the legacy probe saw.
    pub initialize_seen: String,
    /// The legacy probe's `initialize` got an error reply (a server saying it has no legacy
    /// era), as opposed to a crash or silence (a legacy server failing).
    pub initialize_refused: bool,
    /// How a dual-era client negotiated with the target.
    pub negotiation: Option<crate::negotiation::Negotiation>,
    /// Set when no probe connection received a single JSON-RPC message: what came instead.
    pub never_mcp: Option<String>,
    /// How long the target took to start: from spawning (or connecting) to the first answer of
    /// the legacy probe's opening `ping` (any reply, even an error), when it answered. The
    /// deadlock check's readiness window adapts to it (POL-24).
    pub startup: Option<std::time::Duration>,
}

impl Facts {
    pub fn modern(&self) -> bool {
        self.discover.is_some()
    }

    pub fn legacy(&self) -> bool {
        self.initialize.is_some()
    }

    /// Whether legacy checks do not apply: the server refused `initialize` with an error, or
    /// is modern and did not answer it. A crash during `initialize` is not "no legacy era":
    /// those checks run and fail.
    pub fn no_legacy(&self) -> bool {
        !self.legacy()
            && (self.initialize_refused
                || self.modern() && !self.initialize_seen.contains("closed"))
    }

    /// Whether the server advertises a legacy revision: it completed the probe's `initialize`,
    /// or its discover result lists a legacy version. Such a dual-era server may read a stdio
    /// request that names no protocol version as a legacy one (POL-19).
    pub fn advertises_legacy(&self) -> bool {
        self.legacy()
            || self
                .supported_versions()
                .iter()
                .any(|v| mcpspec_core::protocol::version::LEGACY.contains(&v.as_str()))
    }

    /// The legacy version the server answered to the probe's `initialize`.
    pub fn legacy_version(&self) -> Option<&str> {
        self.initialize.as_ref()?.get("protocolVersion")?.as_str()
    }

    /// Whether the discover result advertises `capability`; a dotted name is a sub-capability
    /// (`resources.subscribe`, `tools.listChanged`), advertised when present and not `false`.
    pub fn has_capability(&self, capability: &str) -> bool {
        let mut v = self.discover.as_ref().and_then(|d| d.get("capabilities"));
        for part in capability.split('.') {
            v = v.and_then(|c| c.get(part));
        }
        v.is_some_and(|v| !v.is_null() && *v != serde_json::Value::Bool(false))
    }

    /// The modern versions the server says it supports.
    pub fn supported_versions(&self) -> Vec<String> {
        self.discover
            .as_ref()
            .and_then(|d| d.get("supportedVersions"))
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Options the checks can see.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Tools the user allowed mcpspec to call (POL-12).
    pub allowed_tools: Vec<String>,
    /// Whether the target implements the probe profile.
    pub probe_profile: bool,
    /// `--max-items`: the most items of one list the feature-surface checks read, get or
    /// complete (POL-31).
    pub max_items: usize,
    /// `--revision`: the one revision this run judges (a known one, see
    /// [`mcpspec_core::protocol::version::ALL`]). A check of the other era is skipped, and the
    /// legacy handshake asks for this revision; `None` judges every era, the handshake asking
    /// for the newest legacy revision.
    pub revision: Option<&'static str>,
}

impl CheckOptions {
    /// The default `--max-items` (POL-31).
    pub const DEFAULT_MAX_ITEMS: usize = 50;

    /// The version a legacy `initialize` asks for: the run's revision when it is a legacy one,
    /// else the newest legacy revision.
    pub fn legacy_revision(&self) -> &'static str {
        use mcpspec_core::protocol::version;
        match self.revision {
            Some(r) if version::LEGACY.contains(&r) => r,
            _ => version::LATEST_LEGACY,
        }
    }

    /// The era the run's `--revision` belongs to, when one was given.
    pub fn revision_era(&self) -> Option<Era> {
        self.revision.map(|r| {
            if mcpspec_core::protocol::version::LEGACY.contains(&r) {
                Era::Legacy
            } else {
                Era::Modern
            }
        })
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            allowed_tools: Vec::new(),
            probe_profile: false,
            max_items: Self::DEFAULT_MAX_ITEMS,
            revision: None,
        }
    }
}

/// Where a [`Isolation::Shared`] check's shared connection comes from.
#[derive(Debug, Clone, Default)]
pub enum Lease {
    /// A pooled process earlier checks used (the run's pool decides, POL-21).
    #[default]
    Pool,
    /// A process nothing was written to: a verdict from a shared process confirmed (POL-30).
    Fresh,
    /// A fresh process, with these writes replayed to it before the check: a verdict that
    /// depends on earlier traffic reproduced (POL-30), or a transcript replayed.
    Prefixed(Arc<Vec<Vec<u8>>>),
}

/// The first request id a check uses in a shared legacy session, from a stable hash of its id:
/// a requestor must not reuse an id within a session, so the checks that share one number
/// their requests apart, and a check's transcript does not depend on which checks ran before.
fn session_ids(check: &str) -> i64 {
    let hash = check.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    // A hundred ids per check, in one of 90 000 blocks from 1 000 000 on.
    i64::try_from(10_000 + hash % 90_000).unwrap_or(10_000) * 100
}

/// Why a shared-class check's process is a fresh one, for the run's process counts.
fn fresh_lease_reason(lease: &Lease, p: &crate::pool::Processes) -> &'static str {
    match lease {
        Lease::Pool if p.mode() == crate::pool::Mode::Fresh => "fresh mode",
        Lease::Pool => "shared check, no pool",
        Lease::Fresh | Lease::Prefixed(_) => "confirmation",
    }
}

/// The context a check runs in: the target, the settings, and the transcript it writes.
#[derive(Debug)]
pub struct Scenario {
    target: Arc<Target>,
    settings: Arc<Settings>,
    facts: Arc<Facts>,
    options: Arc<CheckOptions>,
    rec: Recorder,
    conns: u32,
    /// Where connections come from (the run's pool); `None`: a new spawn each time.
    processes: Option<Arc<crate::pool::Processes>>,
    isolation: Isolation,
    /// Where the shared connection comes back when the check's peer is dropped.
    returned: crate::driver::lease::ReturnSlot,
    /// The connection number of the shared connection, when the check leased one.
    leased: Option<u32>,
    /// The next connection is spawned now, not taken from the warm spares.
    spawn_now: bool,
    /// The instances of the server, when the run has several (POL-22).
    replicas: Option<Arc<crate::replicas::Replicas>>,
    /// The check's id (what the pool says wrote to a shared process).
    check: &'static str,
    /// Where the shared connection comes from.
    lease: Lease,
    /// What earlier checks wrote to the shared process this check leased (POL-30).
    prior: Option<mcpspec_core::transport::SentLog>,
    /// What the leased connection is: a modern process or a legacy session.
    held: Option<crate::pool::Held>,
}

impl Scenario {
    pub fn new(
        target: Arc<Target>,
        settings: Arc<Settings>,
        facts: Arc<Facts>,
        options: Arc<CheckOptions>,
    ) -> Self {
        Scenario {
            target,
            settings,
            facts,
            options,
            rec: Recorder::default(),
            conns: 0,
            processes: None,
            isolation: Isolation::Fresh(Fresh::Startup),
            returned: Default::default(),
            leased: None,
            spawn_now: false,
            replicas: None,
            check: "",
            lease: Lease::Pool,
            prior: None,
            held: None,
        }
    }

    /// The check this scenario runs, and where its shared connection comes from.
    pub fn for_check(mut self, check: &'static str, lease: Lease) -> Self {
        self.check = check;
        self.lease = lease;
        self
    }

    /// What earlier checks wrote to the shared process this check ran on, when it ran on one
    /// (POL-30): empty for a process new to the pool.
    pub fn prior(&self) -> Option<&mcpspec_core::transport::SentLog> {
        self.prior.as_ref()
    }

    /// The era of the shared connection this check held, when it held one.
    pub fn shared_era(&self) -> Option<Era> {
        self.held.as_ref().map(|h| match h {
            crate::pool::Held::Modern => Era::Modern,
            crate::pool::Held::Session(_) => Era::Legacy,
        })
    }
    /// The run's instances of the server (POL-22).
    pub fn with_replicas(mut self, replicas: Option<Arc<crate::replicas::Replicas>>) -> Self {
        self.replicas = replicas;
        self
    }

    /// The run's instances, when it has several.
    pub fn replicas(&self) -> Option<&Arc<crate::replicas::Replicas>> {
        self.replicas.as_ref()
    }

    /// A new modern connection to instance `index` (A = 0; round robin past the last), never
    /// pooled: every entry of it names the instance in the transcript (POL-22). Over stdio and
    /// in memory the connection's server is the instance.
    pub async fn connect_instance(&mut self, index: usize) -> Result<Peer, Outcome> {
        let Some(replicas) = self.replicas.clone() else {
            return Err(Outcome::error("the run has no instances to choose from"));
        };
        let target = replicas.target(index).clone();
        let name = crate::replicas::label(index % replicas.count());
        self.connect_to(&target, name).await
    }

    /// A new modern connection to `target`, an instance called `name` in the transcript.
    pub async fn connect_to(&mut self, target: &Target, name: String) -> Result<Peer, Outcome> {
        self.conns += 1;
        self.rec.set_instance(self.conns, name.clone());
        self.rec.record(
            self.conns,
            Event::Connect {
                target: format!("instance {name}: {}", target.describe()),
            },
        );
        let transport = target
            .connect(self.settings.max_message)
            .map_err(|e| Outcome::error(format!("instance {name}: {e}")))?;
        Ok(Peer::new(
            transport,
            self.rec.clone(),
            self.conns,
            Era::Modern,
            self.settings.clone(),
        ))
    }

    /// Takes connections from the run's pool: a [`Isolation::Shared`] check's first modern
    /// connection is a pooled process, every other one a warm spare or a new spawn (POL-21).
    pub fn with_processes(
        mut self,
        processes: Arc<crate::pool::Processes>,
        isolation: Isolation,
    ) -> Self {
        self.processes = Some(processes);
        self.isolation = isolation;
        self
    }

    /// The shared connection the check's peer handed back (once it was dropped), with its
    /// connection number and what it is.
    pub fn take_returned(
        &self,
    ) -> Option<(crate::driver::lease::Returned, u32, crate::pool::Held)> {
        let back = self.returned.lock().ok()?.take()?;
        Some((back, self.leased?, self.held.clone()?))
    }

    pub fn recorder(&self) -> &Recorder {
        &self.rec
    }

    /// Draws the transcript on the run's shared budget (set by the runner).
    pub fn with_run_budget(mut self, budget: Arc<mcpspec_core::transcript::RunBudget>) -> Self {
        self.rec = Recorder::with_run_budget(budget);
        self
    }

    /// Records a remark in the transcript (HTTP exchanges, for one).
    pub fn note(&self, text: impl Into<String>) {
        self.rec
            .record(self.conns.max(1), Event::Note { text: text.into() });
    }

    /// The HTTP endpoint, when the target is a URL.
    pub fn endpoint(&self) -> Option<&mcpspec_core::transport::http::client::Endpoint> {
        match self.target.as_ref() {
            Target::Url(e) => Some(e),
            Target::Embedded(_) | Target::Command { .. } => None,
        }
    }

    /// Sets when the scenario ends (its cap): the driver's late-reply grace stops short of it.
    pub fn ends_at(self, ends: tokio::time::Instant) -> Self {
        self.rec.set_ends(ends);
        self
    }

    /// Replies that came late in this scenario (POL-24).
    pub fn lates(&self) -> Vec<mcpspec_core::transcript::Late> {
        self.rec.lates()
    }

    /// What silence was judged before the server answered anything, if any (POL-24).
    pub fn unready_silence(&self) -> Option<String> {
        self.rec.unready_silence()
    }

    /// Starts a fresh server (POL-8: every check starts from a fresh connection) and returns a
    /// modern-era peer to it. A start failure is an Error outcome.
    pub async fn connect(&mut self) -> Result<Peer, Outcome> {
        self.connect_as(Era::Modern).await
    }

    /// As [`Scenario::connect_as`], on a server spawned now, never a warm spare: for a check
    /// that times the start itself (the deadlock check's readiness window). A spare that waited
    /// longer than the window would answer at once whenever it became ready, so the window could
    /// not tell a slow start from a quick one; a spawn now is exactly as fair as before the pool.
    pub async fn connect_spawned(&mut self, era: Era) -> Result<Peer, Outcome> {
        self.spawn_now = true;
        let peer = self.connect_as(era).await;
        self.spawn_now = false;
        peer
    }

    pub async fn connect_as(&mut self, era: Era) -> Result<Peer, Outcome> {
        let shared = era == Era::Modern && self.shares();
        self.conns += 1;
        self.rec.record(
            self.conns,
            Event::Connect {
                target: self.target.describe(),
            },
        );
        let spawned = match &self.processes {
            Some(p) if shared => {
                let got = match (&self.lease, p.pools()) {
                    (Lease::Pool, true) => p.lease(&self.rec, self.conns, self.check).await,
                    (lease, _) => {
                        p.fresh_lease(self.check, fresh_lease_reason(lease, p))
                            .await
                    }
                };
                if let Ok(spawned) = &got {
                    self.leased = Some(self.conns);
                    self.held = Some(crate::pool::Held::Modern);
                    self.prior = spawned.prior.clone();
                }
                got
            }
            Some(p) => p.fresh(!self.spawn_now, &self.fresh_reason()),
            None => self
                .target
                .connect(self.settings.max_message)
                .map(|transport| crate::pool::Spawned {
                    transport,
                    at: tokio::time::Instant::now(),
                    warm: false,
                    slot: None,
                    prior: None,
                }),
        }
        .map_err(|e| Outcome::error(e.to_string()))?;
        let mut peer = self.peer(spawned, era);
        if self.leased != Some(self.conns) {
            return Ok(peer);
        }
        if let Lease::Prefixed(writes) = &self.lease {
            peer.replay_prefix(writes).await;
        }
        Ok(peer.leased(self.returned.clone()))
    }

    /// Whether the next connection is the one a shared-class check shares: its first, on a
    /// target whose processes mcpspec starts (an HTTP URL is one endpoint, shared as it is).
    fn shares(&self) -> bool {
        self.isolation == Isolation::Shared
            && self.leased.is_none()
            && self.conns == 0
            && self
                .processes
                .as_ref()
                .is_some_and(|p| p.starts_processes())
    }

    /// Why the pool starts a fresh process for this check's connection (its process counts).
    fn fresh_reason(&self) -> String {
        match self.isolation {
            Isolation::Fresh(why) => format!("fresh: {}", why.label()),
            Isolation::Shared => "a shared check's further connection".into(),
        }
    }

    fn peer(&self, spawned: crate::pool::Spawned, era: Era) -> Peer {
        let mut peer = Peer::new(
            spawned.transport,
            self.rec.clone(),
            self.conns,
            era,
            self.settings.clone(),
        )
        .spawned_at(spawned.at)
        .holding(spawned.slot)
        .serving_legacy(self.facts.legacy_version());
        if spawned.warm {
            peer.assume_heard();
        }
        peer
    }

    /// A legacy session at `version`, initialized (`initialize`, then
    /// `notifications/initialized`), with the reply to its `initialize` and how the handshake
    /// went. A shared-class check shares the session with the other checks that ask for that
    /// version (POL-21): its handshake, made once, is written into this check's transcript and
    /// its reply handed over as this check's. Any other check makes its own handshake.
    pub async fn session(
        &mut self,
        version: &str,
    ) -> Result<(Peer, Reply, Arc<crate::driver::Handshake>), Outcome> {
        if !self.shares() {
            let mut peer = self.connect_as(Era::Legacy).await?;
            let handshake = Arc::new(peer.begin_session(version).await);
            let reply = handshake.reply.clone();
            return Ok((peer, reply, handshake));
        }
        self.conns += 1;
        self.rec.record(
            self.conns,
            Event::Connect {
                target: self.target.describe(),
            },
        );
        let Some(p) = self.processes.clone() else {
            return Err(Outcome::error("no process pool"));
        };
        let got = match (&self.lease, p.pools()) {
            (Lease::Pool, true) => p.session(&self.rec, self.conns, self.check, version).await,
            (lease, _) => {
                p.fresh_session(self.check, version, fresh_lease_reason(lease, &p))
                    .await
            }
        };
        let (spawned, handshake) = got.map_err(|e| Outcome::error(e.to_string()))?;
        self.leased = Some(self.conns);
        self.held = Some(crate::pool::Held::Session(handshake.clone()));
        self.prior = spawned.prior.clone();
        // Request ids are unique within a legacy session (its handshake used the first ones):
        // each sharing check numbers its requests from its own base.
        let mut peer = self
            .peer(spawned, Era::Legacy)
            .ids_from(session_ids(self.check));
        let reply = peer.adopt_handshake(&handshake);
        if let Lease::Prefixed(writes) = &self.lease {
            peer.replay_prefix(writes).await;
        }
        Ok((peer.leased(self.returned.clone()), reply, handshake))
    }

    /// The era a [`Need::AnyEra`] check speaks: modern when the server serves it, else legacy
    /// (POL-28).
    pub fn any_era(&self) -> Era {
        if let Some(era) = self.options.revision_era() {
            return era;
        }
        if !self.facts.modern() && self.facts.legacy() {
            Era::Legacy
        } else {
            Era::Modern
        }
    }

    /// A fresh connection in the era the server serves (POL-28, POL-8): a modern peer as
    /// [`Scenario::connect`] gives it, or a legacy one after `initialize` (asking the newest
    /// legacy version; the server answers with the one it negotiates) and
    /// `notifications/initialized`. The answered
    /// `initialize` proves the legacy server ready; an `initialize` that is not answered with a
    /// result is an Error (the `legacy/*` checks judge the handshake, not these).
    pub async fn connect_any_era(&mut self) -> Result<Peer, Outcome> {
        if self.any_era() == Era::Modern {
            return self.connect().await;
        }
        // The run's legacy version asked for (the newest without `--revision`): the server
        // answers with the one it negotiates (the probe's), and the session is the one the
        // `legacy/*` checks share.
        let version = self.options.legacy_revision();
        let (peer, reply, _) = self.session(version).await?;
        if reply.result().is_none() {
            return Err(Outcome::error(format!(
                "the legacy handshake this check runs after (POL-28) failed: initialize at \
                 {version} got {}",
                reply.describe()
            )));
        }
        Ok(peer)
    }

    /// As [`Scenario::connect_any_era`], with the server known to be up before the check sends
    /// input that may rightly get no reply: a modern peer is warmed up ([`Peer::warm_up`]); a
    /// legacy one already answered `initialize`.
    pub async fn connect_any_era_ready(&mut self) -> Result<Peer, Outcome> {
        let mut peer = self.connect_any_era().await?;
        if peer.era == Era::Modern {
            peer.warm_up().await?;
        }
        Ok(peer)
    }

    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    pub fn options(&self) -> &CheckOptions {
        &self.options
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The target, settings and recorder, for drivers that open their own connections.
    pub fn parts(&self) -> (Arc<Target>, Arc<Settings>, Recorder) {
        (self.target.clone(), self.settings.clone(), self.rec.clone())
    }

    /// What the scenario's verdict most likely judged (see [`Recorder::evidence`]).
    pub fn evidence(&self) -> Option<crate::outcome::Evidence> {
        self.rec.evidence()
    }

    /// Records a remark that a verdict may judge (an HTTP exchange the check made itself),
    /// with `quote` as the evidence it shows (the response, without the request).
    pub fn note_judged(&self, text: impl Into<String>, quote: &str) {
        self.rec.note_judged(self.conns.max(1), text.into(), quote);
    }

    /// Records the schema violations of a message received outside the driver (a raw HTTP
    /// exchange), which has no transcript entry of its own: the evidence is the exchange last
    /// noted with [`Scenario::note_judged`], so note it first.
    pub fn record_schema_violations(&self, violations: Vec<crate::schema::Violation>) {
        if !violations.is_empty() {
            self.rec
                .raw_schema_violations(self.conns.max(1), violations);
        }
    }

    /// An HTTP rejection (4xx) whose error had `id: null` for the readable request id `id`,
    /// read outside the driver (POL-29: the runner makes the verdict NonStrict).
    pub fn record_null_id(&self, id: String, status: u16) {
        self.rec.record_null_id(id, status);
    }

    /// Takes the schema violations found so far, for a check that reports them itself.
    pub fn take_schema_findings(&self) -> Vec<mcpspec_core::transcript::SchemaFinding> {
        self.rec.take_schema_findings()
    }

    /// The schema violations of the messages this scenario received (SCHEMA-1, POL-20).
    pub fn schema_findings(&self) -> Vec<mcpspec_core::transcript::SchemaFinding> {
        self.rec.schema_findings()
    }

    pub fn transcript(&self) -> Vec<Entry> {
        self.rec.entries()
    }
}
