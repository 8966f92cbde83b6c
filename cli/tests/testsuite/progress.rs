//! Progress on stderr (issue 20, part 2), as a user sees it: on a terminal (a pty from
//! `script`) `run` and `fuzz` draw an indicatif bar; with `CI` set, or when stderr is a pipe,
//! a short run prints no status at all and a long one one plain line per 10 s, even while a
//! single check runs. The choice of
//! mode and the 10 s throttle are unit-tested in `report/status_line.rs`.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn mcpspec() -> &'static str {
    env!("CARGO_BIN_EXE_mcpspec")
}

fn scratch(name: &str) -> support::Scratch {
    support::Scratch::new(&format!("progress-{name}"))
}

/// mcpspec with stdout and stderr piped (not a terminal), `CI` as given.
fn piped(dir: &Path, args: &[&str], ci: Option<&str>) -> Output {
    let mut cmd = Command::new(mcpspec());
    cmd.current_dir(dir).args(args).env_remove("CI");
    if let Some(v) = ci {
        cmd.env("CI", v);
    }
    cmd.output().unwrap()
}

/// mcpspec on a pseudo-terminal (`script -qec`), stdout and stderr together, `CI` as given.
fn on_a_terminal(dir: &Path, args: &str, ci: Option<&str>) -> String {
    let mut cmd = Command::new("script");
    cmd.current_dir(dir)
        .args(["-qec", &format!("{} {args}", mcpspec()), "/dev/null"])
        .env_remove("CI")
        .env_remove("NO_COLOR");
    if let Some(v) = ci {
        cmd.env("CI", v);
    }
    let out = cmd
        .output()
        .expect("`script` (util-linux) gives mcpspec a terminal");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn status_lines<'a>(stderr: &'a str, label: &str) -> Vec<&'a str> {
    stderr
        .lines()
        .filter(|l| l.starts_with(&format!("{label}: ")))
        .filter(|l| l.contains("checks done") || l.contains("messages/s"))
        .collect()
}

#[test]
fn a_terminal_gets_a_bar_unless_ci_is_set() {
    let dir = scratch("tty");
    let run = on_a_terminal(&dir, "run --select jsonrpc", None);
    assert!(run.contains("mcpspec run "), "{run}");
    assert!(run.contains("checks done"), "{run}");
    assert!(run.contains("\x1b[2K"), "the bar redraws in place: {run}");

    let fuzz = on_a_terminal(&dir, "fuzz --time 2 --out out", None);
    assert!(fuzz.contains("/2 s, "), "{fuzz}");
    assert!(fuzz.contains("messages/s"), "{fuzz}");
    assert!(fuzz.contains("=>"), "a bar: {fuzz}");

    for ci in ["true", "1"] {
        let run = on_a_terminal(&dir, "run --select jsonrpc", Some(ci));
        assert!(
            !run.contains("checks done"),
            "CI={ci}: no bar, a short run: {run}"
        );
        assert!(run.contains("PASS"), "{run}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_short_run_prints_no_status_off_a_terminal() {
    let dir = scratch("short");
    for ci in [None, Some("true")] {
        let out = piped(&dir, &["run", "--select", "jsonrpc"], ci);
        assert_eq!(out.status.code(), Some(0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.is_empty(), "CI={ci:?}: {stderr}");
        let out = piped(&dir, &["fuzz", "--time", "2", "--out", "out"], ci);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(status_lines(&stderr, "mcpspec fuzz").is_empty(), "{stderr}");
        assert!(!stderr.contains('\r'), "no redraws in a log: {stderr:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run of more than 10 s off a terminal: a plain line every 10 s, even while a check runs,
/// and no redraws.
#[test]
fn a_long_run_prints_a_plain_line_every_ten_seconds() {
    let dir = scratch("long");
    // One check against a server that stops reading after invalid JSON, so the fence after it
    // is never answered and the whole 11 s wait is made: the line comes while the check still
    // runs, and names it.
    let started = Instant::now();
    let out = piped(
        &dir,
        &[
            "run",
            "--timeout",
            "11",
            "--fault",
            "stall-on-parse-error",
            "--select",
            "jsonrpc/parse-error/replies-32700",
        ],
        Some("true"),
    );
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = status_lines(&stderr, "mcpspec run");
    assert!(took >= Duration::from_secs(10), "the run took {took:?}");
    assert!(
        !lines.is_empty() && lines.len() as u64 <= took.as_secs() / 10,
        "one line per 10 s at most, at least one after 10 s: {stderr}"
    );
    assert!(
        lines[0].starts_with("mcpspec run: 0/1 checks done, 0 failing, ")
            && lines[0].contains(" s (running: jsonrpc/parse-error/replies-32700, ")
            && lines[0].ends_with(" s)"),
        "{stderr}"
    );
    assert!(!stderr.contains('\r'), "{stderr:?}");

    // A 12 s fuzz run: a line at 10 s; a loaded machine that stretches the run past 20 s may
    // print one more, never more than one per 10 s of the run.
    let started = Instant::now();
    let out = piped(&dir, &["fuzz", "--time", "12", "--out", "out"], None);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = status_lines(&stderr, "mcpspec fuzz");
    assert!(
        !lines.is_empty() && lines.len() as u64 <= took.as_secs() / 10,
        "one line per 10 s at most, at least one after 10 s ({took:?}): {stderr}"
    );
    assert!(
        lines[0].contains("/12 s, ") && lines[0].contains(" cases, "),
        "{stderr}"
    );
    assert!(!stderr.contains('\r'), "{stderr:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
