//! A real server nobody here wrote: the official Python SDK (`mcp==2.3.0`), over stdio.
//! Verdicts are snapshotted; every Fail must be in the SDK's baseline with a reason, and no
//! baseline entry may be stale. Needs the venv (`bash scripts/python-venv.sh`): without it the
//! tests fail, naming that command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use mcpspec::checks::catalogue;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_verdicts_match_snapshot_and_baseline() {
    let target = common::python_server(&[]);
    let mut report = common::run(target, &catalogue(), common::python_options()).await;
    common::assert_verdicts_against_baseline(
        &mut report,
        "python-sdk-2.3.0.yaml",
        "verdicts-stdio",
        &[],
    );
}
