//! Runs a selection of the catalogue against a target: probes what the target serves, then
//! runs every check in its own scenario (fresh connections), several at a time, each under the
//! scenario cap. A non-pass verdict from a shared process is confirmed on a fresh one before it
//! is reported (`runner/confirm.rs`, POL-30). The era probe is `runner/probe.rs`; the policies
//! applied to a verdict after its check ran are `runner/verdict.rs`.

mod confirm;
mod probe;
mod verdict;

pub use crate::progress::RunningChecks;
pub use probe::probe;
pub use verdict::{charge_stopped, null_id_rejections, schema_verdict, slow_is_not_silent};

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::check::{Check, CheckOptions, Facts, Isolation, Lease, Need, Scenario};
use crate::driver::Settings;
use crate::outcome::Outcome;
use crate::report::{CheckResult, Negotiated, RunReport};
use crate::target::{StartError, Target, TransportKind};

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
    /// Checks the baseline expects not to pass: each runs first on a process of its own
    /// (`plan.rs`), so its verdict needs no re-run on a fresh one (POL-30.1).
    pub expected_to_fail: std::collections::BTreeSet<String>,
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
            expected_to_fail: Default::default(),
        }
    }
}

/// The plan `options` give `checks` against `target` (POL-30.3), decided before anything
/// starts: from the selection and the flags only.
pub fn plan(target: &Target, checks: &[Check], options: &RunOptions) -> crate::plan::Plan {
    use crate::replicas::ReplicaSpec;
    // Instances served over HTTP make the run's target an HTTP one: nothing is pooled.
    let http_instances = matches!(
        options.replicas,
        Some(ReplicaSpec::Urls(_) | ReplicaSpec::SpawnHttp { .. })
    );
    let pools = options.isolation == crate::pool::Mode::Shared
        && target.kind() == TransportKind::Stdio
        && !http_instances;
    crate::plan::Plan::new(
        checks,
        pools,
        |c| runs_by_flags(c, target, options),
        &options.expected_to_fail,
    )
}

/// Whether the flags let `check` run (what the probe finds may still skip it).
pub fn runs_by_flags(check: &Check, target: &Target, options: &RunOptions) -> bool {
    use crate::replicas::ReplicaSpec;
    let instances = match &options.replicas {
        Some(ReplicaSpec::Copies(n) | ReplicaSpec::SpawnHttp { count: n, .. }) => *n,
        Some(ReplicaSpec::Urls(urls)) => urls.len(),
        None => 1,
    };
    outside_revision(check, &options.checks, None).is_none()
        && check
            .needs
            .iter()
            .all(|need| unmet(need, target, None, &options.checks, instances).is_none())
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
    let plan = plan(&target, checks, &options);
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
    let facts = probe(
        &target,
        &settings,
        options.jobs,
        options.checks.legacy_revision(),
    )
    .await?;
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
        report.revision = options.checks.revision.map(str::to_owned);
        report.not_served = not_served(&options.checks, &facts);
        return Ok(report);
    }
    let facts = Arc::new(facts);
    let check_options = Arc::new(options.checks.clone());
    let permits = Arc::new(Semaphore::new(options.jobs.max(1)));
    let budget =
        mcpspec_core::transcript::RunBudget::new(mcpspec_core::transcript::RunBudget::DEFAULT);
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
    let keeping = crate::pool::Plan {
        startup: facts.startup,
        ..crate::pool::Plan::default()
    };
    let processes = Arc::new(crate::pool::Processes::new(
        target.clone(),
        settings.clone(),
        options.isolation,
        options.jobs,
        fresh_demand,
        keeping,
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

    // The plan (POL-30.3), made before anything started: each group is one task that runs its
    // checks in the plan's order on the group's own processes, holding one of the `--jobs`
    // permits from its first check to its last, so `--jobs` decides only how many groups (and
    // fresh checks) run at once. The groups start first, then the fresh-process checks, one
    // task each. Results are still reported in catalogue order.
    processes.set_plan(plan.assignments());
    let index: std::collections::BTreeMap<&str, usize> =
        checks.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let groups: Vec<Vec<usize>> = plan
        .groups
        .iter()
        .map(|g| {
            g.checks
                .iter()
                .filter_map(|id| index.get(id).copied())
                .collect()
        })
        .collect();
    let planned: std::collections::BTreeSet<usize> = groups.iter().flatten().copied().collect();
    let context = |check: Check| {
        let run = Run {
            target: target.clone(),
            settings: settings.clone(),
            facts: facts.clone(),
            options: check_options.clone(),
            budget: budget.clone(),
            processes: processes.clone(),
            replicas: replicas.clone(),
            running: options.running.clone(),
            lease: options.lease.clone(),
        };
        (check, run)
    };
    let mut group_handles = Vec::new();
    for (group_index, group) in groups.iter().enumerate() {
        let work: Vec<(usize, Check, Run)> = group
            .iter()
            .map(|&i| {
                let (check, run) = context(checks[i]);
                (i, check, run)
            })
            .collect();
        let (permits, counter, processes) = (permits.clone(), counter.clone(), processes.clone());
        group_handles.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await;
            let mut done = Vec::with_capacity(work.len());
            for (i, check, run) in work {
                // A task of its own, awaited at once: a check that panics ends itself, not
                // the rest of its group.
                let one = tokio::spawn(crate::target::counting_starts(
                    counter.clone(),
                    run_one(check, run),
                ));
                let result = one.await.map_err(|e| e.to_string()).map(|mut r| {
                    r.group = Some(group_index);
                    r
                });
                done.push((i, result));
            }
            processes.end_group(group_index);
            done
        }));
    }
    let mut handles: Vec<Option<tokio::task::JoinHandle<CheckResult>>> =
        (0..checks.len()).map(|_| None).collect();
    for (i, &check) in checks.iter().enumerate() {
        if planned.contains(&i) {
            continue;
        }
        let (check, run) = context(check);
        let permits = permits.clone();
        handles[i] = Some(tokio::spawn(crate::target::counting_starts(
            counter.clone(),
            async move {
                let _permit = permits.acquire_owned().await;
                run_one(check, run).await
            },
        )));
    }
    let mut from_groups: Vec<Option<Result<CheckResult, String>>> =
        (0..checks.len()).map(|_| None).collect();
    for (handle, group) in group_handles.into_iter().zip(&groups) {
        match handle.await {
            Ok(done) => {
                for (i, result) in done {
                    from_groups[i] = Some(result);
                }
            }
            Err(e) => {
                for &i in group {
                    from_groups[i].get_or_insert_with(|| Err(e.to_string()));
                }
            }
        }
    }
    let mut results = Vec::with_capacity(handles.len());
    for ((handle, planned), check) in handles.into_iter().zip(from_groups).zip(checks) {
        let joined = match (handle, planned) {
            (Some(h), _) => h.await.map_err(|e| e.to_string()),
            (None, Some(result)) => result,
            (None, None) => Err("it was never started".into()),
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
    report.revision = options.checks.revision.map(str::to_owned);
    report.not_served = not_served(&options.checks, &facts);
    let counts = processes.counts();
    let mut by_reason = counts.by_reason;
    // Started ahead of need and never taken: the cost of starting early, shown.
    let unused = processes.unused_spares();
    if unused > 0 {
        by_reason.insert("spare, not used".into(), unused);
    }
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
            .filter(|r| r.confirmed.is_some_and(|c| c.re_ran()))
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
    budget: Arc<mcpspec_core::transcript::RunBudget>,
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
    } else if confirm::final_after_admission(&first) {
        // The admission request is the verdict's prefix: a replay sends it first, as the pool
        // did, so the transcript still replays to its verdict on a fresh process.
        let writes = first.prior.as_ref().map(|p| p.writes()).unwrap_or_default();
        confirm::Confirmed {
            confirmed: Some(crate::report::Confirmation::FirstAfterAdmission),
            prefix: (!writes.is_empty())
                .then(|| mcpspec_core::transcript::Prefix::from_writes(&writes)),
            ..confirm::Confirmed::as_is(first)
        }
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
    transcript: Vec<mcpspec_core::transcript::Entry>,
    /// What earlier checks wrote to the shared process it ran on, when it ran on one.
    prior: Option<mcpspec_core::transport::SentLog>,
    /// The era of that shared connection (a modern process, or a legacy session).
    shared_era: Option<crate::outcome::Era>,
    /// The check's first write to that shared connection.
    own_first: Option<Vec<u8>>,
}

async fn attempt(check: Check, run: &Run, lease: Lease) -> Attempt {
    let cap = run.settings.scenario_timeout;
    // A pooled process goes back to the pool (and is replaced if it stops); a fresh one that
    // served a confirmation joins it, so the pool starts fewer processes of its own. One that
    // was replayed a prefix ends with its check: that traffic is there because it may change
    // what the server does, and no later check should inherit it.
    let afterwards = match &lease {
        Lease::Pool if run.processes.pools() => crate::pool::Afterwards::Pooled,
        Lease::Fresh if run.processes.pools() => crate::pool::Afterwards::Recycled,
        _ => crate::pool::Afterwards::Ended,
    };
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
                mcpspec_core::text::seconds(cap)
            )),
            true,
        ),
    };
    // A shared process goes back to the pool only once it answered a liveness request; one
    // that died or went silent is charged to this check (POL-21). After a timed-out scenario
    // the process is dropped: nothing it does then is this check's or the next one's.
    let mut own_first = None;
    let after = match scenario.take_returned() {
        Some((back, conn, held)) if !timed_out => {
            own_first = back.transport.sent().and_then(|log| {
                log.chunks()
                    .filter(|c| c.by == check.id)
                    .find_map(|c| c.writes.first().cloned())
            });
            run.processes
                .give_back(back, &held, check.id, scenario.recorder(), conn, afterwards)
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
        own_first,
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
    outside_revision(check, options, Some(facts)).or_else(|| {
        check
            .needs
            .iter()
            .find_map(|need| unmet(need, target, Some(facts), options, instances))
    })
}

/// Why `check` does not judge the run's `--revision`, if it does not: a check of the other era,
/// or one that speaks the era of a revision the server does not serve. Without `facts` (the
/// plan, before the probe) only the era is judged.
fn outside_revision(
    check: &Check,
    options: &CheckOptions,
    facts: Option<&Facts>,
) -> Option<String> {
    use crate::outcome::Era;
    use mcpspec_core::protocol::version;
    let revision = options.revision?;
    let run_era = options.revision_era()?;
    match (check.era, run_era) {
        (Era::Modern, Era::Legacy) => {
            return Some(format!(
                "the run judges revision {revision} (--revision); this check judges {}",
                version::MODERN
            ));
        }
        (Era::Legacy, Era::Modern) => {
            return Some(format!(
                "the run judges revision {revision} (--revision); this check judges the \
                 handshake revisions"
            ));
        }
        _ => {}
    }
    let facts = facts?;
    // An any-era check speaks the run's era only when it needs an era at all; the others do
    // not depend on the revision. Past the returns above, a check speaks the run's era.
    if check.era == Era::Any && !check.needs.contains(&Need::AnyEra) {
        return None;
    }
    not_served(options, facts)
}

/// Why the server does not serve the run's `--revision`, if the probe found it does not: what
/// every check that speaks that revision is skipped with, and what the report says
/// ([`RunReport::not_served`]).
fn not_served(options: &CheckOptions, facts: &Facts) -> Option<String> {
    use crate::outcome::Era;
    let revision = options.revision?;
    match options.revision_era()? {
        Era::Modern if !facts.modern() => Some(format!(
            "the server does not serve {revision} (server/discover got {})",
            facts.discover_seen
        )),
        Era::Legacy if facts.no_legacy() => Some(format!(
            "the server does not serve {revision}: it serves no legacy revision (initialize got \
             {})",
            facts.initialize_seen
        )),
        Era::Legacy => match facts.legacy_version() {
            Some(v) if v != revision => Some(format!(
                "the server does not serve {revision}: initialize asking for it was answered \
                 with protocolVersion {v}"
            )),
            _ => None,
        },
        _ => None,
    }
}

/// Why `need` is not met, if it is not. Without `facts` (the plan, before the probe) only what
/// the flags and the target say is judged.
fn unmet(
    need: &Need,
    target: &Target,
    facts: Option<&Facts>,
    options: &CheckOptions,
    instances: usize,
) -> Option<String> {
    match (need, facts) {
        (Need::Replicas, _) if instances < 2 => Some(format!(
            "needs two or more instances of the server (POL-22): --replicas N with N ≥ 2, or \
             several --url; this run has {instances}"
        )),
        (Need::Modern, Some(facts)) if !facts.modern() => Some(format!(
            "the server does not serve 2026-07-28 (server/discover got {})",
            facts.discover_seen
        )),
        (Need::AnyEra, Some(facts)) if !facts.modern() && !facts.legacy() => Some(format!(
            "the server serves neither 2026-07-28 (server/discover got {}) nor a legacy revision \
             (initialize got {})",
            facts.discover_seen, facts.initialize_seen
        )),
        (Need::Stdio, _) => match target.kind() {
            TransportKind::Stdio => None,
            TransportKind::Http => Some("not a stdio target".into()),
        },
        (Need::Http, _) => match target.kind() {
            TransportKind::Http => None,
            TransportKind::Stdio => Some("not an HTTP target (use --url)".into()),
        },
        (Need::Capability(c), Some(facts)) if facts.modern() && !facts.has_capability(c) => {
            Some(format!(
                "the server does not advertise the `{c}` capability (POL-11)"
            ))
        }
        (Need::Legacy, Some(facts)) if facts.no_legacy() => Some(format!(
            "the server serves no legacy revision (initialize got {})",
            facts.initialize_seen
        )),
        (Need::ModernOnly, Some(facts)) if facts.legacy() || !facts.modern() => Some(
            "applies to modern-only servers; this one also serves the legacy handshake (or no modern era)"
                .into(),
        ),
        (Need::ProbeProfile, _) if !options.probe_profile => Some(
            "needs --probe-profile (the server must implement the mcpspec probe profile)".into(),
        ),
        (Need::AllowedTool, _) if options.allowed_tools.is_empty() => Some(
            "needs --allow-tool NAME: mcpspec calls no tool it was not allowed to (POL-12)".into(),
        ),
        (Need::CallableTool, _) if !options.probe_profile && options.allowed_tools.is_empty() => {
            Some(
                "needs --allow-tool NAME or --probe-profile: mcpspec calls no tool it was not \
                 allowed to (POL-12)"
                    .into(),
            )
        }
        _ => None,
    }
}
