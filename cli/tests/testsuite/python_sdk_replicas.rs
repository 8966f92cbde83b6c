//! The official Python SDK (`mcp==2.3.0`) as three instances (POL-22): three stdio processes
//! (`--replicas 3`) and three streamable-HTTP servers started on free ports (`--spawn-http`).
//! The outcomes, as recorded and confirmed from the transcripts: the instances agree, and the
//! stateless calls (`echo`, `add`) give the same results on each; its lists fit on one page
//! (no cursor to carry: Info), so there is no flow to lose an instance in; it has no
//! `mcpspec_confirm` tool, so the MRTR checks are skipped. No Fail, so no baseline.

use crate::support;

use std::time::Duration;

use mcpspec::{Kind, RunOptions, Target};
use mcpspec_harness::catalogue;
use mcpspec_harness::replicas::ReplicaSpec;

fn options(replicas: ReplicaSpec) -> RunOptions {
    let mut o = support::python_options();
    o.replicas = Some(replicas);
    // Three interpreters start one after the other inside one check on a loaded machine.
    o.settings.scenario_timeout = Duration::from_secs(90);
    o
}

fn assert_recorded_outcomes(report: &mcpspec::RunReport, how: &str) {
    let expected = [
        ("stateless/pagination/round-robin", Kind::Info),
        ("stateless/mrtr/round-robin", Kind::Skipped),
        ("stateless/agreement/instances-agree", Kind::Pass),
        ("stateless/failover/pagination", Kind::Skipped),
        ("stateless/failover/mrtr", Kind::Skipped),
        ("stateless/flows/same-everywhere", Kind::Pass),
    ];
    for (id, kind) in expected {
        let r = report.results.iter().find(|r| r.id == id).unwrap();
        assert_eq!(r.outcome.kind, kind, "{how}: {id}: {}", r.outcome.message);
    }
    assert_eq!(report.instances, Some(3), "{how}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_as_three_stdio_processes() {
    let stateless: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("stateless/"))
        .collect();
    let report = support::run(
        support::python_server(&[]),
        &stateless,
        options(ReplicaSpec::Copies(3)),
    )
    .await;
    assert_recorded_outcomes(&report, "stdio --replicas 3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_as_three_spawned_http_servers() {
    let stateless: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("stateless/"))
        .collect();
    let script = support::repo_root().join("fixtures/servers/python/server.py");
    let command = format!(
        "{} {} --http {{port}}",
        support::venv_python().display(),
        script.display()
    );
    // The target is replaced by the first spawned instance.
    let report = support::run(
        Target::embedded(),
        &stateless,
        options(ReplicaSpec::SpawnHttp { command, count: 3 }),
    )
    .await;
    assert_eq!(report.transport, "http");
    assert_recorded_outcomes(&report, "--spawn-http, three instances");
}
