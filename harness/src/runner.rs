//! Runs a selection of the catalogue against a target: probes what the target serves, then
//! runs every check in its own scenario (fresh connections), several at a time, each under the
//! scenario cap. A non-pass verdict from a shared process is confirmed on a fresh one before it
//! is reported (`runner/confirm.rs`, POL-30).

mod confirm;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::check::{Check, CheckOptions, Facts, Isolation, Lease, Need, Scenario};
use crate::driver::{Peer, Settings, request};
use crate::negotiation::{Client, negotiate};
use crate::outcome::{Era, Outcome};
use crate::protocol::{method, version};
use crate::report::{CheckResult, Negotiated, RunReport};
use crate::target::{StartError, Target};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub settings: Settings,
    pub checks: CheckOptions,
    /// NonStrict counts as Fail.
    pub strict: bool,
    /// Checks run at the same time, and so the most target processes busy at once (POL-24).
    pub jobs: usize,
    /// `--isolation`: whether shared-class checks run on pooled processes (POL-21).
    pub isolation: crate::pool::Mode,
    /// Several instances of the server (`--replicas`, several `--url`s; POL-22).
    pub replicas: Option<crate::replicas::ReplicaSpec>,
    /// Where the run says which checks are running now (the status line reads it).
    pub running: RunningChecks,
    /// Where shared checks' shared connections come from: the pool, or (replaying a
    /// transcript) a fresh process with a prefix replayed first (POL-30).
    pub lease: Lease,
}

/// The checks running now, each with when it started: what a status line names while a long
/// check holds the run (results are handed over in catalogue order, so the last one done can
/// be far behind what runs).
#[derive(Debug, Clone, Default)]
pub struct RunningChecks(Arc<std::sync::Mutex<Vec<(&'static str, Instant)>>>);

impl RunningChecks {
    /// `id` runs from now until the guard is dropped.
    fn enter(&self, id: &'static str) -> RunningGuard {
        self.lock().push((id, Instant::now()));
        RunningGuard {
            running: self.clone(),
            id,
        }
    }

    /// The check that has run longest, for how long, and how many run in all.
    pub fn longest(&self) -> Option<(&'static str, Duration, usize)> {
        let running = self.lock();
        let (id, since) = running.iter().min_by_key(|(_, since)| *since)?;
        Some((id, since.elapsed(), running.len()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(&'static str, Instant)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Takes its check off [`RunningChecks`] when the check ends, however it ends.
struct RunningGuard {
    running: RunningChecks,
    id: &'static str,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        let mut running = self.running.lock();
        if let Some(at) = running.iter().position(|(id, _)| *id == self.id) {
            running.swap_remove(at);
        }
    }
}

/// The default `--jobs`: the number of cores (POL-24: mcpspec's own load must not make a server
/// late). Each running check holds at most one target process at a time, so this bounds the
/// processes too.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            settings: Settings::default(),
            checks: CheckOptions::default(),
            strict: false,
            jobs: default_jobs(),
            isolation: crate::pool::Mode::default(),
            replicas: None,
            running: RunningChecks::default(),
            lease: Lease::Pool,
        }
    }
}

/// Runs `checks` against `target`. Fails only if the target cannot be started at all.
pub async fn run(
    target: Target,
    checks: &[Check],
    options: RunOptions,
) -> Result<RunReport, StartError> {
    run_observed(target, checks, options, &|_| {}).await
}

/// As [`run`], handing each result to `observe` as it is collected, in `checks` order (the
/// status line of long runs).
pub async fn run_observed(
    target: Target,
    checks: &[Check],
    options: RunOptions,
    observe: &(dyn Fn(&CheckResult) + Sync),
) -> Result<RunReport, StartError> {
    let started = Arc::new(crate::target::Started::default());
    let mode = options.isolation;
    let report = crate::target::counting_starts(
        started.clone(),
        run_counted(target, checks, options, observe, started.clone()),
    )
    .await;
    // Every server was ended (or dropped, and so killed) with its check: the run returns once
    // they are all gone, not a moment before (POL-21: none outlives the run).
    started.wait_gone(Duration::from_secs(2)).await;
    let mut report = report?;
    let mut processes = report.processes.take().unwrap_or(crate::report::Processes {
        started: 0,
        isolation: String::new(),
        unpooled: None,
        confirmations: 0,
        by_reason: Default::default(),
        replaced: 0,
    });
    processes.started = started.count();
    processes.isolation = match mode {
        crate::pool::Mode::Shared => "shared",
        crate::pool::Mode::Fresh => "fresh",
    }
    .into();
    // What the pool and the probe did not start: instances, negotiation from scratch, ….
    let counted: usize = processes.by_reason.values().sum();
    if processes.started > counted {
        processes
            .by_reason
            .insert("other".into(), processes.started - counted);
    }
    report.processes = Some(processes);
    Ok(report)
}

async fn run_counted(
    target: Target,
    checks: &[Check],
    options: RunOptions,
    observe: &(dyn Fn(&CheckResult) + Sync),
    counter: Arc<crate::target::Started>,
) -> Result<RunReport, StartError> {
    let started = Instant::now();
    // The instances live as long as this function: dropped (their processes killed) on every
    // way out, ended and waited for at the end of a run.
    let replicas = match &options.replicas {
        Some(spec) => Some(Arc::new(
            crate::replicas::Replicas::start(spec, &target).await?,
        )),
        None => None,
    };
    let target = match &replicas {
        Some(r) => r.primary(target),
        None => target,
    };
    let instances = replicas.as_ref().map_or(1, |r| r.count());
    let target = Arc::new(target);
    let settings = Arc::new(options.settings.clone());
    crate::preflight::preflight(&target, settings.max_message).await?;
    let facts = probe(&target, &settings, options.jobs).await?;
    // Every server started so far was the probe's (first contact, the era probes, instances).
    let probe_started = counter.count();
    if let Some(what) = &facts.never_mcp {
        // Not a conformance question: nothing the checks could judge came back.
        let reason = what.clone();
        let results = checks
            .iter()
            .map(|check| {
                let result = CheckResult::new(
                    check,
                    Outcome::error(reason.clone()),
                    Duration::ZERO,
                    vec![],
                );
                observe(&result);
                result
            })
            .collect();
        let mut report = RunReport::new(
            &target,
            Negotiated::from_facts(&facts),
            results,
            started.elapsed(),
        );
        report.target_failure = Some(reason);
        return Ok(report);
    }
    let facts = Arc::new(facts);
    let check_options = Arc::new(options.checks.clone());
    let permits = Arc::new(Semaphore::new(options.jobs.max(1)));
    let budget = crate::transcript::RunBudget::new(crate::transcript::RunBudget::DEFAULT);
    // Fresh connections the run expects: one per check that runs and does not share (the warm
    // spares are bounded by it). The checks across instances open their own (POL-22).
    let fresh_demand = checks
        .iter()
        .filter(|c| {
            (!c.isolation.is_shared() || options.isolation == crate::pool::Mode::Fresh)
                && !c.needs.contains(&Need::Replicas)
                && unmet_need(c, &target, &facts, &check_options, instances).is_none()
        })
        .count();
    let plan = crate::pool::Plan {
        startup: facts.startup,
        ..crate::pool::Plan::default()
    };
    let processes = Arc::new(crate::pool::Processes::new(
        target.clone(),
        settings.clone(),
        options.isolation,
        options.jobs,
        fresh_demand,
        plan,
    ));
    let any_shared = checks.iter().any(|c| {
        c.isolation == Isolation::Shared
            && unmet_need(c, &target, &facts, &check_options, instances).is_none()
    });
    if any_shared && facts.modern() {
        processes
            .qualify(crate::catalogue::served_method(&facts))
            .await;
    }

    // With shared processes, the checks that share run first: the pool's processes then serve
    // them back to back, and are ended once the fresh-process checks need their places (POL-24
    // counts them). Results are still reported in catalogue order.
    let mut order: Vec<usize> = (0..checks.len()).collect();
    if processes.pools() {
        order.sort_by_key(|&i| checks[i].isolation != Isolation::Shared);
    }
    let mut handles: Vec<Option<tokio::task::JoinHandle<CheckResult>>> =
        (0..checks.len()).map(|_| None).collect();
    for &i in &order {
        let check = checks[i];
        let (target, settings, facts, check_options, permits, budget, processes) = (
            target.clone(),
            settings.clone(),
            facts.clone(),
            check_options.clone(),
            permits.clone(),
            budget.clone(),
            processes.clone(),
        );
        let replicas = replicas.clone();
        let counter = counter.clone();
        let running = options.running.clone();
        let lease = options.lease.clone();
        handles[i] = Some(tokio::spawn(crate::target::counting_starts(
            counter,
            async move {
                let _permit = permits.acquire_owned().await;
                let run = Run {
                    target,
                    settings,
                    facts,
                    options: check_options,
                    budget,
                    processes,
                    replicas,
                    running,
                    lease,
                };
                run_one(check, run).await
            },
        )));
    }
    let mut results = Vec::with_capacity(handles.len());
    for (handle, check) in handles.into_iter().zip(checks) {
        let joined = match handle {
            Some(h) => h.await.map_err(|e| e.to_string()),
            None => Err("it was never started".into()),
        };
        let mut result = match joined {
            Ok(r) => r,
            Err(e) => CheckResult::new(
                check,
                Outcome::error(format!("the check panicked: {e}")),
                Duration::ZERO,
                vec![],
            ),
        };
        if options.strict {
            result.outcome = result.outcome.strict();
        }
        observe(&result);
        results.push(result);
    }
    let mut report = RunReport::new(
        &target,
        Negotiated::from_facts(&facts),
        results,
        started.elapsed(),
    );
    let counts = processes.counts();
    let mut by_reason = counts.by_reason;
    if probe_started > 0 {
        by_reason.insert("probe".into(), probe_started);
    }
    report.processes = Some(crate::report::Processes {
        started: 0,
        isolation: String::new(),
        unpooled: processes.unpooled(),
        confirmations: report
            .results
            .iter()
            .filter(|r| r.confirmed.is_some())
            .count(),
        by_reason,
        replaced: counts.replaced,
    });
    report.instances = replicas.as_ref().map(|r| r.count());
    // Every check has ended, so this is the last reference: the spawned instances are ended
    // and waited for before the report goes out.
    if let Some(mut r) = replicas.and_then(Arc::into_inner) {
        r.shutdown().await;
    }
    Ok(report)
}

/// What every check of a run shares.
struct Run {
    target: Arc<Target>,
    settings: Arc<Settings>,
    facts: Arc<Facts>,
    options: Arc<CheckOptions>,
    budget: Arc<crate::transcript::RunBudget>,
    processes: Arc<crate::pool::Processes>,
    replicas: Option<Arc<crate::replicas::Replicas>>,
    running: RunningChecks,
    lease: Lease,
}

async fn run_one(check: Check, run: Run) -> CheckResult {
    let started = Instant::now();
    let instances = run.replicas.as_ref().map_or(1, |r| r.count());
    if let Some(reason) = unmet_need(&check, &run.target, &run.facts, &run.options, instances) {
        return CheckResult::new(&check, Outcome::skipped(reason), Duration::ZERO, vec![]);
    }
    let _running = run.running.enter(check.id);
    let first = attempt(check, &run, run.lease.clone()).await;
    let done = if confirm::wanted(&first) {
        confirm::confirm(check, &run, first).await
    } else {
        confirm::Confirmed::as_is(first)
    };
    let mut result = CheckResult::new(&check, done.outcome, started.elapsed(), done.transcript);
    result.prefix = done.prefix;
    result.confirmed = done.confirmed;
    result
}

/// One run of a check's script, with every policy applied to its verdict.
#[derive(Debug)]
struct Attempt {
    outcome: Outcome,
    transcript: Vec<crate::transcript::Entry>,
    /// What earlier checks wrote to the shared process it ran on, when it ran on one.
    prior: Option<crate::transport::SentLog>,
    /// The era of that shared connection (a modern process, or a legacy session).
    shared_era: Option<crate::outcome::Era>,
}

async fn attempt(check: Check, run: &Run, lease: Lease) -> Attempt {
    let cap = run.settings.scenario_timeout;
    // Only a pooled process goes back to the pool (and is replaced if it stops).
    let keep = matches!(lease, Lease::Pool) && run.processes.pools();
    let mut scenario = Scenario::new(
        run.target.clone(),
        run.settings.clone(),
        run.facts.clone(),
        run.options.clone(),
    )
    .with_run_budget(run.budget.clone())
    .with_processes(run.processes.clone(), check.isolation)
    .with_replicas(run.replicas.clone())
    .for_check(check.id, lease)
    .ends_at(tokio::time::Instant::now() + cap);
    let (outcome, timed_out) = match tokio::time::timeout(cap, (check.script)(&mut scenario)).await
    {
        Ok(Ok(o) | Err(o)) => (o, false),
        Err(_) => (
            Outcome::error(format!(
                "timed out: the scenario did not finish within its {} cap",
                crate::text::seconds(cap)
            )),
            true,
        ),
    };
    // A shared process goes back to the pool only once it answered a liveness request; one
    // that died or went silent is charged to this check (POL-21). After a timed-out scenario
    // the process is dropped: nothing it does then is this check's or the next one's.
    let after = match scenario.take_returned() {
        Some((back, conn, held)) if !timed_out => {
            run.processes
                .give_back(back, &held, check.id, scenario.recorder(), conn, keep)
                .await
        }
        _ => crate::pool::AfterCheck::Alive,
    };
    let outcome = match after {
        crate::pool::AfterCheck::Alive => outcome,
        crate::pool::AfterCheck::Stopped(why) => charge_stopped(outcome, &why),
    };
    let outcome = slow_is_not_silent(outcome, &scenario.lates(), scenario.unready_silence());
    let outcome = null_id_rejections(outcome, &scenario.recorder().null_ids());
    let outcome = schema_verdict(outcome, &scenario.schema_findings());
    // Every verdict but a pass or a skip quotes what it judged, from the transcript.
    let mut outcome = if outcome.wants_evidence() {
        outcome.with_evidence(scenario.evidence())
    } else {
        outcome
    };
    let prior = scenario.prior().cloned();
    let shared_era = scenario.shared_era();
    // The scenario (and every server it started) is dropped here, before the next check runs.
    let transcript = scenario.transcript();
    // With several instances, the evidence names the instance of its entry (POL-22).
    if let Some(evidence) = outcome.evidence.as_mut() {
        evidence.instance = transcript
            .iter()
            .find(|e| e.seq == evidence.entry)
            .and_then(|e| e.instance.clone());
    }
    drop(scenario);
    // A place among the processes alive at once may have come free: a spare can start.
    run.processes.refill();
    Attempt {
        outcome,
        transcript,
        prior,
        shared_era,
    }
}

/// POL-21: a shared process that died or went silent after a check is charged to it. A
/// verdict that passed (or only recorded) becomes a Fail that says so; a Fail or Error keeps
/// its kind and gains the remark.
pub fn charge_stopped(outcome: Outcome, why: &str) -> Outcome {
    use crate::outcome::Kind;
    match outcome.kind {
        Kind::Fail | Kind::Error => Outcome::new(
            outcome.kind,
            format!("{}; then {why} (POL-21)", outcome.message),
        ),
        _ => Outcome::fail(format!(
            "{why} (POL-21); the check itself said: {}",
            outcome.message
        )),
    }
}

/// POL-20, applied once for every check: a received message that breaks the schema of its
/// revision (SCHEMA-1) makes the check that received it a Fail, once, naming the method, the
/// JSON pointer, what the schema expects and what came, and quoting the message. A Fail keeps
/// its own finding and names the schema's too; a Skip or an Error stands (the check did not
/// judge, and a violation never turns into a pass).
pub fn schema_verdict(outcome: Outcome, findings: &[crate::transcript::SchemaFinding]) -> Outcome {
    use crate::outcome::Kind;
    let Some(first) = findings.first() else {
        return outcome;
    };
    let total: usize = findings.iter().map(|f| f.violations.len()).sum();
    let shown = first
        .violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    let more = match total - first.violations.len() {
        0 => String::new(),
        n => format!(" (and {n} more, listed in the transcript)"),
    };
    let schema = format!("schema violation (SCHEMA-1): {shown}{more}");
    match outcome.kind {
        Kind::Pass | Kind::NonStrict | Kind::Info => Outcome::fail(format!(
            "{schema}; the check's own verdict was {}: {}",
            outcome.kind, outcome.message
        ))
        .with_evidence(first.evidence.clone()),
        Kind::Fail => Outcome {
            message: format!("{}; {schema}", outcome.message),
            ..outcome
        },
        Kind::Skipped | Kind::Error => outcome,
    }
}

/// POL-24, applied once for every check: a verdict that rests on silence judged before the
/// server answered anything is an Error (the server may still have been starting); a late reply
/// makes a Pass, Info or NonStrict verdict NonStrict "late (N ms): …", and is mentioned in a
/// Fail or Error, which stand.
pub fn slow_is_not_silent(
    outcome: Outcome,
    lates: &[crate::transcript::Late],
    unready_silence: Option<String>,
) -> Outcome {
    use crate::outcome::Kind;
    let outcome = match unready_silence {
        Some(what) if matches!(outcome.kind, Kind::Pass | Kind::NonStrict | Kind::Info) => {
            Outcome::error(format!(
                "{what} was judged before the server answered any request, so it proves nothing                  (POL-24: the check must warm the server up first); the check said: {}",
                outcome.message
            ))
        }
        _ => outcome,
    };
    let Some(first) = lates.first() else {
        return outcome;
    };
    let late = format!(
        "late ({} ms): the reply to id {} came after its {} wait{}",
        first.latency.as_millis(),
        first.id,
        crate::text::seconds(first.waited),
        match lates.len() {
            1 => String::new(),
            n => format!(" ({n} late replies in all)"),
        }
    );
    match outcome.kind {
        Kind::Pass | Kind::Info | Kind::NonStrict => {
            Outcome::non_strict(format!("{late} (POL-24); {}", outcome.message))
        }
        Kind::Fail | Kind::Error => Outcome::new(
            outcome.kind,
            format!("{} ({late}, POL-24)", outcome.message),
        ),
        Kind::Skipped => outcome,
    }
}

/// POL-29, applied once for every check: over HTTP, a 4xx rejection whose JSON-RPC error has
/// `id: null` although the request's id was readable answers that request, but RPC-3 asks for
/// the request's id: a Pass, Info or NonStrict verdict becomes NonStrict saying so, and a Fail
/// or Error mentions it.
pub fn null_id_rejections(outcome: Outcome, rejections: &[(String, u16)]) -> Outcome {
    use crate::outcome::Kind;
    let Some((id, status)) = rejections.first() else {
        return outcome;
    };
    let what = format!(
        "the HTTP {status} rejection of request {id} carried `id: null` though the request's id \
         was readable (POL-29; RPC-3 asks for the request's id){}",
        match rejections.len() {
            1 => String::new(),
            n => format!(", {n} such rejections in all"),
        }
    );
    match outcome.kind {
        Kind::Pass | Kind::Info | Kind::NonStrict => {
            Outcome::non_strict(format!("{what}; {}", outcome.message))
        }
        Kind::Fail | Kind::Error => {
            Outcome::new(outcome.kind, format!("{} ({what})", outcome.message))
        }
        Kind::Skipped => outcome,
    }
}

/// Why `check` cannot run against this target, if it cannot.
fn unmet_need(
    check: &Check,
    target: &Target,
    facts: &Facts,
    options: &CheckOptions,
    instances: usize,
) -> Option<String> {
    check.needs.iter().find_map(|need| match need {
        Need::Replicas if instances < 2 => Some(format!(
            "needs two or more instances of the server (POL-22): --replicas N with N ≥ 2, or \
             several --url; this run has {instances}"
        )),
        Need::Modern if !facts.modern() => Some(format!(
            "the server does not serve 2026-07-28 (server/discover got {})",
            facts.discover_seen
        )),
        Need::AnyEra if !facts.modern() && !facts.legacy() => Some(format!(
            "the server serves neither 2026-07-28 (server/discover got {}) nor a legacy revision \
             (initialize got {})",
            facts.discover_seen, facts.initialize_seen
        )),
        Need::Stdio if !target.is_stdio() => Some("not a stdio target".into()),
        Need::Http if target.is_stdio() => Some("not an HTTP target (use --url)".into()),
        Need::Capability(c) if facts.modern() && !facts.has_capability(c) => Some(format!(
            "the server does not advertise the `{c}` capability (POL-11)"
        )),
        Need::Legacy if facts.no_legacy() => Some(format!(
            "the server serves no legacy revision (initialize got {})",
            facts.initialize_seen
        )),
        Need::ModernOnly if facts.legacy() || !facts.modern() => Some(
            "applies to modern-only servers; this one also serves the legacy handshake (or no modern era)"
                .into(),
        ),
        Need::ProbeProfile if !options.probe_profile => Some(
            "needs --probe-profile (the server must implement the mcpspec probe profile)".into(),
        ),
        Need::AllowedTool if options.allowed_tools.is_empty() => Some(
            "needs --allow-tool NAME: mcpspec calls no tool it was not allowed to (POL-12)".into(),
        ),
        Need::CallableTool if !options.probe_profile && options.allowed_tools.is_empty() => Some(
            "needs --allow-tool NAME or --probe-profile: mcpspec calls no tool it was not allowed \
             to (POL-12)"
                .into(),
        ),
        _ => None,
    })
}

/// Learns what the target serves: dual-era negotiation as a client does it, a modern
/// `server/discover` and a legacy `initialize`, each on a fresh connection.
/// The two probes run side by side when `jobs` allows two target processes at once, one after
/// the other otherwise (POL-24).
pub async fn probe(
    target: &Target,
    settings: &Arc<Settings>,
    jobs: usize,
) -> Result<Facts, StartError> {
    let rec = crate::transcript::Recorder::default();
    let legacy_rec = crate::transcript::Recorder::default();
    let client = Client::default();
    // The two probes use separate connections; run them side by side, each under a cap, so a
    // server that floods or stalls cannot hold the run before its first check.
    let cap = settings.scenario_timeout + settings.startup_timeout;
    let modern = capped(cap, negotiate(target, settings, &client, &rec));
    let legacy = capped(cap, probe_legacy(target, settings, &legacy_rec));
    let (negotiation, legacy) = if jobs >= 2 {
        tokio::join!(modern, legacy)
    } else {
        let modern = modern.await;
        (modern, legacy.await)
    };
    let heard_rpc = received_rpc(&rec) || received_rpc(&legacy_rec);
    let heard_any = received_any(&rec) || received_any(&legacy_rec);
    let (negotiation, legacy) = match (negotiation, legacy) {
        (Err(e), _) | (_, Err(e)) if e.message.starts_with(PROBE_CAP) && !heard_any => {
            return Err(StartError::new(format!(
                "the target never produced a JSON-RPC message: {}",
                e.message
            )));
        }
        other => other,
    };
    let (negotiation, (initialize_seen, initialize, initialize_refused, startup)) =
        (negotiation?, legacy?);
    let mut facts = Facts {
        initialize,
        initialize_seen,
        initialize_refused,
        startup,
        ..Facts::default()
    };
    match &negotiation.discover {
        Some(result) => {
            facts.discover = Some(result.clone());
            facts.discover_seen = "a DiscoverResult".into();
        }
        None if heard_rpc => probe_broken_modern(target, settings, &mut facts).await?,
        None => {
            let because = match &negotiation.path {
                crate::negotiation::Path::Unreachable { because } => because.clone(),
                other => other.to_string(),
            };
            facts.discover_seen = because.clone();
            let opening = if heard_any {
                "the target never answered a request (it wrote only notifications or \
                 server→client requests)"
            } else {
                "the target never produced a JSON-RPC message"
            };
            facts.never_mcp = Some(format!(
                "{opening}: {because}; a legacy ping and initialize got {}",
                facts.initialize_seen
            ));
        }
    }
    facts.negotiation = Some(negotiation);
    Ok(facts)
}

/// Whether a transcript shows the server speaking JSON-RPC at all, however badly: a valid
/// message, any JSON (a wrong `jsonrpc` member, a bad id), a JSON fragment (a message broken
/// over lines), or an HTTP 4xx (a transport-level refusal an MCP endpoint may give). Silence,
/// plain text, HTML pages, redirects, 5xx pages and bodies cut short are not.
fn received_rpc(rec: &crate::transcript::Recorder) -> bool {
    use crate::transcript::Event;
    rec.entries().iter().any(|e| match &e.event {
        // A notification or a server→client request is not an answer.
        Event::Recv { message, .. } => message.get("method").is_none(),
        Event::RecvLarge { .. } => true,
        // A line too deep, not UTF-8 or over the bound is a reply mcpspec cannot read: a server
        // that sends nothing else gives the checks nothing to judge.
        Event::RecvInvalid { error, .. }
            if ["nested ", "not UTF-8", "longer than the "]
                .iter()
                .any(|p| error.starts_with(p)) =>
        {
            false
        }
        Event::RecvInvalid {
            text, http_status, ..
        } => {
            text.trim_start().starts_with(['{', '['])
                || http_status.is_some_and(|s| (400..500).contains(&s))
        }
        _ => false,
    })
}

const PROBE_CAP: &str = "the version probe (server/discover, initialize) got no answer within";

/// Whether a transcript holds any valid JSON-RPC message from the server (a notification too).
fn received_any(rec: &crate::transcript::Recorder) -> bool {
    use crate::transcript::Event;
    rec.entries()
        .iter()
        .any(|e| matches!(e.event, Event::Recv { .. } | Event::RecvLarge { .. }))
}

/// Runs a probe step under `cap`; past it the step counts as unanswered.
async fn capped<T>(
    cap: std::time::Duration,
    step: impl std::future::Future<Output = Result<T, StartError>>,
) -> Result<T, StartError> {
    match tokio::time::timeout(cap, step).await {
        Ok(r) => r,
        Err(_) => Err(StartError::new(format!(
            "{PROBE_CAP} {}",
            crate::text::seconds(cap)
        ))),
    }
}

/// A legacy handshake on a fresh connection: a ping first (it gets the start-up allowance),
/// then `initialize`, waited for no longer than one expected message (a server that stalls
/// in `initialize` is the deadlock check's business, not the probe's).
async fn probe_legacy(
    target: &Target,
    settings: &Arc<Settings>,
    rec: &crate::transcript::Recorder,
) -> Result<(String, Option<Value>, bool, Option<Duration>), StartError> {
    let started = Instant::now();
    let transport = target.connect(settings.max_message)?;
    let mut peer = Peer::new(transport, rec.clone(), 0, Era::Legacy, settings.clone());
    // The start-up time: spawn to the first answer (POL-24, the deadlock check's window).
    let startup = peer
        .call(request(method::PING))
        .await
        .answered()
        .map(|_| started.elapsed());
    let reply = initialize_within(&mut peer, settings.expect_timeout).await;
    let result = reply
        .result()
        .filter(|r| r.get("protocolVersion").is_some())
        .cloned();
    Ok((reply.describe(), result, reply.error().is_some(), startup))
}

async fn initialize_within(peer: &mut Peer, wait: std::time::Duration) -> crate::driver::Reply {
    let out = request(method::INITIALIZE)
        .bare()
        .param("protocolVersion", serde_json::json!(version::LATEST_LEGACY))
        .param("capabilities", serde_json::json!({}))
        .param(
            "clientInfo",
            serde_json::json!({"name": "mcpspec", "version": env!("CARGO_PKG_VERSION")}),
        );
    peer.call_within(out, wait).await
}

/// Discover did not produce a DiscoverResult. A server that serves 2026-07-28 but breaks
/// discover (or the framing of its replies) is still modern: its checks must run and say
/// what is wrong, not be skipped.
async fn probe_broken_modern(
    target: &Target,
    settings: &Arc<Settings>,
    facts: &mut Facts,
) -> Result<(), StartError> {
    let transport = target.connect(settings.max_message)?;
    let mut peer = Peer::new(
        transport,
        Default::default(),
        1,
        Era::Modern,
        settings.clone(),
    );
    let reply = peer.call(request(method::DISCOVER)).await;
    facts.discover_seen = reply.describe();
    if let Some(result) = reply
        .frame()
        .and_then(|f| f.json.as_ref())
        .and_then(|j| j.get("result"))
    {
        if result.get("supportedVersions").is_some() {
            facts.discover = Some(result.clone());
            return Ok(());
        }
    }
    let list = peer.call(request(method::TOOLS_LIST)).await;
    if list.result().is_some_and(|r| r.get("resultType").is_some()) {
        facts.discover = Some(Value::Object(Default::default()));
        facts
            .discover_seen
            .push_str("; a modern tools/list was served");
    }
    Ok(())
}
