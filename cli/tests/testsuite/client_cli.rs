//! `mcpspec client` as a user meets it: exit codes, every report, baselines, `--select`, the
//! clients that hang, write nothing or fail (each a Fail naming why, every process they started
//! killed), a client written for the official conformance suite running unchanged, and the
//! fuzzer's command line.

use crate::support;

use assert_cmd::Command;

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

fn reference_client() -> String {
    env!("CARGO_BIN_EXE_mcpspec-reference-client").to_owned()
}

fn scripted(name: &str) -> String {
    support::repo_root()
        .join("fixtures/clients/scripted")
        .join(name)
        .display()
        .to_string()
}

fn stdout(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

#[test]
fn the_reference_client_passes_and_every_report_is_written() {
    let dir = support::Scratch::new("client-cli-reports");
    let path = |name: &str| dir.join(name).display().to_string();
    let out = mcpspec()
        .args(["client", "--select", "tools_call", "--select", "initialize"])
        .args(["--json", &path("r.json"), "--junit", &path("r.xml")])
        .args(["--markdown", &path("r.md"), "--html", &path("r.html")])
        .args(["--transcripts", &path("t"), "--", &reference_client()])
        .assert()
        .code(0);
    let text = stdout(&out);
    assert!(
        text.contains("client under test: 2 scenario(s), 2 ended with exit status 0"),
        "{text}"
    );
    assert!(text.contains("6 checks: 6 pass"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path("r.json")).unwrap()).unwrap();
    assert_eq!(
        json["client"]["scenarios"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(json["summary"]["pass"], 6);
    assert!(
        json["results"][0]["transcript"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    let junit = std::fs::read_to_string(path("r.xml")).unwrap();
    assert!(junit.contains("client/hygiene/unique-ids"), "{junit}");
    let markdown = std::fs::read_to_string(path("r.md")).unwrap();
    assert!(markdown.contains("passed"), "{markdown}");
    let html = std::fs::read_to_string(path("r.html")).unwrap();
    assert!(
        html.contains("client under test"),
        "the HTML names the sides of a client run"
    );
    assert!(
        dir.join("t/client__lifecycle__initialize-first.yaml")
            .exists()
    );
}

/// The tokens, refresh tokens and client secrets the protected peer issues (the flow, a refresh
/// and a token leaked into a URL on purpose) are in no file a client run writes, though the
/// header or URL that carried them is.
#[test]
fn a_client_run_that_logs_in_writes_no_token() {
    let dir = support::Scratch::new("client-cli-no-token");
    let path = |name: &str| dir.join(name).display().to_string();
    // Where each run's token travels: in the header, or (a fault) in the URL.
    for (name, fault, carried) in [
        ("right", None, "authorization: Bearer ‹redacted›"),
        ("leaky", Some("token-in-query"), "access_token=‹redacted›"),
    ] {
        let mut cmd = mcpspec();
        cmd.args([
            "client",
            "--select",
            "auth/basic",
            "--select",
            "auth/refresh",
        ])
        .args(["--select", "auth/pre-registered"])
        .args(["--json", &path(&format!("{name}.json"))])
        .args(["--junit", &path(&format!("{name}.xml"))])
        .args(["--markdown", &path(&format!("{name}.md"))])
        .args(["--html", &path(&format!("{name}.html"))])
        .args(["--transcripts", &path(name), "--", &reference_client()]);
        if let Some(f) = fault {
            cmd.args(["--fault", f]);
        }
        let out = cmd.assert();
        let mut written = vec![stdout(&out)];
        for entry in walk(&dir.join(name))
            .into_iter()
            .chain(["json", "xml", "md", "html"].map(|ext| dir.join(format!("{name}.{ext}"))))
        {
            written.push(std::fs::read_to_string(&entry).unwrap());
        }
        let all = written.concat();
        for secret in ["mcpspec-access-", "mcpspec-refresh-", "mcpspec-secret-"] {
            assert!(!all.contains(secret), "{name}: a `{secret}…` was written");
        }
        assert!(
            !all.contains(mcpspec_client::scenario::protection::PRE_REGISTERED_SECRET),
            "{name}: the pre-registered secret was written"
        );
        assert!(
            all.contains(carried),
            "{name}: `{carried}` is in the transcripts"
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_fault_fails_the_run_and_baselines_judge_it() {
    let dir = support::Scratch::new("client-cli-baseline");
    let run = |baseline: Option<&str>| {
        let mut cmd = mcpspec();
        cmd.args(["client", "--select", "client/hygiene"]);
        if let Some(entries) = baseline {
            let file = dir.join("baseline.yaml");
            std::fs::write(&file, entries).unwrap();
            cmd.args(["--baseline", &file.display().to_string()]);
        }
        cmd.args(["--", &reference_client(), "--fault", "reuse-ids"]);
        cmd.assert()
    };
    let failing = run(None).code(1);
    let text = stdout(&failing);
    assert!(text.contains("FAIL       unique-ids"), "{text}");
    assert!(
        text.contains("CLI-5 [MUST]"),
        "the requirement is printed: {text}"
    );
    run(Some(
        "entries:\n  - check: client/hygiene/unique-ids\n    reason: the fault\n",
    ))
    .code(0);
    // A listed check that passes is stale; an unknown id is a usage error.
    run(Some(
        "entries:\n  - check: client/hygiene/unique-ids\n    reason: the fault\n  - check: client/hygiene/jsonrpc-version\n    reason: passes\n",
    ))
    .code(1);
    run(Some("entries:\n  - check: client/nope\n    reason: x\n")).code(2);
}

#[test]
fn clients_that_hang_write_nothing_or_fail_are_fails_naming_why() {
    let marker = format!("MCPSPEC_CLIENT_CLI_MARKER={}", std::process::id());
    let (key, value) = marker.split_once('=').unwrap();
    // Only the hanging client gets the short timeout: a slow start must not pass for a hang.
    let cases = [
        (
            "hang.py",
            "1",
            "the client did not finish within 1 s (it was killed)",
        ),
        ("silent.py", "30", "the client sent nothing to the peer"),
        (
            "exit_one.py",
            "30",
            "the client exited with status 1 (stderr: exit_one: failing on purpose)",
        ),
    ];
    for (script, timeout, why) in cases {
        let out = mcpspec()
            .env(key, value)
            .args(["client", "--select", "client/hygiene/jsonrpc-version"])
            .args(["--timeout", timeout])
            .args(["--", support::python3(), &scripted(script)])
            .assert()
            .code(1);
        let text = stdout(&out);
        assert!(text.contains(why), "{script}: {text}");
    }
    // The hanging client and the child it started are gone: its process group was killed.
    assert_eq!(support::processes_with_env(&marker), Vec::<u32>::new());
}

#[test]
fn usage_errors_exit_2_and_a_client_that_cannot_start_exits_3() {
    mcpspec().args(["client"]).assert().code(2);
    mcpspec()
        .args([
            "client",
            "--select",
            "client/nothing-like-this",
            "--",
            "true",
        ])
        .assert()
        .code(2);
    mcpspec()
        .args(["client", "replay", "/nonexistent/reproducer.json"])
        .assert()
        .code(2);
    // A client that cannot be started is the target failing: exit 3, saying why.
    let out = mcpspec()
        .args([
            "client",
            "--select",
            "tools_call",
            "--",
            "/nonexistent/client",
        ])
        .assert()
        .code(3);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("the client could not be started"), "{err}");
}

#[test]
fn a_client_written_for_the_official_suite_runs_unchanged() {
    let client = support::repo_root()
        .join("fixtures/clients/conformance-suite/everything.mjs")
        .display()
        .to_string();
    let mut cmd = mcpspec();
    cmd.arg("client");
    for scenario in [
        "initialize",
        "tools_call",
        "request-metadata",
        "sep-2322-client-request-state",
    ] {
        cmd.args(["--select", scenario]);
    }
    let out = cmd.args(["--", "node", &client]).assert().code(0);
    let text = stdout(&out);
    assert!(
        text.contains("4 scenario(s), 4 ended with exit status 0"),
        "{text}"
    );
    assert!(text.contains("12 checks: 12 pass"), "{text}");
}

#[test]
fn fuzz_and_replay_from_the_command_line() {
    let dir = support::Scratch::new("client-cli-fuzz");
    let reproducer = dir.join("deep.json");
    std::fs::write(
        &reproducer,
        serde_json::json!({
            "mcpspec_client_fuzz": 1,
            "breakage": {"oracle": "crash", "detail": "the client was killed by signal 11"},
            "transport": "stdio",
            "timeout_ms": 20000,
            "seed": 0,
            "command": [support::python3(), scripted("fragile.py")],
            "case": {"steps": [{"at": 0, "do": "deep", "depth": 70}]}
        })
        .to_string(),
    )
    .unwrap();
    let replayed = mcpspec()
        .args(["client", "replay", &reproducer.display().to_string()])
        .assert()
        .code(1);
    assert!(
        stdout(&replayed).contains("reproduced [crash]"),
        "{}",
        stdout(&replayed)
    );
    let fixed = mcpspec()
        .args(["client", "replay", &reproducer.display().to_string()])
        .args([
            "--",
            support::python3(),
            &scripted("fragile.py"),
            "--no-planted-bug",
        ])
        .assert()
        .code(0);
    assert!(
        stdout(&fixed).contains("not reproduced"),
        "{}",
        stdout(&fixed)
    );
    let fuzzed = mcpspec()
        .args([
            "client",
            "fuzz",
            "--transport",
            "stdio",
            "--seed",
            "3",
            "--cases",
            "5",
        ])
        .args([
            "--out",
            &dir.display().to_string(),
            "--",
            &reference_client(),
        ])
        .assert()
        .code(0);
    assert!(
        stdout(&fuzzed).contains("5 case(s)") && stdout(&fuzzed).contains("0 finding(s)"),
        "{}",
        stdout(&fuzzed)
    );
}
