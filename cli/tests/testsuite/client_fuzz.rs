//! `mcpspec client fuzz` finds the crash planted in a scripted client (a SIGSEGV on a message
//! nested deeper than 64 levels), shrinks it to one step, writes a reproducer that `client
//! replay` reproduces, and finds nothing in the same client with the bug taken out, nor in the
//! reference client. Bounded by cases, not time (3 × 60 s runs are measured outside the suite).

use crate::support;
use crate::support::clients;

use std::time::Duration;

use mcpspec_client::Transport;
use mcpspec_client::fuzz::case::Action;
use mcpspec_client::fuzz::{self, FuzzOptions, Oracle};

fn fragile(planted: bool) -> Vec<String> {
    let mut command = vec![
        support::python3().to_owned(),
        support::repo_root()
            .join("fixtures/clients/scripted/fragile.py")
            .display()
            .to_string(),
    ];
    if !planted {
        command.push("--no-planted-bug".into());
    }
    command
}

fn options(command: Vec<String>, transport: Transport, seed: u64, cases: u64) -> FuzzOptions {
    let mut client = clients::options(command, transport);
    client.timeout = Duration::from_secs(20);
    FuzzOptions {
        client,
        seed,
        cases,
        // Bounded by cases: the time bound is far away.
        time: Duration::from_secs(3600),
        shrink_time: Duration::from_secs(3600),
        shrink_runs: 40,
        max_findings: 1,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finds_shrinks_and_replays_the_planted_crash() {
    let scratch = support::Scratch::new("client-fuzz");
    let report = fuzz::fuzz(
        &options(fragile(true), Transport::Http, 1, 60),
        Some(&scratch),
    )
    .await;
    let finding = report
        .findings
        .first()
        .unwrap_or_else(|| panic!("no finding in {} cases", report.cases));
    assert_eq!(
        finding.breakage.oracle,
        Oracle::Crash,
        "{:?}",
        finding.breakage
    );
    assert!(
        finding.breakage.detail.contains("signal 11"),
        "{}",
        finding.breakage.detail
    );
    assert!(finding.confirmed);
    // Shrunk to the one step that matters: a message nested just past the client's 64 levels
    // (the step's own nesting plus the two levels of the notification around it).
    assert_eq!(finding.case.steps.len(), 1, "{:?}", finding.case);
    match &finding.case.steps[0].action {
        Action::Deep { depth } => assert!(
            (63..=80).contains(depth),
            "shrunk to depth {depth}, expected just past the limit"
        ),
        other => panic!("shrunk to {other:?}, not the deep message"),
    }
    let path = finding
        .reproducer
        .as_ref()
        .expect("a reproducer is written");
    let reproducer = fuzz::read_reproducer(path).expect("the reproducer reads back");
    assert_eq!(reproducer.case, finding.case);
    let replay = fuzz::run_case(
        &clients::options(fragile(true), Transport::Http),
        &reproducer.case,
    )
    .await;
    assert_eq!(
        fuzz::oracle(&replay).map(|b| b.oracle),
        Some(Oracle::Crash),
        "the replay did not crash the client: {}",
        replay.end.describe()
    );
    let fixed = fuzz::run_case(
        &clients::options(fragile(false), Transport::Http),
        &reproducer.case,
    )
    .await;
    assert_eq!(fuzz::oracle(&fixed), None, "{}", fixed.end.describe());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finds_nothing_in_correct_clients() {
    let fuzz_clean = |command: Vec<String>, transport, cases| async move {
        let what = format!("{command:?} over {transport:?}");
        let report = fuzz::fuzz(&options(command, transport, 7, cases), None).await;
        assert_eq!(report.cases, cases, "{what}: {:?}", report.not_started);
        assert!(
            report.findings.is_empty(),
            "{what}: {}",
            fuzz::summary(&report)
        );
    };
    // Two at a time: much of a case is waiting for a client to start.
    tokio::join!(
        async {
            fuzz_clean(fragile(false), Transport::Http, 15).await;
            fuzz_clean(clients::reference_client(&[]), Transport::Stdio, 40).await;
        },
        async {
            fuzz_clean(fragile(false), Transport::Stdio, 15).await;
            fuzz_clean(clients::reference_client(&[]), Transport::Http, 15).await;
        },
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_ends_is_a_hang() {
    let hang = vec![
        support::python3().to_owned(),
        support::repo_root()
            .join("fixtures/clients/scripted/hang.py")
            .display()
            .to_string(),
    ];
    let mut options = options(hang, Transport::Http, 1, 1);
    options.client.timeout = Duration::from_secs(1);
    options.shrink_runs = 0;
    let report = fuzz::fuzz(&options, None).await;
    let finding = report.findings.first().expect("the hang is found");
    assert_eq!(finding.breakage.oracle, Oracle::Hang);
    assert!(
        finding.breakage.detail.contains("still running after 1 s"),
        "{}",
        finding.breakage.detail
    );
}
