//! A real server nobody here wrote: the official Python SDK (`mcp==2.3.0`), over stdio.
//! The whole catalogue runs twice, once with `--isolation shared` (the default) and once with
//! `--isolation fresh`: a verdict that changes between the two runs fails the test, which both
//! proves the verdicts stable and shows that sharing processes changes none (POL-21).
//! The first run's verdicts are snapshotted; every Fail must be in the SDK's baseline with a
//! reason, and no baseline entry may be stale; the two schema layers agree on every message
//! received. Needs the venv (`bash scripts/python-venv.sh`): without it the
//! tests fail, naming that command.

use crate::support;
use crate::support::agreement;

use mcpspec_harness::catalogue;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_verdicts_are_stable_and_match_snapshot_and_baseline() {
    let checks = catalogue::all();
    let run = |isolation| {
        let mut options = support::python_options();
        options.isolation = isolation;
        support::run(support::python_server(&[]), &checks, options)
    };
    let mut report = run(mcpspec_harness::pool::Mode::Shared).await;
    let fresh = run(mcpspec_harness::pool::Mode::Fresh).await;
    support::assert_same_outcomes(&report, &fresh, "Python SDK over stdio, shared then fresh");
    // Every message the SDK sent is judged by both schema layers, which must agree (issue 16).
    agreement::assert_layers_agree([&report], 100, "the Python SDK over stdio");
    let started = |r: &mcpspec::RunReport| r.processes.as_ref().map(|p| p.started);
    assert!(
        started(&report) < started(&fresh),
        "the shared run started {:?} processes, the fresh one {:?}",
        started(&report),
        started(&fresh)
    );
    support::assert_verdicts_against_baseline(
        &mut report,
        "python-sdk-2.3.0.yaml",
        "verdicts-stdio",
        &[],
    );
}
