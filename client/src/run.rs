//! One `mcpspec client` run: the scenarios the selected checks judge, each run once on the
//! run's transport (at most `jobs` at a time), each check judged on its scenario's
//! observation, every result a [`CheckResult`] in a [`RunReport`] (so the report renderers,
//! baselines and exit codes are the server run's).
//!
//! How the client ended is judged here once, for every check of its scenario: a client that
//! could not be started is an Error; one that hangs past the timeout, is killed by a signal,
//! sends nothing, or exits non-zero where the scenario expects success makes every check of
//! the scenario that judged something a Fail that names it (with the check's own finding, if it
//! has one). A check the client never reached (its judgement a Skip: the client did not do what
//! the check needs, POL-34) stays a Skip, its reason saying how the client ended; unless the
//! client sent nothing at all, which every check of the scenario fails. A client that exits 0
//! early is no problem: what it did is judged, what it did not do is Skipped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::checks::ClientCheck;
use crate::observation::{ClientEnd, Log, Observation};
use crate::peer::Peer;
use crate::peer::inject::Injector;
use crate::process::ClientProcess;
use crate::scenario::{self, Expect, Scenario, Transport};
use mcpspec_harness::outcome::{Kind, Outcome};
use mcpspec_harness::report::{
    CheckResult, ClientRun, Negotiated, RunReport, ScenarioRun, Summary,
};

/// The default time one client run may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What a client run needs.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The client command: program and arguments (the URL or peer command is appended).
    pub command: Vec<String>,
    pub transport: Transport,
    /// How long one scenario's client may run.
    pub timeout: Duration,
    /// Scenarios at a time.
    pub jobs: usize,
    pub strict: bool,
    /// The mcpspec program a stdio client starts as its peer (`PROGRAM client peer …`).
    pub peer_program: PathBuf,
    /// The bound on one message the peer reads.
    pub max_message: usize,
}

impl ClientOptions {
    pub fn new(command: Vec<String>, transport: Transport) -> Self {
        Self {
            command,
            transport,
            timeout: DEFAULT_TIMEOUT,
            // Client processes compete with the peer for the cores: one per core.
            jobs: std::thread::available_parallelism().map_or(2, usize::from),
            strict: false,
            peer_program: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mcpspec")),
            max_message: mcpspec_core::transport::DEFAULT_MAX_MESSAGE,
        }
    }

    /// One line naming the client, for reports.
    pub fn describe(&self) -> String {
        self.command.join(" ")
    }
}

/// Runs `checks` against the client; `observe` sees each result as it is made.
pub async fn run(
    checks: &[ClientCheck],
    options: &ClientOptions,
    observe: &(dyn Fn(&CheckResult) + Sync),
) -> RunReport {
    let started = Instant::now();
    let transport = options.transport;
    // The scenarios to run, in report order: those of the checks that apply here.
    let mut wanted: Vec<&'static Scenario> = Vec::new();
    for c in checks {
        if let Some(s) = scenario::named(c.scenario) {
            if c.applies_to(transport)
                && s.runs_on(transport)
                && !wanted.iter().any(|w| w.name == s.name)
            {
                wanted.push(s);
            }
        }
    }
    // Each scenario's checks are judged as it finishes, so progress moves with the run.
    let judged: std::sync::Mutex<BTreeMap<&'static str, CheckResult>> = Default::default();
    let judge = |obs: &Observation| {
        for c in checks
            .iter()
            .filter(|c| c.scenario == obs.scenario.name && c.applies_to(transport))
        {
            let result = result_of(c, obs, options.strict);
            observe(&result);
            if let Ok(mut j) = judged.lock() {
                j.insert(c.id, result);
            }
        }
    };
    let observations = run_scenarios(&wanted, options, &judge).await;
    let mut judged = judged.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut results = Vec::new();
    for c in checks {
        let result = judged.remove(c.id).unwrap_or_else(|| {
            let r = skipped(c, transport);
            observe(&r);
            r
        });
        results.push(result);
    }
    let scenarios = wanted
        .iter()
        .filter_map(|s| observations.get(s.name))
        .map(|o| ScenarioRun {
            name: o.scenario.name.to_owned(),
            end: o.end.describe(),
            duration_ms: millis(o.took),
        })
        .collect();
    let mut report = RunReport {
        schema_version: mcpspec_harness::report::SCHEMA_VERSION,
        mcpspec_version: env!("CARGO_PKG_VERSION").into(),
        target: options.describe(),
        transport: transport.name().into(),
        negotiated: Negotiated {
            era: "none".into(),
            version: None,
            versions: Vec::new(),
            path: "a client run: each scenario's transcript shows how the client negotiated".into(),
        },
        results,
        summary: Summary::default(),
        duration_ms: millis(started.elapsed()),
        target_failure: None,
        processes: None,
        negotiation_matrix: None,
        instances: None,
        client: Some(ClientRun { scenarios }),
        revision: None,
        not_served: None,
    };
    // A client that could not be started in any scenario fails the run as a server that never
    // started does: exit 3, with the reason.
    let mut ends = observations.values().map(|o| &o.end);
    if let Some(ClientEnd::NotStarted(why)) = ends.next() {
        if ends.all(|e| matches!(e, ClientEnd::NotStarted(_))) {
            report.target_failure = Some(format!("the client could not be started: {why}"));
        }
    }
    report.summarize();
    report
}

/// Runs each scenario once, at most `options.jobs` at a time.
async fn run_scenarios(
    scenarios: &[&'static Scenario],
    options: &ClientOptions,
    finished: &(dyn Fn(&Observation) + Sync),
) -> BTreeMap<&'static str, Observation> {
    let permits = Arc::new(tokio::sync::Semaphore::new(options.jobs.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for &s in scenarios {
        let permits = permits.clone();
        let options = options.clone();
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await;
            run_scenario(s, &options, None).await
        });
    }
    let mut done = BTreeMap::new();
    while let Some(joined) = tasks.join_next().await {
        if let Ok(obs) = joined {
            finished(&obs);
            done.insert(obs.scenario.name, obs);
        }
    }
    done
}

/// Runs one scenario: the peer, the client against it (until it ends or the timeout), the
/// record. `injector` replaces replies (a fuzz case).
pub async fn run_scenario(
    scenario: &'static Scenario,
    options: &ClientOptions,
    injector: Option<Arc<dyn Injector>>,
) -> Observation {
    let log = Log::default();
    let transport = options.transport;
    let started = Instant::now();
    let peer = match Peer::start(
        scenario,
        transport,
        log.clone(),
        injector,
        options.max_message,
    )
    .await
    {
        Ok(peer) => peer,
        Err(e) => {
            let end = ClientEnd::NotStarted(format!("the peer could not start: {e}"));
            return log.finish(scenario, transport, end, Vec::new(), started.elapsed());
        }
    };
    let argument = peer.argument(&options.peer_program);
    let env = environment(scenario, transport);
    log.note(1, format!("the client: {} {argument}", options.describe()));
    let (end, tail) = match ClientProcess::spawn(&options.command, &argument, &env) {
        Ok(mut client) => {
            let end = client.wait(options.timeout).await;
            (end, client.tail())
        }
        Err(e) => (ClientEnd::NotStarted(e), Vec::new()),
    };
    let took = started.elapsed();
    peer.stop().await;
    if !end.succeeded() {
        for line in &tail {
            log.note(1, line.clone());
        }
    }
    log.finish(scenario, transport, end, tail, took)
}

/// The environment a client gets for `scenario` (the official suite's variables).
pub fn environment(scenario: &Scenario, transport: Transport) -> Vec<(String, String)> {
    use crate::env;
    let mut vars = vec![
        (env::SCENARIO.to_owned(), scenario.name.to_owned()),
        (
            env::PROTOCOL_VERSION.to_owned(),
            scenario.protocol_version.to_owned(),
        ),
    ];
    if let Some(context) = scenario.context() {
        vars.push((env::CONTEXT.to_owned(), context.to_string()));
    }
    if transport == Transport::Stdio {
        vars.push((env::TRANSPORT.to_owned(), "stdio".to_owned()));
    }
    vars
}

/// Check `c`'s result on `obs`: its judgement, joined with how the client ended.
pub fn result_of(c: &ClientCheck, obs: &Observation, strict: bool) -> CheckResult {
    let mut outcome = verdict(c, obs);
    if strict {
        outcome = outcome.strict();
    }
    // A verdict quotes what it judged only when it is not a pass or a skip.
    if !outcome.wants_evidence() {
        outcome.evidence = None;
    }
    CheckResult {
        id: c.id.to_owned(),
        requirements: c.requirements.iter().map(|r| (*r).to_owned()).collect(),
        level: c.level,
        outcome,
        duration_ms: millis(obs.took),
        transcript_path: None,
        baseline_reason: None,
        transport: Some(obs.transport.name().to_owned()),
        transcript: obs.transcript.clone(),
        prefix: None,
        confirmed: None,
        group: None,
    }
}

/// What was wrong with how the client ended, if anything (see the module doc).
pub fn end_problem(obs: &Observation) -> Option<String> {
    match &obs.end {
        ClientEnd::TimedOut(after) => Some(format!(
            "the client did not finish within {} (it was killed)",
            mcpspec_core::text::seconds(*after)
        )),
        ClientEnd::Signaled(sig) => Some(format!("the client was killed by signal {sig}")),
        ClientEnd::Exited(code) if *code != 0 && obs.scenario.expect == Expect::Success => {
            // The first line a client writes on its way out names the error; the lines after
            // it are a traceback or the error's fields.
            let why = obs
                .stderr_tail
                .iter()
                .filter_map(|l| l.strip_prefix("stderr: "))
                .find(|l| !l.trim().is_empty())
                .map(|l| format!(" (stderr: {})", mcpspec_core::text::shorten(l.trim(), 160)))
                .unwrap_or_default();
            Some(format!("the client exited with status {code}{why}"))
        }
        _ if obs.sent.is_empty() && obs.http.is_empty() => {
            Some("the client sent nothing to the peer".into())
        }
        _ => None,
    }
}

fn verdict(c: &ClientCheck, obs: &Observation) -> Outcome {
    if let ClientEnd::NotStarted(why) = &obs.end {
        return Outcome::error(format!("the client could not be run: {why}"));
    }
    let judged = (c.judge)(obs);
    let reached = !(obs.sent.is_empty() && obs.http.is_empty());
    match end_problem(obs) {
        None => judged,
        // POL-34: a check the client never reached is not judged by how it ended.
        Some(problem) if judged.kind == Kind::Skipped && reached => {
            Outcome::skipped(format!("{} ({problem})", judged.message))
        }
        Some(problem) => {
            let evidence = judged.evidence.clone().or_else(|| obs.end_evidence());
            match judged.kind {
                Kind::Fail => Outcome::fail(format!("{}; and {problem}", judged.message)),
                _ => Outcome::fail(format!("{problem} ({})", judged.message)),
            }
            .with_evidence(evidence)
        }
    }
}

fn skipped(c: &ClientCheck, transport: Transport) -> CheckResult {
    let why = match c.only {
        Some(t) if t != transport => format!(
            "{} only (this run is over {}; use --transport {})",
            t.name(),
            transport.name(),
            t.name()
        ),
        _ => format!(
            "the scenario `{}` does not run over {}",
            c.scenario,
            transport.name()
        ),
    };
    CheckResult {
        id: c.id.to_owned(),
        requirements: c.requirements.iter().map(|r| (*r).to_owned()).collect(),
        level: c.level,
        outcome: Outcome::skipped(why),
        duration_ms: 0,
        transcript_path: None,
        baseline_reason: None,
        transport: Some(transport.name().to_owned()),
        transcript: Vec::new(),
        prefix: None,
        confirmed: None,
        group: None,
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::checks::script::{Script, request, result};

    fn check(id: &str) -> ClientCheck {
        crate::checks::all()
            .into_iter()
            .find(|c| c.id == id)
            .expect("a known check")
    }

    /// A client that negotiated, listed the tools, called none, and ended so.
    fn listed_only(end: ClientEnd) -> Observation {
        Script::new(Transport::Stdio)
            .client(request(1, "server/discover", json!({})))
            .peer(result(
                json!(1),
                json!({"supportedVersions": ["2026-07-28"]}),
            ))
            .client(request(2, "tools/list", json!({})))
            .peer(result(json!(2), json!({"tools": []})))
            .finish("sep-2322-client-request-state", end)
    }

    #[test]
    fn how_the_client_ended_never_fails_a_check_it_did_not_reach() {
        let mrtr = check("client/mrtr/fresh-id");
        let early = result_of(&mrtr, &listed_only(ClientEnd::Exited(0)), false);
        assert_eq!(
            early.outcome.kind,
            Kind::Skipped,
            "{}",
            early.outcome.message
        );
        let failed = result_of(&mrtr, &listed_only(ClientEnd::Exited(1)), false);
        assert_eq!(
            failed.outcome.kind,
            Kind::Skipped,
            "{}",
            failed.outcome.message
        );
        assert!(
            failed
                .outcome
                .message
                .contains("the client exited with status 1"),
            "the reason names the end: {}",
            failed.outcome.message
        );
        let hung = result_of(
            &mrtr,
            &listed_only(ClientEnd::TimedOut(Duration::from_secs(1))),
            false,
        );
        assert_eq!(hung.outcome.kind, Kind::Skipped, "{}", hung.outcome.message);
    }

    #[test]
    fn a_bad_end_still_fails_what_was_judged_and_a_client_that_sent_nothing() {
        let envelope = check("client/envelope/meta-on-every-request");
        let obs = Script::new(Transport::Stdio)
            .client(request(
                1,
                "tools/list",
                json!({"_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                }}),
            ))
            .finish("negotiation/modern-only", ClientEnd::Exited(1));
        let r = result_of(&envelope, &obs, false);
        assert_eq!(r.outcome.kind, Kind::Fail, "{}", r.outcome.message);
        let silent = Script::new(Transport::Stdio).finish("tools_call", ClientEnd::Exited(0));
        for id in ["client/hygiene/jsonrpc-version", "client/mrtr/fresh-id"] {
            let r = result_of(&check(id), &silent, false);
            assert_eq!(r.outcome.kind, Kind::Fail, "{id}: {}", r.outcome.message);
            assert!(
                r.outcome.message.contains("the client sent nothing"),
                "{}",
                r.outcome.message
            );
        }
    }
}
