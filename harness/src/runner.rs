//! Runs a selection of the catalogue against a target: probes what the target serves, then
//! runs every check in its own scenario (fresh connections), several at a time, each under the
//! scenario cap.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::check::{Check, CheckOptions, Facts, Need, Scenario};
use crate::driver::{Settings, request};
use crate::outcome::{Era, Outcome};
use crate::protocol::method;
use crate::report::{CheckResult, Negotiated, RunReport};
use crate::target::{StartError, Target};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub settings: Settings,
    pub checks: CheckOptions,
    /// NonStrict counts as Fail.
    pub strict: bool,
    /// Checks run at the same time.
    pub jobs: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            settings: Settings::default(),
            checks: CheckOptions::default(),
            strict: false,
            jobs: 4,
        }
    }
}

/// Runs `checks` against `target`. Fails only if the target cannot be started at all.
pub async fn run(
    target: Target,
    checks: &[Check],
    options: RunOptions,
) -> Result<RunReport, StartError> {
    let started = Instant::now();
    let target = Arc::new(target);
    let settings = Arc::new(options.settings.clone());
    let facts = Arc::new(probe(&target, &settings).await?);
    let check_options = Arc::new(options.checks.clone());
    let permits = Arc::new(Semaphore::new(options.jobs.max(1)));

    let mut handles = Vec::with_capacity(checks.len());
    for check in checks.iter().copied() {
        let (target, settings, facts, check_options, permits) = (
            target.clone(),
            settings.clone(),
            facts.clone(),
            check_options.clone(),
            permits.clone(),
        );
        handles.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await;
            run_one(check, target, settings, facts, check_options).await
        }));
    }
    let mut results = Vec::with_capacity(handles.len());
    for (handle, check) in handles.into_iter().zip(checks) {
        let mut result = match handle.await {
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
        results.push(result);
    }
    Ok(RunReport::new(
        &target,
        Negotiated::from_facts(&facts),
        results,
        started.elapsed(),
    ))
}

async fn run_one(
    check: Check,
    target: Arc<Target>,
    settings: Arc<Settings>,
    facts: Arc<Facts>,
    options: Arc<CheckOptions>,
) -> CheckResult {
    let started = Instant::now();
    if let Some(reason) = unmet_need(&check, &target, &facts, &options) {
        return CheckResult::new(&check, Outcome::skipped(reason), Duration::ZERO, vec![]);
    }
    let cap = settings.scenario_timeout;
    let mut scenario = Scenario::new(target, settings, facts, options).for_check(check.id);
    let outcome = match tokio::time::timeout(cap, (check.script)(&mut scenario)).await {
        Ok(Ok(o) | Err(o)) => o,
        Err(_) => Outcome::error(format!(
            "timed out: the scenario did not finish within its {} cap",
            crate::driver::seconds(cap)
        )),
    };
    // The scenario (and every server it started) is dropped here, before the next check runs.
    let transcript = scenario.transcript();
    drop(scenario);
    CheckResult::new(&check, outcome, started.elapsed(), transcript)
}

/// Why `check` cannot run against this target, if it cannot.
fn unmet_need(
    check: &Check,
    target: &Target,
    facts: &Facts,
    options: &CheckOptions,
) -> Option<String> {
    check.needs.iter().find_map(|need| match need {
        Need::Modern if !facts.modern() => Some(format!(
            "the server does not serve 2026-07-28 (server/discover got {})",
            facts.discover_seen
        )),
        Need::Stdio if !matches!(target, Target::Command { .. } | Target::Embedded(_)) => {
            Some("not a stdio target".into())
        }
        Need::Capability(c) if facts.modern() && !facts.has_capability(c) => Some(format!(
            "the server does not advertise the `{c}` capability (POL-11)"
        )),
        Need::ProbeProfile if !options.probe_profile => Some(
            "needs --probe-profile (the server must implement the mcpspec probe profile)".into(),
        ),
        Need::AllowedTool if options.allowed_tools.is_empty() => Some(
            "needs --allow-tool NAME: mcpspec calls no tool it was not allowed to (POL-12)".into(),
        ),
        _ => None,
    })
}

/// Learns what the target serves: a modern `server/discover` on a fresh connection.
pub async fn probe(target: &Target, settings: &Arc<Settings>) -> Result<Facts, StartError> {
    let transport = target.connect(settings.max_message)?;
    let mut peer = crate::driver::Peer::new(
        transport,
        Default::default(),
        1,
        Era::Modern,
        settings.clone(),
    );
    let reply = peer.call(request(method::DISCOVER)).await;
    let mut facts = Facts {
        discover_seen: reply.describe(),
        ..Facts::default()
    };
    if let Some(result) = reply.result() {
        facts.discover = Some(result.clone());
        return Ok(facts);
    }
    // A discover result inside a reply that breaks JSON-RPC framing rules (a wrong `jsonrpc`
    // member, say) still shows a modern server: run the checks, and let them report the
    // framing fault rather than skip everything.
    if let Some(result) = reply
        .frame()
        .and_then(|f| f.json.as_ref())
        .and_then(|j| j.get("result"))
    {
        if result.get("supportedVersions").is_some() {
            facts.discover = Some(result.clone());
            return Ok(facts);
        }
    }
    // A server that serves 2026-07-28 but breaks discover still answers a modern list request
    // with a `resultType`: it is modern, and modern/discover/* will say what is wrong.
    let list = peer.call(request(method::TOOLS_LIST)).await;
    if list.result().is_some_and(|r| r.get("resultType").is_some()) {
        facts.discover = Some(Value::Object(Default::default()));
        facts
            .discover_seen
            .push_str("; a modern tools/list was served");
    }
    Ok(facts)
}
