//! A real server nobody here wrote: the official Python SDK (`mcp==2.3.0`), over stdio.
//! Verdicts are snapshotted; every Fail must be in the SDK's baseline with a reason, and no
//! baseline entry may be stale. Needs the venv (`bash scripts/python-venv.sh`): without it the
//! tests fail, naming that command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use mcpspec::baseline::Baseline;
use mcpspec::checks::catalogue;

fn verdicts(report: &mcpspec::RunReport) -> serde_json::Value {
    report
        .results
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                serde_json::json!(format!("{}: {}", r.outcome.kind, r.outcome.message)),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_verdicts_match_snapshot_and_baseline() {
    let target = common::python_server(&[]);
    let options = common::python_options();
    let mut report = common::run(target, &catalogue(), options).await;
    let baseline =
        Baseline::load(&common::repo_root().join("fixtures/baselines/python-sdk-2.3.0.yaml"))
            .expect("the baseline loads");
    baseline.apply(&mut report);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(common::repo_root().join("snapshots/python-sdk"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_yaml_snapshot!("verdicts-stdio", verdicts(&report)));
    assert!(
        report.passed(),
        "unexpected failures or stale baseline entries:\n{}",
        report.to_console(false)
    );
}
