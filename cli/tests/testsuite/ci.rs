//! CI-facing behaviour of the command line: baselines (unlisted failure, stale entry, unknown
//! id), JUnit and Markdown files, sharding, `mcpspec coverage`, and the `cargo test` integration
//! example crate. The GitHub Action's scripts are tested in `action.rs`.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

fn tempdir(name: &str) -> support::Scratch {
    support::Scratch::new(&format!("ci-{name}"))
}

fn write_baseline(dir: &Path, checks: &[&str]) -> PathBuf {
    let mut yaml = String::from("target: test\nentries:\n");
    for c in checks {
        yaml.push_str(&format!("  - check: {c}\n    reason: known in this test\n"));
    }
    let path = dir.join("baseline.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

fn stdout(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

// --- baselines -------------------------------------------------------------------------------

#[test]
fn an_unlisted_failure_fails_the_run() {
    let dir = tempdir("unlisted");
    let baseline = write_baseline(&dir, &["jsonrpc/batch/rejected"]);
    mcpspec()
        .args([
            "run",
            "--fault",
            "no-result-type",
            "--select",
            "jsonrpc/result-type",
        ])
        .arg("--baseline")
        .arg(&baseline)
        .assert()
        .code(1);
}

#[test]
fn a_listed_failure_passes_the_run() {
    let dir = tempdir("listed");
    let baseline = write_baseline(&dir, &["jsonrpc/result-type/present"]);
    let out = mcpspec()
        .args([
            "run",
            "--fault",
            "no-result-type",
            "--select",
            "jsonrpc/result-type",
        ])
        .arg("--baseline")
        .arg(&baseline)
        .assert()
        .code(0);
    assert!(
        stdout(&out).contains("(baseline: known in this test)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_stale_baseline_entry_fails_the_run() {
    let dir = tempdir("stale");
    let baseline = write_baseline(&dir, &["jsonrpc/result-type/present"]);
    let junit = dir.join("junit.xml");
    let out = mcpspec()
        .args(["run", "--select", "jsonrpc/result-type", "--baseline"])
        .arg(&baseline)
        .arg("--junit")
        .arg(&junit)
        .assert()
        .code(1);
    let text = stdout(&out);
    assert!(
        text.contains("stale baseline entry: jsonrpc/result-type/present"),
        "{text}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains(r#"type="STALE""#), "{xml}");
}

#[test]
fn an_unknown_baseline_id_is_a_usage_error() {
    let dir = tempdir("unknown");
    let baseline = write_baseline(&dir, &["no/such/check"]);
    let out = mcpspec()
        .args(["run", "--baseline"])
        .arg(&baseline)
        .assert()
        .code(2);
    let err = stderr(&out);
    assert!(err.contains("unknown check(s): no/such/check"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn the_committed_baselines_name_real_checks() {
    // A client's baseline (`client-*.yaml`) names `mcpspec client`'s checks.
    let client: Vec<&str> = mcpspec_client::checks::all().iter().map(|c| c.id).collect();
    for entry in std::fs::read_dir(support::repo_root().join("fixtures/baselines")).unwrap() {
        let path = entry.unwrap().path();
        let is_client = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("client-"));
        let loaded = if is_client {
            mcpspec_harness::baseline::Baseline::load_for(&path, &client)
        } else {
            mcpspec_harness::baseline::Baseline::load(&path)
        };
        loaded.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

// --- report files ----------------------------------------------------------------------------

#[test]
fn junit_and_markdown_files_are_written() {
    let dir = tempdir("files");
    let (junit, markdown) = (dir.join("report.xml"), dir.join("summary.md"));
    mcpspec()
        .args([
            "run",
            "--fault",
            "no-result-type",
            "--select",
            "jsonrpc",
            "--junit",
        ])
        .arg(&junit)
        .arg("--markdown")
        .arg(&markdown)
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let report = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    assert!(report.failures >= 1, "{xml}");
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(md.starts_with("## mcpspec: ❌ failed"), "{md}");
    assert!(
        md.contains("| `jsonrpc/result-type/present` | ❌ FAIL | RPC-6"),
        "{md}"
    );
}

// --- sharding --------------------------------------------------------------------------------

#[test]
fn shards_of_a_cli_run_cover_the_selection_once() {
    let dir = tempdir("shards");
    let mut seen = Vec::new();
    for i in 1..=3 {
        let json = dir.join(format!("shard-{i}.json"));
        mcpspec()
            .args([
                "run",
                "--allow-tool",
                "add",
                "--shard",
                &format!("{i}/3"),
                "--json",
            ])
            .arg(&json)
            .assert()
            .code(0);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        for r in report["results"].as_array().unwrap() {
            seen.push(r["id"].as_str().unwrap().to_owned());
        }
    }
    let unique: BTreeSet<_> = seen.iter().cloned().collect();
    assert_eq!(unique.len(), seen.len(), "no check runs twice");
    let all: BTreeSet<_> = mcpspec_harness::catalogue::all()
        .iter()
        .map(|c| c.id.to_owned())
        .collect();
    assert_eq!(unique, all, "together the shards run everything");
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    for bad in ["0/2", "3/2", "x"] {
        mcpspec().args(["run", "--shard", bad]).assert().code(2);
    }
}

// --- coverage --------------------------------------------------------------------------------

#[test]
fn coverage_prints_the_figure_json_and_markdown() {
    let coverage = mcpspec_harness::coverage::Coverage::of(&mcpspec_harness::catalogue::all());
    let text = stdout(&mcpspec().arg("coverage").assert().code(0));
    assert!(
        text.starts_with(&format!("requirement coverage: {}/112", coverage.covered)),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(
        &mcpspec().args(["coverage", "--json"]).assert().code(0),
    ))
    .unwrap();
    assert_eq!(json["total"], 112);
    assert_eq!(json["requirements"].as_array().unwrap().len(), 112);
    let md = stdout(&mcpspec().args(["coverage", "--markdown"]).assert().code(0));
    assert!(md.starts_with("## Requirement coverage:"), "{md}");
    assert!(md.contains("| RPC-6 | modern | MUST | "), "{md}");
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('-'))
        .count();
    assert!(rows >= 112, "one row per requirement: {md}");
}

// --- the `cargo test` integration example ----------------------------------------------------

#[test]
fn example_crate_lists_one_test_per_check_passes_and_catches_a_fault() {
    let list = support::example_conformance(&["--list"], &[]);
    let text = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(
        list.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let listed: BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    let all: BTreeSet<&str> = mcpspec_harness::catalogue::all()
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(listed, all, "one test per check, named by its id");

    let run = support::example_conformance(&[], &[]);
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(text.contains("0 failed"), "{text}");

    // A fault fails exactly the test of the check that names it; filtering works.
    let faulty = support::example_conformance(
        &["jsonrpc/result-type/"],
        &[("EXAMPLE_SERVER_FAULTS", "no-result-type")],
    );
    let text = String::from_utf8_lossy(&faulty.stdout).into_owned();
    assert!(!faulty.status.success(), "{text}");
    assert!(
        text.contains("test jsonrpc/result-type/present ... FAILED"),
        "{text}"
    );
    assert!(
        text.contains("RPC-6 [MUST]"),
        "the requirement text is shown: {text}"
    );
    assert!(text.contains("filtered out"), "{text}");
}
