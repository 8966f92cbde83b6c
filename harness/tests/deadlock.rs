//! Deadlock verdicts (POL-14) against the reference server's faults and the Python SDK's own
//! documented deadlock; each verdict within 5 s of wall time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use mcpspec::catalogue::by_id;

async fn verdict(target: mcpspec::Target, options: mcpspec::RunOptions) -> (String, Duration) {
    let check = by_id("deadlock/initialize/answers").expect("the check exists");
    let report = support::run(target, &[check], options).await;
    let r = &report.results[0];
    // The check's own time: the run also probes the target first.
    (
        format!("{}: {}", r.outcome.kind, r.outcome.message),
        Duration::from_millis(r.duration_ms),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reference_faults_get_their_verdicts() {
    let cases = [
        (
            "deadlock-on-initialize",
            "FAIL: deadlock: the server awaited a client reply",
        ),
        ("silent-deadlock-on-initialize", "FAIL: likely deadlock:"),
        ("crash-on-initialize", "FAIL: crash:"),
        ("slow-start", "FAIL: not ready within 7.5 s:"),
    ];
    let mut runs = Vec::new();
    for (fault, want) in cases {
        runs.push(tokio::spawn(async move {
            let (got, took) = verdict(support::reference_with(&[fault]), support::options()).await;
            (fault, want, got, took)
        }));
    }
    for run in runs {
        let (fault, want, got, took) = run.await.unwrap();
        assert!(
            got.starts_with(want),
            "{fault}: expected `{want}…`, got `{got}`"
        );
        // "not ready" comes when the readiness window ends: 3 × the 10 s start-up the probe
        // measured, capped at half the 15 s scenario cap (POL-24).
        let bound = if fault == "slow-start" { 9 } else { 5 };
        assert!(
            took < Duration::from_secs(bound),
            "{fault}: the verdict took {took:?}"
        );
    }
    let (clean, _) = verdict(mcpspec::Target::embedded(), support::options()).await;
    assert!(clean.starts_with("PASS"), "{clean}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_documented_deadlock_is_called_a_deadlock() {
    let (got, took) = verdict(
        support::python_server(&["--deadlock"]),
        support::python_options(),
    )
    .await;
    assert!(
        got.starts_with("FAIL: deadlock: the server awaited a client reply"),
        "{got}"
    );
    assert!(took < Duration::from_secs(5), "the verdict took {took:?}");
    let (clean, _) = verdict(support::python_server(&[]), support::python_options()).await;
    assert!(clean.starts_with("PASS"), "{clean}");
}
