//! A client that knows nothing of the scenarios: `fixtures/clients/generic/client.py`, on the
//! official Python SDK (`mcp==2.3.0`, `ClientSession`), ignores MCP_CONFORMANCE_SCENARIO and
//! does what any application does: connect, list the tools, call the first one with minimal
//! arguments, exit (over HTTP its transport deletes its session). Only what it did is judged
//! (POL-34): no check fails for what it was never asked to do, every Skip says what was missing,
//! nothing is an Error. Its failures over HTTP are the SDK's own, baselined with the reason.
//! Needs the venv (`bash scripts/python-venv.sh`).

use crate::support;
use crate::support::clients;

use mcpspec::RunReport;
use mcpspec::{Kind, Level};
use mcpspec_client::{Transport, checks};

fn generic_client() -> Vec<String> {
    vec![
        support::venv_python().display().to_string(),
        support::repo_root()
            .join("fixtures/clients/generic/client.py")
            .display()
            .to_string(),
    ]
}

/// The verdict of check `id` in `report`.
fn verdict(report: &RunReport, id: &str) -> (Kind, String) {
    let r = report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} was not run"));
    (r.outcome.kind, r.outcome.message.clone())
}

/// What POL-34 asks of any run: no Error, every Skip with its reason, and the checks this client
/// exercises (what it did) judged, not skipped.
fn assert_judged_on_what_it_did(report: &RunReport) {
    let errors: Vec<String> = report
        .results
        .iter()
        .filter(|r| r.outcome.kind == Kind::Error)
        .map(|r| format!("{}: {}", r.id, r.outcome.message))
        .collect();
    assert!(errors.is_empty(), "errors:\n{}", errors.join("\n"));
    let bare: Vec<&str> = report
        .results
        .iter()
        .filter(|r| r.outcome.kind == Kind::Skipped && r.outcome.message.trim().len() < 10)
        .map(|r| r.id.as_str())
        .collect();
    assert!(bare.is_empty(), "Skips without a reason: {bare:?}");
    // It calls the first tool of the MRTR peer: the InputRequiredResult reaches it and its
    // retry is judged. It declares no capability, so the peer asks for no input (MRTR-3).
    for id in ["client/mrtr/request-state-echoed", "client/mrtr/fresh-id"] {
        let (kind, message) = verdict(report, id);
        assert_eq!(kind, Kind::Pass, "{id}: {message}");
    }
    for id in [
        "client/mrtr/no-state-when-absent",
        "client/mrtr/input-responses",
    ] {
        let (kind, message) = verdict(report, id);
        assert_eq!(kind, Kind::Skipped, "{id}: {message}");
        assert!(message.contains("declared none of"), "{id}: {message}");
    }
    // Undeclared capabilities get the SDK's -32600: an error, as due, not the -32601 a client
    // SHOULD send (CLI-6).
    let (kind, message) = verdict(report, "client/server-requests/undeclared-capabilities");
    if kind != Kind::Skipped {
        assert_eq!(kind, Kind::NonStrict, "{message}");
        assert!(message.contains("-32600"), "{message}");
    }
    let must_fail: Vec<String> = report
        .results
        .iter()
        .filter(|r| r.outcome.kind == Kind::NonStrict && r.level != Level::Should)
        .filter(|r| r.id != "client/server-requests/undeclared-capabilities")
        .map(|r| format!("{}: {}", r.id, r.outcome.message))
        .collect();
    assert!(
        must_fail.is_empty(),
        "unexpected NonStrict:\n{}",
        must_fail.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_client_over_stdio_fails_nothing_it_was_not_asked_to_do() {
    let report = clients::run(generic_client(), Transport::Stdio, &checks::all()).await;
    assert_judged_on_what_it_did(&report);
    let (kind, message) = verdict(&report, "client/robustness/unexpected-messages");
    assert_eq!(kind, Kind::Pass, "{message}");
    clients::assert_scenario_transcripts("generic-python-sdk-stdio", &report);
    clients::assert_green(&report, "generic-python-sdk-stdio");
    let fails = report
        .results
        .iter()
        .filter(|r| r.outcome.kind == Kind::Fail)
        .count();
    assert_eq!(fails, 0, "{}", report.to_console(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_client_over_http_fails_only_what_its_sdk_does_wrong() {
    let mut report = clients::run(generic_client(), Transport::Http, &checks::all()).await;
    assert_judged_on_what_it_did(&report);
    // Its transport deletes the session it ends.
    let (kind, message) = verdict(&report, "client/sessions/delete-at-end");
    assert_eq!(kind, Kind::Pass, "{message}");
    clients::assert_against_baseline(
        &mut report,
        "client-generic-python-sdk-2.3.0-http.yaml",
        "generic-python-sdk-http",
    );
}

// --- The plain client ------------------------------------------------------------------------
//
// `fixtures/clients/generic/plain_client.py`: a generic client in the Python standard library
// only, written from the specification (2026-07-28 first, the `initialize` handshake as its
// fallback; over HTTP the 2026-07-28 headers, a legacy session's id and GET stream, a new session
// after a 404, DELETE at the end). It ignores the scenario, as the SDK client above does, but
// has no known fault: on both transports it fails nothing, each Skip says what it did not do,
// and every scenario ends as a conforming client's would.

/// `python3` from PATH: the plain client needs no venv.
fn plain_client() -> Vec<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let python = std::env::split_paths(&path)
        .map(|dir| dir.join("python3"))
        .find(|p| p.is_file())
        .expect("`python3` (3.11 or later) is on PATH");
    vec![
        python.display().to_string(),
        support::repo_root()
            .join("fixtures/clients/generic/plain_client.py")
            .display()
            .to_string(),
    ]
}

/// What the plain client does on any peer, so what is judged (Pass), on both transports.
const PLAIN_JUDGED: &[&str] = &[
    "client/negotiation/discovers-first",
    "client/negotiation/dual-uses-modern",
    "client/negotiation/retries-listed-version",
    "client/negotiation/falls-back-on-method-not-found",
    "client/negotiation/falls-back-without-mutual-version",
    "client/negotiation/stops-after-version-errors",
    "client/envelope/meta-on-every-request",
    "client/envelope/no-removed-methods",
    "client/request-metadata/meta-on-every-request",
    "client/lifecycle/initialize-first",
    "client/lifecycle/initialized-after-result",
    "client/lifecycle/requests-after-initialized",
    "client/lifecycle/disconnects-on-unsupported-version",
    "client/hygiene/jsonrpc-version",
    "client/hygiene/unique-ids",
    "client/server-requests/ping",
    "client/server-requests/undeclared-capabilities",
    "client/server-requests/unknown-method",
    "client/server-requests/reply-ids",
    "client/mrtr/request-state-echoed",
    "client/mrtr/fresh-id",
    "client/robustness/unexpected-messages",
];

/// What only HTTP judges: the 2026-07-28 headers, the discover refused by status, the sessions
/// (it opens the session's GET stream, so the server's requests above reach it over HTTP too).
const PLAIN_JUDGED_OVER_HTTP: &[&str] = &[
    "client/negotiation/falls-back-on-http-400",
    "client/negotiation/falls-back-on-http-404",
    "client/envelope/version-header-matches-meta",
    "client/envelope/method-headers",
    "client/sessions/echoes-session-id",
    "client/sessions/delete-at-end",
    "client/sessions/new-session-after-404",
];

/// The plain client's run is clean: no Fail, NonStrict or Error; every Skip with its reason;
/// every check of `judged` passed; each scenario ended as the scenario expects (exit 0, or a
/// non-zero exit where no conforming client can complete), none killed nor timed out.
fn assert_plain_client_clean(report: &RunReport, judged: &[&str]) {
    let bad: Vec<String> = report
        .results
        .iter()
        .filter(|r| !matches!(r.outcome.kind, Kind::Pass | Kind::Skipped))
        .map(|r| format!("{} {}: {}", r.outcome.kind, r.id, r.outcome.message))
        .collect();
    assert!(
        bad.is_empty(),
        "the plain client is judged other than Pass or Skip:\n{}\n{}",
        bad.join("\n"),
        report.to_console(false)
    );
    let bare: Vec<&str> = report
        .results
        .iter()
        .filter(|r| r.outcome.kind == Kind::Skipped && r.outcome.message.trim().len() < 10)
        .map(|r| r.id.as_str())
        .collect();
    assert!(bare.is_empty(), "Skips without a reason: {bare:?}");
    for id in judged {
        let (kind, message) = verdict(report, id);
        assert_eq!(kind, Kind::Pass, "{id}: {message}");
    }
    // It cannot log in: every authorization check is Skipped as never tried (POL-34).
    for r in report
        .results
        .iter()
        .filter(|r| r.id.starts_with("client/auth/"))
    {
        assert_eq!(
            r.outcome.kind,
            Kind::Skipped,
            "{}: {}",
            r.id,
            r.outcome.message
        );
        assert!(
            r.outcome.message.contains("did not try to authorize")
                || r.outcome.message.contains("http only"),
            "{}: {}",
            r.id,
            r.outcome.message
        );
    }
    // It declares no capability: what needs one is Skipped, saying so.
    for id in [
        "client/server-requests/declared-capabilities",
        "client/mrtr/no-state-when-absent",
        "client/mrtr/input-responses",
    ] {
        let (kind, message) = verdict(report, id);
        assert_eq!(kind, Kind::Skipped, "{id}: {message}");
        assert!(message.contains("declared none of"), "{id}: {message}");
    }
    let scenarios = &report.client.as_ref().expect("a client run").scenarios;
    assert!(!scenarios.is_empty());
    for run in scenarios {
        let scenario = mcpspec_client::scenario::named(&run.name)
            .unwrap_or_else(|| panic!("unknown scenario {}", run.name));
        // A client that cannot log in stops at a protected peer's 401; its `client/auth/*`
        // checks are Skipped (POL-34), which the loop over the verdicts above holds.
        if scenario.protection().is_some() {
            assert!(
                run.end.starts_with("exit status "),
                "{}: {}",
                run.name,
                run.end
            );
            continue;
        }
        match scenario.expect {
            mcpspec_client::scenario::Expect::Success => {
                assert_eq!(run.end, "exit status 0", "{}", run.name);
            }
            mcpspec_client::scenario::Expect::Failure => {
                assert!(
                    run.end.starts_with("exit status ") && run.end != "exit status 0",
                    "{}: {}",
                    run.name,
                    run.end
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plain_client_over_stdio_fails_nothing() {
    let report = clients::run(plain_client(), Transport::Stdio, &checks::all()).await;
    assert_plain_client_clean(&report, PLAIN_JUDGED);
    // The HTTP-only checks say so.
    for id in PLAIN_JUDGED_OVER_HTTP {
        let (kind, message) = verdict(&report, id);
        assert_eq!(kind, Kind::Skipped, "{id}: {message}");
        assert!(message.contains("http only"), "{id}: {message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plain_client_over_http_fails_nothing() {
    let report = clients::run(plain_client(), Transport::Http, &checks::all()).await;
    let judged: Vec<&str> = PLAIN_JUDGED
        .iter()
        .chain(PLAIN_JUDGED_OVER_HTTP)
        .copied()
        .collect();
    assert_plain_client_clean(&report, &judged);
}
