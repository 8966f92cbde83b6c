//! The four false findings `mcpspec fuzz` once made on correct servers (issue 27), each
//! reproduced by a small scripted server that behaves correctly (`fixtures/scripted/`, around
//! `correct_core.py`). For each: the server is shown to write the bytes that fooled the oracle,
//! the exact case replays to nothing (`mcpspec replay`, exit 0), and a fuzz run bounded by
//! `--cases` finds nothing.
//!
//! | server | what it does, correctly | the false finding it made |
//! | --- | --- | --- |
//! | `big_ids.py` | echoes id 18446744073709551615 inside a batch reply | `invalid-reply` |
//! | `surrogate_echo.py` | echoes a version it read with surrogateescape as `\udcff` | `non-mcp-output` |
//! | `lenient_utf8.py` | answers the id of a line that is not UTF-8 | `unmatched-reply`, `duplicate-reply` |
//! | `header_nul_http.py` | refuses a NUL in `MCP-Protocol-Version` with a bare 400 | `non-mcp-output` |
//! | `session_http.py` | refuses a handshake-era request outside a session with a bare 400, as the Rust SDK does | `hang` (the probe `ping` refused), `non-mcp-output` |
//!
//! And a finding that does not recur when confirmed on a fresh process is none
//! (`flaky_twice.py`). A fifth false finding came to light measuring them: a server that answers a huge line before it reads the
//! next one was blocked on a full stdout pipe by the fuzzer itself, which wrote the next huge
//! line without reading, and was called a `hang`. The fuzzer now reads while it writes.

use crate::support;

use std::io::{Read, Write};
use std::time::Duration;

use assert_cmd::Command;

/// Cases per fuzz run: counted, so a run does the same work on a fast machine and a slow one.
const CASES: &str = "300";

fn script(name: &str) -> String {
    support::repo_root()
        .join("fixtures/scripted")
        .join(name)
        .display()
        .to_string()
}

/// What the server writes to stdout for `input`.
fn stdout_of(name: &str, args: &[&str], input: &[u8]) -> String {
    let output = Command::new(support::python3())
        .arg(script(name))
        .args(args)
        .write_stdin(input.to_vec())
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `mcpspec replay` of `case` on the target given by `target_args`: it trips no oracle.
fn replays_to_nothing(name: &str, case: &[u8], target_args: &[&str]) {
    let scratch = support::Scratch::new(&format!("false-finding-{name}"));
    let file = scratch.join("case.jsonl");
    std::fs::write(&file, case).unwrap();
    let output = Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["replay", "--timeout", "5"])
        .arg(&file)
        .args(target_args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{name}: {stdout}");
    assert!(stdout.starts_with("not reproduced"), "{name}: {stdout}");
}

/// `mcpspec fuzz --cases CASES` on the target: no finding.
fn fuzzes_to_nothing(name: &str, seed: &str, target_args: &[&str]) {
    let scratch = support::Scratch::new(&format!("false-finding-fuzz-{name}"));
    let output = Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["fuzz", "--seed", seed, "--cases", CASES, "--timeout", "5"])
        .arg("--out")
        .arg(scratch.join("out"))
        .args(target_args)
        .timeout(Duration::from_secs(180))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{name}: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("0 finding(s)"), "{name}: {stdout}");
    assert!(
        stdout.contains(&format!("{CASES} cases")),
        "{name}: {stdout}"
    );
}

#[test]
fn a_huge_id_echoed_in_a_batch_reply_is_a_reply() {
    let case = b"[{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,\"method\":\"ping\"}]\n\
                 {\"jsonrpc\":\"2.0\",\"id\":340282366920938463463374607431768211457,\"method\":\"ping\"}\n";
    let out = stdout_of("big_ids.py", &[], case);
    assert!(
        out.contains(r#"[{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}]"#),
        "{out}"
    );
    assert!(
        out.contains(r#""id":340282366920938463463374607431768211457,"result""#),
        "{out}"
    );
    let server = script("big_ids.py");
    let target = ["--", support::python3(), server.as_str()];
    replays_to_nothing("big-ids", case, &target);
    fuzzes_to_nothing("big-ids", "1", &target);
}

#[test]
fn a_sent_byte_echoed_as_a_lone_surrogate_escape_is_json() {
    // The version holds a byte that is not UTF-8, then a lone surrogate escape.
    let case = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":\
                 {\"io.modelcontextprotocol/protocolVersion\":\"2026-0\xff7-28\"}}}\n\
                 {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":\
                 {\"io.modelcontextprotocol/protocolVersion\":\"2026-0\\udc807-28\"}}}\n";
    let out = stdout_of("surrogate_echo.py", &[], case);
    assert!(out.contains(r#""requested":"2026-0\udcff7-28""#), "{out}");
    assert!(out.contains(r#""requested":"2026-0\udc807-28""#), "{out}");
    let server = script("surrogate_echo.py");
    let target = ["--", support::python3(), server.as_str()];
    replays_to_nothing("surrogate-echo", case, &target);
    fuzzes_to_nothing("surrogate-echo", "2", &target);
}

#[test]
fn a_line_that_is_not_utf8_is_answered_with_the_id_a_lenient_decoder_reads() {
    // An id with a stray byte, after a line whose id is what a replacing decoder reads in it
    // (the old oracle: `duplicate-reply`, or `unmatched-reply` alone); a mangled key beside an
    // intact id, reused by the next line.
    let case = b"{\"jsonrpc\":\"2.0\",\"id\":\"r\\ufffd1\",\"method\":\"ping\"}\n\
                 {\"jsonrpc\":\"2.0\",\"id\":\"r\xff1\",\"method\":\"ping\"}\n\
                 {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"k\xfe\":1}\n\
                 {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n";
    for (decode, echoed) in [
        ("replace", r#""id":"r\ufffd1""#),
        ("surrogateescape", r#""id":"r\udcff1""#),
    ] {
        let out = stdout_of("lenient_utf8.py", &["--decode", decode], case);
        assert!(out.contains(echoed), "{decode}: {out}");
        assert!(
            out.starts_with(r#"{"jsonrpc":"2.0","id":"r\ufffd1","result""#),
            "{out}"
        );
        assert_eq!(
            out.matches(r#""id":5,"result""#).count(),
            2,
            "{decode}: {out}"
        );
        let server = script("lenient_utf8.py");
        let target = [
            "--",
            support::python3(),
            server.as_str(),
            "--decode",
            decode,
        ];
        replays_to_nothing(&format!("lenient-{decode}"), case, &target);
    }
    let server = script("lenient_utf8.py");
    fuzzes_to_nothing("lenient", "3", &["--", support::python3(), server.as_str()]);
}

#[test]
fn the_http_layers_bare_400_to_a_nul_header_is_no_finding() {
    let server =
        support::HttpFixture::announced(support::python3(), &[&script("header_nul_http.py")]);
    // On the wire: the HTTP layer refuses the NUL with a bare 400.
    let address = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-0\u{0}7-28\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut tcp = std::net::TcpStream::connect(address).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    tcp.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    let _ = tcp.read_to_string(&mut response);
    assert!(response.starts_with("HTTP/1.1 400"), "{response}");
    assert!(response.ends_with("\r\n\r\n"), "a body came: {response}");

    let case = concat!(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"page-2","_meta":"#,
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-0\u00007-28","#,
        r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        "\n"
    );
    let target = ["--url", server.url.as_str()];
    replays_to_nothing("header-nul", case.as_bytes(), &target);
    fuzzes_to_nothing("header-nul", "3", &target);
}

/// The Rust SDK's HTTP service (`rmcp` 3.11) keeps sessions in the handshake era and refuses a
/// handshake-era request outside one with `400 Bad Request: Session ID is required`, a bare
/// text body, as the transport spec says it should; the probe `ping` sent after every case is
/// such a request. That made every case against it a `hang` (2 cases a second).
#[test]
fn a_bare_400_outside_a_session_is_no_finding() {
    let server = support::HttpFixture::announced(support::python3(), &[&script("session_http.py")]);
    // On the wire: a bare `ping` outside a session gets the bare 400; after `initialize` the
    // session serves it.
    let address = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    let post = |body: &str, session: Option<&str>| {
        let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        let mut tcp = std::net::TcpStream::connect(address).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        tcp.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        let _ = tcp.read_to_string(&mut response);
        response
    };
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let refused = post(ping, None);
    assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
    assert!(
        refused.ends_with("\r\n\r\nBad Request: Session ID is required"),
        "{refused}"
    );
    let init = post(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        None,
    );
    let session = init
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .unwrap_or_else(|| panic!("no session minted: {init}"));
    let served = post(ping, Some(session.trim()));
    assert!(served.contains(r#""id":1,"result":{}"#), "{served}");
    // As rmcp: an `initialize` it cannot read as one needs the session too, and a fractional
    // id is refused by the body parser.
    let unreadable = post(r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#, None);
    assert!(unreadable.starts_with("HTTP/1.1 400"), "{unreadable}");
    for id in ["1.5", "9223372036854775808"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover"}}"#);
        let refused = post(&body, None);
        assert!(refused.starts_with("HTTP/1.1 415"), "{id}: {refused}");
    }

    let case = concat!(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":4,"method":"initialize"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":5.5,"method":"server/discover"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"server/discover"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05"}}}"#,
        "\n"
    );
    let target = ["--url", server.url.as_str()];
    replays_to_nothing("session", case.as_bytes(), &target);
    fuzzes_to_nothing("session", "1", &target);
}

/// Express's `json()` limit, as the TypeScript SDK's HTTP fixture meets it: a 413 with an HTML
/// page for a body over 100 kB is the server capping what it reads, not a finding. The same
/// refusal of a small request still is one.
#[test]
fn a_413_to_a_huge_request_is_no_finding() {
    let server =
        support::HttpFixture::announced(support::python3(), &[&script("header_nul_http.py")]);
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"mcpspec-nonexistent-tool-7f3a","arguments":{{"text":"{}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#,
        "x".repeat(150_000)
    );
    // On the wire: 413 and an HTML page.
    let address = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{huge}",
        huge.len()
    );
    let mut tcp = std::net::TcpStream::connect(address).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    tcp.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    let _ = tcp.read_to_string(&mut response);
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(response.contains("<!DOCTYPE html>"), "{response}");

    let target = ["--url", server.url.as_str()];
    replays_to_nothing("too-large", format!("{huge}\n").as_bytes(), &target);
}

#[test]
fn a_server_answering_a_huge_line_before_reading_the_next_is_no_hang() {
    // Two echo calls of 150 kB each: the first answer fills the stdout pipe while the second
    // line is still being written.
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
            "x".repeat(150_000)
        )
    };
    let case = format!("{}\n{}\n", call(1), call(2));
    let server = script("big_ids.py");
    replays_to_nothing(
        "huge-echoes",
        case.as_bytes(),
        &["--", support::python3(), server.as_str()],
    );
}

/// A violation the final confirmation cannot reproduce on a fresh process is no finding: the
/// first two processes of `flaky_twice.py` that get a `ping` answer it twice, later ones once.
/// The shared process trips `duplicate-reply`, a fresh one reproduces it (so it is shrunk), and
/// the confirmation on yet another fresh process does not: counted, not reported.
#[test]
fn a_violation_that_does_not_recur_when_confirmed_is_no_finding() {
    let state = support::Scratch::new("flaky-twice");
    let server = script("flaky_twice.py");
    let scratch = support::Scratch::new("flaky-twice-out");
    let output = Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["fuzz", "--seed", "1", "--cases", CASES, "--timeout", "5"])
        .arg("--out")
        .arg(scratch.join("out"))
        .args(["--", support::python3(), server.as_str()])
        .arg(&*state)
        .timeout(Duration::from_secs(180))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("0 finding(s)"), "{stdout}");
    assert!(
        stdout.contains(
            "did not recur on a fresh connection (not findings); the first: [duplicate-reply]"
        ),
        "{stdout}"
    );
    // Both flaky processes were used: the violation was reproduced once before it was lost.
    assert!(state.join("token-2").exists(), "{stdout}");
    assert!(
        !scratch.join("out").exists(),
        "a reproducer was written: {stdout}"
    );
}
