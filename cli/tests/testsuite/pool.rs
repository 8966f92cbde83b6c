//! The process pool against servers that misbehave where a pool is exposed (POL-21), played by
//! `fixtures/scripted/pooled.py` with the venv's Python: one that crashes on the n-th request,
//! one that hangs after one particular method, one that writes a stray notification after a
//! reply. Each failure is charged to the check that ran, and no other check's verdict changes
//! from what `--isolation fresh` gives, but for a verdict that depends on the earlier traffic
//! and opens with it (POL-30). Then: every process a run starts is gone when it ends,
//! normally or by Ctrl-C.

use crate::support;

use std::time::{Duration, Instant};

use mcpspec::{Check, Kind, RunOptions, RunReport, Target};
use mcpspec_core::transcript::Event;
use mcpspec_harness::catalogue;
use mcpspec_harness::pool::Mode;
use mcpspec_harness::report::CheckResult;

fn pooled(args: &[&str]) -> Target {
    let script = support::repo_root().join("fixtures/scripted/pooled.py");
    Target::command(support::venv_python().display().to_string())
        .arg(script.display().to_string())
        .args(args.iter().map(|s| s.to_string()))
}

fn options(mode: Mode, jobs: usize) -> RunOptions {
    let mut o = support::sdk_options();
    o.isolation = mode;
    o.jobs = jobs;
    o
}

fn shared_checks() -> Vec<Check> {
    catalogue::all()
        .into_iter()
        .filter(|c| c.isolation == mcpspec_harness::check::Isolation::Shared)
        .collect()
}

/// The checks whose outcome kind differs between the two reports.
fn changed<'a>(shared: &'a RunReport, fresh: &RunReport) -> Vec<&'a CheckResult> {
    assert_eq!(shared.results.len(), fresh.results.len());
    shared
        .results
        .iter()
        .zip(&fresh.results)
        .filter(|(a, b)| {
            assert_eq!(a.id, b.id);
            a.outcome.kind != b.outcome.kind
        })
        .map(|(a, _)| a)
        .collect()
}

/// Every note of a result's transcript.
fn notes(r: &CheckResult) -> Vec<&str> {
    r.transcript
        .iter()
        .filter_map(|e| match &e.event {
            Event::Note { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Whether a transcript shows the server ending: its output closed in the check, or the
/// pool's liveness request after it found it gone or silent.
fn shows_death(r: &CheckResult) -> bool {
    r.transcript
        .iter()
        .any(|e| matches!(e.event, Event::Closed | Event::Exit { .. }))
        || notes(r)
            .iter()
            .any(|n| n.starts_with("shared process (POL-21)"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crash_on_the_nth_request_is_charged_to_the_check_that_ran() {
    let log = std::env::temp_dir().join(format!("mcpspec-pool-crashes-{}", std::process::id()));
    std::fs::remove_file(&log).ok();
    let log_arg = log.display().to_string();
    let checks = shared_checks();
    let args = ["--crash-on-request", "3", "--log", log_arg.as_str()];
    // One job: the order of requests on each pooled process is the catalogue's.
    let shared = support::run(pooled(&args), &checks, options(Mode::Shared, 1)).await;
    let crashes_shared = std::fs::read_to_string(&log).unwrap_or_default();
    std::fs::remove_file(&log).ok();
    let fresh = support::run(pooled(&args), &checks, options(Mode::Fresh, 1)).await;
    let crashes_fresh = std::fs::read_to_string(&log).unwrap_or_default();
    std::fs::remove_file(&log).ok();

    // Every crash the shared run's checks saw is charged to the check it happened in (or
    // right after, at the liveness request): a Fail or an Error whose transcript shows it.
    let died: Vec<&CheckResult> = shared.results.iter().filter(|r| shows_death(r)).collect();
    assert!(
        !died.is_empty(),
        "the shared run saw no crash; crashes: {crashes_shared}"
    );
    for r in &died {
        assert!(
            matches!(r.outcome.kind, Kind::Fail | Kind::Error),
            "{} saw the process die but says {}: {}",
            r.id,
            r.outcome.kind,
            r.outcome.message
        );
    }
    // A check whose verdict differs from its fresh run is one a crash was charged to, and it
    // shows it; the crash came from the requests before it on the process, so the transcript
    // starts with them (POL-30): the checks before it, or only the pool's admission request
    // when it was the process's first check (POL-30.1). Every other verdict is the same.
    for r in changed(&shared, &fresh) {
        assert!(
            shows_death(r)
                && r.prefix.is_some()
                && matches!(
                    r.confirmed,
                    Some(
                        mcpspec_harness::report::Confirmation::EarlierTraffic { .. }
                            | mcpspec_harness::report::Confirmation::FirstAfterAdmission
                    )
                ),
            "{} changed without its prefix: {}: {} ({:?})",
            r.id,
            r.outcome.kind,
            r.outcome.message,
            r.confirmed
        );
    }
    // The fresh run sees crashes only in checks that send two requests or more themselves (the
    // liveness request after a shared-class check is then the third).
    for r in fresh.results.iter().filter(|r| shows_death(r)) {
        let sent = r
            .transcript
            .iter()
            .filter(|e| matches!(&e.event, Event::Send { message } if message.get("id").is_some()))
            .count();
        assert!(
            sent >= 2,
            "{} died in the fresh run after {sent} requests",
            r.id
        );
    }
    assert!(!crashes_fresh.is_empty() || fresh.results.iter().all(|r| !shows_death(r)));
    // A charge after the check (the liveness request met a dead process) reads as such.
    let after: Vec<&CheckResult> = shared
        .results
        .iter()
        .filter(|r| r.outcome.message.contains("after this check"))
        .collect();
    for r in &after {
        assert_eq!(r.outcome.kind, Kind::Fail, "{}", r.outcome.message);
        assert!(
            r.outcome.message.contains("POL-21"),
            "{}",
            r.outcome.message
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hang_after_one_method_is_charged_to_the_check_that_sent_it() {
    let checks = catalogue::all();
    let args = ["--hang-after", "mcpspec/does-not-exist"];
    let shared = support::run(pooled(&args), &checks, options(Mode::Shared, 2)).await;
    let fresh = support::run(pooled(&args), &checks, options(Mode::Fresh, 2)).await;
    let unknown = shared
        .results
        .iter()
        .find(|r| r.id == "jsonrpc/unknown-method/replies-32601")
        .unwrap();
    assert_eq!(
        unknown.outcome.kind,
        Kind::Fail,
        "{}",
        unknown.outcome.message
    );
    assert!(
        unknown
            .outcome
            .message
            .starts_with("the server stopped answering after this check"),
        "{}",
        unknown.outcome.message
    );
    // The same liveness request follows the check on a fresh process: the same charge there.
    let changed: Vec<&str> = changed(&shared, &fresh)
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert!(changed.is_empty(), "verdicts changed: {changed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stray_notification_is_drained_into_the_check_that_caused_it_and_no_other() {
    let checks = catalogue::all();
    let args = ["--stray-after", "mcpspec/does-not-exist"];
    let shared = support::run(pooled(&args), &checks, options(Mode::Shared, 2)).await;
    let fresh = support::run(pooled(&args), &checks, options(Mode::Fresh, 2)).await;
    let changed: Vec<&str> = changed(&shared, &fresh)
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert!(changed.is_empty(), "verdicts changed: {changed:?}");
    let stray = |r: &CheckResult| {
        r.transcript.iter().any(|e| match &e.event {
            Event::Note { text } => text.contains("stray after"),
            Event::Recv { message, .. } => message.to_string().contains("stray after"),
            _ => false,
        })
    };
    let carrying: Vec<&str> = shared
        .results
        .iter()
        .filter(|r| stray(r))
        .map(|r| r.id.as_str())
        .collect();
    // Exactly the checks that sent the method carry its stray notification: none leaked into
    // the check that ran next on the same process.
    let sent_it: Vec<&str> = shared
        .results
        .iter()
        .filter(|r| {
            r.transcript.iter().any(|e| {
                matches!(&e.event,
                Event::Send { message } if message["method"] == "mcpspec/does-not-exist")
            })
        })
        .map(|r| r.id.as_str())
        .collect();
    assert!(sent_it.contains(&"jsonrpc/unknown-method/replies-32601"));
    // No check carries a stray it did not cause: none leaked into the check that ran next.
    for id in &carrying {
        assert!(sent_it.contains(id), "{id} carries another check's stray");
    }
    // Every shared check that caused one carries it. A fresh-process check (`schema/error/
    // object`, say) may end, and its process with it, before the stray is written.
    let shared_class = |id: &&&str| {
        catalogue::by_id(id)
            .is_some_and(|c| c.isolation == mcpspec_harness::check::Isolation::Shared)
    };
    for id in sent_it.iter().filter(shared_class) {
        assert!(carrying.contains(id), "{id} lost the stray it caused");
    }
    let unknown = shared
        .results
        .iter()
        .find(|r| r.id == "jsonrpc/unknown-method/replies-32601")
        .unwrap();
    // It reached the check itself (it came before the reply was judged) or was drained after
    // it, clearly marked; either way it is this check's.
    assert!(
        unknown.transcript.iter().any(|e| matches!(&e.event,
            Event::Recv { message, .. } if message.to_string().contains("stray after")))
            || notes(unknown)
                .iter()
                .any(|n| n.starts_with("after the check, drained") && n.contains("stray after")),
        "{:?}",
        unknown.transcript
    );
}

/// Processes whose command line carries `marker` (zombies have none).
fn carrying(marker: &str) -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter(|&pid| pid != me)
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Waits up to 3 s for no process to carry `marker` (three empty scans in a row); the pids left.
fn gone(marker: &str) -> Vec<u32> {
    let deadline = Instant::now() + support::scaled(Duration::from_secs(3));
    let mut empty = 0;
    loop {
        let alive = carrying(marker);
        if alive.is_empty() {
            empty += 1;
            if empty == 3 {
                return alive;
            }
        } else {
            empty = 0;
        }
        if Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn mcpspec_run(marker: &str, server_args: &[&str]) -> std::process::Child {
    let script = support::repo_root().join("fixtures/scripted/pooled.py");
    std::process::Command::new(env!("CARGO_BIN_EXE_mcpspec"))
        .args(["run", "--jobs", "2", "--"])
        .arg(support::venv_python())
        .arg(script)
        .args(["--no-parent-watch", "--marker", marker])
        .args(server_args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_exit(
    child: &mut std::process::Child,
    within: Duration,
) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn every_process_is_gone_after_a_run_that_ends() {
    let marker = format!("mcpspec-pool-end-{}", std::process::id());
    let mut child = mcpspec_run(&marker, &[]);
    let status = wait_exit(&mut child, Duration::from_secs(120)).expect("the run ends");
    assert!(status.code().is_some(), "{status:?}");
    assert_eq!(
        gone(&marker),
        Vec::<u32>::new(),
        "server processes outlived the run"
    );
}

#[test]
fn every_process_is_gone_after_ctrl_c() {
    let marker = format!("mcpspec-pool-sigint-{}", std::process::id());
    // Every tools/list makes the process hang: checks wait, pooled processes and spares live.
    let mut child = mcpspec_run(&marker, &["--hang-after", "tools/list"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while carrying(&marker).len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let alive = carrying(&marker).len();
    assert!(
        alive >= 3,
        "only {alive} server processes were seen running"
    );
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(10)).expect("mcpspec ends on SIGINT");
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert_eq!(
        gone(&marker),
        Vec::<u32>::new(),
        "server processes outlived Ctrl-C"
    );
}

/// A process that served a confirmation (POL-30) joins the pool after its liveness answer and
/// serves the next shared check of its group (POL-30.3). The server itself says which process
/// that check ran on: the
/// probe log that `tools/call/result-shape` reads (`mcpspec_probe_log`, recorded in its
/// transcript) opens with the confirmation's own first request, then the liveness request that
/// let the process into the pool. A process the pool starts opens with the pool's qualification
/// or an admission request instead. One job on a one-thread runtime: the checks run in the order
/// given, and how busy the machine is changes no step of it.
#[tokio::test]
async fn a_confirmations_process_serves_the_pool_after_it() {
    let Target::Embedded(mut config) = support::reference_with(&["unknown-method-wrong-code"])
    else {
        unreachable!("the reference server is embedded")
    };
    config.probe_profile = true;
    let mut options = options(Mode::Shared, 1);
    options.checks.probe_profile = true;
    // One group of the plan, in this order (POL-30.3). A check before the failing one: a
    // non-pass that is its process's first traffic after the admission needs no confirmation
    // (POL-30.1).
    let checks = [
        "jsonrpc/id/string-echoed",
        "jsonrpc/unknown-method/replies-32601",
        "tools/call/result-shape",
    ]
    .map(|id| catalogue::by_id(id).expect("the check exists"));
    let report = support::run(Target::Embedded(config), &checks, options).await;
    let (confirmed, later) = (&report.results[1], &report.results[2]);
    assert_eq!((confirmed.group, later.group), (Some(0), Some(0)));
    assert_ne!(
        confirmed.outcome.kind,
        Kind::Pass,
        "{}",
        confirmed.outcome.message
    );
    assert_eq!(
        confirmed.confirmed,
        Some(mcpspec_harness::report::Confirmation::SameOnFresh),
        "{}: confirmed on a fresh process",
        confirmed.id
    );
    // Its transcript is the fresh process's: everything that process was ever sent.
    let first_sent = confirmed
        .transcript
        .iter()
        .find_map(|e| match &e.event {
            Event::Send { message } if message.get("id").is_some() => Some(message),
            _ => None,
        })
        .expect("the confirmation sent a request");
    assert_eq!(
        later.outcome.kind,
        Kind::Pass,
        "{}: {}",
        later.id,
        later.outcome.message
    );
    let log = later
        .transcript
        .iter()
        .find_map(|e| match &e.event {
            Event::Recv { message, .. } => message
                .pointer("/result/structuredContent/entries")
                .and_then(serde_json::Value::as_array),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{} read no probe log: {:?}", later.id, later.transcript));
    let first = log.first().expect("the probe log has an entry");
    assert!(
        first["method"] == first_sent["method"] && first["id"] == first_sent["id"],
        "{} ran on a process that did not begin with the confirmation's request: {log:?}",
        later.id
    );
    let liveness = |e: &serde_json::Value| {
        e["method"] == "server/discover"
            && e["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("mcpspec-liveness-"))
    };
    assert!(
        log.get(1).is_some_and(liveness),
        "the confirmation's process joined the pool without a liveness answer: {log:?}"
    );
}
