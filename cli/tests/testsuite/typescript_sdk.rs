//! A real server nobody here wrote: the official TypeScript SDK (`@modelcontextprotocol/sdk`
//! 1.32.2, `fixtures/servers/typescript/server.mjs`), over stdio and over streamable HTTP
//! (the SDK's documented stateful setup on 127.0.0.1, a free port). Each transport runs the
//! whole catalogue twice: a verdict that changes between the two runs fails the test. The first
//! run's verdicts are snapshotted (`snapshots/typescript-sdk/`); every Fail must be in the
//! SDK's baseline with a reason, and no baseline entry may be stale. Needs the fixture's
//! node_modules (`bash scripts/typescript-deps.sh`): without them the tests fail, naming that
//! command.

use crate::support;
use crate::support::agreement;

use mcpspec_harness::catalogue;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typescript_sdk_stdio_verdicts_are_stable_and_match_snapshot_and_baseline() {
    let target = || support::typescript_server(&[]);
    let mut first = support::run(target(), &catalogue::all(), support::sdk_options()).await;
    let second = support::run(target(), &catalogue::all(), support::sdk_options()).await;
    support::assert_same_outcomes(&first, &second, "TypeScript SDK over stdio");
    agreement::assert_layers_agree([&first], 50, "TypeScript SDK over stdio");
    let filters = support::node_filters();
    let filters: Vec<(&str, &str)> = filters.iter().map(|(p, r)| (p.as_str(), *r)).collect();
    support::assert_verdicts_against_baseline_in(
        "typescript-sdk",
        &mut first,
        "typescript-sdk-1.32.2.yaml",
        "verdicts-stdio",
        &filters,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typescript_sdk_http_verdicts_are_stable_and_match_snapshot_and_baseline() {
    let script = support::typescript_dir().join("server.mjs");
    let script = script.to_str().expect("a UTF-8 path");
    // A fresh server for each run: the second run must not depend on the first one's sessions.
    let mut reports = Vec::new();
    for _ in 0..2 {
        let server = support::HttpFixture::start(&support::node(), &[script]);
        reports
            .push(support::run(server.target(), &catalogue::all(), support::sdk_options()).await);
        drop(server);
    }
    let (mut first, second) = (reports.remove(0), reports.remove(0));
    support::assert_same_outcomes(&first, &second, "TypeScript SDK over streamable HTTP");
    agreement::assert_layers_agree([&first], 50, "TypeScript SDK over streamable HTTP");
    let filters = support::node_filters();
    let filters: Vec<(&str, &str)> = filters.iter().map(|(p, r)| (p.as_str(), *r)).collect();
    support::assert_verdicts_against_baseline_in(
        "typescript-sdk",
        &mut first,
        "typescript-sdk-1.32.2-http.yaml",
        "verdicts-http",
        &filters,
    );
}
