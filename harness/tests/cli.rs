//! The command line as a user meets it: exit codes, one-line errors, the stdio path against
//! the real reference-server binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use assert_cmd::Command;

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

#[test]
fn run_on_the_embedded_server_exits_0() {
    let out = mcpspec()
        .args(["run", "--allow-tool", "add"])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains(" 0 fail"), "{text}");
    assert!(text.contains("modern/discover"), "{text}");
}

#[test]
fn run_against_a_fault_exits_1_and_names_the_requirement() {
    let out = mcpspec()
        .args([
            "run",
            "--fault",
            "no-result-type",
            "--select",
            "jsonrpc/result-type",
        ])
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("FAIL"), "{text}");
    assert!(
        text.contains("RPC-6 [MUST]"),
        "the requirement text is printed: {text}"
    );
}

#[test]
fn run_against_the_reference_binary_over_stdio_exits_0() {
    let bin = common::reference_binary();
    let out = mcpspec()
        .args(["run", "--allow-tool", "add", "--"])
        .arg(&bin)
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("(stdio)"), "{text}");
}

#[test]
fn a_fault_of_the_reference_binary_is_caught_over_stdio() {
    let bin = common::reference_binary();
    mcpspec()
        .args(["run", "--select", "stdio", "--"])
        .arg(&bin)
        .args(["--fault", "log-to-stdout"])
        .assert()
        .code(1);
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let out = mcpspec()
        .args(["run", "--select", "no/such/check"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    mcpspec().args(["run", "--no-such-flag"]).assert().code(2);
    mcpspec()
        .args(["run", "--fault", "no-such-fault"])
        .assert()
        .code(2);
}

#[test]
fn an_unstartable_target_exits_3() {
    let out = mcpspec()
        .args(["run", "--", "/nonexistent/mcp-server"])
        .assert()
        .code(3);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("cannot start"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn json_report_is_written() {
    let dir = tempdir();
    let path = dir.join("report.json");
    mcpspec()
        .args(["run", "--select", "modern/discover", "--json"])
        .arg(&path)
        .assert()
        .code(0);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(report["summary"]["fail"], 0);
    assert!(report["results"].as_array().unwrap().len() >= 5);
    assert_eq!(report["results"][0]["outcome"]["kind"], "pass");
}

#[test]
fn transcripts_are_written_per_check() {
    let dir = tempdir();
    mcpspec()
        .args(["run", "--select", "jsonrpc/id", "--transcripts"])
        .arg(&dir)
        .assert()
        .code(0);
    let file = dir.join("jsonrpc__id__string-echoed.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("event: send") && text.contains("event: recv"),
        "{text}"
    );
}

#[test]
fn list_shows_every_check() {
    let out = mcpspec().arg("list").assert().code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let n = mcpspec::checks::catalogue().len();
    assert!(text.contains(&format!("{n} checks")), "{text}");
    assert!(text.contains("jsonrpc/parse-error/replies-32700"));
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcpspec-test-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

#[test]
fn readme_states_the_current_coverage_and_catalogue_size() {
    let catalogue = mcpspec::checks::catalogue();
    let coverage = mcpspec::coverage::Coverage::of(&catalogue);
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).unwrap();
    let figure = format!("**{}/{} requirement ids", coverage.covered, coverage.total);
    assert!(readme.contains(&figure), "README should state {figure}");
    let checks = format!("from {} checks", catalogue.len());
    assert!(readme.contains(&checks), "README should state {checks}");
}
