//! Small scripted servers that reproduce, byte for byte, what real servers send where mcpspec
//! used to skip checks it could run (issue 14, "run what can run"):
//!
//! - over streamable HTTP, a `subscriptions/listen` answered with an SSE stream that opens with
//!   a priming event (an `id:` and empty `data`), then the acknowledgement, and stays open: the
//!   subscription checks see the notification while the stream is open, and end it by closing
//!   the stream;
//! - over stdio, a legacy-only server (`initialize` answered with 2025-06-18, -32601 to modern
//!   methods): the era-independent `jsonrpc/*` checks run after the handshake (POL-28) and
//!   judge it;
//! - over streamable HTTP, a handshake-era server that refuses a request without
//!   `Mcp-Session-Id` with `400 Bad Request` and a plain-text body, as rmcp does (the 2025-03-26
//!   transport's SHOULD): an error answer to a request before `initialize` (POL-18), not a
//!   wrong reply.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcpspec::Kind;
use mcpspec_harness::catalogue;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long the scripted HTTP server keeps a listen stream open at most (the client closes it
/// long before).
const STREAM_BOUND: Duration = Duration::from_secs(20);

/// Listen streams the scripted server opened, and those the client closed.
#[derive(Debug, Default)]
struct Streams {
    opened: AtomicUsize,
    closed: AtomicUsize,
}

/// Reads one request: its `Content-Length` body. `None` on a closed or broken connection.
async fn read_request(sock: &mut TcpStream) -> Option<Vec<u8>> {
    read_request_with_head(sock).await.map(|(_, body)| body)
}

/// Reads one request: its head (lower-cased) and its `Content-Length` body.
async fn read_request_with_head(sock: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() > 1 << 20 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some((head, buf[head_end..head_end + length].to_vec()))
}

async fn respond(sock: &mut TcpStream, status: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = sock.write_all(head.as_bytes()).await;
    let _ = sock.write_all(body).await;
}

/// One connection of the scripted 2026-07-28 server: discover, -32601 for anything else, 202
/// for notifications, and an SSE stream for `subscriptions/listen`.
async fn serve_modern(mut sock: TcpStream, streams: Arc<Streams>) {
    let Some(body) = read_request(&mut sock).await else {
        return;
    };
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        let e = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
        return respond(&mut sock, "400 Bad Request", e).await;
    };
    let Some(id) = msg.get("id").cloned() else {
        return respond(&mut sock, "202 Accepted", b"").await;
    };
    match msg.get("method").and_then(Value::as_str) {
        Some("server/discover") => {
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": {
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {"listChanged": true}},
                "cacheScope": "public",
                "ttlMs": 0,
            }});
            respond(&mut sock, "200 OK", reply.to_string().as_bytes()).await;
        }
        Some("subscriptions/listen") => {
            streams.opened.fetch_add(1, Ordering::SeqCst);
            let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": {"notifications": {"toolsListChanged": true},
                    "_meta": {"io.modelcontextprotocol/subscriptionId": id}}});
            // The head, a priming event (an id, empty data), the acknowledgement; then the
            // stream stays open, chunked, until the client closes it.
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                        Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
            let priming = "id: 0\ndata: \n\n";
            let event = format!("id: 1\ndata: {ack}\n\n");
            let mut out = head.as_bytes().to_vec();
            for e in [priming, event.as_str()] {
                out.extend_from_slice(format!("{:x}\r\n{e}\r\n", e.len()).as_bytes());
            }
            if sock.write_all(&out).await.is_err() {
                return;
            }
            let mut rest = [0u8; 512];
            // The client ends the stream by closing the connection (SUB-7).
            let closed = async {
                loop {
                    match sock.read(&mut rest).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                }
            };
            if tokio::time::timeout(STREAM_BOUND, closed).await.is_ok() {
                streams.closed.fetch_add(1, Ordering::SeqCst);
            }
        }
        _ => {
            let reply = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}});
            respond(&mut sock, "404 Not Found", reply.to_string().as_bytes()).await;
        }
    }
}

/// The scripted HTTP server on 127.0.0.1; the task is aborted when the handle is dropped.
async fn scripted_sse_server() -> (mcpspec::Target, Arc<Streams>, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let streams = Arc::new(Streams::default());
    let counts = streams.clone();
    let task = tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(serve_modern(sock, counts.clone()));
        }
    });
    (mcpspec::Target::url(&url).expect("url"), streams, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_with_a_priming_event_delivers_its_acknowledgement_while_open() {
    let (target, streams, server) = scripted_sse_server().await;
    let checks: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| {
            [
                "subscriptions/listen/acknowledged-first",
                "subscriptions/listen/ack-carries-listen-id",
            ]
            .contains(&c.id)
        })
        .collect();
    let mut options = support::options();
    options.jobs = 1;
    let report = support::run(target, &checks, options).await;
    let verdicts: Vec<(String, Kind, String)> = report
        .results
        .iter()
        .map(|r| (r.id.clone(), r.outcome.kind, r.outcome.message.clone()))
        .collect();
    assert_eq!(
        verdicts,
        [
            (
                "subscriptions/listen/acknowledged-first".to_owned(),
                Kind::Pass,
                r#"acknowledged first, honouring {"toolsListChanged":true}"#.to_owned()
            ),
            (
                "subscriptions/listen/ack-carries-listen-id".to_owned(),
                Kind::Pass,
                "both acknowledgements carry their listen id, with its JSON type".to_owned()
            ),
        ]
    );
    // The priming event is no message (POL-27): nothing in any transcript reads as invalid.
    for r in &report.results {
        let text = serde_json::to_string(&r.transcript).unwrap();
        assert!(!text.contains("recv_invalid"), "{}: {text}", r.id);
    }
    // Teardown is the client closing each listen stream; the transcript says so.
    let ack_ids = &report.results[1];
    let notes: Vec<String> = ack_ids
        .transcript
        .iter()
        .filter_map(|e| match &e.event {
            mcpspec_core::transcript::Event::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    for id in ["4217", "\"mcpspec-listen-b\""] {
        let note = format!("closed the HTTP response stream of request {id}");
        assert!(notes.contains(&note), "{note} not in {notes:?}");
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while streams.closed.load(Ordering::SeqCst) < 3 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(streams.opened.load(Ordering::SeqCst), 3);
    assert_eq!(
        streams.closed.load(Ordering::SeqCst),
        3,
        "every listen stream was closed"
    );
    server.abort();
}

/// `fixtures/scripted/legacy_only.py` as a stdio target.
fn legacy_only_server() -> mcpspec::Target {
    let script = support::repo_root().join("fixtures/scripted/legacy_only.py");
    mcpspec::Target::command(support::python3()).arg(script.display().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonrpc_checks_run_on_a_legacy_only_server_after_the_handshake() {
    let checks: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("jsonrpc/"))
        .collect();
    let mut options = support::options();
    options.jobs = 2;
    let report = support::run(legacy_only_server(), &checks, options).await;
    let verdicts: Vec<String> = report
        .results
        .iter()
        .map(|r| format!("{} {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect();
    let skipped = "SKIP — the server does not serve 2026-07-28 (server/discover got error -32601 \
                   \"Method not found\")";
    let expected: &[(&str, &str)] = &[
        (
            "jsonrpc/parse-error/replies-32700",
            "NON-STRICT — invalid JSON: expected error -32700, got error -32603 \"could not read the \
             message\" (POL-3)",
        ),
        (
            "jsonrpc/parse-error/id-null",
            "PASS — the parse error has id null",
        ),
        (
            "jsonrpc/parse-error/keeps-serving",
            "PASS — the server answered after invalid JSON",
        ),
        (
            "jsonrpc/invalid-request/method-not-string",
            "PASS — a request with a numeric method: error -32600",
        ),
        (
            "jsonrpc/invalid-request/wrong-jsonrpc-version",
            "FAIL — a request with jsonrpc \"1.0\": expected error -32600, got an error without an \
             id ({\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"not \
             JSON-RPC 2.0\"}}), though the request's id 3952500 was readable: a reply whose id is wrong \
             (RPC-3, POL-23)",
        ),
        ("jsonrpc/batch/rejected", skipped),
        (
            "jsonrpc/id/null-rejected",
            "PASS — the null-id request got -32600",
        ),
        ("jsonrpc/id/string-echoed", "PASS — id \"7\" echoed exactly"),
        ("jsonrpc/id/integer-echoed", "PASS — id 4242 echoed exactly"),
        (
            "jsonrpc/notification/no-reply",
            "PASS — no reply to an unknown and a known notification",
        ),
        (
            "jsonrpc/notification/malformed-no-reply",
            "PASS — no reply to an id-less message with string params",
        ),
        (
            "jsonrpc/unknown-method/replies-32601",
            "PASS — an unknown method: error -32601",
        ),
        ("jsonrpc/invalid-params/replies-32602", skipped),
        (
            "jsonrpc/response/well-formed",
            "PASS — 3 replies, all well-formed JSON-RPC 2.0",
        ),
        ("jsonrpc/error-codes/allowed", skipped),
        ("jsonrpc/result-type/present", skipped),
    ];
    assert_eq!(verdicts.len(), expected.len(), "{verdicts:#?}");
    for (got, (id, want)) in verdicts.iter().zip(expected) {
        assert_eq!(got, &format!("{id} {want}"));
    }
    // Each check that ran did the handshake (its shared session's, written into its
    // transcript), then used
    // only methods a legacy server has (ping, tools/list, an unknown method).
    for r in report
        .results
        .iter()
        .filter(|r| r.outcome.kind != Kind::Skipped)
    {
        let sent: Vec<&Value> = r
            .transcript
            .iter()
            .filter_map(|e| match &e.event {
                mcpspec_core::transcript::Event::Send { message } => Some(message),
                _ => None,
            })
            .collect();
        assert_eq!(sent[0]["method"], "initialize", "{}", r.id);
        // The newest legacy version is asked for (the session the `legacy/*` checks share,
        // POL-21); the server negotiates its own.
        assert_eq!(
            sent[0]["params"]["protocolVersion"],
            mcpspec_core::protocol::version::LATEST_LEGACY,
            "{}",
            r.id
        );
        assert_eq!(sent[1]["method"], "notifications/initialized", "{}", r.id);
        assert!(
            sent.iter()
                .all(|m| m.get("method") != Some(&json!("server/discover"))),
            "{} sent server/discover to a legacy-only server",
            r.id
        );
    }
}

/// One connection of a scripted handshake-era HTTP server with sessions: `initialize` opens
/// session `s1`; any other request without `Mcp-Session-Id: s1` gets, byte for byte,
/// `HTTP/1.1 400 Bad Request`, `Content-Type: text/plain`, `Bad Request: Session ID is
/// required`; in the session, `ping` and `tools/list` are served.
async fn serve_legacy_with_sessions(mut sock: TcpStream) {
    let Some((head, body)) = read_request_with_head(&mut sock).await else {
        return;
    };
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let in_session = head.lines().any(|l| l.trim() == "mcp-session-id: s1");
    if let (Value::Array(batch), true) = (&msg, in_session) {
        // A 2025-03-26 batch, answered on one event stream: a priming event (an id, empty
        // data), then one event per reply (POL-27: every event counts).
        let mut stream = String::from("id: 0\ndata: \n\n");
        for (n, request) in batch.iter().enumerate() {
            let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": {}});
            stream.push_str(&format!("id: {}\ndata: {reply}\n\n", n + 1));
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            stream.len()
        );
        let _ = sock.write_all(head.as_bytes()).await;
        let _ = sock.write_all(stream.as_bytes()).await;
        return;
    }
    let Some(id) = msg.get("id").cloned() else {
        return respond(&mut sock, "202 Accepted", b"").await;
    };
    let result = match msg.get("method").and_then(Value::as_str) {
        Some("initialize") => {
            let asked = msg
                .pointer("/params/protocolVersion")
                .and_then(Value::as_str);
            let version = asked
                .filter(|v| ["2025-03-26", "2025-06-18"].contains(v))
                .unwrap_or("2025-06-18");
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": version, "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted-legacy-http", "version": "0"}}});
            let body = reply.to_string();
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = sock.write_all(head.as_bytes()).await;
            let _ = sock.write_all(body.as_bytes()).await;
            return;
        }
        _ if !in_session => {
            let body = b"Bad Request: Session ID is required";
            let head = format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            let _ = sock.write_all(head.as_bytes()).await;
            let _ = sock.write_all(body).await;
            return;
        }
        Some("ping") => json!({}),
        Some("tools/list") => json!({"tools": []}),
        _ => {
            let reply = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}});
            return respond(&mut sock, "200 OK", reply.to_string().as_bytes()).await;
        }
    };
    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
    respond(&mut sock, "200 OK", reply.to_string().as_bytes()).await;
}

/// Runs check `id` against the scripted handshake-era HTTP server; returns its outcome.
async fn against_legacy_http(id: &str) -> mcpspec::Outcome {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let server = tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(serve_legacy_with_sessions(sock));
        }
    });
    let outcome = support::outcome_of(mcpspec::Target::url(&url).expect("url"), id).await;
    server.abort();
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_replies_spread_over_the_events_of_one_stream_all_count() {
    let outcome = against_legacy_http("legacy/batch/accepted-2025-03-26").await;
    assert_eq!(outcome.kind, Kind::Pass, "{}", outcome.message);
    assert_eq!(
        outcome.message,
        "both batch requests were answered, in separate messages of the response (POL-27)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_less_request_refused_with_a_plain_400_is_an_error_answer_before_initialize() {
    let outcome = against_legacy_http("legacy/lifecycle/requests-before-initialize").await;
    let outcome = &outcome;
    assert_eq!(outcome.kind, Kind::Pass, "{}", outcome.message);
    assert_eq!(
        outcome.message,
        "tools/list before initialize was refused by the HTTP transport: no JSON-RPC reply: \
         HTTP 400 Bad Request with a text/plain body: Bad Request: Session ID is required \
         (POL-18: any error passes)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idless_invalid_message_answered_with_an_idless_32600_is_not_a_reply_to_a_notification()
{
    let script = support::repo_root().join("fixtures/scripted/legacy_only.py");
    let target = mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .arg("--reject-invalid-notifications");
    let checks: Vec<_> = [
        "jsonrpc/notification/malformed-no-reply",
        "jsonrpc/notification/no-reply",
    ]
    .iter()
    .map(|id| mcpspec_harness::catalogue::by_id(id).expect("the check exists"))
    .collect();
    let report = support::run(target, &checks, support::options()).await;
    let verdicts: Vec<String> = report
        .results
        .iter()
        .map(|r| format!("{} {}", r.outcome.kind, r.outcome.message))
        .collect();
    assert_eq!(report.results[0].outcome.kind, Kind::Pass, "{verdicts:?}");
    assert!(
        report.results[0].outcome.message.contains("-32600"),
        "{verdicts:?}"
    );
    assert_eq!(report.results[1].outcome.kind, Kind::Pass, "{verdicts:?}");
}
