//! What the `mcpspec client` tests share: the clients under test (the reference client with
//! faults, the SDK fixture clients), a run of the client checks against one, and the judgement
//! of a run against a baseline with its verdicts and stdio transcripts snapshotted. Included by
//! the `client_*` tests beside `support/mod.rs` (`#[path = "support/clients.rs"] mod clients;`).

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use mcpspec::RunReport;
use mcpspec_client::checks::ClientCheck;
use mcpspec_client::{ClientOptions, Transport};

use crate::support::repo_root;

/// The reference client with `faults` on.
pub fn reference_client(faults: &[&str]) -> Vec<String> {
    let mut command = vec![env!("CARGO_BIN_EXE_mcpspec-reference-client").to_owned()];
    for f in faults {
        command.push("--fault".into());
        command.push((*f).to_owned());
    }
    command
}

/// The Python SDK fixture client.
pub fn python_client() -> Vec<String> {
    vec![
        crate::support::venv_python().display().to_string(),
        repo_root()
            .join("fixtures/clients/python/client.py")
            .display()
            .to_string(),
    ]
}

/// The TypeScript SDK fixture client's folder.
pub fn typescript_client_dir() -> PathBuf {
    repo_root().join("fixtures/clients/typescript")
}

/// The TypeScript SDK fixture client (`node client.mjs`); panics (not skips) with the command
/// that installs its node_modules.
pub fn typescript_client() -> Vec<String> {
    let modules = typescript_client_dir().join("node_modules");
    assert!(
        modules.join(".mcpspec-package-lock.sha256").exists(),
        "the TypeScript client fixture's node_modules are missing at {}: install them with \
         `bash scripts/typescript-client-deps.sh`",
        modules.display()
    );
    let path = std::env::var_os("PATH").unwrap_or_default();
    let node = std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|node| node.is_file())
        .expect("`node` is on PATH (bash scripts/typescript-client-deps.sh installs it)");
    vec![
        node.display().to_string(),
        typescript_client_dir()
            .join("client.mjs")
            .display()
            .to_string(),
    ]
}

/// The Python SDK OAuth fixture client (`fixtures/clients/python/oauth_client.py`).
pub fn python_oauth_client() -> Vec<String> {
    vec![
        crate::support::venv_python().display().to_string(),
        repo_root()
            .join("fixtures/clients/python/oauth_client.py")
            .display()
            .to_string(),
    ]
}

/// The TypeScript SDK OAuth fixture client (`node oauth_client.mjs`); like
/// [`typescript_client`], panics (not skips) when its node_modules are missing.
pub fn typescript_oauth_client() -> Vec<String> {
    let mut command = typescript_client();
    command[1] = typescript_client_dir()
        .join("oauth_client.mjs")
        .display()
        .to_string();
    command
}

/// Options for a run of `command` over `transport`: the stdio peer is this build's `mcpspec`.
pub fn options(command: Vec<String>, transport: Transport) -> ClientOptions {
    let mut options = ClientOptions::new(command, transport);
    options.peer_program = PathBuf::from(env!("CARGO_BIN_EXE_mcpspec"));
    options.timeout = Duration::from_secs(30);
    options.jobs = 2;
    options
}

/// Runs `checks` against `command` over `transport`.
pub async fn run(command: Vec<String>, transport: Transport, checks: &[ClientCheck]) -> RunReport {
    mcpspec_client::run(checks, &options(command, transport), &|_| {}).await
}

/// Applies `fixtures/baselines/<baseline>`, then [`assert_green`]: the verdicts snapshotted as
/// `snapshots/clients/<name>.snap`, the run green (every Fail baselined with a reason, no stale
/// entry, every non-pass quoting what it judged).
pub fn assert_against_baseline(report: &mut RunReport, baseline: &str, name: &str) {
    let known: Vec<&str> = mcpspec_client::checks::all().iter().map(|c| c.id).collect();
    let path = repo_root().join("fixtures/baselines").join(baseline);
    mcpspec_harness::baseline::Baseline::load_for(&path, &known)
        .expect("the baseline loads")
        .apply(report);
    assert_green(report, name);
}

/// Snapshots the verdicts as `snapshots/clients/<name>.snap` and asserts the run is green
/// without a baseline (a client with no known failure): no Fail, every non-pass quoting what
/// it judged.
pub fn assert_green(report: &RunReport, name: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("snapshots/clients"));
    settings.set_prepend_module_to_snapshot(false);
    // Session ids, ports and the seconds of a timeout differ between runs.
    settings.add_filter("[0-9a-f]{32}", "[session]");
    settings.add_filter(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:[port]");
    settings.bind(|| insta::assert_yaml_snapshot!(name, verdicts(report)));
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

/// Each check's verdict as one line, `id: "KIND: message"`, without the evidence: which entry a
/// verdict quotes depends on how the two directions interleaved in that run.
fn verdicts(report: &RunReport) -> serde_json::Value {
    report
        .results
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                serde_json::json!(format!("{}: {}", r.outcome.kind, r.outcome.message)),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Snapshots each scenario's conversation once (the first check judging it) as
/// `snapshots/clients/<dir>/<scenario>.snap`, in a form two runs agree on: what the client sent
/// (requests and notifications in the order sent, which CLI-4 judges; its replies to the peer
/// sorted, as it may answer concurrent requests in any order) and what the peer sent (its
/// requests in order, its replies sorted: the two directions interleave differently from run to
/// run). Run-specific values are redacted (session ids, ports, versions).
pub fn assert_scenario_transcripts(dir: &str, report: &RunReport) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("snapshots/clients").join(dir));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_sort_maps(true);
    settings.add_filter("[0-9a-f]{32}", "[hex]");
    settings.add_filter(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:[port]");
    let checks = mcpspec_client::checks::all();
    let mut seen = std::collections::BTreeSet::new();
    settings.bind(|| {
        for r in &report.results {
            let Some(check) = checks.iter().find(|c| c.id == r.id) else {
                continue;
            };
            if r.transcript.is_empty() || !seen.insert(check.scenario) {
                continue;
            }
            insta::assert_yaml_snapshot!(
                check.scenario.replace('/', "__"),
                conversation(&r.transcript)
            );
        }
    });
}

/// The stable form of a transcript (see [`assert_scenario_transcripts`]).
fn conversation(transcript: &[mcpspec_core::transcript::Entry]) -> serde_json::Value {
    use serde_json::{Value, json};
    let mut client = Vec::new();
    let mut client_replies = Vec::new();
    let mut peer = Vec::new();
    let mut peer_replies = Vec::new();
    for e in transcript {
        let mut v = serde_json::to_value(e).expect("entries serialize");
        redact_versions(&mut v);
        let event = v["event"].as_str().unwrap_or_default().to_owned();
        let message = v.get("message").cloned().unwrap_or(Value::Null);
        let item = match &message {
            Value::Null => json!({"conn": v["conn"], "text": v["text"]}),
            m => json!({"conn": v["conn"], "message": m}),
        };
        let reply = message.get("method").is_none() && message.get("id").is_some();
        match (event.as_str(), reply) {
            ("recv" | "recv_large" | "recv_invalid", false) => client.push(item),
            ("recv" | "recv_large" | "recv_invalid", true) => client_replies.push(item),
            ("send" | "send_raw", false) => peer.push(item),
            ("send" | "send_raw", true) => peer_replies.push(item),
            ("connect" | "closed", _) => client.push(json!({"conn": v["conn"], "event": event})),
            _ => {}
        }
    }
    let by_text = |a: &Value, b: &Value| a.to_string().cmp(&b.to_string());
    client_replies.sort_by(by_text);
    peer_replies.sort_by(by_text);
    json!({
        "client": client,
        "client_replies": client_replies,
        "peer": peer,
        "peer_replies": peer_replies,
    })
}

/// Redacts the `version` of every `serverInfo`/`clientInfo` (and their `_meta` forms): they
/// change with releases of mcpspec and of the SDKs.
fn redact_versions(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k.ends_with("serverInfo") || k.ends_with("clientInfo") {
                    if let Some(version) = child.get_mut("version") {
                        *version = serde_json::json!("[version]");
                    }
                }
                redact_versions(child);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_versions),
        _ => {}
    }
}
