//! Helpers shared by the harness's integration tests: the targets (reference server, SDK
//! fixtures, scripted servers on a port), run options, and the assertions on reports and
//! transcripts; `hostile` (the bounded runs of the real binary the hostile suite makes), `clients`
//! (runs of `mcpspec client`) and `agreement` (the SDK fixtures' schema agreement).

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)]

pub mod agreement;
pub mod clients;
pub mod hostile;

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_reference_server::Eras;
use mcp_reference_server::faults::Fault;
use mcpspec::{Check, RunOptions, RunReport, Target};
use mcpspec_harness::check::CheckOptions;
use mcpspec_harness::driver::Settings;

/// A directory of its own under the system's temp dir (`mcpspec-NAME-PID`, emptied first),
/// removed with everything in it when dropped, so a test leaves nothing behind.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mcpspec-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The environment variable that stretches every wall-clock bound the tests assert (a slack
/// added to a check's own window, a wait for a process to appear or go): a number, 1 when unset,
/// larger on a slower or busier machine. A test with paused tokio time needs none.
pub const TIME_SCALE_VAR: &str = "MCPSPEC_TEST_TIME_SCALE";

/// The factor [`TIME_SCALE_VAR`] gives (1 when unset; panics on a value that is not a positive
/// number, so a typo does not quietly shorten every bound).
pub fn time_scale() -> f64 {
    match std::env::var(TIME_SCALE_VAR) {
        Err(_) => 1.0,
        Ok(text) => match text.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && f > 0.0 => f,
            _ => panic!("{TIME_SCALE_VAR}={text:?}: expected a positive number"),
        },
    }
}

/// `d` stretched by [`time_scale`].
pub fn scaled(d: Duration) -> Duration {
    d.mul_f64(time_scale())
}

/// `seconds` stretched by [`time_scale`], as a command-line value (`--timeout`).
pub fn scaled_secs(seconds: f64) -> String {
    format!("{}", seconds * time_scale())
}

/// The Python interpreter the scripted fixtures run on: `python3` on the PATH, resolved once
/// to the real executable. On a machine where `python3` is a version manager's shim (pyenv's
/// is a bash script that starts half a dozen processes), every fixture start would pay for
/// the shim; the suite starts hundreds.
pub fn python3() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 is on the PATH");
        let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        assert!(
            out.status.success() && !path.is_empty(),
            "python3 -c 'import sys; print(sys.executable)' said nothing: {out:?}"
        );
        path
    })
}

/// `cargo test --workspace --test conformance -- ARGS`: the `cargo test` integration example's
/// test (the only one of that name), with `env` set and the example's own variables cleared.
/// `--workspace`, not `-p`: features resolve as for the suite's own build, so nothing is
/// compiled again (with `-p` the harness was, once per caller).
pub fn example_conformance(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.current_dir(repo_root())
        .args([
            "test",
            "--quiet",
            "--workspace",
            "--test",
            "conformance",
            "--",
        ])
        .args(args)
        .env_remove("EXAMPLE_SERVER_FAULTS")
        .env_remove("EXAMPLE_SERVER_FIXED");
    cmd.envs(env.iter().copied());
    cmd.output().expect("cargo runs")
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The embedded reference server with these faults.
pub fn reference_with(faults: &[&str]) -> Target {
    let mut config = mcp_reference_server::Config::default();
    for spec in faults {
        config.http.header_tool |= spec.ends_with(" --header-tool");
        let (name, eras) = parse_fault_spec(spec);
        let fault: Fault = name.parse().unwrap_or_else(|e| panic!("{e}"));
        config.faults = std::mem::take(&mut config.faults).with(fault);
        if let Some(eras) = eras {
            config.eras = eras;
        }
    }
    Target::Embedded(config)
}

/// A check's fault spec: `NAME`, `NAME --eras MODE`, `NAME --header-tool` (the HTTP
/// reference server lists its `route` tool, whose arguments are mirrored in headers),
/// `NAME --http` (the run is over streamable HTTP, for a check that runs on either transport),
/// or `NAME --auth` (over HTTP in authorization mode, with a test issuer: [`protected_reference`]).
pub fn parse_fault_spec(spec: &str) -> (&str, Option<Eras>) {
    let spec = spec
        .trim_end_matches(" --auth")
        .trim_end_matches(" --header-tool")
        .trim_end_matches(" --http");
    match spec.split_once(" --eras ") {
        None => (spec, None),
        Some((name, mode)) => (name, Some(eras(mode))),
    }
}

pub fn eras(mode: &str) -> Eras {
    match mode {
        "modern" => Eras::Modern,
        "legacy" => Eras::Legacy,
        "both" => Eras::Both,
        other => panic!("unknown eras mode {other}"),
    }
}

/// The embedded reference server serving `eras`.
pub fn reference_eras(eras: Eras) -> Target {
    Target::Embedded(mcp_reference_server::Config {
        eras,
        ..Default::default()
    })
}

/// Options the tests run with: the reference server's tools allowed, the probe profile off.
pub fn options() -> RunOptions {
    RunOptions {
        checks: CheckOptions {
            allowed_tools: vec![
                "add".into(),
                "echo".into(),
                "route".into(),
                "showcase".into(),
            ],
            probe_profile: false,
            ..CheckOptions::default()
        },
        jobs: 8,
        ..RunOptions::default()
    }
}

/// Options for runs against the Python SDK: fewer checks at once (each spawns an interpreter)
/// and a readiness window that allows for a loaded 2-core machine.
pub fn python_options() -> RunOptions {
    sdk_options()
}

/// Options for runs against any SDK fixture server (Python, TypeScript, Rust): fewer checks at
/// once (each may start a process with a runtime) and a readiness window that allows for a
/// loaded 2-core machine.
pub fn sdk_options() -> RunOptions {
    let mut o = options();
    // The fixtures' tools: `echo` and `add` in all three, and each one's structured-output
    // tool (`stats` in Python, `bmi` in TypeScript and Rust).
    o.checks.allowed_tools = ["echo", "add", "stats", "bmi"].map(String::from).to_vec();
    o.jobs = 3;
    o.settings.ready_timeout = Duration::from_secs(10);
    o
}

/// Shorter waits for runs where faults make the server silent on purpose. The quiet period
/// (how long "nothing more arrives" must hold) is longer than the default: the mutation test
/// runs some 190 reference servers at once in one process, and a fault that writes a message
/// 20 ms after a reply (`log-after-reply`) was seen to miss a 150 ms window there, a timer
/// running late, not the check.
pub fn quick_options() -> RunOptions {
    let mut o = options();
    o.settings = Settings {
        expect_timeout: Duration::from_millis(700),
        quiet: Duration::from_millis(500),
        ..Settings::default()
    };
    o
}

/// For a check that needs the probe profile (or a tool to call, which the profile gives): the
/// embedded server with the profile installed and the options saying so (`--probe-profile`);
/// for one that needs several instances, three (`--replicas 3`). Other checks and targets are
/// left as they are.
pub fn for_check(check: &Check, target: Target, mut options: RunOptions) -> (Target, RunOptions) {
    // A check of SCALE-n runs on three instances (POL-22).
    if check.needs.contains(&mcpspec::Need::Replicas) {
        options.replicas = Some(mcpspec_harness::replicas::ReplicaSpec::Copies(3));
    }
    let profile = [mcpspec::Need::ProbeProfile, mcpspec::Need::CallableTool];
    if !check.needs.iter().any(|n| profile.contains(n)) {
        return (target, options);
    }
    options.checks.probe_profile = true;
    let target = match target {
        Target::Embedded(mut config) => {
            config.probe_profile = true;
            Target::Embedded(config)
        }
        other => other,
    };
    (target, options)
}

/// Runs `check` alone against the reference server with `fault` (a fault spec, `--http` or an
/// era mode allowed), as the check's needs ask (probe profile, instances, HTTP).
pub async fn run_under_fault(check: Check, fault: &'static str) -> RunReport {
    let (target, options) = for_check(&check, reference_with(&[fault]), quick_options());
    if fault.ends_with(" --auth") {
        let Target::Embedded(config) = target else {
            panic!("{fault}: authorization mode needs the embedded reference server");
        };
        let protected = protected_reference(config).await;
        return run(protected.target.clone(), &[check], options).await;
    }
    let (target, _server) = over_http_if_needed(&check, fault, target).await;
    run(target, &[check], options).await
}

/// The reference server in authorization mode over HTTP, the test issuer it trusts (both on
/// 127.0.0.1, ended when dropped), and the target that reaches it with the issuer's tokens
/// (`--auth-issuer URL`: the run's own token is a right one it mints).
pub struct ProtectedReference {
    pub target: Target,
    pub issuer: mcpspec_harness::auth::issuer::http::IssuerHandle,
    pub server: mcp_reference_server::HttpHandle,
}

impl ProtectedReference {
    /// The server's URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The target with no credentials at all.
    pub fn bare(&self) -> Target {
        Target::url(&self.url()).expect("a valid URL")
    }
}

/// Starts a test issuer (keys made for this process only) and the reference server with
/// `config` trusting it; see [`ProtectedReference`].
pub async fn protected_reference(mut config: mcp_reference_server::Config) -> ProtectedReference {
    let keys = mcpspec_harness::auth::issuer::Keys::ephemeral().expect("keys");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let issuer = mcpspec_harness::auth::issuer::http::spawn(std::sync::Arc::new(keys), listener)
        .expect("the issuer starts");
    config.http.auth = Some(mcp_reference_server::config::AuthOptions {
        issuer: issuer.url().to_owned(),
        resource: None,
    });
    let (target, server) = http_reference(config).await;
    let auth = mcpspec_harness::auth::AuthArgs {
        auth_issuer: Some(issuer.url().to_owned()),
        ..Default::default()
    };
    let credentials = auth
        .credentials(&server.url())
        .expect("credentials")
        .map(mcpspec_harness::auth::Credentials::into_shared);
    ProtectedReference {
        target: target.with_credentials(credentials),
        issuer,
        server,
    }
}

/// Serves an embedded target over HTTP (127.0.0.1, a free port) when `check` needs an HTTP
/// target or its fault spec says `--http`; the handle keeps the server alive and stops it when
/// dropped.
pub async fn over_http_if_needed(
    check: &Check,
    spec: &str,
    target: Target,
) -> (Target, Option<mcp_reference_server::HttpHandle>) {
    let http = check.needs.contains(&mcpspec::Need::Http)
        || spec.ends_with(" --http")
        || spec.contains(" --http ");
    match target {
        Target::Embedded(config) if http => {
            let (target, handle) = http_reference(config).await;
            (target, Some(handle))
        }
        other => (other, None),
    }
}

/// The reference server with `config`, over HTTP on 127.0.0.1 and a free port.
pub async fn http_reference(
    config: mcp_reference_server::Config,
) -> (Target, mcp_reference_server::HttpHandle) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let handle =
        mcp_reference_server::spawn_http(config, listener).expect("the HTTP server starts");
    (Target::url(&handle.url()).expect("a valid URL"), handle)
}

pub async fn run(target: Target, checks: &[Check], options: RunOptions) -> RunReport {
    mcpspec::run(target, checks, options)
        .await
        .expect("the target starts")
}

/// The Python venv's interpreter; panics (not skips) with the command that creates it.
pub fn venv_python() -> PathBuf {
    let venv = std::env::var_os("MCPSPEC_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv"));
    let python = venv.join("bin").join("python");
    assert!(
        python.exists(),
        "the Python SDK venv is missing at {}: create it with `bash scripts/python-venv.sh`",
        venv.display()
    );
    python
}

/// The Python SDK fixture server as a stdio target.
pub fn python_server(extra: &[&str]) -> Target {
    let script = repo_root().join("fixtures/servers/python/server.py");
    Target::command(venv_python().display().to_string())
        .arg(script.display().to_string())
        .args(extra.iter().map(|s| s.to_string()))
}

/// The TypeScript SDK fixture's folder (`fixtures/servers/typescript`).
pub fn typescript_dir() -> PathBuf {
    repo_root().join("fixtures/servers/typescript")
}

/// `node`, once the TypeScript fixture's node_modules are installed; panics (not skips) with the
/// command that installs them (and node, when it is missing).
pub fn node() -> PathBuf {
    node_for(
        &typescript_dir(),
        "@modelcontextprotocol/sdk",
        "scripts/typescript-deps.sh",
    )
}

/// `node`, once the Node fixture in `dir` has its node_modules (with `package` in them) from
/// `script`; panics (not skips) naming that script (and node, when it is missing).
fn node_for(dir: &Path, package: &str, script: &str) -> PathBuf {
    let fix = format!("install them with `bash {script}`");
    let modules = dir.join("node_modules");
    assert!(
        modules.join(".mcpspec-package-lock.sha256").exists()
            && modules.join(package).join("package.json").exists(),
        "the Node fixture's node_modules are missing at {}: {fix}",
        modules.display()
    );
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|node| node.is_file())
        .unwrap_or_else(|| panic!("`node` is not on PATH: {fix}"))
}

/// The TypeScript SDK fixture server (`node server.mjs`) as a stdio target.
pub fn typescript_server(extra: &[&str]) -> Target {
    Target::command(node().display().to_string())
        .arg(typescript_dir().join("server.mjs").display().to_string())
        .args(extra.iter().map(|s| s.to_string()))
}

/// The TypeScript SDK v2 fixture's folder (`fixtures/servers/typescript-v2`).
pub fn typescript_v2_dir() -> PathBuf {
    repo_root().join("fixtures/servers/typescript-v2")
}

/// The TypeScript SDK v2 fixture server (`node server.mjs`) as a stdio target; panics (not
/// skips) with the command that installs its node_modules (and node, when it is missing).
pub fn typescript_v2_server(extra: &[&str]) -> Target {
    let node = node_for(
        &typescript_v2_dir(),
        "@modelcontextprotocol/server",
        "scripts/typescript-v2-deps.sh",
    );
    Target::command(node.display().to_string())
        .arg(typescript_v2_dir().join("server.mjs").display().to_string())
        .args(extra.iter().map(|s| s.to_string()))
}

/// Run-specific text in a Node fixture's verdicts, for snapshots: the server's port, session
/// ids, and the repository's absolute path (Node error texts quote it).
pub fn node_filters() -> Vec<(String, &'static str)> {
    let root = repo_root();
    let root = root.canonicalize().unwrap_or(root).display().to_string();
    let escaped: String = root
        .chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect();
    vec![
        (r"127\.0\.0\.1:\d+".into(), "127.0.0.1:[port]"),
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}".into(),
            "[uuid]",
        ),
        (escaped, "[repo]"),
    ]
}

/// The Rust SDK fixture's binary; panics (not skips) with the command that builds it.
pub fn rust_sdk_binary() -> PathBuf {
    let bin = repo_root().join("target/sdk-fixtures/debug/rust-sdk-fixture");
    assert!(
        bin.exists(),
        "the Rust SDK fixture server is missing at {}: build it with \
         `bash scripts/rust-sdk-fixture.sh`",
        bin.display()
    );
    bin
}

/// The Rust SDK fixture server as a stdio target.
pub fn rust_sdk_server(extra: &[&str]) -> Target {
    Target::command(rust_sdk_binary().display().to_string())
        .args(extra.iter().map(|s| s.to_string()))
}

/// A fixture server serving streamable HTTP on 127.0.0.1 (`PROGRAM ARGS… --http PORT`),
/// killed when dropped.
#[derive(Debug)]
pub struct HttpFixture {
    child: std::process::Child,
    pub url: String,
}

impl HttpFixture {
    /// Starts `program args… --http PORT` on a free loopback port and waits (at most 20 s) until
    /// the port accepts connections. A server that exits first (a port taken between probing
    /// and binding) is started again on another port, up to three times.
    pub fn start(program: &std::path::Path, args: &[&str]) -> Self {
        let mut last_exit = None;
        for _ in 0..3 {
            // A free port: bind 0, read it, release it for the server.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("bind 127.0.0.1:0")
                .port();
            let child = std::process::Command::new(program)
                .args(args)
                .args(["--http", &port.to_string()])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{} does not start: {e}", program.display()));
            let mut server = HttpFixture {
                child,
                url: format!("http://127.0.0.1:{port}/mcp"),
            };
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            loop {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return server;
                }
                if let Ok(Some(status)) = server.child.try_wait() {
                    last_exit = Some(status);
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "{} did not listen on 127.0.0.1:{port} within 20 s",
                    program.display()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        panic!(
            "{} --http exited before listening, three times (last: {last_exit:?})",
            program.display()
        );
    }

    /// Starts `program args…`, a server that picks its own port and prints it as the first
    /// line of its stdout ([`spawn_announcing_port`]).
    pub fn announced(program: &str, args: &[&str]) -> Self {
        let mut command = std::process::Command::new(program);
        command.args(args);
        let (child, port) = spawn_announcing_port(command, program);
        HttpFixture {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    pub fn target(&self) -> Target {
        Target::url(&self.url).expect("a valid URL")
    }
}

/// Spawns `command` (stdin and stderr closed) and reads its first stdout line, at most 20 s,
/// as the port it listens on; kills it and panics, naming `what`, when no port comes.
pub fn spawn_announcing_port(
    mut command: std::process::Command,
    what: &str,
) -> (std::process::Child, u16) {
    use std::io::BufRead;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(20));
    match line.as_deref().ok().and_then(|l| l.trim().parse().ok()) {
        Some(port) => (child, port),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} printed no port within 20 s: {line:?}");
        }
    }
}

/// The outcome of the one check `id` against `target`, with the default options.
pub async fn outcome_of(target: Target, id: &str) -> mcpspec::Outcome {
    let check = mcpspec_harness::catalogue::by_id(id).unwrap_or_else(|| panic!("no check {id}"));
    let report = run(target, &[check], options()).await;
    report.results[0].outcome.clone()
}

/// The run options for checks that need the probe profile.
pub fn probe_options() -> RunOptions {
    let mut options = options();
    options.checks.probe_profile = true;
    options
}

/// The embedded reference server with its probe profile on.
pub fn probe_reference() -> Target {
    Target::Embedded(mcp_reference_server::Config {
        probe_profile: true,
        ..Default::default()
    })
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Asserts two runs of the same server gave the same outcome for every check: a flaky verdict
/// fails the test, naming the check and both verdicts.
pub fn assert_same_outcomes(first: &RunReport, second: &RunReport, what: &str) {
    assert_eq!(
        first.results.len(),
        second.results.len(),
        "{what}: the two runs ran different numbers of checks"
    );
    let flaky: Vec<String> = first
        .results
        .iter()
        .zip(&second.results)
        .filter(|(a, b)| a.id != b.id || a.outcome.kind != b.outcome.kind)
        .map(|(a, b)| {
            format!(
                "{}: first run {}: {} | second run {}: {}",
                a.id, a.outcome.kind, a.outcome.message, b.outcome.kind, b.outcome.message
            )
        })
        .collect();
    assert!(
        flaky.is_empty(),
        "{what}: verdicts changed between two runs of the same server:\n{}",
        flaky.join("\n")
    );
}

/// A transcript in snapshot form: volatile fields redacted by shape, and the arrival order
/// within one burst of replies normalised (STDIO-8 allows any order).
pub fn snapshot_form(entries: &[mcpspec_core::transcript::Entry]) -> serde_json::Value {
    let mut values: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| serde_json::to_value(e).expect("entries serialize"))
        .collect();
    for v in &mut values {
        // The time offset differs between runs.
        if let Some(entry) = v.as_object_mut() {
            entry.shift_remove("at_ms");
        }
        redact(v);
    }
    let mut i = 0;
    while i < values.len() {
        let mut j = i;
        while j < values.len()
            && values[j]["event"] == "recv"
            && values[j]["conn"] == values[i]["conn"]
        {
            j += 1;
        }
        if j > i + 1 {
            values[i..j].sort_by_key(|v| v["message"].to_string());
        }
        i = j.max(i + 1);
    }
    for (n, v) in values.iter_mut().enumerate() {
        v["seq"] = serde_json::json!(n + 1);
    }
    serde_json::Value::Array(values)
}

fn redact(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if (k == "serverInfo" || k == "io.modelcontextprotocol/serverInfo")
                    && child.is_object()
                {
                    if let Some(ver) = child.get_mut("version") {
                        *ver = serde_json::json!("[version]");
                    }
                }
                if k == "version"
                    && child
                        .as_str()
                        .is_some_and(|s| s.starts_with(env!("CARGO_PKG_VERSION")))
                {
                    *child = serde_json::json!("[version]");
                }
                redact(child);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// The `mcp-reference-server` binary next to this test's executable (cargo builds every bin of
/// the workspace for `cargo test --workspace`).
pub fn reference_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its path");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>/deps");
    let bin = dir.join("mcp-reference-server");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p mcp-reference-server`",
        bin.display()
    );
    bin
}

/// Each check's verdict as one line, for snapshots: `id: "KIND: message"`.
pub fn verdicts(report: &RunReport) -> serde_json::Value {
    report
        .results
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                serde_json::json!(format!("{}: {}", r.outcome.kind, r.outcome.full_message())),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Applies a baseline from `fixtures/baselines/`, snapshots the verdicts as
/// `snapshots/python-sdk/<name>.snap` (`filters`: regex → replacement, for volatile text) and
/// asserts the run is green: every Fail baselined with a reason, no stale entry.
pub fn assert_verdicts_against_baseline(
    report: &mut RunReport,
    baseline: &str,
    name: &str,
    filters: &[(&str, &str)],
) {
    assert_verdicts_against_baseline_in("python-sdk", report, baseline, name, filters);
}

/// [`assert_verdicts_against_baseline`] with the snapshot in `snapshots/<dir>/<name>.snap`.
pub fn assert_verdicts_against_baseline_in(
    dir: &str,
    report: &mut RunReport,
    baseline: &str,
    name: &str,
    filters: &[(&str, &str)],
) {
    let path = repo_root().join("fixtures/baselines").join(baseline);
    mcpspec_harness::baseline::Baseline::load(&path)
        .expect("the baseline loads")
        .apply(report);
    assert_verdicts_in(dir, report, name, filters);
}

/// As [`assert_verdicts_against_baseline_in`], for a target with no known failure (no
/// baseline): every verdict must pass or be allowed (NonStrict, Info, Skipped).
pub fn assert_verdicts_in(dir: &str, report: &RunReport, name: &str, filters: &[(&str, &str)]) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("snapshots").join(dir));
    settings.set_prepend_module_to_snapshot(false);
    for (pattern, replacement) in filters {
        settings.add_filter(pattern, *replacement);
    }
    settings.bind(|| insta::assert_yaml_snapshot!(name, verdicts(report)));
    // Every verdict that is not a pass quotes what it judged (a skip judged nothing; a check
    // that could not start its server has nothing to quote).
    let unquoted: Vec<String> = report
        .results
        .iter()
        .filter(|r| r.outcome.is_violation() && r.outcome.evidence.is_none())
        .map(|r| format!("{}: {}", r.id, r.outcome.message))
        .collect();
    assert!(
        unquoted.is_empty(),
        "verdicts without evidence:\n{}",
        unquoted.join("\n")
    );
    assert!(
        report.passed(),
        "unexpected failures or stale baseline entries:\n{}",
        report.to_console(false)
    );
}

/// Asserts every check of `report` passed.
pub fn assert_all_pass(report: &RunReport, what: &str) {
    let not_passing: Vec<String> = report
        .results
        .iter()
        .filter(|r| r.outcome.kind != mcpspec::Kind::Pass)
        .map(|r| format!("{}: {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect();
    assert!(
        not_passing.is_empty(),
        "not passing on {what}:\n{}",
        not_passing.join("\n")
    );
}

/// Snapshots each non-skipped check's transcript under `snapshots/<dir>/<id>.snap`, after
/// asserting two runs gave the same transcript; `redact` removes run-specific values first.
pub fn assert_transcripts(
    dir: &str,
    first: &RunReport,
    second: &RunReport,
    redact: fn(&mut serde_json::Value),
) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("snapshots").join(dir));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_sort_maps(true);
    settings.bind(|| {
        for (a, b) in first.results.iter().zip(&second.results) {
            if a.outcome.kind == mcpspec::Kind::Skipped {
                continue;
            }
            let (mut ta, mut tb) = (snapshot_form(&a.transcript), snapshot_form(&b.transcript));
            redact(&mut ta);
            redact(&mut tb);
            assert_eq!(ta, tb, "{}: two runs gave different transcripts", a.id);
            insta::assert_yaml_snapshot!(a.id.replace('/', "__"), ta);
        }
    });
}

/// Asserts every check of `report` was skipped with a reason, containing `reason` if given.
pub fn assert_all_skipped(report: &RunReport, reason: Option<&str>) {
    for r in &report.results {
        assert_eq!(
            r.outcome.kind,
            mcpspec::Kind::Skipped,
            "{}: {}",
            r.id,
            r.outcome.message
        );
        assert!(
            !r.outcome.message.is_empty(),
            "{}: a skip without a reason",
            r.id
        );
        if let Some(reason) = reason {
            assert!(
                r.outcome.message.contains(reason),
                "{}: {}",
                r.id,
                r.outcome.message
            );
        }
    }
}

/// Pids of live processes (not zombies) whose environment holds `entry` (a marker a test puts
/// in every server it starts, to find survivors).
pub fn processes_with_env(entry: &str) -> Vec<u32> {
    live_processes_whose("environ", entry)
}

/// Pids of live processes (not zombies) with `arg` as one of their command-line arguments.
pub fn processes_with_arg(arg: &str) -> Vec<u32> {
    live_processes_whose("cmdline", arg)
}

/// Live processes whose NUL-separated `/proc/PID/{file}` holds `item` as one of its entries.
fn live_processes_whose(file: &str, item: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let entries = std::fs::read(format!("/proc/{pid}/{file}")).unwrap_or_default();
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z'))
            });
            !zombie && entries.split(|b| *b == 0).any(|v| v == item.as_bytes())
        })
        .collect()
}

/// Sends SIGINT (Ctrl-C) to `child` and waits up to `within` for it to exit; kills it and
/// panics, naming `what`, if it does not.
pub fn interrupt_and_wait(
    child: &mut std::process::Child,
    within: Duration,
    what: &str,
) -> std::process::ExitStatus {
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not end within {within:?} of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The outcome of check `id` in `report`; panics naming it when it did not run.
pub fn outcome<'a>(report: &'a RunReport, id: &str) -> &'a mcpspec::Outcome {
    &report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} did not run"))
        .outcome
}

/// Every verdict of `report`, one line each, for an assertion's message.
pub fn summary(report: &RunReport) -> String {
    report
        .results
        .iter()
        .map(|r| format!("{} {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect::<Vec<_>>()
        .join("\n")
}
