//! Deadlock verdicts (POL-14) against the reference server's faults and the Python SDK's own
//! documented deadlock. Each verdict comes within the detection's own windows: the in-memory
//! server runs on paused tokio time, where a window is exact whatever else the machine does;
//! the Python server is a real process, judged on the wall clock with slack
//! ([`support::scaled`]).

use crate::support;

use std::time::Duration;

use mcpspec_core::transcript::Event;
use mcpspec_harness::catalogue::by_id;
use mcpspec_harness::report::CheckResult;

async fn verdict_of(target: mcpspec::Target, options: mcpspec::RunOptions) -> CheckResult {
    let check = by_id("deadlock/initialize/answers").expect("the check exists");
    let mut report = support::run(target, &[check], options).await;
    report.results.remove(0)
}

fn said(r: &CheckResult) -> String {
    format!("{}: {}", r.outcome.kind, r.outcome.message)
}

/// The check's verdict and the tokio time it took: the run with the check less the same run
/// without it (the preflight and the era probe, identical in both). On paused time both are
/// exact, so the difference is the check's own waiting.
async fn verdict_in_tokio_time(faults: &[&str]) -> (String, Duration) {
    let clock = tokio::time::Instant::now();
    let _ = support::run(support::reference_with(faults), &[], support::options()).await;
    let probe = clock.elapsed();
    let clock = tokio::time::Instant::now();
    let r = verdict_of(support::reference_with(faults), support::options()).await;
    (said(&r), clock.elapsed().saturating_sub(probe))
}

#[tokio::test(start_paused = true)]
async fn reference_faults_get_their_verdicts() {
    let t = support::options().settings.expect_timeout;
    // Each fault, its verdict, and the windows the detection waits through before giving it:
    // `initialize`'s and the stall ping's for a stall; none for a crash (the close is seen at
    // once); the readiness window for a slow start: 3 × the 10 s start-up the probe measured,
    // capped at half the 15 s scenario cap (POL-24).
    let cases = [
        (
            "deadlock-on-initialize",
            "FAIL: deadlock: the server awaited a client reply",
            2 * t,
        ),
        (
            "silent-deadlock-on-initialize",
            "FAIL: likely deadlock:",
            2 * t,
        ),
        ("crash-on-initialize", "FAIL: crash:", Duration::ZERO),
        (
            "slow-start",
            "FAIL: not ready within 7.5 s:",
            Duration::from_millis(7500),
        ),
    ];
    for (fault, want, window) in cases {
        let (got, took) = verdict_in_tokio_time(&[fault]).await;
        assert!(
            got.starts_with(want),
            "{fault}: expected `{want}…`, got `{got}`"
        );
        // Tokio time, paused: nothing but the check's own waits moves it, so the slack covers
        // only the steps between them (a reply, a spawn), never the machine's load.
        assert!(
            took >= window && took <= window + Duration::from_millis(500),
            "{fault}: the verdict took {took:?} of tokio time; its windows are {window:?}"
        );
    }
    let clean = verdict_of(mcpspec::Target::embedded(), support::options()).await;
    assert!(said(&clean).starts_with("PASS"), "{}", said(&clean));
}

/// How long the detection took once the server was ready: from the `initialize` it sent to the
/// last event of its transcript. The start-up before it is the readiness window's, which has
/// its own bound (`--ready-timeout`).
fn detection_time(r: &CheckResult) -> Duration {
    let at = |e: &mcpspec_core::transcript::Entry| Duration::from_millis(e.at_ms.unwrap_or(0));
    let sent = r
        .transcript
        .iter()
        .find(|e| matches!(&e.event, Event::Send { message } if message["method"] == "initialize"))
        .unwrap_or_else(|| panic!("no initialize was sent: {:?}", r.transcript));
    let last = r.transcript.last().expect("a transcript");
    at(last).saturating_sub(at(sent))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_documented_deadlock_is_called_a_deadlock() {
    let options = support::python_options();
    let t = options.settings.expect_timeout;
    let r = verdict_of(support::python_server(&["--deadlock"]), options).await;
    assert!(
        said(&r).starts_with("FAIL: deadlock: the server awaited a client reply"),
        "{}",
        said(&r)
    );
    // Its windows (`initialize`'s, then the stall ping's) and slack for a real process on a
    // machine others use too.
    let took = detection_time(&r);
    let bound = 2 * t + support::scaled(Duration::from_secs(3));
    assert!(
        took <= bound,
        "the detection took {took:?} after initialize; its windows are 2 × {t:?}, the bound \
         {bound:?} ({} scales it)",
        support::TIME_SCALE_VAR
    );
    let clean = verdict_of(support::python_server(&[]), support::python_options()).await;
    assert!(said(&clean).starts_with("PASS"), "{}", said(&clean));
}
