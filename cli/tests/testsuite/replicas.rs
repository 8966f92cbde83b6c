//! Replicas (POL-22) and the `stateless/*` checks (SCALE-1..3): skipped with one instance,
//! passing with three instances of the reference server (in memory, as stdio processes, as
//! HTTP endpoints given or spawned), failing under each instance fault with the requirement and
//! the two instances named; every transcript entry names its instance; no instance outlives a
//! run.

use crate::support;

use std::time::Duration;

use assert_cmd::Command;
use mcpspec::{Check, Kind, RunOptions, Target};
use mcpspec_harness::catalogue;
use mcpspec_harness::replicas::ReplicaSpec;

fn stateless() -> Vec<Check> {
    catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("stateless/"))
        .collect()
}

fn options(replicas: Option<ReplicaSpec>) -> RunOptions {
    let mut o = support::options();
    o.checks.probe_profile = true;
    o.replicas = replicas;
    o
}

fn probe_reference(faults: &[&str]) -> Target {
    match support::reference_with(faults) {
        Target::Embedded(mut config) => {
            config.probe_profile = true;
            Target::Embedded(config)
        }
        other => other,
    }
}

/// Each check's outcome kind and message, by id.
fn outcomes(report: &mcpspec::RunReport) -> Vec<(String, Kind, String)> {
    report
        .results
        .iter()
        .map(|r| (r.id.clone(), r.outcome.kind, r.outcome.message.clone()))
        .collect()
}

fn assert_all(report: &mcpspec::RunReport, kind: Kind) {
    let wrong: Vec<_> = outcomes(report)
        .into_iter()
        .filter(|(_, k, _)| *k != kind)
        .collect();
    assert!(wrong.is_empty(), "not all {kind}: {wrong:#?}");
    assert_eq!(report.results.len(), 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_instance_skips_every_stateless_check_and_says_why() {
    for replicas in [None, Some(ReplicaSpec::Copies(1))] {
        let report = support::run(probe_reference(&[]), &stateless(), options(replicas)).await;
        assert_all(&report, Kind::Skipped);
        for r in &report.results {
            assert!(
                r.outcome
                    .message
                    .contains("needs two or more instances of the server (POL-22)"),
                "{}: {}",
                r.id,
                r.outcome.message
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_in_memory_instances_of_the_reference_server_pass() {
    let report = support::run(
        probe_reference(&[]),
        &stateless(),
        options(Some(ReplicaSpec::Copies(3))),
    )
    .await;
    assert_all(&report, Kind::Pass);
    assert_eq!(report.instances, Some(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stateless_transcript_entry_names_its_instance() {
    let report = support::run(
        probe_reference(&[]),
        &stateless(),
        options(Some(ReplicaSpec::Copies(3))),
    )
    .await;
    for r in &report.results {
        assert!(!r.transcript.is_empty(), "{}", r.id);
        let unnamed: Vec<_> = r
            .transcript
            .iter()
            .filter(|e| e.instance.is_none())
            .collect();
        assert!(unnamed.is_empty(), "{}: {unnamed:?}", r.id);
        let named: std::collections::BTreeSet<_> = r
            .transcript
            .iter()
            .filter_map(|e| e.instance.clone())
            .collect();
        assert!(named.len() >= 2, "{} used one instance: {named:?}", r.id);
    }
    let failover = report
        .results
        .iter()
        .find(|r| r.id == "stateless/failover/pagination")
        .unwrap();
    let yaml = mcpspec_harness::yaml::to_string(&failover.transcript).unwrap();
    assert!(yaml.contains("instance: A"), "{yaml}");
    assert!(yaml.contains("instance: B"), "{yaml}");
    assert!(yaml.contains("stopped by mcpspec"), "{yaml}");
}

/// The stateless/* transcripts against three in-memory instances are the same on two runs and
/// match their snapshots (`snapshots/transcripts-replicas/`): each entry names its instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_transcripts_match_snapshots_and_repeat() {
    let checks = stateless();
    let run = || {
        support::run(
            probe_reference(&[]),
            &checks,
            options(Some(ReplicaSpec::Copies(3))),
        )
    };
    let (first, second) = (run().await, run().await);
    support::assert_transcripts("transcripts-replicas", &first, &second, |_| {});
}

/// A check expected to fail, how, and the requirement its verdict names.
type Expected = (&'static str, Kind, &'static str);

/// Each instance fault fails the checks it breaks, the verdict naming the requirement and both
/// instances; the other stateless checks still pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_instance_fault_fails_the_right_checks() {
    let cases: [(&str, &[Expected]); 3] = [
        (
            "instance-local-cursor",
            &[
                ("stateless/pagination/round-robin", Kind::Fail, "SCALE-1"),
                ("stateless/failover/pagination", Kind::Fail, "SCALE-3"),
            ],
        ),
        (
            "instance-local-request-state",
            &[
                ("stateless/mrtr/round-robin", Kind::Fail, "SCALE-1"),
                ("stateless/failover/mrtr", Kind::Fail, "SCALE-3"),
            ],
        ),
        (
            "instance-drift",
            &[
                (
                    "stateless/agreement/instances-agree",
                    Kind::NonStrict,
                    "SCALE-2",
                ),
                ("stateless/flows/same-everywhere", Kind::Fail, "SCALE-1"),
            ],
        ),
    ];
    for (fault, expected) in cases {
        let report = support::run(
            probe_reference(&[fault]),
            &stateless(),
            options(Some(ReplicaSpec::Copies(3))),
        )
        .await;
        for r in &report.results {
            let (id, kind, message) = (&r.id, r.outcome.kind, &r.outcome.message);
            match expected.iter().find(|(e, _, _)| e == id) {
                Some((_, want, requirement)) => {
                    // What it judged: the answer of an instance other than A.
                    let evidence = r.outcome.evidence.as_ref().expect("evidence");
                    assert!(
                        evidence.instance.as_deref().is_some_and(|i| i != "A"),
                        "{fault}: {id}: {evidence}"
                    );
                    assert_eq!(kind, *want, "{fault}: {id}: {message}");
                    assert!(message.contains(requirement), "{fault}: {id}: {message}");
                    assert!(
                        message.contains("instance A") && message.contains("instance B"),
                        "{fault}: {id} does not name both instances: {message}"
                    );
                }
                None => assert_eq!(kind, Kind::Pass, "{fault}: {id}: {message}"),
            }
        }
    }
}

/// Three HTTP endpoints given with `--url`: the checks pass, except that mcpspec does not stop
/// an instance it did not start (the failover checks are skipped, with the reason).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_given_urls_pass_and_failover_is_skipped() {
    let mut handles = Vec::new();
    let mut urls = Vec::new();
    for _ in 0..3 {
        let config = mcp_reference_server::Config {
            probe_profile: true,
            ..Default::default()
        };
        let (target, handle) = support::http_reference(config).await;
        urls.push(target.describe());
        handles.push(handle);
    }
    let report = support::run(
        Target::url(&urls[0]).unwrap(),
        &stateless(),
        options(Some(ReplicaSpec::Urls(urls))),
    )
    .await;
    for (id, kind, message) in outcomes(&report) {
        if id.starts_with("stateless/failover/") {
            assert_eq!(kind, Kind::Skipped, "{id}: {message}");
            assert!(
                message.contains("did not start these instances"),
                "{message}"
            );
        } else {
            assert_eq!(kind, Kind::Pass, "{id}: {message}");
        }
    }
}

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

/// `mcpspec run --replicas 3 -- BIN` and `--replicas 3 --spawn-http 'BIN --http …{port}'`: every
/// stateless check passes against the reference binary, and no instance outlives the run
/// (each carries a marker in its environment, looked for in /proc).
#[test]
fn the_reference_binary_passes_over_stdio_and_spawned_http_and_no_instance_survives() {
    let bin = support::reference_binary().display().to_string();
    let marker = format!("MCPSPEC_REPLICAS_TEST_MARK={}", std::process::id());
    let spawn = format!("env {marker} {bin} --probe-profile --http 127.0.0.1:{{port}}");
    let runs: [Vec<&str>; 2] = [
        vec!["--", "env", &marker, &bin, "--probe-profile"],
        vec!["--spawn-http", &spawn],
    ];
    for args in runs {
        let output = mcpspec()
            .args(["run", "--replicas", "3", "--select", "stateless"])
            .args(["--probe-profile", "--allow-tool", "add", "--json", "-"])
            .args(&args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
        assert_eq!(output.status.code(), Some(0), "{args:?}: {report}");
        assert_eq!(report["summary"]["pass"], 6, "{args:?}: {report}");
        assert_eq!(report["instances"], 3);
        let survivors = support::processes_with_env(&marker);
        assert!(
            survivors.is_empty(),
            "{args:?}: instances outlived the run: {survivors:?}"
        );
    }
}

/// A spawned instance that dies before it answers is a start failure (exit 3) naming it, with
/// its stderr, and the instance that did start is ended: the first of two spawns takes a lock
/// directory and serves, the second finds it taken and exits.
#[test]
fn a_spawned_instance_that_dies_is_a_start_failure_and_the_others_are_ended() {
    let marker = format!("MCPSPEC_REPLICAS_DEAD_MARK={}", std::process::id());
    let lock = std::env::temp_dir().join(format!("mcpspec-replicas-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&lock);
    let bin = support::reference_binary().display().to_string();
    let spawn = format!(
        "if mkdir {lock}; then exec env {marker} {bin} --http 127.0.0.1:{{port}}; \
         else echo instance refused to start >&2; exit 7; fi",
        lock = lock.display()
    );
    let output = mcpspec()
        .args(["run", "--replicas", "2", "--select", "stateless"])
        .args(["--spawn-http", &spawn])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&lock);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("exited before it answered"), "{stderr}");
    assert!(stderr.contains("instance refused to start"), "{stderr}");
    let survivors = support::processes_with_env(&marker);
    assert!(
        survivors.is_empty(),
        "instances outlived the run: {survivors:?}"
    );
}

/// Ctrl-C while three spawned instances are up (they accept connections and never answer, so
/// the run waits): mcpspec exits 130 and no instance is left.
#[test]
fn every_spawned_instance_is_gone_after_ctrl_c() {
    let marker = format!("MCPSPEC_REPLICAS_SIGINT_MARK={}", std::process::id());
    let silent = "import socket, time; s = socket.socket(); \
                  s.bind(('127.0.0.1', {port})); s.listen(); time.sleep(600)";
    let spawn = format!("env {marker} python3 -c \"{silent}\"");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpspec"))
        .args([
            "run",
            "--replicas",
            "3",
            "--select",
            "stateless",
            "--spawn-http",
            &spawn,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while support::processes_with_env(&marker).len() < 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Three instances, or more processes while an interpreter shim still runs.
    let running = support::processes_with_env(&marker).len();
    if running < 3 {
        let _ = child.kill();
        panic!("{running} instance processes seen");
    }
    // Well into the run: waiting on the silent instances.
    std::thread::sleep(Duration::from_millis(500));
    let status = support::interrupt_and_wait(&mut child, Duration::from_secs(10), "mcpspec run");
    assert_eq!(status.code(), Some(130), "{status:?}");
    // SIGKILL is sent before mcpspec exits; give the kernel a moment to end the processes.
    let deadline = std::time::Instant::now() + support::scaled(Duration::from_secs(3));
    while !support::processes_with_env(&marker).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        support::processes_with_env(&marker).is_empty(),
        "instances outlived Ctrl-C"
    );
}

/// Usage errors name the flag (exit 2): a count out of 1..=16, --spawn-http without `{port}`
/// or without --replicas, --replicas with --url, several --url outside `run`.
#[test]
fn replica_flags_are_checked() {
    let cases: [(&[&str], &str); 5] = [
        (&["run", "--replicas", "0"], "--replicas"),
        (&["run", "--replicas", "17"], "--replicas"),
        (
            &["run", "--replicas", "2", "--spawn-http", "server --port 1"],
            "{port}",
        ),
        (&["run", "--spawn-http", "server {port}"], "--replicas"),
        (
            &["run", "--replicas", "2", "--url", "http://127.0.0.1:1/mcp"],
            "one --url per instance",
        ),
    ];
    for (args, needle) in cases {
        let output = mcpspec()
            .args(args)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    let output = mcpspec()
        .args(["negotiate", "--url", "http://127.0.0.1:1/mcp"])
        .args(["--url", "http://127.0.0.1:2/mcp"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("are for `mcpspec run`"), "{stderr}");
}

/// `mcpspec run --replicas N` with no target is the no-target run (the embedded server over
/// stdio and HTTP, the probe profile on) whose `stateless/*` checks get N instances: the
/// stateless MRTR checks, which need the profile's `mcpspec_confirm`, pass instead of being
/// skipped, and the checks that need HTTP run over HTTP.
#[test]
fn replicas_without_a_target_is_the_no_target_run_with_n_instances() {
    let output = mcpspec()
        .args(["run", "--replicas", "4", "--select", "stateless"])
        .args(["--select", "middleware/observe", "--select", "http/sse"])
        .args(["--json", "-"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert_eq!(report["transport"], "stdio + http", "{report}");
    assert_eq!(report["instances"], 4, "{report}");
    assert_eq!(report["summary"]["skipped"], 0, "{report}");
    assert_eq!(
        report["summary"]["pass"], report["summary"]["total"],
        "{report}"
    );
    for r in report["results"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        let over = if id.starts_with("http/") {
            "http"
        } else {
            "stdio"
        };
        assert_eq!(r["transport"], over, "{id}");
    }
}
