//! Protected servers (AUTH-1..9): the `auth/*` checks against the reference server in
//! authorization mode (every one passes), on an open server (every one skips, saying so),
//! without the test issuer or any token (what needs tokens skips, the rest still judge), against
//! the scripted bad input of `fixtures/scripted/auth_defects.py` (a verdict naming it, in
//! bounded time); credentials on the whole catalogue (`mcpspec run --bearer`, the real
//! binaries: no 401 outside `auth/*`, the token in no file mcpspec writes), a `--bearer-command`
//! run again after 401 `invalid_token`, and the `cargo test` builder's credentials.

use crate::support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcpspec::{Check, Kind, RunReport, Target};
use mcpspec_harness::auth::issuer::{KeyChoice, TokenSpec};
use mcpspec_harness::auth::{AuthArgs, Credentials};
use mcpspec_harness::catalogue;

fn auth_checks() -> Vec<Check> {
    catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("auth/"))
        .collect()
}

fn verdict<'a>(report: &'a RunReport, id: &str) -> &'a mcpspec::Outcome {
    &report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no result for {id}"))
        .outcome
}

fn listing(report: &RunReport) -> String {
    report
        .results
        .iter()
        .map(|r| format!("{}: {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The checks that need the test issuer's tokens.
const NEED_ISSUER: &[&str] = &[
    "auth/token/expired-rejected",
    "auth/token/wrong-issuer-rejected",
    "auth/token/unknown-key-rejected",
    "auth/token/wrong-audience-rejected",
    "auth/scope/insufficient-403",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_auth_check_passes_on_the_protected_reference_server() {
    let protected = support::protected_reference(mcp_reference_server::Config::default()).await;
    let report = support::run(protected.target.clone(), &auth_checks(), support::options()).await;
    support::assert_all_pass(&report, "the protected reference server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_auth_check_skips_on_an_open_server() {
    let (open, _server) = support::http_reference(mcp_reference_server::Config::default()).await;
    // A token sent to a server that asks for none changes nothing.
    let with_token = open.clone().with_credentials(
        Credentials::bearer(&open.describe(), "unneeded-token-123")
            .ok()
            .map(Credentials::into_shared),
    );
    for target in [open, with_token] {
        let report = support::run(target, &auth_checks(), support::options()).await;
        support::assert_all_skipped(&report, Some("the server is open (no 401 without a token)"));
    }
    let stdio = support::run(Target::embedded(), &auth_checks(), support::options()).await;
    support::assert_all_skipped(&stdio, Some("not an HTTP target"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_issuer_the_token_checks_skip_and_the_others_judge() {
    let protected = support::protected_reference(mcp_reference_server::Config::default()).await;
    let token = protected
        .issuer
        .issuer
        .mint(&TokenSpec::right(&protected.url(), "mcp:read mcp:tools"))
        .unwrap();
    let bearer = protected.bare().with_credentials(
        Credentials::bearer(&protected.url(), &token)
            .ok()
            .map(Credentials::into_shared),
    );
    let report = support::run(bearer, &auth_checks(), support::options()).await;
    for r in &report.results {
        if NEED_ISSUER.contains(&r.id.as_str()) {
            assert_eq!(
                r.outcome.kind,
                Kind::Skipped,
                "{}: {}",
                r.id,
                r.outcome.message
            );
            assert!(
                r.outcome.message.contains("needs --auth-issuer"),
                "{}",
                r.id
            );
        } else {
            assert_eq!(r.outcome.kind, Kind::Pass, "{}", listing(&report));
        }
    }
    // No token at all: what needs one skips, naming what to give.
    let report = support::run(protected.bare(), &auth_checks(), support::options()).await;
    for id in [
        "auth/challenge/bearer",
        "auth/challenge/resource-metadata",
        "auth/challenge/scope",
        "auth/metadata/discovery",
        "auth/metadata/resource",
        "auth/metadata/authorization-servers",
        "auth/token/garbage-rejected",
        "auth/token/malformed-header",
    ] {
        assert_eq!(
            verdict(&report, id).kind,
            Kind::Pass,
            "{}",
            listing(&report)
        );
    }
    assert!(
        verdict(&report, "auth/token/served")
            .message
            .contains("the run has no token")
    );
    assert!(
        verdict(&report, "auth/token/query-string-rejected")
            .message
            .contains("needs a valid token")
    );
    // Its probe got 401, so the era is unknown: the modern-only check says so.
    let offline = verdict(&report, "auth/offline-access/not-advertised");
    assert_eq!(offline.kind, Kind::Skipped);
    assert!(
        offline
            .message
            .contains("without a token mcpspec cannot tell"),
        "{}",
        offline.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_trust_the_issuer_makes_the_token_checks_skip_not_pass() {
    // The server trusts one issuer; the run's tokens come from another (a second test issuer).
    let protected = support::protected_reference(mcp_reference_server::Config::default()).await;
    let stranger = support::protected_reference(mcp_reference_server::Config::default()).await;
    let target = protected.bare().with_credentials(
        AuthArgs {
            auth_issuer: Some(stranger.issuer.url().to_owned()),
            ..AuthArgs::default()
        }
        .credentials(&protected.url())
        .unwrap()
        .map(Credentials::into_shared),
    );
    let checks: Vec<Check> = NEED_ISSUER
        .iter()
        .map(|id| catalogue::by_id(id).unwrap())
        .collect();
    let report = support::run(target, &checks, support::options()).await;
    for r in &report.results {
        assert_eq!(r.outcome.kind, Kind::Skipped, "{}", listing(&report));
        assert!(
            r.outcome.message.contains("proves nothing")
                || r.outcome.message.contains("prove nothing"),
            "{}: {}",
            r.id,
            r.outcome.message
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_command_runs_again_when_the_server_says_invalid_token() {
    let protected = support::protected_reference(mcp_reference_server::Config::default()).await;
    let dir = support::Scratch::new("auth-bearer-command");
    let mint = |spec: TokenSpec| protected.issuer.issuer.mint(&spec).unwrap();
    let right = TokenSpec::right(&protected.url(), "mcp:read mcp:tools");
    std::fs::write(
        dir.join("expired"),
        mint(TokenSpec {
            expires_in: -3600,
            ..right.clone()
        }),
    )
    .unwrap();
    std::fs::write(dir.join("right"), mint(right)).unwrap();
    // The first run prints the expired token, every later one the right token.
    let command = format!(
        "cd {d} && echo run >> runs && if [ -e used ]; then cat right; else touch used; cat expired; fi",
        d = dir.display()
    );
    let target = protected.bare().with_credentials(
        AuthArgs {
            bearer_command: Some(command),
            ..AuthArgs::default()
        }
        .credentials(&protected.url())
        .unwrap()
        .map(Credentials::into_shared),
    );
    let check = catalogue::by_id("auth/token/served").unwrap();
    let report = support::run(target, &[check], support::options()).await;
    assert_eq!(
        report.results[0].outcome.kind,
        Kind::Pass,
        "{}",
        listing(&report)
    );
    let runs = std::fs::read_to_string(dir.join("runs")).unwrap();
    assert_eq!(runs.lines().count(), 2, "the command ran {runs:?}");
}

/// Each bad input of `auth_defects.py`: (defect, the check that names it, its verdict, words
/// the verdict says).
const BAD_INPUT: &[(&str, &str, Kind, &str)] = &[
    (
        "metadata-html",
        "auth/metadata/discovery",
        Kind::Fail,
        "not JSON (text/html): <!doctype html>",
    ),
    (
        "metadata-huge",
        "auth/metadata/discovery",
        Kind::Fail,
        "a body over 256 KiB (not read further)",
    ),
    (
        "metadata-redirect-loop",
        "auth/metadata/discovery",
        Kind::Fail,
        "a redirect loop (",
    ),
    (
        "challenge-unbalanced-quotes",
        "auth/challenge/bearer",
        Kind::Fail,
        "cannot be read: cannot read the challenge at byte 38: unbalanced `\"`",
    ),
    (
        "metadata-url-elsewhere",
        "auth/metadata/discovery",
        Kind::Info,
        "not fetched: its host `auth.example.com` is not on loopback",
    ),
    (
        "authorization-server-elsewhere",
        "auth/metadata/authorization-servers",
        Kind::Info,
        "not fetched: its host `auth.example.com` is not on loopback",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_verdict_naming_it_in_bounded_time() {
    let script = support::repo_root().join("fixtures/scripted/auth_defects.py");
    let script = script.display().to_string();
    // Without a defect, every check that can run without the issuer passes.
    let server = support::HttpFixture::announced(support::python3(), &[&script]);
    let report = support::run(scripted(&server), &auth_checks(), support::options()).await;
    for r in &report.results {
        let expected = if NEED_ISSUER.contains(&r.id.as_str()) {
            Kind::Skipped
        } else {
            Kind::Pass
        };
        assert_eq!(r.outcome.kind, expected, "{}", listing(&report));
    }
    for (defect, id, kind, words) in BAD_INPUT {
        let server =
            support::HttpFixture::announced(support::python3(), &[&script, "--defect", defect]);
        let started = Instant::now();
        let report = support::run(scripted(&server), &auth_checks(), support::options()).await;
        let took = started.elapsed();
        let outcome = verdict(&report, id);
        assert_eq!(outcome.kind, *kind, "{defect}: {id}: {}", outcome.message);
        assert!(
            outcome.message.contains(words),
            "{defect}: {id}: {}",
            outcome.message
        );
        assert!(
            took < Duration::from_secs(30),
            "{defect}: the run took {took:?}"
        );
        assert!(
            !report
                .results
                .iter()
                .any(|r| r.outcome.message.contains("panicked")),
            "{defect}: {}",
            listing(&report)
        );
    }
}

fn scripted(server: &support::HttpFixture) -> Target {
    server.target().with_credentials(
        Credentials::bearer(&server.url, "scripted-good-token")
            .ok()
            .map(Credentials::into_shared),
    )
}

// --- the real binaries -------------------------------------------------------------------------

/// A child process killed (and waited for) when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command` and returns it with the first line of its `stdout` or `stderr` (`from`)
/// that holds `marker` (within 20 s).
fn start_reading(mut command: Command, from_stderr: bool, marker: &str) -> (Killed, String) {
    command.stdin(Stdio::null());
    if from_stderr {
        command.stderr(Stdio::piped()).stdout(Stdio::null());
    } else {
        command.stdout(Stdio::piped()).stderr(Stdio::null());
    }
    let mut child = command.spawn().expect("the process starts");
    let stream: Box<dyn Read + Send> = if from_stderr {
        Box::new(child.stderr.take().unwrap())
    } else {
        Box::new(child.stdout.take().unwrap())
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let marker = marker.to_owned();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            if line.contains(&marker) {
                let _ = tx.send(line);
            }
        }
    });
    let child = Killed(child);
    let line = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the process announced itself");
    (child, line)
}

/// A right token from the issuer's token endpoint (client credentials, RFC 8707 resource).
fn token_from(issuer: &str, resource: &str) -> String {
    let authority = issuer.strip_prefix("http://").unwrap();
    let body = format!(
        "grant_type=client_credentials&resource={}&scope=mcp%3Aread+mcp%3Atools",
        resource.replace(':', "%3A").replace('/', "%2F")
    );
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /token HTTP/1.1\r\nHost: {authority}\r\nContent-Type: \
         application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let json = answer.split("\r\n\r\n").nth(1).unwrap();
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["access_token"].as_str().unwrap().to_owned()
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn mcpspec_run_with_a_bearer_token_runs_the_catalogue_and_writes_the_token_nowhere() {
    let scratch = support::Scratch::new("auth-run");
    let keys = scratch.join("keys");
    let mut issuer = Command::new(assert_cmd::cargo::cargo_bin("mcpspec"));
    issuer
        .args(["auth", "issuer", "--keys"])
        .arg(&keys)
        .args(["--port", "0"]);
    let (_issuer, issuer_url) = start_reading(issuer, false, "http://127.0.0.1:");
    let mut server = Command::new(support::reference_binary());
    server.args(["--http", "127.0.0.1:0", "--auth-issuer", &issuer_url]);
    let (_server, listening) = start_reading(server, true, "listening on ");
    let url = listening
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    let token = token_from(&issuer_url, &url);
    let header_secret = "x-test-header-secret-42";
    let out = scratch.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let run = Command::new(assert_cmd::cargo::cargo_bin("mcpspec"))
        .args(["run", "--url", &url, "--bearer", &token])
        .args(["--header", &format!("X-Mcpspec-Test: {header_secret}")])
        .args(["--allow-tool", "echo", "--allow-tool", "add"])
        .arg("--json")
        .arg(out.join("report.json"))
        .arg("--junit")
        .arg(out.join("junit.xml"))
        .arg("--markdown")
        .arg(out.join("summary.md"))
        .arg("--html")
        .arg(out.join("report.html"))
        .arg("--transcripts")
        .arg(out.join("transcripts"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    // The catalogue ran as on an open server: no 401 in any transcript outside auth/*.
    let written = files(&out);
    assert!(written.len() > 100, "{} files", written.len());
    let mut redacted = 0;
    for file in &written {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
        for secret in [token.as_str(), header_secret] {
            assert!(!text.contains(secret), "{} holds a secret", file.display());
        }
        let name = file.file_name().unwrap().to_string_lossy();
        if name.ends_with(".yaml") && !name.starts_with("auth__") {
            assert!(
                !text.contains("HTTP 401") && !text.contains("status: 401"),
                "{name}"
            );
        }
        redacted += text.matches("Bearer ‹redacted›").count();
    }
    assert!(redacted > 0, "no transcript shows the redacted header");
    for text in [&stdout, &stderr] {
        assert!(!text.contains(&token) && !text.contains(header_secret));
    }
    assert!(stdout.contains("auth/token"), "{stdout}");
    // Without a token the run says how to give one.
    let tokenless = Command::new(assert_cmd::cargo::cargo_bin("mcpspec"))
        .args(["run", "--url", &url, "--select", "auth/challenge/"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&tokenless.stderr);
    assert!(
        said.contains("the server answers 401 without a token"),
        "{said}"
    );
    // `--auth-issuer DIR`: the keys directory, minting here, as the issuer it recorded.
    let by_dir = Command::new(assert_cmd::cargo::cargo_bin("mcpspec"))
        .args(["run", "--url", &url, "--select", "auth/", "--auth-issuer"])
        .arg(&keys)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&by_dir.stdout);
    assert_eq!(by_dir.status.code(), Some(0), "{text}");
    assert!(text.contains("16 checks: 16 pass"), "{text}");
}

#[test]
fn the_cargo_test_builder_takes_credentials() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let protected = runtime.block_on(support::protected_reference(
        mcp_reference_server::Config::default(),
    ));
    let token = protected
        .issuer
        .issuer
        .mint(&TokenSpec::right(&protected.url(), "mcp:read mcp:tools"))
        .unwrap();
    // The suites' own output goes to a log, not into this test's.
    let scratch = support::Scratch::new("auth-cargo-test");
    let log = scratch.join("suite.log").display().to_string();
    let args = |id: &str| {
        vec![
            "conformance".to_owned(),
            "--logfile".into(),
            log.clone(),
            "--exact".into(),
            id.into(),
        ]
    };
    let served = mcpspec::testing::Suite::new(protected.bare())
        .bearer(token)
        .run_with_args(args("auth/token/served"));
    assert_eq!((served.num_passed, served.num_failed), (1, 0));
    let issuer = mcpspec::testing::Suite::new(protected.bare())
        .auth_issuer(protected.issuer.url())
        .run_with_args(args("auth/token/wrong-audience-rejected"));
    assert_eq!((issuer.num_passed, issuer.num_failed), (1, 0));
    let unset = mcpspec::testing::Suite::new(protected.bare())
        .bearer_env("MCPSPEC_SURELY_UNSET_TOKEN_VARIABLE")
        .run_with_args(vec![
            "conformance".to_owned(),
            "--logfile".into(),
            log.clone(),
        ]);
    assert_eq!((unset.num_passed, unset.num_failed), (0, 1));
    // Unknown key: a token the issuer never published is not served with the builder either.
    let unknown = protected
        .issuer
        .issuer
        .mint(&TokenSpec {
            key: KeyChoice::Unknown,
            ..TokenSpec::right(&protected.url(), "mcp:read")
        })
        .unwrap();
    let refused = mcpspec::testing::Suite::new(protected.bare())
        .bearer(unknown)
        .run_with_args(args("auth/token/served"));
    assert_eq!((refused.num_passed, refused.num_failed), (0, 1));
    drop(protected);
    drop(runtime);
}
