//! The `middleware/*` checks with the probe profile, on two implementations of it: the
//! embedded reference server (every check passes; transcripts snapshotted, and stable across
//! runs) and the Python SDK fixture server `server.py --probe-profile` (verdicts snapshotted;
//! every Fail is in its probe baseline with a reason naming the SDK behaviour, and no entry is
//! stale). Without `--probe-profile` every middleware check is Skipped. The Python test needs
//! the venv (`bash scripts/python-venv.sh`).

use crate::support;

use mcpspec::{Check, Need};
use mcpspec_harness::catalogue;

fn middleware_checks() -> Vec<Check> {
    let checks: Vec<Check> = catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("middleware/"))
        .collect();
    assert!(
        !checks.is_empty(),
        "no middleware/* checks in the catalogue"
    );
    for c in &checks {
        assert!(
            c.needs.contains(&Need::ProbeProfile),
            "{} does not need the probe profile",
            c.id
        );
    }
    checks
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn skipped_without_the_probe_profile() {
    let report = support::run(
        mcpspec::Target::embedded(),
        &middleware_checks(),
        support::options(),
    )
    .await;
    support::assert_all_skipped(&report, Some("--probe-profile"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reference_passes_and_transcripts_match_snapshots() {
    let checks = middleware_checks();
    let first = support::run(
        support::probe_reference(),
        &checks,
        support::probe_options(),
    )
    .await;
    let second = support::run(
        support::probe_reference(),
        &checks,
        support::probe_options(),
    )
    .await;
    support::assert_all_pass(&first, "the reference server with the probe profile");
    support::assert_transcripts("middleware", &first, &second, |_| {});
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_probe_verdicts_match_snapshot_and_baseline() {
    let target = support::python_server(&["--probe-profile"]);
    let mut options = support::python_options();
    options.checks.probe_profile = true;
    let mut report = support::run(target, &middleware_checks(), options).await;
    support::assert_verdicts_against_baseline(
        &mut report,
        "python-sdk-2.3.0-probe.yaml",
        "verdicts-probe",
        &[],
    );
}
