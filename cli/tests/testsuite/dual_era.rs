//! POL-19 and POL-26 against scripted servers that answer byte for byte what real dual-era
//! servers answer (`fixtures/dual-era/dual_era.py`, its doc lists every answer).
//!
//! POL-19: over stdio, a request that names no protocol version, sent first to a server that
//! also completes a legacy `initialize`, may be read as legacy: -32602 passes, another error is
//! NonStrict ("read as legacy"), a stamped result or silence is Fail; from a modern-only server
//! the same -32601 is a plain META-1 Fail. POL-26: `MCP-Protocol-Version: 2099-01-01` with a
//! 2026-07-28 body must get 400 with -32020.

use crate::support;

use std::time::Duration;

use mcpspec::{Check, Kind, Outcome, RunOptions, Target};
use mcpspec_harness::catalogue;

/// The checks that send a request naming no protocol version (POL-19 applies to each).
const ENVELOPE_LESS: [&str; 3] = [
    "modern/discover/requires-envelope",
    "modern/envelope/missing-meta",
    "modern/envelope/missing-protocol-version",
];
/// Names 2026-07-28 but lacks the client capabilities: never ambiguous, plain META-1.
const NAMES_VERSION: &str = "modern/envelope/missing-client-capabilities";
const MISMATCH: &str = "http/version-header/mismatch";

fn script() -> String {
    support::repo_root()
        .join("fixtures/dual-era/dual_era.py")
        .display()
        .to_string()
}

fn checks(ids: &[&str]) -> Vec<Check> {
    let all = catalogue::all();
    ids.iter()
        .map(|id| *all.iter().find(|c| c.id == *id).expect("a catalogue check"))
        .collect()
}

fn options() -> RunOptions {
    let mut o = support::options();
    o.jobs = 2;
    o.settings.expect_timeout = Duration::from_secs(1);
    o
}

/// Runs the envelope checks against `dual_era.py stdio ERAS ANSWER`; outcomes by check id.
async fn stdio_run(eras: &str, answer: &str) -> Vec<(String, Outcome)> {
    let target = Target::command(support::python3())
        .arg(script())
        .args(["stdio", eras, answer]);
    let mut ids = ENVELOPE_LESS.to_vec();
    ids.push(NAMES_VERSION);
    let report = support::run(target, &checks(&ids), options()).await;
    report
        .results
        .iter()
        .map(|r| (r.id.clone(), r.outcome.clone()))
        .collect()
}

/// Asserts every envelope-less check got `kind` with every phrase of `says` in its message,
/// and the check that names the version passed (the scripted server answers it -32602).
fn assert_envelope_less(outcomes: &[(String, Outcome)], kind: Kind, says: &[&str]) {
    for (id, outcome) in outcomes {
        if id == NAMES_VERSION {
            assert_eq!(outcome.kind, Kind::Pass, "{id}: {}", outcome.message);
            continue;
        }
        assert!(
            ENVELOPE_LESS.contains(&id.as_str()),
            "unexpected check {id}"
        );
        assert_eq!(outcome.kind, kind, "{id}: {}", outcome.message);
        for phrase in says {
            assert!(
                outcome.message.contains(phrase),
                "{id}: {:?} does not say {phrase:?}",
                outcome.message
            );
        }
    }
    assert_eq!(outcomes.len(), ENVELOPE_LESS.len() + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dual_era_32601_is_read_as_legacy() {
    let outcomes = stdio_run("both", "32601").await;
    assert_envelope_less(
        &outcomes,
        Kind::NonStrict,
        &[
            "error -32601 \"Method not found\"",
            "read it as legacy before `initialize` (POL-19)",
            "META-1 asks for -32602",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dual_era_not_initialized_is_read_as_legacy() {
    let outcomes = stdio_run("both", "not-initialized").await;
    assert_envelope_less(
        &outcomes,
        Kind::NonStrict,
        &["error -32600 \"Not initialized\"", "read it as legacy"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dual_era_32602_passes() {
    let outcomes = stdio_run("both", "32602").await;
    assert_envelope_less(&outcomes, Kind::Pass, &["error -32602"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dual_era_stamped_result_fails() {
    let outcomes = stdio_run("both", "stamped").await;
    assert_envelope_less(
        &outcomes,
        Kind::Fail,
        &[
            "served as a modern request without the envelope",
            "\"resultType\":\"complete\"",
            "(META-1: -32602)",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dual_era_silence_fails() {
    let outcomes = stdio_run("both", "silent").await;
    assert_envelope_less(
        &outcomes,
        Kind::Fail,
        // The first request of a process waits the start-up allowance too.
        &["expected error -32602, got no reply within "],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_only_32601_is_plain_meta_1() {
    let outcomes = stdio_run("modern", "32601").await;
    assert_envelope_less(
        &outcomes,
        Kind::Fail,
        &["expected error -32602, got error -32601 \"Method not found\""],
    );
    for (id, outcome) in &outcomes {
        assert!(
            !outcome.message.contains("legacy"),
            "{id}: {}",
            outcome.message
        );
    }
}

async fn mismatch_outcome(mode: &str) -> Outcome {
    let script = script();
    let server = support::HttpFixture::announced(support::python3(), &[&script, "http", mode]);
    let report = support::run(server.target(), &checks(&[MISMATCH]), options()).await;
    report.results[0].outcome.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_version_no_era_serves_gets_400_32020() {
    let outcome = mismatch_outcome("reject").await;
    assert_eq!(outcome.kind, Kind::Pass, "{}", outcome.message);
    assert_eq!(
        outcome.message,
        "MCP-Protocol-Version ≠ the body's version: 400 with -32020"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_version_no_era_serves_accepted_fails() {
    let outcome = mismatch_outcome("accept").await;
    assert_eq!(outcome.kind, Kind::Fail, "{}", outcome.message);
    assert!(
        outcome.message.starts_with(
            "MCP-Protocol-Version ≠ the body's version: expected HTTP 400 with error -32020, got \
             HTTP 200"
        ),
        "{}",
        outcome.message
    );
}
