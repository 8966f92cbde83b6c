//! The official Python SDK (`mcp==2.3.0`) over streamable HTTP (uvicorn on 127.0.0.1, a free
//! port). The whole catalogue runs twice, each time on a fresh server: a verdict that changes
//! between the two runs fails the test. The first run's verdicts are snapshotted, every Fail in
//! the HTTP baseline with a reason.

use crate::support;
use crate::support::agreement;

use mcpspec_harness::catalogue;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_http_verdicts_are_stable_and_match_snapshot_and_baseline() {
    let script = support::repo_root().join("fixtures/servers/python/server.py");
    let script = script.to_str().expect("a UTF-8 path");
    // A fresh server for each run: the second run must not depend on the first one's state.
    let mut reports = Vec::new();
    for _ in 0..2 {
        let server = support::HttpFixture::start(&support::venv_python(), &[script]);
        reports.push(
            support::run(
                server.target(),
                &catalogue::all(),
                support::python_options(),
            )
            .await,
        );
        drop(server);
    }
    let (mut first, second) = (reports.remove(0), reports.remove(0));
    support::assert_same_outcomes(&first, &second, "Python SDK over streamable HTTP");
    // Every message the SDK sent is judged by both schema layers, which must agree (issue 16).
    agreement::assert_layers_agree([&first], 50, "the Python SDK over streamable HTTP");
    // The port differs per run.
    let filters = [(r"127\.0\.0\.1:\d+", "127.0.0.1:[port]")];
    support::assert_verdicts_against_baseline(
        &mut first,
        "python-sdk-2.3.0-http.yaml",
        "verdicts-http",
        &filters,
    );
}
