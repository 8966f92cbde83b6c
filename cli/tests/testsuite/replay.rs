//! A reproducer keeps its target: `mcpspec fuzz` records it next to the finding
//! (`.target.json`), the replay command it prints runs as printed and reproduces, `mcpspec
//! replay FILE` alone replays on the recorded target, and an explicit other target is refused
//! (exit 2) unless `--target-mismatch-ok`.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

/// A fresh directory the fuzz runs and replays run in.
fn workdir(name: &str) -> support::Scratch {
    support::Scratch::new(&format!("replay-test-{name}"))
}

/// Runs `mcpspec fuzz` in `dir` (reproducers into the relative `out`) until one finding of
/// `oracle`; returns its reproducer (relative to `dir`) and the printed replay command.
fn find(dir: &Path, target_args: &[&str], oracle: &str) -> (PathBuf, String) {
    let output = mcpspec()
        .current_dir(dir)
        .args([
            "fuzz",
            "--seed",
            "3",
            "--cases",
            "500",
            "--max-findings",
            "1",
        ])
        .args(["--timeout", &support::scaled_secs(0.3)])
        .args(["--shrink-time", "10", "--out", "out"])
        .args(target_args)
        .timeout(Duration::from_secs(90))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(&format!("[{oracle}]")), "{stdout}");
    let reproducer = mcpspec_harness::fuzz::reproducer::reproducer_in(&stdout)
        .unwrap_or_else(|| panic!("no reproducer in {stdout}"))
        .to_owned();
    let command = mcpspec_harness::fuzz::reproducer::replay_command_in(&stdout)
        .unwrap_or_else(|| panic!("no replay command in {stdout}"))
        .to_owned();
    (reproducer, command)
}

/// The record written next to a reproducer, as JSON.
fn record(reproducer: &Path) -> serde_json::Value {
    let path = mcpspec_harness::fuzz::reproducer::record_path(reproducer);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} is missing: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Runs `command` exactly as printed, with `sh -c` in `dir` and this build's `mcpspec` first on
/// `PATH`; returns (exit code, stdout).
fn run_as_printed(dir: &Path, command: &str) -> (Option<i32>, String) {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mcpspec")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_owned()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let output = Command::new("sh")
        .current_dir(dir)
        .env("PATH", path)
        .args(["-c", command])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// `mcpspec replay` in `dir` with `args`; returns (exit code, stdout, stderr).
fn replay(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = mcpspec()
        .current_dir(dir)
        .arg("replay")
        .args(args)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_planted_fault_is_recorded_and_the_printed_command_reproduces_it() {
    let dir = workdir("embedded");
    let (reproducer, command) = find(&dir, &["--fault", "reply-twice"], "duplicate-reply");
    let file = reproducer.to_str().unwrap();
    assert_eq!(
        command,
        format!("mcpspec replay {file} --timeout 0.3 --fault reply-twice")
    );
    let r = record(&dir.join(&reproducer));
    assert_eq!(r["mcpspec_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(r["seed"], 3);
    assert_eq!(r["oracle"], "duplicate-reply");
    assert_eq!(
        r["target"],
        serde_json::json!({"kind": "embedded", "faults": ["reply-twice"], "eras": "both"})
    );
    assert_eq!(r["timeout_secs"], 0.3);
    // The .jsonl is still exactly the lines sent: every line is one JSON message.
    let lines = mcpspec_harness::fuzz::reproducer::read(&dir.join(&reproducer)).unwrap();
    assert!(!lines.is_empty());
    assert!(
        lines
            .iter()
            .all(|l| serde_json::from_slice::<serde_json::Value>(l).is_ok())
    );

    let (code, stdout) = run_as_printed(&dir, &command);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.starts_with("reproduced [duplicate-reply]"),
        "{stdout}"
    );

    // The file alone replays on the recorded target.
    let (code, stdout, stderr) = replay(&dir, &[file]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("recorded target"), "{stderr}");

    // Another explicit target is refused, whatever kind it is.
    let bin = support::reference_binary().display().to_string();
    for other in [
        vec!["--fault", "reply-to-notifications"],
        vec!["--eras", "both"],
        vec!["--", bin.as_str(), "--fault", "reply-twice"],
    ] {
        let args: Vec<&str> = std::iter::once(file).chain(other.clone()).collect();
        let (code, stdout, stderr) = replay(&dir, &args);
        assert_eq!(code, Some(2), "{other:?}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{other:?}: {stdout}");
        assert!(stderr.contains("--target-mismatch-ok"), "{stderr}");
        assert!(stderr.contains("faults: reply-twice"), "{stderr}");
    }

    // ...unless the mismatch is asked for: then it runs on the server given.
    let (code, stdout, stderr) = replay(
        &dir,
        &[
            file,
            "--target-mismatch-ok",
            "--fault",
            "reply-to-notifications",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("not reproduced"), "{stdout}");
    assert!(stderr.contains("not on"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_reproducer_without_a_record_replays_as_before_with_a_note() {
    let dir = workdir("no-record");
    std::fs::write(
        dir.join("old.jsonl"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n",
    )
    .unwrap();
    let (code, stdout, stderr) = replay(&dir, &["old.jsonl"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("no target was recorded"), "{stderr}");
    assert!(stderr.contains("old.target.json"), "{stderr}");
    let (code, stdout, stderr) = replay(&dir, &["old.jsonl", "--fault", "reply-twice"]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("no target was recorded"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stdio_finding_replays_on_its_command() {
    let dir = workdir("stdio");
    let bin = support::reference_binary().display().to_string();
    let target = ["--", bin.as_str(), "--fault", "reply-twice"];
    let (reproducer, command) = find(&dir, &target, "duplicate-reply");
    let file = reproducer.to_str().unwrap();
    let r = record(&dir.join(&reproducer));
    assert_eq!(r["target"]["kind"], "command");
    assert_eq!(r["target"]["program"], bin.as_str());
    assert_eq!(
        r["target"]["args"],
        serde_json::json!(["--fault", "reply-twice"])
    );
    assert_eq!(
        r["target"]["cwd"],
        dir.canonicalize().unwrap().to_str().unwrap()
    );
    assert!(
        command.ends_with(&format!(" -- {bin} --fault reply-twice")),
        "{command}"
    );

    let (code, stdout) = run_as_printed(&dir, &command);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.starts_with("reproduced [duplicate-reply]"),
        "{stdout}"
    );

    // From another directory, the file alone still replays on the recorded command.
    let elsewhere = workdir("stdio-elsewhere");
    let absolute = dir.join(&reproducer);
    let (code, stdout, stderr) = replay(&elsewhere, &[absolute.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains(&bin), "{stdout}");

    // The embedded server, or the same binary without the fault, is another target.
    let (code, _, stderr) = replay(&dir, &[file, "--fault", "reply-twice"]);
    assert_eq!(code, Some(2), "{stderr}");
    let (code, _, stderr) = replay(&dir, &[file, "--", bin.as_str()]);
    assert_eq!(code, Some(2), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&elsewhere);
}
