//! A real server nobody here wrote: the official Python SDK (`mcp==2.3.0`), over stdio.
//! The whole catalogue runs twice: a verdict that changes between the two runs fails the test.
//! The first run's verdicts are snapshotted; every Fail must be in the SDK's baseline with a
//! reason, and no baseline entry may be stale. Needs the venv (`bash scripts/python-venv.sh`): without it the
//! tests fail, naming that command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use mcpspec::catalogue;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_verdicts_are_stable_and_match_snapshot_and_baseline() {
    let checks = catalogue::all();
    let run = || {
        support::run(
            support::python_server(&[]),
            &checks,
            support::python_options(),
        )
    };
    let mut report = run().await;
    let second = run().await;
    support::assert_same_outcomes(&report, &second, "Python SDK over stdio");
    support::assert_verdicts_against_baseline(
        &mut report,
        "python-sdk-2.3.0.yaml",
        "verdicts-stdio",
        &[],
    );
}
