//! `mcpspec fuzz --url`: black-box fuzzing over streamable HTTP. A clean reference server
//! gives no finding (HTTP 4xx rejections of notifications and id-null errors that answer their
//! POST are not mistaken for violations, nor is the HTTP layer's bare 400 to a header value the
//! fuzzer built malformed on purpose). Work is bounded by `--cases`, so the result is the same
//! on a fast machine and a slow one.

use crate::support;

use assert_cmd::Command;

/// Enough cases that the `malformed_header` strategy (about one line in forty) sends several
/// requests whose `MCP-Protocol-Version` or `Mcp-Method` holds a control character.
const CASES: &str = "300";

fn fuzz_url(url: &str, out: &std::path::Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("mcpspec")
        .unwrap()
        .args([
            "fuzz",
            "--seed",
            "3",
            "--cases",
            CASES,
            "--timeout",
            "5",
            "--url",
            url,
            "--out",
        ])
        .arg(out)
        .args(extra)
        .assert()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_http_server_gives_no_finding() {
    let (target, handle) = support::http_reference(mcp_reference_server::Config::default()).await;
    let scratch = support::Scratch::new("fuzz-http");
    let out = scratch.join("out");
    let url = target.describe();
    let assert = tokio::task::spawn_blocking(move || fuzz_url(&url, &out, &[]))
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert.code(0);
    assert!(text.contains("0 finding(s)"), "{text}");
    assert!(text.contains(&format!("{CASES} cases")), "{text}");
    drop(handle);
}

/// The request that made the false finding (issue 27): a NUL in the version, which the
/// transport mirrors into `MCP-Protocol-Version`. The reference server's HTTP layer refuses it
/// with a bare 400, rightly; replayed, it trips no oracle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_layers_refusal_of_a_nul_header_is_no_finding() {
    let (target, handle) = support::http_reference(mcp_reference_server::Config::default()).await;
    let scratch = support::Scratch::new("fuzz-http-nul");
    let file = scratch.join("nul-version.jsonl");
    std::fs::write(&file, NUL_VERSION).unwrap();
    let url = target.describe();
    let output = tokio::task::spawn_blocking(move || {
        Command::cargo_bin("mcpspec")
            .unwrap()
            .args(["replay", "--timeout", "5", "--url", &url])
            .arg(&file)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.starts_with("not reproduced"), "{stdout}");
    drop(handle);
}

const NUL_VERSION: &str = concat!(
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"page-2","_meta":"#,
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-0\u00007-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    "\n"
);
