//! The `mcp-reference-server` binary over real stdio.
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mcp-reference-server");
const WAIT: Duration = Duration::from_secs(5);

/// Runs the binary with `args`, feeds `input`, closes stdin, waits (bounded) for the exit.
async fn run(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    tokio::time::timeout(WAIT, child.wait_with_output())
        .await
        .expect("the server did not exit within 5 s of stdin EOF")
        .unwrap()
}

fn discover_line() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }}})
    .to_string()
        + "\n"
}

#[tokio::test]
async fn serves_stdio_and_exits_on_eof() {
    let out = run(&[], &discover_line()).await;
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let reply: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(reply["result"]["supportedVersions"], json!(["2026-07-28"]));
}

#[tokio::test]
async fn list_faults_prints_name_tab_description() {
    let out = run(&["--list-faults"], "").await;
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(names.len(), mcp_reference_server::Fault::ALL.len());
    assert!(stdout.lines().all(|l| l.split('\t').count() == 2));
    assert!(names.contains(&"deadlock-on-initialize"));
}

#[tokio::test]
async fn bad_arguments_exit_2_with_one_line() {
    for args in [
        &["--fault", "no-such-fault"][..],
        &["--eras", "middle"],
        &["--bogus"],
    ] {
        let out = run(args, "").await;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[tokio::test]
async fn faults_and_eras_flags_apply() {
    let out = run(
        &["--fault", "no-discover", "--eras", "modern"],
        &discover_line(),
    )
    .await;
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["error"]["code"], -32601);
    let out = run(&["--eras", "legacy"], &discover_line()).await;
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(reply["error"].is_object());
}

#[tokio::test]
async fn crash_on_initialize_exits_non_zero() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}});
    let out = run(&["--fault", "crash-on-initialize"], &format!("{init}\n")).await;
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
}

#[tokio::test]
async fn logs_never_reach_stdout() {
    let mut child = Command::new(BIN)
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(discover_line().as_bytes()).await.unwrap();
    stdin.write_all(b"{oops\n").await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(WAIT, child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    for line in stdout.lines() {
        let msg: Value = serde_json::from_str(line).unwrap();
        assert_eq!(msg["jsonrpc"], "2.0");
    }
    assert_eq!(stdout.lines().count(), 2);
    assert!(!out.stderr.is_empty(), "trace logs go to stderr");
}
