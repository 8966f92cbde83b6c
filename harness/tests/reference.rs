//! The whole catalogue against the reference server: every check passes, in memory and as a
//! real process over stdio; transcripts are snapshot-tested.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use mcpspec::Kind;
use mcpspec::checks::catalogue;

/// In every `--eras` mode each check passes or is skipped with a reason, and each check
/// passes in at least one mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_check_passes_in_some_eras_mode_and_is_skipped_elsewhere() {
    let mut passed = std::collections::BTreeSet::new();
    for mode in ["both", "modern", "legacy"] {
        let target = common::reference_eras(common::eras(mode));
        let report = common::run(target, &catalogue(), common::options()).await;
        for r in &report.results {
            match r.outcome.kind {
                Kind::Pass => {
                    passed.insert(r.id.clone());
                }
                Kind::Skipped if !r.outcome.message.is_empty() => {}
                _ => panic!(
                    "--eras {mode}: {} {} — {}",
                    r.id, r.outcome.kind, r.outcome.message
                ),
            }
        }
    }
    let never: Vec<_> = catalogue()
        .iter()
        .filter(|c| !passed.contains(c.id) && !c.needs.contains(&mcpspec::Need::ProbeProfile))
        .map(|c| c.id)
        .collect();
    assert!(never.is_empty(), "never passed in any eras mode: {never:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_check_passes_on_the_reference_server() {
    let report = common::run(mcpspec::Target::embedded(), &catalogue(), common::options()).await;
    let not_passing: Vec<String> = report
        .results
        .iter()
        .filter(|r| r.outcome.kind != Kind::Pass)
        .filter(|r| {
            !(r.outcome.kind == Kind::Skipped && r.outcome.message.contains("--probe-profile"))
        })
        .map(|r| format!("{}: {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect();
    assert!(
        not_passing.is_empty(),
        "not passing:\n{}",
        not_passing.join("\n")
    );
    assert!(report.passed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn transcripts_match_snapshots_and_repeat() {
    let first = common::run(mcpspec::Target::embedded(), &catalogue(), common::options()).await;
    let second = common::run(mcpspec::Target::embedded(), &catalogue(), common::options()).await;
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(common::repo_root().join("snapshots/transcripts"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_sort_maps(true);
    settings.bind(|| {
        for (a, b) in first.results.iter().zip(&second.results) {
            let (ta, tb) = (
                common::snapshot_form(&a.transcript),
                common::snapshot_form(&b.transcript),
            );
            assert_eq!(ta, tb, "{}: two runs gave different transcripts", a.id);
            insta::assert_yaml_snapshot!(a.id.replace('/', "__"), ta);
        }
    });
}
