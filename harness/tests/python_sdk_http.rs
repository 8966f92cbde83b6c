//! The official Python SDK (`mcp==2.3.0`) over streamable HTTP (uvicorn on 127.0.0.1, a free
//! port): verdicts snapshotted, every Fail in the HTTP baseline with a reason.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use mcpspec::checks::catalogue;

/// The Python HTTP server, killed (with its process group) when dropped.
struct PythonHttp {
    child: std::process::Child,
    url: String,
}

impl Drop for PythonHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_python_http() -> PythonHttp {
    // A free port: bind 0, read it, release it for the server.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = common::repo_root().join("fixtures/servers/python/server.py");
    let child = std::process::Command::new(common::venv_python())
        .arg(script)
        .args(["--http", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the Python server starts");
    let server = PythonHttp {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the Python HTTP server did not listen on {port} within 20 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_http_verdicts_match_snapshot_and_baseline() {
    let server = start_python_http();
    let target = mcpspec::Target::url(&server.url).unwrap();
    let options = common::python_options();
    let mut report = common::run(target, &catalogue(), options).await;
    // The port differs per run.
    let filters = [(r"127\.0\.0\.1:\d+", "127.0.0.1:[port]")];
    common::assert_verdicts_against_baseline(
        &mut report,
        "python-sdk-2.3.0-http.yaml",
        "verdicts-http",
        &filters,
    );
    drop(server);
}
