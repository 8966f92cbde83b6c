//! The HTTP rules as the spec words them (HTTP-2, HTTP-8; POL-29, POL-32, POL-33), against
//! `fixtures/scripted/http_words.py`, a server that does what the text says and no more: it
//! refuses a foreign `Origin` with 403 and a JSON-RPC error without an id (the body HTTP-2
//! describes), serves a foreign `Host` sent without `Origin`, and reads an MCP header field sent
//! twice with the same value once. None of that is a Fail; the two things that are not what the
//! MUSTs ask for are NonStrict, and the reference server's faults still fail the checks.

use crate::support;

use support::{outcome, summary};

use mcpspec::{Kind, RunReport};
use mcpspec_harness::catalogue;

const ORIGIN: &str = "http/origin/invalid-rejected";
const HOST: &str = "http/host/foreign-rejected";
const DUPLICATE: &str = "http/headers/duplicate";
const MISMATCHED: &str = "http/headers/duplicate-mismatched";

/// Every `http/*` check against `http_words.py` with `flags`; the server is killed when the run
/// ends.
async fn run(flags: &[&str]) -> RunReport {
    let script = support::repo_root().join("fixtures/scripted/http_words.py");
    let mut args = vec![script.display().to_string()];
    args.extend(flags.iter().map(|f| (*f).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = support::HttpFixture::announced(support::python3(), &args);
    let checks: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("http/"))
        .collect();
    let report = support::run(server.target(), &checks, support::options()).await;
    drop(server);
    report
}

/// The tolerated server: its Origin refusal passes (no POL-29 NonStrict for the id-less body),
/// the served foreign Host and the identical repeat are NonStrict naming their policy, two
/// different values are refused and pass, and no `http/*` check fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origin_guarded_host_served_and_repeats_read_once_are_no_fail() {
    let report = run(&[]).await;
    let all = summary(&report);
    for r in &report.results {
        assert!(
            !matches!(r.outcome.kind, Kind::Fail | Kind::Error),
            "{}: {}\n{all}",
            r.id,
            r.outcome.message
        );
    }
    let origin = outcome(&report, ORIGIN);
    assert_eq!(origin.kind, Kind::Pass, "{}\n{all}", origin.message);
    assert!(!origin.message.contains("POL-29"), "{}", origin.message);
    let result = report.results.iter().find(|r| r.id == ORIGIN).unwrap();
    assert!(
        result.transcript.iter().any(|e| {
            serde_json::to_string(&e.event).is_ok_and(|t| t.contains("POL-29's exception"))
        }),
        "the transcript says why the id-less 403 is no deviation"
    );
    let host = outcome(&report, HOST);
    assert_eq!(host.kind, Kind::NonStrict, "{}\n{all}", host.message);
    assert!(
        host.message.contains("was served") && host.message.contains("POL-33"),
        "{}",
        host.message
    );
    let duplicate = outcome(&report, DUPLICATE);
    assert_eq!(
        duplicate.kind,
        Kind::NonStrict,
        "{}\n{all}",
        duplicate.message
    );
    assert!(
        duplicate.message.contains("served") && duplicate.message.contains("POL-32"),
        "{}",
        duplicate.message
    );
    let mismatched = outcome(&report, MISMATCHED);
    assert_eq!(mismatched.kind, Kind::Pass, "{}\n{all}", mismatched.message);
}

/// POL-29's exception, both refusals, and nothing more: a foreign Origin and a foreign Host each
/// refused with 403 and a JSON-RPC error with `id: null` (the TypeScript SDK's body) pass, while
/// the same `id: null` in the same server's header errors (400 with -32020, `--defect
/// header-error-id-null`) is still POL-29's NonStrict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dns_rebinding_refusals_with_id_null_pass_and_nothing_else_does() {
    let report = run(&[
        "--id-null",
        "--check-host",
        "--defect",
        "header-error-id-null",
    ])
    .await;
    let all = summary(&report);
    for id in [ORIGIN, HOST] {
        let o = outcome(&report, id);
        assert_eq!(o.kind, Kind::Pass, "{id}: {}\n{all}", o.message);
        assert!(o.message.contains("403"), "{id}: {}", o.message);
    }
    for id in ["http/method-header/missing", MISMATCHED] {
        let o = outcome(&report, id);
        assert_eq!(o.kind, Kind::NonStrict, "{id}: {}\n{all}", o.message);
        assert!(
            o.message.contains("carried `id: null`") && o.message.contains("POL-29"),
            "{id}: {}",
            o.message
        );
    }
}

/// The reference server's faults still fail the checks that name them: a served foreign Origin
/// and two different `Mcp-Method` values are a Fail, a served foreign Host and a served identical
/// repeat NonStrict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_faults_still_fail() {
    let cases = [
        (ORIGIN, "http-no-origin-check", Kind::Fail),
        (MISMATCHED, "http-header-mismatch-accepted", Kind::Fail),
        (HOST, "http-no-host-check", Kind::NonStrict),
        (DUPLICATE, "http-header-mismatch-accepted", Kind::NonStrict),
    ];
    for (id, fault, kind) in cases {
        let check = catalogue::by_id(id).unwrap();
        let report = support::run_under_fault(check, fault).await;
        let o = &report.results[0].outcome;
        assert_eq!(o.kind, kind, "{id} under {fault}: {}", o.message);
        assert!(o.evidence.is_some(), "{id} under {fault}: no evidence");
    }
}
