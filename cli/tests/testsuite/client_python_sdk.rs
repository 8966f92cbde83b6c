//! A real client nobody here wrote: the official Python SDK (`mcp==2.3.0`, `ClientSession`),
//! in the fixture `fixtures/clients/python/client.py`, run through every client scenario over
//! HTTP and over stdio. Every Fail is in its baseline with the reason (audited from the wire in
//! `fixtures/clients/python/BEHAVIOUR.md`; over stdio it has none); the verdicts and the stdio
//! transcripts are snapshotted. Needs the venv (`bash scripts/python-venv.sh`).

use crate::support::clients;

use mcpspec_client::{Transport, checks};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_over_http_matches_baseline() {
    let mut report = clients::run(clients::python_client(), Transport::Http, &checks::all()).await;
    clients::assert_against_baseline(
        &mut report,
        "client-python-sdk-2.3.0-http.yaml",
        "python-sdk-http",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_over_stdio_fails_nothing_and_matches_transcripts() {
    let report = clients::run(clients::python_client(), Transport::Stdio, &checks::all()).await;
    clients::assert_scenario_transcripts("python-sdk-stdio", &report);
    clients::assert_green(&report, "python-sdk-stdio");
}
