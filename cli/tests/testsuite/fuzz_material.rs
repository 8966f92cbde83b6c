//! `mcpspec fuzz` against a scripted server whose one tool exits the process when called
//! (`fixtures/scripted/tool_trap.py`): the fuzzer reads the server's lists first, calls no
//! listed tool it was not allowed to (POL-12), calls an allowed one, keeps one process while it
//! stays healthy, and starts from its built-in seed corpus wherever it runs.

use crate::support;

use std::time::Duration;

use assert_cmd::Command;

/// Cases per run: counted, so a run does the same work on any machine.
const CASES: &str = "150";

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `mcpspec fuzz` for [`CASES`] cases on the trap server, from a directory outside the
/// repository (so nothing can be read from `fixtures/`).
fn fuzz_trap(name: &str, extra: &[&str]) -> Run {
    let scratch = std::env::temp_dir().join(format!(
        "mcpspec-fuzz-material-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let script = support::repo_root().join("fixtures/scripted/tool_trap.py");
    let output = Command::cargo_bin("mcpspec")
        .unwrap()
        .current_dir(&scratch)
        .args([
            "fuzz",
            "--seed",
            "2",
            "--cases",
            CASES,
            "--max-findings",
            "11",
        ])
        .args(["--out", "out"])
        .args(extra)
        .arg("--")
        .arg(support::python3())
        .arg(&script)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&scratch);
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The number before `word` in `text` ("5649 cases" → 5649).
fn count_before(text: &str, word: &str) -> u64 {
    let at = text
        .find(word)
        .unwrap_or_else(|| panic!("no {word:?} in {text}"));
    text[..at]
        .split_whitespace()
        .last()
        .and_then(|n| n.trim_start_matches('(').parse().ok())
        .unwrap_or_else(|| panic!("no count before {word:?} in {text}"))
}

#[test]
fn a_listed_tool_is_never_called_unless_allowed_and_cases_share_one_process() {
    let run = fuzz_trap("unallowed", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("material (modern): 0 tool(s) callable, 1 listed tool(s) never called, 1 resource URI(s), 1 prompt(s)"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("exit status 7"), "{}", run.stdout);
    assert!(run.stdout.contains("0 finding(s)"), "{}", run.stdout);
    // The seed corpus is built in: found from a directory with no fixtures in it.
    assert!(
        count_before(&run.stderr, "built in") >= 14,
        "{}",
        run.stderr
    );
    // One shared process and one warm spare serve every case of a healthy server.
    let cases = count_before(&run.stdout, "cases");
    let connections = count_before(&run.stdout, "connection(s)");
    assert_eq!(cases.to_string(), CASES, "{}", run.stdout);
    assert!(
        connections <= 3,
        "{connections} connections for {cases} cases"
    );
}

#[test]
fn an_allowed_tool_is_called_and_its_crash_found() {
    let run = fuzz_trap("allowed", &["--allow-tool", "trap"]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("1 tool(s) callable (trap), 0 listed tool(s) never called"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("[crash] the server exited: exit status 7"),
        "{}",
        run.stdout
    );
    // The finding was shrunk and confirmed on fresh processes: the summary names the time.
    assert!(
        run.stdout.contains("s shrinking and confirming"),
        "{}",
        run.stdout
    );
}

#[test]
fn ctrl_c_ends_the_run_and_every_server_process_it_started() {
    let marker = format!("mcpspec-fuzz-ctrl-c-{}", std::process::id());
    let script = support::repo_root().join("fixtures/scripted/tool_trap.py");
    let out = std::env::temp_dir().join(&marker);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcpspec"))
        .args(["fuzz", "--seed", "2", "--cases", "1000000", "--out"])
        .arg(&out)
        .arg("--")
        .arg(support::python3())
        .arg(&script)
        .arg(&marker)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Fuzzing is under way once the shared process and the warm spare run (at most 20 s).
    let deadline = std::time::Instant::now() + support::scaled(Duration::from_secs(20));
    while support::processes_with_arg(&marker).len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !support::processes_with_arg(&marker).is_empty(),
        "no server was started"
    );
    std::thread::sleep(Duration::from_millis(500));
    let status = support::interrupt_and_wait(&mut child, Duration::from_secs(10), "mcpspec fuzz");
    assert_eq!(status.code(), Some(130));
    // The servers' process groups were killed as the run ended; give the kernel a moment.
    let deadline = std::time::Instant::now() + support::scaled(Duration::from_secs(2));
    while !support::processes_with_arg(&marker).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        support::processes_with_arg(&marker),
        Vec::<u32>::new(),
        "survivors"
    );
    let _ = std::fs::remove_dir_all(&out);
}
