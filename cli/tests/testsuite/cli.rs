//! The command line as a user meets it: exit codes, one-line errors, the stdio path against
//! the real reference-server binary.

use crate::support;

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
    let bin = support::reference_binary();
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
    let bin = support::reference_binary();
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
fn a_transcript_file_starts_with_its_check_verdict_and_requirements() {
    let dir = tempdir();
    mcpspec()
        .args(["run", "--select", "jsonrpc/id/string-echoed"])
        .args([
            "--select",
            "http/modern-only/get-delete-405",
            "--transcripts",
        ])
        .arg(&dir)
        .assert()
        .code(0);
    let ran = std::fs::read_to_string(dir.join("jsonrpc__id__string-echoed.yaml")).unwrap();
    let header: Vec<&str> = ran.lines().take(4).collect();
    assert_eq!(header[0], "check: jsonrpc/id/string-echoed", "{ran}");
    assert_eq!(header[1], "outcome: PASS", "{ran}");
    assert!(header[2].starts_with("message: "), "{ran}");
    assert_eq!(header[3], "requirements:", "{ran}");
    assert!(
        ran.contains("transcript:\n") && ran.contains("event: recv"),
        "{ran}"
    );
    // A skipped check says why, and has no events (it never connected).
    let skipped =
        std::fs::read_to_string(dir.join("http__modern-only__get-delete-405.yaml")).unwrap();
    assert!(skipped.contains("outcome: SKIP"), "{skipped}");
    assert!(
        skipped.contains("message: applies to modern-only servers"),
        "{skipped}"
    );
    assert!(!skipped.contains("transcript:"), "{skipped}");
}

#[test]
fn the_default_run_covers_stdio_and_http_with_the_probe_profile() {
    let dir = tempdir();
    let html = dir.join("report.html");
    let out = mcpspec()
        .args(["run", "--allow-tool", "add", "--json", "-", "--html"])
        .arg(&html)
        .assert()
        .code(0);
    // The HTML report of the whole catalogue, every transcript in it, stays small.
    let size = std::fs::metadata(&html).unwrap().len();
    assert!(size < 2 * 1024 * 1024, "the HTML report is {size} bytes");
    // The run's tokens (JWTs from its test issuer) are in nothing it wrote.
    let html_text = std::fs::read_to_string(&html).unwrap();
    let json_text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for (what, text) in [("HTML", &html_text), ("JSON", &json_text)] {
        assert!(!text.contains("eyJ"), "a JWT in the {what} report");
        assert!(
            text.contains("‹redacted›"),
            "no redacted token in the {what} report"
        );
    }
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report["transport"], "stdio + http");
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), mcpspec_harness::catalogue::all().len());
    for r in results {
        let message = r["outcome"]["message"].as_str().unwrap_or_default();
        assert!(
            !(message.starts_with("not an HTTP target")
                || message.starts_with("not a stdio target")
                || message.starts_with("needs --probe-profile")
                || message.starts_with("the server is open")),
            "{}: skipped for a transport, profile or authorization reason: {message}",
            r["id"]
        );
        // The HTTP checks ran over HTTP, every other check over stdio.
        let over_http = mcpspec_harness::catalogue::by_id(r["id"].as_str().unwrap())
            .is_some_and(|c| c.needs.contains(&mcpspec::Need::Http));
        assert_eq!(
            r["transport"],
            if over_http { "http" } else { "stdio" },
            "{}",
            r["id"]
        );
    }
    let passed = |prefix: &str| {
        results.iter().any(|r| {
            r["id"].as_str().unwrap().starts_with(prefix) && r["outcome"]["kind"] == "pass"
        })
    };
    assert!(passed("http/") && passed("middleware/") && passed("stdio/"));
    // The `auth/*` checks judged the protected instance, beside the open one: every one passed.
    let auth: Vec<_> = results
        .iter()
        .filter(|r| r["id"].as_str().unwrap().starts_with("auth/"))
        .collect();
    assert!(!auth.is_empty());
    for r in auth {
        assert_eq!(
            r["outcome"]["kind"], "pass",
            "{}: {}",
            r["id"], r["outcome"]
        );
    }
}

#[test]
fn every_run_ends_with_its_skips_grouped_by_reason() {
    // Against the embedded server with a fault (one transport, no probe profile): the
    // middleware checks are skipped for the profile, and the line says so.
    let out = mcpspec()
        .args([
            "run",
            "--select",
            "middleware/refuse",
            "--select",
            "http/sse",
        ])
        .args(["--select", "jsonrpc/id/string-echoed"])
        .args(["--eras", "both"])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let http = mcpspec_harness::catalogue::all()
        .iter()
        .filter(|c| c.id.starts_with("http/sse/"))
        .count();
    let line = text
        .lines()
        .find(|l| l.contains(" skipped: "))
        .unwrap_or_else(|| panic!("no skip line in:\n{text}"));
    assert_eq!(
        line,
        format!(
            "{} skipped: {http} HTTP only (use --url), 1 needs --probe-profile",
            http + 1
        ),
        "{text}"
    );
}

#[test]
fn list_shows_every_check() {
    let out = mcpspec().arg("list").assert().code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let n = mcpspec_harness::catalogue::all().len();
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
fn the_book_states_the_current_coverage_and_catalogue_size() {
    let catalogue = mcpspec_harness::catalogue::all();
    let coverage = mcpspec_harness::coverage::Coverage::of(&catalogue);
    let page = std::fs::read_to_string(support::repo_root().join("docs/checks.md")).unwrap();
    let figure = format!("**{}/{} requirement ids", coverage.covered, coverage.total);
    assert!(
        page.contains(&figure),
        "docs/checks.md should state {figure}"
    );
    let checks = format!("from {} checks", catalogue.len());
    assert!(
        page.contains(&checks),
        "docs/checks.md should state {checks}"
    );
}

/// Every duration flag of every subcommand, with the arguments that reach it.
const DURATION_FLAGS: &[(&[&str], &str)] = &[
    (&["run"], "--timeout"),
    (&["run"], "--ready-timeout"),
    (&["run"], "--scenario-timeout"),
    (&["negotiate"], "--timeout"),
    (&["fuzz"], "--time"),
    (&["fuzz"], "--timeout"),
    (&["fuzz"], "--shrink-time"),
    (&["replay", "finding.jsonl"], "--timeout"),
];

#[test]
fn run_timeout_inf_is_a_usage_error_naming_the_flag() {
    let out = mcpspec()
        .args(["run", "--timeout", "inf"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("--timeout"), "{err}");
    assert!(err.contains("one day"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn ready_timeout_minus_one_is_a_usage_error() {
    let out = mcpspec()
        .args(["run", "--ready-timeout", "-1"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("--ready-timeout"), "{err}");
    assert!(err.contains("more than 0"), "{err}");
}

#[test]
fn every_duration_flag_refuses_what_is_not_a_positive_day_or_less() {
    for (leading, flag) in DURATION_FLAGS {
        for bad in [
            "inf", "-1", "0", "NaN", "1e300", "86401", "", "2s", "1e-300",
        ] {
            let out = mcpspec()
                .args(*leading)
                .args([flag, bad])
                .timeout(std::time::Duration::from_secs(30))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            let what = format!("{leading:?} {flag} {bad:?}");
            assert_eq!(out.status.code(), Some(2), "{what}: {err}");
            assert!(err.contains(flag), "{what}: {err}");
            assert!(!err.contains("panicked"), "{what}: {err}");
        }
    }
}

#[test]
fn counts_of_zero_are_usage_errors() {
    for (leading, flag) in [
        (&["run"][..], "--jobs"),
        (&["run"][..], "--max-message"),
        (&["run"][..], "--max-items"),
        (&["fuzz"][..], "--cases"),
        (&["fuzz"][..], "--max-findings"),
        (&["fuzz"][..], "--max-message"),
    ] {
        let out = mcpspec()
            .args(leading)
            .args([flag, "0"])
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(flag), "{flag}: {err}");
    }
    // More jobs than a semaphore holds used to panic.
    mcpspec()
        .args(["run", "--jobs", "18446744073709551615"])
        .assert()
        .code(2);
}

/// A pipe whose reader is already gone: every write to it fails with EPIPE.
fn closed_pipe() -> std::process::Stdio {
    let mut reader = std::process::Command::new("true")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let write_end = reader.stdin.take().unwrap();
    reader.wait().unwrap();
    write_end.into()
}

/// Runs mcpspec with `args` in `dir`, its stdout a closed pipe; returns (exit code, stderr).
fn with_closed_stdout(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpspec"))
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(closed_pipe())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcpspec {args:?} did not exit within 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), err)
}

#[test]
fn a_closed_stdout_ends_every_subcommand_quietly_with_its_exit_code() {
    let dir = tempdir();
    std::fs::write(
        dir.join("finding.jsonl"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
    )
    .unwrap();
    // The reference server's `reply-twice` fault answers this twice.
    std::fs::write(
        dir.join("twice.jsonl"),
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}\n",
    )
    .unwrap();
    let cases: &[(&[&str], i32)] = &[
        (&["list"], 0),
        (&["list", "--json"], 0),
        (&["coverage"], 0),
        (&["coverage", "--markdown"], 0),
        (&["run", "--select", "jsonrpc/parse-error"], 0),
        (
            &["run", "--select", "jsonrpc/parse-error", "--json", "-"],
            0,
        ),
        (
            &[
                "run",
                "--select",
                "jsonrpc/result-type",
                "--fault",
                "no-result-type",
            ],
            1,
        ),
        (&["negotiate"], 0),
        (&["negotiate", "--json"], 0),
        (&["fuzz", "--cases", "1", "--time", "1", "--out", "out"], 0),
        (&["replay", "finding.jsonl"], 0),
        (&["replay", "twice.jsonl", "--fault", "reply-twice"], 1),
    ];
    for (args, code) in cases {
        let (status, err) = with_closed_stdout(&dir, args);
        assert_eq!(status, Some(*code), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The report files asked for are still written.
    let junit = dir.join("report.xml");
    let (status, _) = with_closed_stdout(
        &dir,
        &[
            "run",
            "--select",
            "jsonrpc/parse-error",
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    assert_eq!(status, Some(0));
    assert!(junit.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_piped_into_head_exits_0() {
    let out = std::process::Command::new("bash")
        .args([
            "-c",
            r#""$0" list | head -1 >/dev/null; echo "status=${PIPESTATUS[0]}""#,
            env!("CARGO_BIN_EXE_mcpspec"),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout.trim(), "status=0", "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
