//! A real dual-era server nobody here wrote: the official TypeScript SDK v2
//! (`@modelcontextprotocol/server` 2.4.0 with `@modelcontextprotocol/node` 2.1.2,
//! `fixtures/servers/typescript-v2/server.mjs`), over stdio (`serveStdio`) and over streamable
//! HTTP (`createMcpHandler` behind `toNodeHandler` on 127.0.0.1, a free port). Both entries
//! serve 2026-07-28 and, by their documented defaults, the 2025 handshake era from the same
//! factory, so the modern checks run here, unlike on the v1 fixture (`typescript_sdk.rs`).
//! Each transport runs the whole catalogue twice: a verdict that changes between the two runs
//! fails the test. The first run's verdicts are snapshotted (`snapshots/typescript-sdk-v2/`);
//! every Fail must be in the SDK's baseline with a reason, and no baseline entry may be stale.
//! Needs the fixture's node_modules (`bash scripts/typescript-v2-deps.sh`): without them the
//! tests fail, naming that command.

use std::path::Path;

use crate::support;
use crate::support::agreement;

use mcpspec::{Kind, RunReport, Target};
use mcpspec_harness::catalogue;

/// The fixture serves both eras: the modern probe and the legacy handshake each pass.
fn assert_both_eras_served(report: &RunReport, what: &str) {
    for id in [
        "modern/discover/answers",
        "legacy/initialize/echoes-supported-version",
    ] {
        assert_eq!(
            support::outcome(report, id).kind,
            Kind::Pass,
            "{what}: {id} does not pass, so the fixture does not serve both eras:\n{}",
            support::summary(report)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typescript_sdk_v2_stdio_verdicts_are_stable_and_match_snapshot_and_baseline() {
    let target = || support::typescript_v2_server(&[]);
    let mut first = support::run(target(), &catalogue::all(), support::sdk_options()).await;
    let second = support::run(target(), &catalogue::all(), support::sdk_options()).await;
    support::assert_same_outcomes(&first, &second, "TypeScript SDK v2 over stdio");
    assert_both_eras_served(&first, "TypeScript SDK v2 over stdio");
    agreement::assert_layers_agree([&first], 50, "TypeScript SDK v2 over stdio");
    let filters = support::node_filters();
    let filters: Vec<(&str, &str)> = filters.iter().map(|(p, r)| (p.as_str(), *r)).collect();
    support::assert_verdicts_against_baseline_in(
        "typescript-sdk-v2",
        &mut first,
        "typescript-sdk-2.4.0.yaml",
        "verdicts-stdio",
        &filters,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typescript_sdk_v2_http_verdicts_are_stable_and_match_snapshot_and_baseline() {
    // `node server.mjs`, to which HttpFixture appends `--http PORT`.
    let Target::Command { program, args, .. } = support::typescript_v2_server(&[]) else {
        panic!("the TypeScript SDK v2 fixture is a command");
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // A fresh server for each run: the second run must not depend on the first one's traffic.
    let mut reports = Vec::new();
    for _ in 0..2 {
        let server = support::HttpFixture::start(Path::new(&program), &args);
        reports
            .push(support::run(server.target(), &catalogue::all(), support::sdk_options()).await);
        drop(server);
    }
    let (first, second) = (reports.remove(0), reports.remove(0));
    support::assert_same_outcomes(&first, &second, "TypeScript SDK v2 over streamable HTTP");
    assert_both_eras_served(&first, "TypeScript SDK v2 over streamable HTTP");
    agreement::assert_layers_agree([&first], 50, "TypeScript SDK v2 over streamable HTTP");
    let filters = support::node_filters();
    let filters: Vec<(&str, &str)> = filters.iter().map(|(p, r)| (p.as_str(), *r)).collect();
    // Over HTTP it has no known failure: no baseline.
    support::assert_verdicts_in("typescript-sdk-v2", &first, "verdicts-http", &filters);
}
