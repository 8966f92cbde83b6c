//! `mcpspec fuzz --url`: black-box fuzzing over streamable HTTP. A clean reference server
//! gives no finding (HTTP 4xx rejections of notifications and id-null errors that answer their
//! POST are not mistaken for violations).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use assert_cmd::Command;

fn fuzz_url(url: &str, out: &std::path::Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("mcpspec")
        .unwrap()
        .args([
            "fuzz",
            "--seed",
            "3",
            "--time",
            "4",
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
    let out = std::env::temp_dir().join(format!("mcpspec-fuzz-http-{}", std::process::id()));
    let url = target.describe();
    let assert = tokio::task::spawn_blocking(move || fuzz_url(&url, &out, &[]))
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert.code(0);
    assert!(text.contains("0 finding(s)"), "{text}");
    drop(handle);
}
