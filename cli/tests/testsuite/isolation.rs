//! POL-21: verdicts never depend on which checks shared a process. The catalogue runs under
//! `--isolation shared` and `--isolation fresh` against the reference server (embedded: the pool
//! leases in-memory servers as it leases processes), and each check must end with the same
//! outcome kind in both: the whole catalogue with no fault (with and without the probe
//! profile), and under each fault the checks that share (a fresh-process check of an in-memory
//! target runs the same code either way: `Processes::fresh` starts a new server, no spares are
//! kept for in-memory servers; running all 135 under each of the 139 faults twice would take
//! ten minutes of the suite to compare timing noise). The Python SDK server over stdio gets the
//! whole comparison in `python_sdk.rs` (its second run is `fresh`).

use crate::support;

use std::sync::Arc;

use mcp_reference_server::faults::Fault;
use mcpspec::{RunOptions, RunReport, Target};
use mcpspec_harness::catalogue;
use mcpspec_harness::pool::Mode;
use tokio::sync::Semaphore;

/// Runs of the whole catalogue at once (each starts many in-memory servers).
const AT_ONCE: usize = 12;

fn options(mode: Mode, probe_profile: bool) -> RunOptions {
    let mut o = support::quick_options();
    // Above the quick 0.7 s: hundreds of servers run at once here, and a reply near the wait
    // (a slow tool) must not turn late in one mode and not the other on load alone.
    o.settings.expect_timeout = std::time::Duration::from_millis(1500);
    o.isolation = mode;
    o.checks.probe_profile = probe_profile;
    o
}

fn target(faults: &[&str], probe_profile: bool) -> Target {
    match support::reference_with(faults) {
        Target::Embedded(mut config) => {
            config.probe_profile = probe_profile;
            Target::Embedded(config)
        }
        other => other,
    }
}

/// `(check id, kind in shared, kind in fresh, messages)` for every check whose outcome kind
/// differs between the two modes. A shared verdict that depends on earlier traffic on its
/// process, and says so with the prefix that reproduces it (POL-30), is the one difference a
/// fresh process cannot see by construction: it is not counted.
fn differences(shared: &RunReport, fresh: &RunReport) -> Vec<(String, String)> {
    assert_eq!(shared.results.len(), fresh.results.len());
    shared
        .results
        .iter()
        .zip(&fresh.results)
        .filter(|(a, b)| !expected_difference(a, b))
        .filter(|(a, b)| a.id != b.id || a.outcome.kind != b.outcome.kind)
        .map(|(a, b)| {
            (
                a.id.clone(),
                format!(
                    "shared {}: {} | fresh {}: {}",
                    a.outcome.kind, a.outcome.message, b.outcome.kind, b.outcome.message
                ),
            )
        })
        .collect()
}

/// The differences POL-30 and the harness's own limits make, which are not the pool's doing:
/// a shared verdict that depends on earlier traffic and shows the prefix that reproduces it (a
/// fresh process cannot see it by construction), or that came right after its process's
/// admission and so is final with that admission request as its prefix (POL-30.1: a faulty
/// server may answer the check with the admission's stale id); a shared non-pass that did not recur on a
/// fresh process (Info "did not recur": a late reply under load, as a rule); and a scenario
/// that ran out of its cap (an Error, the harness could not judge).
fn expected_difference(
    shared: &mcpspec_harness::report::CheckResult,
    fresh: &mcpspec_harness::report::CheckResult,
) -> bool {
    use mcpspec_harness::report::Confirmation;
    let capped = |r: &mcpspec_harness::report::CheckResult| {
        r.outcome.kind == mcpspec::Kind::Error
            && r.outcome.message.starts_with("timed out: the scenario")
    };
    matches!(
        shared.confirmed,
        Some(
            Confirmation::EarlierTraffic { .. }
                | Confirmation::DidNotRecur { .. }
                | Confirmation::FirstAfterAdmission
        )
    ) || capped(shared)
        || capped(fresh)
}

/// Each verdict of `report` that was confirmed on a fresh process (POL-30): how, and its
/// prefix's writes, one line each.
fn confirmed(report: &RunReport) -> String {
    report
        .results
        .iter()
        .filter(|r| r.confirmed.is_some())
        .map(|r| {
            let writes: Vec<String> = r
                .prefix
                .as_ref()
                .and_then(|p| p.writes())
                .unwrap_or_default()
                .iter()
                .map(|w| String::from_utf8_lossy(w).trim_end().to_owned())
                .collect();
            format!(
                "{}: {:?} {}: {} (prefix {writes:?})",
                r.id, r.confirmed, r.outcome.kind, r.outcome.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

async fn both(faults: Vec<&'static str>, probe_profile: bool) -> (RunReport, RunReport) {
    let checks: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| faults.is_empty() || c.isolation == mcpspec_harness::check::Isolation::Shared)
        .collect();
    let shared = support::run(
        target(&faults, probe_profile),
        &checks,
        options(Mode::Shared, probe_profile),
    )
    .await;
    let fresh = support::run(
        target(&faults, probe_profile),
        &checks,
        options(Mode::Fresh, probe_profile),
    )
    .await;
    (shared, fresh)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn shared_and_fresh_agree_on_every_check_under_every_fault() {
    // No fault (with and without the probe profile), then every fault with the probe profile on
    // (so the probe-profile checks run too).
    let mut cases: Vec<(Vec<&'static str>, bool)> = vec![(vec![], false), (vec![], true)];
    cases.extend(Fault::ALL.iter().map(|f| (vec![f.name()], true)));
    let permits = Arc::new(Semaphore::new(AT_ONCE));
    let mut runs = Vec::new();
    for (faults, probe) in cases {
        let permits = permits.clone();
        runs.push(tokio::spawn(async move {
            let _permit = permits
                .acquire_owned()
                .await
                .expect("the semaphore is open");
            let (shared, fresh) = both(faults.clone(), probe).await;
            let mut diff = differences(&shared, &fresh);
            // A difference is confirmed only if it shows again on a second pair of runs and the
            // fresh verdict itself is stable: timing faults (a log 20 ms after a reply) may
            // flip a verdict under load in either mode, which is not the pool's doing.
            if !diff.is_empty() {
                let (shared2, fresh2) = both(faults.clone(), probe).await;
                let again = differences(&shared2, &fresh2);
                let unstable: Vec<String> = differences(&fresh, &fresh2)
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect();
                diff.retain(|(id, _)| again.iter().any(|(a, _)| a == id) && !unstable.contains(id));
            }
            // Confirmations (POL-30) start fresh processes in shared mode only.
            let confirming = shared
                .processes
                .as_ref()
                .map_or(0, |p| p.by_reason.get("confirmation").copied().unwrap_or(0));
            let processes = (
                shared.processes.as_ref().map(|p| p.started - confirming),
                fresh.processes.as_ref().map(|p| p.started),
            );
            (faults, probe, diff, processes)
        }));
    }
    let mut problems = Vec::new();
    let mut runs_done = 0;
    for run in runs {
        let (faults, probe, diff, (shared_started, fresh_started)) =
            run.await.expect("the run completes");
        runs_done += 1;
        // The pool must pool: against a conforming server fewer servers are started than one
        // per check; a faulty one may get every shared process retired (a reply under a wrong
        // id leaves a request outstanding) or fail the pool's qualification (one server more),
        // but no more than that.
        let pooled = match (shared_started, fresh_started) {
            (Some(s), Some(f)) if faults.is_empty() => s < f,
            // The qualification, a session per legacy version and an admission per process
            // that enters the pool come on top when every shared process gets retired.
            (Some(s), Some(f)) => s <= f + 6,
            _ => false,
        };
        if !pooled {
            problems.push(format!(
                "faults {faults:?}: shared started {shared_started:?} servers, fresh \
                 {fresh_started:?}"
            ));
        }
        for (id, what) in diff {
            problems.push(format!(
                "faults {faults:?} (probe profile {probe}): {id}: {what}"
            ));
        }
    }
    assert!(runs_done > Fault::ALL.len());
    assert!(
        problems.is_empty(),
        "{} verdicts differ between --isolation shared and fresh:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Malformed input goes to shared processes (POL-21, revised), and the liveness request after a
/// check decides whether its process serves the next one. Against a server that one malformed
/// line kills (`fixtures/scripted/malformed_casualty.py --die`), the check whose input did it is
/// charged with it, in both modes (the same liveness request follows a shared-class check on a
/// fresh process). Against one it wedges while `server/discover` is still answered (`--wedge`),
/// the liveness request passes, and a check that meets the wedged process fails: that verdict
/// does not recur on a fresh process, and its transcript opens with the malformed line that
/// reproduces it (POL-30). Every other verdict is the same in both modes. Which check meets a
/// wedged process depends on which pooled process each running check is handed: the next test
/// shows one that does, on one job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_broken_by_malformed_input_gets_the_same_verdicts_in_both_modes() {
    let script = support::repo_root().join("fixtures/scripted/malformed_casualty.py");
    for how in ["--wedge", "--die"] {
        let target = || {
            Target::command(support::python3())
                .arg(script.display().to_string())
                .arg(how)
        };
        let mode = |m: Mode| {
            let mut o = support::options();
            o.isolation = m;
            o
        };
        let checks = catalogue::all();
        let shared = support::run(target(), &checks, mode(Mode::Shared)).await;
        let fresh = support::run(target(), &checks, mode(Mode::Fresh)).await;
        let diff = differences(&shared, &fresh);
        assert!(
            diff.is_empty(),
            "{how}: verdicts differ between --isolation shared and fresh:\n{}",
            diff.iter()
                .map(|(id, what)| format!("{id}: {what}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let result = |id: &str| shared.results.iter().find(|r| r.id == id).unwrap();
        match how {
            "--die" => {
                // The first check that sends a line that is not JSON is charged with the death.
                let charged = result("jsonrpc/parse-error/replies-32700");
                assert_eq!(charged.outcome.kind, mcpspec::Kind::Fail, "{charged:?}");
                assert!(
                    charged
                        .outcome
                        .message
                        .contains("stopped answering after this check"),
                    "{}",
                    charged.outcome.message
                );
                assert!(shared.processes.as_ref().unwrap().replaced > 0);
            }
            _ => {
                // A check that met a wedged process: its verdict opens with the line that wedged
                // it, and a fresh process alone passes it.
                for r in shared.results.iter().filter(|r| carries_malformed_line(r)) {
                    assert_wedged_verdict(r);
                }
            }
        }
        // Checks that send only well-formed requests, first on a process, pass.
        for id in [
            "modern/discover/answers",
            "modern/version/no-discover-needed",
        ] {
            assert_eq!(result(id).outcome.kind, mcpspec::Kind::Pass, "{how}: {id}");
        }
    }
}

/// Whether `r`'s verdict opens with earlier traffic holding a line that is not JSON.
fn carries_malformed_line(r: &mcpspec_harness::report::CheckResult) -> bool {
    r.prefix
        .as_ref()
        .and_then(|p| p.writes())
        .is_some_and(|writes| {
            writes
                .iter()
                .any(|w| serde_json::from_slice::<serde_json::Value>(w).is_err())
        })
}

/// A verdict given on a process a malformed line wedged: a Fail that says it depends on the
/// earlier traffic (a fresh process without it passes).
fn assert_wedged_verdict(r: &mcpspec_harness::report::CheckResult) {
    assert_eq!(
        r.outcome.kind,
        mcpspec::Kind::Fail,
        "{}: {}",
        r.id,
        r.outcome.message
    );
    assert!(
        matches!(
            r.confirmed,
            Some(mcpspec_harness::report::Confirmation::EarlierTraffic { .. })
        ) && r.outcome.message.contains("depends on earlier traffic"),
        "{}: {:?} {}",
        r.id,
        r.confirmed,
        r.outcome.message
    );
}

/// The check after the one whose malformed line wedged its process (`--wedge`: only
/// `server/discover` is answered from then on) runs on that process, since the liveness request
/// between them is answered, and fails; on a fresh process it passes, so its verdict opens with
/// the wedging line (POL-30). The two make one group of the plan (POL-30.3), so they run in the
/// order given, on the group's one process, however busy the machine is.
#[tokio::test]
async fn a_wedged_process_fails_the_next_check_which_opens_with_the_wedging_line() {
    let script = support::repo_root().join("fixtures/scripted/malformed_casualty.py");
    let target = Target::command(support::python3())
        .arg(script.display().to_string())
        .arg("--wedge");
    let mut options = support::options();
    options.isolation = Mode::Shared;
    options.jobs = 1;
    let checks = [
        "jsonrpc/parse-error/replies-32700",
        "jsonrpc/unknown-method/replies-32601",
    ]
    .map(|id| catalogue::by_id(id).expect("the check exists"));
    let report = support::run(target, &checks, options).await;
    let (wedging, next) = (&report.results[0], &report.results[1]);
    assert_eq!((wedging.group, next.group), (Some(0), Some(0)));
    // The malformed line got its -32700, and the liveness request after it an answer.
    assert_eq!(
        wedging.outcome.kind,
        mcpspec::Kind::Pass,
        "{}",
        wedging.outcome.message
    );
    assert!(
        carries_malformed_line(next),
        "{} does not open with the wedging line; the confirmed ones:\n{}",
        next.id,
        confirmed(&report)
    );
    assert_wedged_verdict(next);
}
