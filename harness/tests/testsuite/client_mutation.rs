//! Every client check is shown to fail: the reference client passes them all, and under each
//! fault a check names, that check does not pass (the client side's `mutation.rs`). Also the
//! rule that keeps the two apart: the checks import nothing the reference client is made of.

use crate::support;
use crate::support::clients;

use std::collections::BTreeMap;

use mcpspec::client::checks::{self, ClientCheck};
use mcpspec::client::{Transport, scenario};
use mcpspec::reference_client::Fault;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_client_passes_every_check_on_both_transports() {
    for transport in [Transport::Http, Transport::Stdio] {
        let report = clients::run(clients::reference_client(&[]), transport, &checks::all()).await;
        let not_passing: Vec<String> = report
            .results
            .iter()
            .filter(|r| r.outcome.kind != mcpspec::Kind::Pass)
            .filter(|r| {
                // Checks of the other transport are skipped, with the reason.
                !(r.outcome.kind == mcpspec::Kind::Skipped && r.outcome.message.contains(" only"))
            })
            .map(|r| format!("{}: {} — {}", r.id, r.outcome.kind, r.outcome.message))
            .collect();
        assert!(
            not_passing.is_empty(),
            "over {transport:?}:\n{}",
            not_passing.join("\n")
        );
    }
}

/// The transports a check runs on: its own, or every one its scenario runs on.
fn transports(c: &ClientCheck) -> Vec<Transport> {
    let runs_on = scenario::named(c.scenario)
        .expect("a known scenario")
        .transports;
    runs_on
        .iter()
        .copied()
        .filter(|t| c.applies_to(*t))
        .collect()
}

/// Fault runs at a time (each starts at most two reference-client processes at once).
const RUNS_AT_ONCE: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_client_check_fails_under_each_of_its_faults() {
    // One run per fault and transport, with every check that names the fault.
    let mut runs: BTreeMap<(&str, Transport), Vec<ClientCheck>> = BTreeMap::new();
    for c in checks::all() {
        for fault in c.faults {
            for t in transports(&c) {
                runs.entry((fault, t)).or_default().push(c);
            }
        }
    }
    // A few runs at a time: some wait out a bounded silence (a fault that answers nothing).
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(RUNS_AT_ONCE));
    let mut tasks = tokio::task::JoinSet::new();
    for ((fault, transport), checks) in runs {
        let permits = permits.clone();
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let report =
                clients::run(clients::reference_client(&[fault]), transport, &checks).await;
            report
                .results
                .iter()
                .filter(|r| !r.outcome.is_violation())
                .map(|r| {
                    format!(
                        "{} under `{fault}` over {transport:?}: {} — {}",
                        r.id, r.outcome.kind, r.outcome.message
                    )
                })
                .collect::<Vec<String>>()
        });
    }
    let mut caught_nothing = Vec::new();
    while let Some(missed) = tasks.join_next().await {
        caught_nothing.extend(missed.expect("a run finishes"));
    }
    assert!(
        caught_nothing.is_empty(),
        "checks that did not catch their fault:\n{}",
        caught_nothing.join("\n")
    );
}

#[test]
fn every_reference_client_fault_is_named_by_a_check() {
    let named: Vec<&str> = checks::all()
        .iter()
        .flat_map(|c| c.faults.iter().copied())
        .collect();
    for f in Fault::ALL {
        assert!(named.contains(&f.name()), "no check names `{f}`");
    }
    for name in &named {
        assert!(
            name.parse::<Fault>().is_ok(),
            "a check names `{name}`, which is no fault of the reference client"
        );
    }
}

/// The files of `dir` (recursively) with the `.rs` extension.
fn sources(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the source folder reads") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

#[test]
fn the_checks_and_the_reference_client_share_no_code() {
    let src = support::repo_root().join("harness/src");
    let rules: [(&str, &[&str]); 2] = [
        (
            "client",
            &[
                "crate::driver",
                "crate::wire",
                "crate::protocol",
                "crate::negotiation",
                "crate::reference_client",
            ],
        ),
        ("reference_client", &["crate::client"]),
    ];
    for (module, forbidden) in rules {
        let mut files = sources(&src.join(module));
        files.push(src.join(format!("{module}.rs")));
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file reads");
            for f in forbidden {
                assert!(
                    !text.contains(f),
                    "{} uses `{f}`: `{module}/` may not",
                    file.display()
                );
            }
        }
    }
}
