//! The checks of the rest of the 2026-07-28 surface (subscriptions, logging, progress,
//! cancellation, caching, lists, resources, prompts, capability gating, input-required results)
//! with the probe profile: on the embedded reference server every one passes (transcripts
//! snapshotted under snapshots/features/, and stable across runs); on the Python SDK fixture
//! server `server.py --probe-profile` the verdicts are snapshotted and every Fail is in its
//! probe baseline with a reason. Needs the venv for the Python test
//! (`bash scripts/python-venv.sh`).

use crate::support;

use mcpspec::{Check, Need};
use mcpspec_harness::catalogue;

/// The areas these checks live in.
const AREAS: &[&str] = &[
    "subscriptions/",
    "logging/",
    "progress/",
    "cancellation/",
    "caching/",
    "lists/",
    "resources/",
    "prompts/",
    "capabilities/",
    "mrtr/",
];

fn feature_checks() -> Vec<Check> {
    let checks: Vec<Check> = catalogue::all()
        .into_iter()
        .filter(|c| AREAS.iter().any(|a| c.id.starts_with(a)))
        .collect();
    assert!(checks.len() >= 30, "only {} feature checks", checks.len());
    checks
}

/// `requestState` is an opaque seal (the reference server's configured key): redacted for snapshots.
fn redact_state(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k == "requestState" && child.is_string() {
                    *child = serde_json::json!("[requestState]");
                } else {
                    redact_state(child);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_state),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn probe_checks_are_skipped_without_the_probe_profile() {
    let checks: Vec<Check> = feature_checks()
        .into_iter()
        .filter(|c| c.needs.contains(&Need::ProbeProfile))
        .collect();
    let report = support::run(mcpspec::Target::embedded(), &checks, support::options()).await;
    support::assert_all_skipped(&report, Some("--probe-profile"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reference_passes_and_transcripts_match_snapshots() {
    let checks = feature_checks();
    let first = support::run(
        support::probe_reference(),
        &checks,
        support::probe_options(),
    )
    .await;
    let second = support::run(
        support::probe_reference(),
        &checks,
        support::probe_options(),
    )
    .await;
    support::assert_all_pass(&first, "the reference server with the probe profile");
    support::assert_transcripts("features", &first, &second, redact_state);
}

/// A server without the modern era: every check here that needs it is skipped (with a
/// reason). The feature-surface checks (`Need::AnyEra`, POL-28) run there after the handshake:
/// `tests/testsuite/feature_surface.rs` shows them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn legacy_only_server_skips_every_feature_check() {
    let target = support::reference_eras(support::eras("legacy"));
    let checks: Vec<Check> = feature_checks()
        .into_iter()
        .filter(|c| c.needs.contains(&Need::Modern))
        .collect();
    let report = support::run(target, &checks, support::probe_options()).await;
    support::assert_all_skipped(&report, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_probe_verdicts_match_snapshot_and_baseline() {
    let target = support::python_server(&["--probe-profile"]);
    let mut options = support::python_options();
    options.checks.probe_profile = true;
    let mut report = support::run(target, &feature_checks(), options).await;
    support::assert_verdicts_against_baseline(
        &mut report,
        "python-sdk-2.3.0-probe.yaml",
        "verdicts-features-probe",
        &[],
    );
}
