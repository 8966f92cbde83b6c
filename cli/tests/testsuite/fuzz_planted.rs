//! `mcpspec fuzz` finds every planted bug of the reference server (seeded, bounded), shrinks it
//! to at most 3 messages, and `mcpspec replay` reproduces the same finding; a clean reference
//! server yields nothing. One run also goes over stdio, against the reference binary.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// The most generated cases a planted bug may take to find. Seed 3 finds each within 25
/// cases (measured); bounded by count, the search does the same work on any machine.
const PLANTED_CASES: &str = "500";

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-fuzz-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `mcpspec fuzz` with `target_args`; returns (oracle id, reproducer, stdout).
fn find(name: &str, target_args: &[&str], expect_oracle: &str) -> (PathBuf, String) {
    let out = out_dir(name);
    let started = Instant::now();
    let output = mcpspec()
        .args([
            "fuzz",
            "--seed",
            "3",
            "--cases",
            PLANTED_CASES,
            "--max-findings",
            "1",
        ])
        .args([
            "--timeout",
            &support::scaled_secs(0.3),
            "--shrink-time",
            "10",
            "--allow-tool",
            "echo",
            "--allow-tool",
            "add",
        ])
        .arg("--out")
        .arg(&out)
        .args(target_args)
        .timeout(Duration::from_secs(90))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{name}: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(&format!("[{expect_oracle}]")),
        "{name}: {stdout}"
    );
    let reproducer = mcpspec_harness::fuzz::reproducer::reproducer_in(&stdout)
        .map(Path::to_owned)
        .unwrap_or_else(|| panic!("{name}: no reproducer named in {stdout}"));
    let lines = mcpspec_harness::fuzz::reproducer::read(&reproducer).unwrap();
    assert!(
        (1..=3).contains(&lines.len()),
        "{name}: {} messages",
        lines.len()
    );
    eprintln!(
        "{name}: [{expect_oracle}] in {:.1} s (search + shrink), {} message(s)",
        started.elapsed().as_secs_f64(),
        lines.len()
    );
    (reproducer, stdout)
}

fn replays(reproducer: &Path, target_args: &[&str], expect_oracle: &str) {
    let output = mcpspec()
        .args(["replay", "--timeout", &support::scaled_secs(0.3)])
        .arg(reproducer)
        .args(target_args)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(&format!("reproduced [{expect_oracle}]")),
        "{stdout}"
    );
}

fn planted(fault: &str, oracle: &str) {
    let args = ["--fault", fault];
    let (reproducer, _) = find(fault, &args, oracle);
    replays(&reproducer, &args, oracle);
}

#[test]
fn finds_the_panic_on_dunder_arguments() {
    planted("panic-on-dunder-argument", "crash");
}

#[test]
fn finds_the_double_reply() {
    planted("reply-twice", "duplicate-reply");
}

#[test]
fn finds_replies_to_notifications() {
    planted("reply-to-notifications", "reply-to-notification");
}

#[test]
fn finds_non_mcp_output_on_stdout() {
    planted("stdout-debug-on-cursor", "non-mcp-output");
}

#[test]
fn finds_the_hang() {
    planted("hang-on-negative-id", "hang");
}

#[test]
fn finds_the_double_reply_over_stdio_and_leaves_no_process() {
    let bin = support::reference_binary().display().to_string();
    // Every server process this test starts carries the marker in its environment.
    let marker = format!("MCPSPEC_FUZZ_TEST_MARK={}", std::process::id());
    let args = [
        "--",
        "env",
        marker.as_str(),
        bin.as_str(),
        "--fault",
        "reply-twice",
    ];
    let (reproducer, _) = find("stdio-reply-twice", &args, "duplicate-reply");
    replays(&reproducer, &args, "duplicate-reply");
    let survivors = support::processes_with_env(&marker);
    assert!(
        survivors.is_empty(),
        "server processes outlived fuzz and replay: {survivors:?}"
    );
}

#[test]
fn a_clean_reference_server_yields_nothing() {
    let output = mcpspec()
        .args(["fuzz", "--seed", "7", "--cases", "300", "--timeout", "0.5"])
        .arg("--out")
        .arg(out_dir("clean"))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("0 finding(s)"), "{stdout}");
}

#[test]
fn usage_and_start_errors_have_their_exit_codes() {
    mcpspec().args(["fuzz", "--time", "0"]).assert().code(2);
    mcpspec().args(["fuzz", "--cases", "0"]).assert().code(2);
    mcpspec()
        .args(["fuzz", "--fault", "no-such-fault"])
        .assert()
        .code(2);
    mcpspec()
        .args(["fuzz", "--cases", "1", "--out"])
        .arg(out_dir("missing"))
        .args(["--", "/nonexistent/mcp-server"])
        .assert()
        .code(3);
}
