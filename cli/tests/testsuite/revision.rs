//! `mcpspec run --revision REV`: one revision judged. A handshake revision runs the
//! handshake-era checks with `initialize` asking for it (and the any-era ones in that era), and
//! skips the 2026-07-28 ones; 2026-07-28 skips the handshake-era ones. A revision the server
//! does not serve skips the checks that would speak it, saying so: never a Fail.

use crate::support;

use mcpspec::{Check, Kind, RunOptions, RunReport, Target};
use mcpspec_harness::catalogue;
use mcpspec_harness::check::CheckOptions;

const LEGACY_CHECK: &str = "legacy/initialize/result-shape";
const MODERN_CHECK: &str = "modern/discover/result-shape";
const ANY_ERA_CHECK: &str = "jsonrpc/unknown-method/replies-32601";

fn checks() -> Vec<Check> {
    let all = catalogue::all();
    [LEGACY_CHECK, MODERN_CHECK, ANY_ERA_CHECK]
        .iter()
        .map(|id| *all.iter().find(|c| c.id == *id).expect("a catalogue check"))
        .collect()
}

fn at(revision: &'static str) -> RunOptions {
    let mut o = support::options();
    o.checks = CheckOptions {
        revision: Some(revision),
        ..o.checks
    };
    o
}

fn result<'a>(report: &'a RunReport, id: &str) -> &'a mcpspec_harness::report::CheckResult {
    report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} in the report"))
}

/// The `protocolVersion` every `initialize` of a check's transcript asked for.
fn initialize_versions(report: &RunReport, id: &str) -> Vec<String> {
    result(report, id)
        .transcript
        .iter()
        .filter_map(|e| match &e.event {
            mcpspec_core::transcript::Event::Send { message, .. }
                if message["method"] == "initialize" =>
            {
                Some(message["params"]["protocolVersion"].as_str()?.to_owned())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_handshake_revision_is_asked_for_and_the_modern_checks_are_skipped() {
    let report = support::run(support::reference_with(&[]), &checks(), at("2025-06-18")).await;
    let legacy = result(&report, LEGACY_CHECK);
    assert_eq!(legacy.outcome.kind, Kind::Pass, "{:?}", legacy.outcome);
    assert_eq!(initialize_versions(&report, LEGACY_CHECK), ["2025-06-18"]);
    // The any-era check speaks the handshake era at this revision (POL-28).
    let any = result(&report, ANY_ERA_CHECK);
    assert_eq!(any.outcome.kind, Kind::Pass, "{:?}", any.outcome);
    assert_eq!(initialize_versions(&report, ANY_ERA_CHECK), ["2025-06-18"]);
    let modern = result(&report, MODERN_CHECK);
    assert_eq!(modern.outcome.kind, Kind::Skipped);
    assert_eq!(
        modern.outcome.message,
        "the run judges revision 2025-06-18 (--revision); this check judges 2026-07-28"
    );
}

#[tokio::test]
async fn the_modern_revision_skips_the_handshake_checks() {
    let report = support::run(support::reference_with(&[]), &checks(), at("2026-07-28")).await;
    let legacy = result(&report, LEGACY_CHECK);
    assert_eq!(legacy.outcome.kind, Kind::Skipped);
    assert!(
        legacy
            .outcome
            .message
            .contains("judges the handshake revisions"),
        "{}",
        legacy.outcome.message
    );
    for id in [MODERN_CHECK, ANY_ERA_CHECK] {
        let r = result(&report, id);
        assert_eq!(r.outcome.kind, Kind::Pass, "{id}: {:?}", r.outcome);
        assert!(
            initialize_versions(&report, id).is_empty(),
            "{id} spoke modern"
        );
    }
}

#[tokio::test]
async fn a_modern_only_server_at_a_handshake_revision_is_skipped_with_the_reason() {
    let target: Target = support::reference_eras(support::eras("modern"));
    let report = support::run(target, &checks(), at("2025-11-25")).await;
    for id in [LEGACY_CHECK, ANY_ERA_CHECK] {
        let r = result(&report, id);
        assert_eq!(r.outcome.kind, Kind::Skipped, "{id}: {:?}", r.outcome);
        assert!(
            r.outcome
                .message
                .starts_with("the server does not serve 2025-11-25: it serves no legacy revision"),
            "{id}: {}",
            r.outcome.message
        );
    }
    // The report says it, in the reason the checks were skipped with.
    assert_eq!(
        report.not_served.as_deref(),
        Some(result(&report, LEGACY_CHECK).outcome.message.as_str())
    );
}

/// A foreign server that serves one handshake revision (`legacy_only.py`: 2025-06-18, as a
/// 2025 SDK server does) is judged at it, and not at another it answers with 2025-06-18.
#[tokio::test]
async fn a_server_answering_another_revision_does_not_serve_the_one_asked() {
    let script = support::repo_root().join("fixtures/scripted/legacy_only.py");
    let target = || Target::command(support::python3()).arg(script.display().to_string());
    let report = support::run(target(), &checks(), at("2025-11-25")).await;
    let legacy = result(&report, LEGACY_CHECK);
    assert_eq!(legacy.outcome.kind, Kind::Skipped, "{:?}", legacy.outcome);
    assert_eq!(
        legacy.outcome.message,
        "the server does not serve 2025-11-25: initialize asking for it was answered with \
         protocolVersion 2025-06-18"
    );
    assert_eq!(
        report.not_served.as_deref(),
        Some(legacy.outcome.message.as_str())
    );
    let report = support::run(target(), &checks(), at("2025-06-18")).await;
    assert_eq!(report.not_served, None, "2025-06-18 is served");
    let legacy = result(&report, LEGACY_CHECK);
    assert_eq!(legacy.outcome.kind, Kind::Pass, "{:?}", legacy.outcome);
    assert_eq!(initialize_versions(&report, LEGACY_CHECK), ["2025-06-18"]);
}

#[test]
fn an_unknown_revision_is_a_usage_error() {
    let out = assert_cmd::Command::cargo_bin("mcpspec")
        .expect("the binary")
        .args(["run", "--revision", "2025-01-01"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`2025-01-01` is not a revision mcpspec knows"),
        "{err}"
    );
}

/// A foreign dual-era server over HTTP, judged at a handshake revision: the Python SDK answers a
/// legacy request with `id: null` with 202 and no body, as it answers a notification. POL-5
/// calls that NonStrict (treated as a notification), as silence is over a stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_null_id_request_answered_with_202_at_a_handshake_revision_is_treated_as_a_notification()
{
    let script = support::repo_root().join("fixtures/servers/python/server.py");
    let script = script.to_str().expect("a UTF-8 path");
    let server = support::HttpFixture::start(&support::venv_python(), &[script]);
    let all = catalogue::all();
    let check = *all
        .iter()
        .find(|c| c.id == "jsonrpc/id/null-rejected")
        .expect("a catalogue check");
    let report = support::run(server.target(), &[check], at("2025-11-25")).await;
    let r = result(&report, "jsonrpc/id/null-rejected");
    assert_eq!(r.outcome.kind, Kind::NonStrict, "{:?}", r.outcome);
    assert_eq!(
        r.outcome.message,
        "the null-id request was treated as a notification (no JSON-RPC reply: HTTP 202 \
         Accepted with an empty body; POL-5)"
    );
    assert_eq!(
        initialize_versions(&report, "jsonrpc/id/null-rejected"),
        ["2025-11-25"]
    );
}
