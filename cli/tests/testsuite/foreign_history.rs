//! Verdicts on a server whose answers depend on what it read before, nobody here wrote it:
//! `fixtures/scripted/history_dual.py` reproduces, byte for byte, two behaviours of the
//! official TypeScript SDK v2 over stdio (issue 27).
//!
//! - It serves a request that names no protocol version as a legacy one, with a legacy result.
//!   The era-mixing checks say NonStrict (POL-19), and the schema layer judges that result as
//!   the legacy reply it is (2025-11-25), so no schema Fail is raised on top.
//! - With `--pin-version`, once a connection served 2026-07-28 it serves any other version as
//!   2026-07-28. A shared process has always served 2026-07-28 before a check, so the
//!   `modern/version/*` checks fail there; a fresh process passes them; the earlier traffic,
//!   shrunk to one `server/discover`, reproduces the Fail, and the transcript starts with it
//!   (POL-30). Every shared run gives the same verdicts with the same prefixes, whatever the
//!   schedule and `--jobs` (the fixed plan, POL-30.3), and every non-pass transcript replays to
//!   its verdict with `mcpspec replay`.

use crate::support;

use std::collections::BTreeMap;

use mcpspec::{Kind, RunReport};
use mcpspec_harness::catalogue;

fn history_server(pin: bool) -> mcpspec::Target {
    let script = support::repo_root().join("fixtures/scripted/history_dual.py");
    let target = mcpspec::Target::command(support::python3()).arg(script.display().to_string());
    if pin {
        target.arg("--pin-version")
    } else {
        target
    }
}

fn summary(report: &RunReport) -> String {
    report
        .results
        .iter()
        .map(|r| format!("{} {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The era-mixing checks: requests that name no protocol version, sent first on a connection.
const ERA_MIXING: [&str; 3] = [
    "modern/envelope/missing-meta",
    "modern/envelope/missing-protocol-version",
    "modern/discover/requires-envelope",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_reading_of_an_envelope_less_request_is_non_strict_with_no_schema_fail() {
    let checks: Vec<_> = ERA_MIXING
        .iter()
        .map(|id| catalogue::by_id(id).unwrap())
        .collect();
    let report = support::run(history_server(false), &checks, support::options()).await;
    let all = summary(&report);
    for r in &report.results {
        assert_eq!(r.outcome.kind, Kind::NonStrict, "{}\n{all}", r.id);
        assert!(r.outcome.message.contains("read it as legacy"), "{all}");
        assert!(!r.outcome.message.contains("schema violation"), "{all}");
        let judged = r
            .transcript
            .iter()
            .filter(|e| {
                matches!(
                    e.event,
                    mcpspec_core::transcript::Event::SchemaViolations { .. }
                )
            })
            .count();
        assert_eq!(judged, 0, "{}: no schema violation recorded\n{all}", r.id);
    }
    // The served legacy result is what the two envelope checks judged.
    let served = report
        .results
        .iter()
        .filter(|r| r.outcome.message.contains("without modern stamping"))
        .count();
    assert_eq!(served, 2, "{all}");
}

/// The checks a version pinned on first use touches, and their neighbours that it does not.
fn version_checks() -> Vec<mcpspec::Check> {
    catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("modern/version/") || c.id.starts_with("modern/discover/"))
        .collect()
}

/// Each check's verdict kind and the prefix its transcript starts with.
fn verdicts(report: &RunReport) -> BTreeMap<String, (Kind, Option<String>)> {
    report
        .results
        .iter()
        .map(|r| {
            let prefix = r.prefix.as_ref().map(|p| serde_json::to_string(p).unwrap());
            (r.id.clone(), (r.outcome.kind, prefix))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_pinned_on_first_use_gives_the_same_verdicts_and_prefixes_in_every_run() {
    let checks = version_checks();
    let run = |jobs: usize| {
        let mut options = support::options();
        options.jobs = jobs;
        support::run(history_server(true), &checks, options)
    };
    let first = run(2).await;
    let all = summary(&first);
    let expected = verdicts(&first);
    // What the pin breaks, and how each verdict carries its evidence.
    let pinned = [
        "modern/version/unsupported-gets-32022",
        "modern/version/unsupported-on-discover",
        "modern/version/error-data",
        "modern/version/malformed-gets-32022",
    ];
    for id in pinned {
        let r = first.results.iter().find(|r| r.id == id).unwrap();
        assert_eq!(r.outcome.kind, Kind::Fail, "{id}\n{all}");
        assert!(
            r.outcome
                .message
                .contains("depends on earlier traffic on the same connection (1 message)"),
            "{id}: {}",
            r.outcome.message
        );
        let prefix = r.prefix.as_ref().expect("a prefix");
        let text = serde_json::to_string(prefix).unwrap();
        assert!(text.contains("server/discover"), "{id}: {text}");
        assert!(text.contains("2026-07-28"), "{id}: {text}");
        // The transcript starts with the prefix, marked, then the check's own traffic.
        assert!(
            matches!(&r.transcript.get(1).map(|e| &e.event),
                Some(mcpspec_core::transcript::Event::Note { text }) if text.starts_with("prefix:")),
            "{id}: {:?}",
            r.transcript.get(1)
        );
        assert_eq!(
            r.confirmed,
            Some(mcpspec_harness::report::Confirmation::EarlierTraffic { messages: 1 })
        );
    }
    // The checks dedicated to a connection's history fail on their own, with no prefix: a
    // fresh process gives the same verdict (they make the history themselves).
    for id in [
        "modern/version/used-connection-unsupported",
        "modern/version/used-connection-other-era",
    ] {
        let r = first.results.iter().find(|r| r.id == id).unwrap();
        assert_eq!(r.outcome.kind, Kind::Fail, "{id}\n{all}");
        assert!(r.prefix.is_none(), "{id}");
        assert_eq!(
            r.confirmed,
            Some(mcpspec_harness::report::Confirmation::SameOnFresh),
            "{id}"
        );
    }
    assert_eq!(
        first.processes.as_ref().map(|p| p.confirmations),
        Some(pinned.len() + 2),
        "{all}"
    );
    // Four more shared runs, then one check at a time and four at a time: the same verdicts,
    // the same prefixes.
    for (i, jobs) in [2, 2, 2, 2, 1, 4].into_iter().enumerate() {
        let again = run(jobs).await;
        assert_eq!(
            verdicts(&again),
            expected,
            "run {} (--jobs {jobs}) differs:\n{}",
            i + 2,
            summary(&again)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_pin_every_version_check_passes_on_shared_processes() {
    let report = support::run(history_server(false), &version_checks(), support::options()).await;
    let all = summary(&report);
    for r in &report.results {
        assert!(
            matches!(r.outcome.kind, Kind::Pass | Kind::NonStrict),
            "{}: {all}",
            r.id
        );
        assert!(r.prefix.is_none() && r.confirmed.is_none(), "{all}");
    }
}

/// `mcpspec run --transcripts DIR` then `mcpspec replay FILE` for each non-pass transcript:
/// each replays, prefix included, to its recorded verdict on a fresh process.
#[test]
fn every_non_pass_transcript_replays_to_its_verdict() {
    let dir = support::Scratch::new("history-replay");
    let script = support::repo_root().join("fixtures/scripted/history_dual.py");
    let server = [
        support::python3().to_owned(),
        script.display().to_string(),
        "--pin-version".into(),
    ];
    let run = assert_cmd::Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["run", "--select", "modern/version", "--transcripts"])
        .arg(&*dir)
        .arg("--")
        .args(&server)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let mut replayed = 0;
    for entry in std::fs::read_dir(&*dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if !text.contains("outcome: FAIL") {
            continue;
        }
        let replay = assert_cmd::Command::cargo_bin("mcpspec")
            .unwrap()
            .arg("replay")
            .arg(&path)
            .arg("--")
            .args(&server)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&replay.stdout);
        assert_eq!(replay.status.code(), Some(1), "{}: {out}", path.display());
        assert!(
            out.contains("reproduced: the transcript recorded FAIL"),
            "{out}"
        );
        if text.contains("prefix:") {
            assert!(
                out.contains("after 1 message(s) of earlier traffic"),
                "{out}"
            );
        }
        replayed += 1;
    }
    assert_eq!(
        replayed, 6,
        "four shared checks with a prefix, two used-connection checks"
    );
}

/// The server whose state malformed input corrupts: after a request whose method is not a
/// string, its connection answers `tools/list` with -32603.
fn poisoned_server() -> mcpspec::Target {
    let script = support::repo_root().join("fixtures/scripted/history_dual.py");
    mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .arg("--poisoned-by-invalid")
}

/// The shared-class checks of the JSON-RPC and modern areas (the fresh-class ones start their
/// own process, which no earlier check touched), but `wrong-jsonrpc-version`: this server fails
/// it with an id-less reply, which retires the process it ran on, the corrupted one included.
fn shared_checks() -> Vec<mcpspec::Check> {
    catalogue::all()
        .into_iter()
        .filter(|c| c.isolation.is_shared())
        .filter(|c| c.id.starts_with("jsonrpc/") || c.id.starts_with("modern/"))
        .filter(|c| c.id != "jsonrpc/invalid-request/wrong-jsonrpc-version")
        .collect()
}

/// Each check's verdict kind, prefix, confirmation and group: what must not change between runs.
type Planned = BTreeMap<String, (Kind, Option<String>, String, Option<usize>)>;

fn planned(report: &RunReport) -> Planned {
    report
        .results
        .iter()
        .map(|r| {
            let prefix = r.prefix.as_ref().map(|p| serde_json::to_string(p).unwrap());
            let confirmed = format!("{:?}", r.confirmed);
            (r.id.clone(), (r.outcome.kind, prefix, confirmed, r.group))
        })
        .collect()
}

/// POL-30.3: which checks share a process, and in what order, is a fixed plan. Against a server
/// whose state one malformed request corrupts for the checks after it on the same process, the
/// check that meets the corruption is the same in every run: five runs each at `--jobs 1`, `2`
/// and `4` give the same verdicts, prefixes, confirmations and groups. (Before the plan, a
/// shared check took whichever pooled process was free, and which check came after the
/// malformed request changed from run to run.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shared_check_gets_the_same_verdict_in_every_run_whatever_the_jobs() {
    let checks = shared_checks();
    let run = |jobs: usize| {
        let mut options = support::options();
        options.jobs = jobs;
        support::run(poisoned_server(), &checks, options)
    };
    let first = run(2).await;
    let expected = planned(&first);
    // The plan is in the report: every check that ran on shared processes names its group, and
    // every group of the plan served checks.
    let groups: std::collections::BTreeSet<usize> = expected
        .values()
        .filter_map(|(_, _, _, group)| *group)
        .collect();
    let plan = mcpspec_harness::runner::plan(&poisoned_server(), &checks, &support::options());
    assert!(plan.groups.len() >= 2, "{plan:?}");
    assert_eq!(groups.len(), plan.groups.len(), "{}", summary(&first));
    // The corruption is met: a verdict depends on the malformed request before it, and says so.
    let poisoned: Vec<&str> = first
        .results
        .iter()
        .filter(|r| {
            r.prefix
                .as_ref()
                .is_some_and(|p| serde_json::to_string(p).unwrap().contains(r#"method\":42"#))
                && r.outcome.message.contains("Internal error")
        })
        .map(|r| r.id.as_str())
        .collect();
    assert!(
        !poisoned.is_empty(),
        "no check met the corrupted state:\n{}",
        summary(&first)
    );
    let mut runs = 1;
    for jobs in [1, 2, 4] {
        let times = if jobs == 2 { 4 } else { 5 };
        for _ in 0..times {
            let again = run(jobs).await;
            runs += 1;
            let got = planned(&again);
            let differ: Vec<String> = expected
                .iter()
                .filter(|(id, want)| got.get(*id) != Some(*want))
                .map(|(id, want)| format!("{id}: first {want:?}, now {:?}", got.get(id)))
                .collect();
            assert!(
                differ.is_empty(),
                "run {runs} (--jobs {jobs}) differs from the first:\n{}\n\n{}",
                differ.join("\n"),
                summary(&again)
            );
        }
    }
    assert_eq!(runs, 15);
}
