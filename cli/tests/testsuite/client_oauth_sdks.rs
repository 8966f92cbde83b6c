//! Real OAuth clients nobody here wrote: the official Python SDK's `OAuthClientProvider`
//! (`mcp==2.3.0`, `fixtures/clients/python/oauth_client.py`) and the TypeScript SDK v2's
//! `OAuthClientProvider` interface on `StreamableHTTPClientTransport`
//! (`@modelcontextprotocol/client` 2.4.0, `fixtures/clients/typescript/oauth_client.mjs`), each
//! written the way its SDK documents it, run through the `client/auth/*` checks (the `auth/*`
//! scenarios, over HTTP). Every Fail is in the fixture's baseline with the reason, audited from
//! the wire in the fixture's BEHAVIOUR.md ("OAuth client"); the verdicts are snapshotted. Needs
//! the venv (`bash scripts/python-venv.sh`) and the TypeScript fixture's node_modules
//! (`bash scripts/typescript-client-deps.sh`).

use crate::support::clients;

use mcpspec_client::{Transport, checks};

fn auth_checks() -> Vec<checks::ClientCheck> {
    let selected = checks::selected(&["client/auth".into()], &[]);
    assert!(!selected.is_empty(), "no client/auth checks are registered");
    selected
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_oauth_client_matches_baseline() {
    let mut report = clients::run(
        clients::python_oauth_client(),
        Transport::Http,
        &auth_checks(),
    )
    .await;
    clients::assert_against_baseline(
        &mut report,
        "client-python-sdk-2.3.0-oauth.yaml",
        "python-sdk-oauth",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_oauth_client_matches_baseline() {
    let mut report = clients::run(
        clients::typescript_oauth_client(),
        Transport::Http,
        &auth_checks(),
    )
    .await;
    clients::assert_against_baseline(
        &mut report,
        "client-typescript-sdk-2.4.0-oauth.yaml",
        "typescript-sdk-oauth",
    );
}
