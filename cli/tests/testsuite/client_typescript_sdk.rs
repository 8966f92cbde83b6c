//! A real client nobody here wrote: the official TypeScript SDK v2
//! (`@modelcontextprotocol/client` 2.4.0), in the fixture `fixtures/clients/typescript/client.mjs`,
//! run through every client scenario over HTTP and over stdio. Every Fail is in its baseline
//! with the reason (audited from the wire in `fixtures/clients/typescript/BEHAVIOUR.md`); the
//! verdicts and the stdio transcripts are snapshotted. Needs the fixture's node_modules
//! (`bash scripts/typescript-client-deps.sh`).

use crate::support::clients;

use mcpspec_client::{Transport, checks};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_over_http_matches_baseline() {
    let mut report = clients::run(
        clients::typescript_client(),
        Transport::Http,
        &checks::all(),
    )
    .await;
    clients::assert_against_baseline(
        &mut report,
        "client-typescript-sdk-2.4.0-http.yaml",
        "typescript-sdk-http",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_over_stdio_matches_baseline_and_transcripts() {
    let mut report = clients::run(
        clients::typescript_client(),
        Transport::Stdio,
        &checks::all(),
    )
    .await;
    clients::assert_scenario_transcripts("typescript-sdk-stdio", &report);
    clients::assert_against_baseline(
        &mut report,
        "client-typescript-sdk-2.4.0.yaml",
        "typescript-sdk-stdio",
    );
}
