//! Every client check is shown to fail: the reference client passes them all, and under each
//! fault a check names, that check does not pass (the client side's `mutation.rs`). The rule
//! that keeps the two apart (the checks import nothing the reference client is made of) is
//! cargo's: `mcpspec-client` and `mcpspec-reference-client` do not depend on each other, and
//! the client tester's layers table (`layers.rs`) keeps it off `driver`, `wire` and `protocol`.

use crate::support::clients;

use std::collections::BTreeMap;

use mcpspec_client::checks::{self, ClientCheck};
use mcpspec_client::{Transport, scenario};
use mcpspec_reference_client::Fault;

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
