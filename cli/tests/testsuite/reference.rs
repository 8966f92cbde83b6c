//! The whole catalogue against the reference server — in memory, over HTTP, in every `--eras`
//! mode, with and without the probe profile: every check passes or is skipped with a reason,
//! and every check passes somewhere. Transcripts of the default run are snapshot-tested.

use crate::support;

use std::collections::BTreeSet;

use mcpspec::Kind;
use mcpspec_harness::catalogue;

/// Runs the catalogue against one configuration; panics on anything but Pass or a Skipped
/// with a reason; returns the ids that passed.
async fn passes(config: mcp_reference_server::Config, http: bool) -> BTreeSet<String> {
    passes_with(config, http, None).await
}

/// As [`passes`], with several instances of the server (POL-22).
async fn passes_with(
    config: mcp_reference_server::Config,
    http: bool,
    replicas: Option<mcpspec_harness::replicas::ReplicaSpec>,
) -> BTreeSet<String> {
    let mut options = support::options();
    options.checks.probe_profile = config.probe_profile;
    options.replicas = replicas;
    let label = format!(
        "eras {:?}, probe {}, http {http}",
        config.eras, config.probe_profile
    );
    let (target, _server) = if http {
        let (t, h) = support::http_reference(config).await;
        (t, Some(h))
    } else {
        (mcpspec::Target::Embedded(config), None)
    };
    let report = support::run(target, &catalogue::all(), options).await;
    passed_in(&label, &report)
}

/// The ids that passed in `report`; panics on anything but Pass or a Skipped with a reason.
fn passed_in(label: &str, report: &mcpspec::RunReport) -> BTreeSet<String> {
    let mut passed = BTreeSet::new();
    for r in &report.results {
        match r.outcome.kind {
            Kind::Pass => {
                passed.insert(r.id.clone());
            }
            Kind::Skipped if !r.outcome.message.is_empty() => {}
            _ => panic!(
                "{label}: {} {} — {}",
                r.id, r.outcome.kind, r.outcome.message
            ),
        }
    }
    passed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_check_passes_somewhere_and_is_skipped_elsewhere() {
    let mut passed = BTreeSet::new();
    for eras in ["both", "modern", "legacy"] {
        for probe_profile in [false, true] {
            for http in [false, true] {
                let config = mcp_reference_server::Config {
                    eras: support::eras(eras),
                    probe_profile,
                    ..Default::default()
                };
                passed.extend(passes(config, http).await);
            }
        }
    }
    // The HTTP reference server with its header-mirrored `route` tool listed (HTTP-11).
    let mut config = mcp_reference_server::Config::default();
    config.http.header_tool = true;
    passed.extend(passes(config, true).await);
    // Three in-memory instances with the probe profile: the stateless/* checks run (POL-22).
    let config = mcp_reference_server::Config {
        probe_profile: true,
        ..Default::default()
    };
    let three = Some(mcpspec_harness::replicas::ReplicaSpec::Copies(3));
    passed.extend(passes_with(config, false, three).await);
    // In authorization mode, with the test issuer's tokens: the auth/* checks run (AUTH-1..9),
    // and the rest of the catalogue is served as on the open server.
    let protected = support::protected_reference(Default::default()).await;
    let report = support::run(
        protected.target.clone(),
        &catalogue::all(),
        support::options(),
    )
    .await;
    passed.extend(passed_in("authorization mode over http", &report));
    let never: Vec<_> = catalogue::all()
        .iter()
        .map(|c| c.id)
        .filter(|id| !passed.contains(*id))
        .collect();
    assert!(
        never.is_empty(),
        "never passed in any configuration: {never:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_default_run_is_green() {
    let report = support::run(
        mcpspec::Target::embedded(),
        &catalogue::all(),
        support::options(),
    )
    .await;
    assert!(report.passed(), "{}", report.to_console(false));
    assert_eq!(
        report.summary.fail + report.summary.error + report.summary.non_strict,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn transcripts_match_snapshots_and_repeat() {
    let first = support::run(
        mcpspec::Target::embedded(),
        &catalogue::all(),
        support::options(),
    )
    .await;
    let second = support::run(
        mcpspec::Target::embedded(),
        &catalogue::all(),
        support::options(),
    )
    .await;
    support::assert_transcripts("transcripts", &first, &second, |_| {});
}

/// POL-28: on a legacy-only server (in memory and over HTTP) every `jsonrpc/*` check that needs
/// no modern envelope runs after the `initialize` handshake, at the negotiated legacy version,
/// and passes; the four that judge 2026-07-28 rules are skipped as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn jsonrpc_checks_run_on_a_legacy_only_server() {
    use mcpspec_core::transcript::Event;
    let jsonrpc: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("jsonrpc/"))
        .collect();
    let any_era: BTreeSet<&str> = jsonrpc
        .iter()
        .filter(|c| c.needs.contains(&mcpspec::Need::AnyEra))
        .map(|c| c.id)
        .collect();
    assert_eq!(any_era.len(), 12, "{any_era:?}");
    for http in [false, true] {
        let config = mcp_reference_server::Config {
            eras: support::eras("legacy"),
            ..Default::default()
        };
        let (target, _server) = if http {
            let (t, h) = support::http_reference(config).await;
            (t, Some(h))
        } else {
            (mcpspec::Target::Embedded(config), None)
        };
        let report = support::run(target, &jsonrpc, support::options()).await;
        for r in &report.results {
            if !any_era.contains(r.id.as_str()) {
                assert_eq!(r.outcome.kind, Kind::Skipped, "http {http}: {}", r.id);
                assert!(
                    r.outcome
                        .message
                        .starts_with("the server does not serve 2026-07-28"),
                    "http {http}: {} — {}",
                    r.id,
                    r.outcome.message
                );
                continue;
            }
            assert_eq!(
                r.outcome.kind,
                Kind::Pass,
                "http {http}: {} — {}",
                r.id,
                r.outcome.message
            );
            // The handshake opens the connection: initialize at the negotiated version, then
            // notifications/initialized, and no modern envelope anywhere.
            let sent: Vec<&serde_json::Value> = r
                .transcript
                .iter()
                .filter_map(|e| match &e.event {
                    Event::Send { message } => Some(message),
                    _ => None,
                })
                .collect();
            assert_eq!(sent[0]["method"], "initialize", "http {http}: {}", r.id);
            assert_eq!(
                sent[0]["params"]["protocolVersion"], "2025-11-25",
                "http {http}: {}",
                r.id
            );
            assert_eq!(sent[1]["method"], "notifications/initialized");
            assert!(
                sent.iter().all(|m| m
                    .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                    .is_none()),
                "http {http}: {} sent the modern envelope",
                r.id
            );
        }
        let by_id = |id: &str| {
            &report
                .results
                .iter()
                .find(|r| r.id == id)
                .expect("ran")
                .outcome
                .message
        };
        assert_eq!(by_id("jsonrpc/id/string-echoed"), "id \"7\" echoed exactly");
        assert_eq!(
            by_id("jsonrpc/notification/no-reply"),
            "no reply to an unknown and a known notification"
        );
    }
}
