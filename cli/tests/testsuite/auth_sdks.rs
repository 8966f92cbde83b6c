//! The official SDKs' own authorization, each protecting the fixture server of its SDK with
//! tokens of mcpspec's test issuer: the Python SDK's `TokenVerifier` and `AuthSettings`
//! (`fixtures/servers/python/protected.py`) and the TypeScript SDK's bearer-auth middleware and
//! metadata router (`fixtures/servers/typescript/protected.mjs`). The `auth/*` verdicts are the
//! ones BEHAVIOUR.md audits from the wire ("Authorization"); and with the run's token the rest of
//! the catalogue gets, check by check, the verdict it gets on the same SDK's open server (AUTH-9).

use crate::support;

use std::sync::Arc;

use mcpspec::{Check, Kind, RunReport, Target};
use mcpspec_harness::auth::issuer::http::IssuerHandle;
use mcpspec_harness::auth::{AuthArgs, Credentials};
use mcpspec_harness::catalogue;

/// A test issuer on 127.0.0.1, keys made for this test only.
async fn issuer() -> IssuerHandle {
    let keys = mcpspec_harness::auth::issuer::Keys::ephemeral().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    mcpspec_harness::auth::issuer::http::spawn(Arc::new(keys), listener).unwrap()
}

/// `target` with the issuer's tokens (`--auth-issuer URL`).
fn with_issuer(target: Target, url: &str, issuer: &IssuerHandle) -> Target {
    target.with_credentials(
        AuthArgs {
            auth_issuer: Some(issuer.url().to_owned()),
            ..AuthArgs::default()
        }
        .credentials(url)
        .unwrap()
        .map(Credentials::into_shared),
    )
}

fn split_catalogue() -> (Vec<Check>, Vec<Check>) {
    catalogue::all()
        .into_iter()
        .partition(|c| c.id.starts_with("auth/"))
}

/// Each `auth/*` check's verdict kind, as `id: KIND` lines, for comparing with the audit.
fn kinds(report: &RunReport) -> Vec<String> {
    report
        .results
        .iter()
        .map(|r| format!("{}: {}", r.id, r.outcome.kind))
        .collect()
}

/// Every check but `auth/*` gets on the protected server the verdict kind it gets on the open
/// one (messages name ports and servers, so only kinds are compared).
fn assert_served_like_open(protected: &RunReport, open: &RunReport, what: &str) {
    let differing: Vec<String> = protected
        .results
        .iter()
        .zip(&open.results)
        .filter(|(p, o)| p.outcome.kind != o.outcome.kind)
        .map(|(p, o)| {
            format!(
                "{}: protected {} ({}) | open {} ({})",
                p.id, p.outcome.kind, p.outcome.message, o.outcome.kind, o.outcome.message
            )
        })
        .collect();
    assert!(
        differing.is_empty(),
        "{what}: with the token the catalogue is not served as on the open server:\n{}",
        differing.join("\n")
    );
}

fn expected(auth: &[Check], exceptions: &[(&str, Kind)]) -> Vec<String> {
    auth.iter()
        .map(|c| {
            let kind = exceptions
                .iter()
                .find(|(id, _)| *id == c.id)
                .map_or(Kind::Pass, |(_, k)| *k);
            format!("{}: {kind}", c.id)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_authorization() {
    let issuer = issuer().await;
    let python = support::venv_python();
    let dir = support::repo_root().join("fixtures/servers/python");
    let protected = support::HttpFixture::start(
        &python,
        &[
            dir.join("protected.py").to_str().unwrap(),
            "--auth-issuer",
            issuer.url(),
        ],
    );
    let target = with_issuer(protected.target(), &protected.url, &issuer);
    let (auth, rest) = split_catalogue();
    let report = support::run(target.clone(), &auth, support::python_options()).await;
    // BEHAVIOUR.md, "Authorization": the SDK names no `scope` in its challenges.
    assert_eq!(
        kinds(&report),
        expected(
            &auth,
            &[
                ("auth/challenge/scope", Kind::NonStrict),
                ("auth/scope/insufficient-403", Kind::NonStrict),
            ]
        ),
        "{}",
        report.to_console(false)
    );
    let with_token = support::run(target, &rest, support::python_options()).await;
    drop(protected);
    let open = support::HttpFixture::start(&python, &[dir.join("server.py").to_str().unwrap()]);
    let without = support::run(open.target(), &rest, support::python_options()).await;
    assert_served_like_open(&with_token, &without, "the Python SDK");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typescript_sdk_authorization() {
    let issuer = issuer().await;
    let node = support::node();
    let dir = support::typescript_dir();
    let protected = support::HttpFixture::start(
        &node,
        &[
            dir.join("protected.mjs").to_str().unwrap(),
            "--auth-issuer",
            issuer.url(),
        ],
    );
    let target = with_issuer(protected.target(), &protected.url, &issuer);
    let (auth, rest) = split_catalogue();
    let report = support::run(target.clone(), &auth, support::sdk_options()).await;
    // BEHAVIOUR.md, "Authorization": the SDK (1.32.2) serves no 2026-07-28, so AUTH-8 does not
    // apply.
    assert_eq!(
        kinds(&report),
        expected(
            &auth,
            &[("auth/offline-access/not-advertised", Kind::Skipped)]
        ),
        "{}",
        report.to_console(false)
    );
    let with_token = support::run(target, &rest, support::sdk_options()).await;
    drop(protected);
    let open = support::HttpFixture::start(&node, &[dir.join("server.mjs").to_str().unwrap()]);
    let without = support::run(open.target(), &rest, support::sdk_options()).await;
    assert_served_like_open(&with_token, &without, "the TypeScript SDK");
}
