//! Streamable HTTP (`--http`): the modern header rules, status codes and streams, legacy
//! sessions, and the security checks, over raw HTTP/1.1 on 127.0.0.1:0.
use crate::support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_reference_server::{Config, Eras, HttpOptions};
use serde_json::{Value, json};
use support::http::*;
use support::*;

fn code_of(reply: &Reply) -> i64 {
    error_code(&reply.json())
}

fn with_http(http: HttpOptions) -> Config {
    Config {
        http,
        ..Config::default()
    }
}

fn header_tool() -> Config {
    with_http(HttpOptions {
        header_tool: true,
        ..HttpOptions::default()
    })
}

// --- modern: replies -----------------------------------------------------------------------

#[tokio::test]
async fn modern_request_gets_json_without_a_session_id() {
    let server = start_http(Config::default()).await;
    let reply = send(
        server.local_addr(),
        &Req::modern(&modern(1, "tools/list", json!({}))),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.content_type(), "application/json");
    assert_eq!(reply.json()["id"], 1);
    assert_eq!(reply.json()["result"]["resultType"], "complete");
    assert!(reply.header("mcp-session-id").is_none());
}

#[tokio::test]
async fn tools_call_needs_a_matching_mcp_name() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let call = modern(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let ok = send(addr, &Req::modern(&call)).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(ok.json()["result"]["content"][0]["text"], "hi");

    for req in [
        Req::modern(&call).without("Mcp-Name"),
        Req::modern(&call).set("Mcp-Name", "add"),
        Req::modern(&call).header("Mcp-Name", "echo"),
        Req::modern(&call).set("Mcp-Name", "ECHO"),
    ] {
        let reply = send(addr, &req).await;
        assert_eq!(reply.status, 400, "{req:?}");
        assert_eq!(code_of(&reply), -32020, "{req:?}");
        assert_eq!(reply.json()["id"], 2);
    }
}

#[tokio::test]
async fn mcp_method_is_required_exact_and_single() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let msg = modern(3, "tools/list", json!({}));
    for req in [
        Req::modern(&msg).without("Mcp-Method"),
        Req::modern(&msg).set("Mcp-Method", "tools/call"),
        Req::modern(&msg).set("Mcp-Method", "TOOLS/LIST"),
        Req::modern(&msg).header("Mcp-Method", "tools/list"),
        Req::modern(&msg).set("Mcp-Method", "tools/list\u{e9}"),
    ] {
        let reply = send(addr, &req).await;
        assert_eq!(reply.status, 400, "{req:?}: {}", reply.text());
        assert_eq!(code_of(&reply), -32020, "{req:?}");
        assert_eq!(reply.json()["id"], 3);
    }
}

#[tokio::test]
async fn header_names_are_case_insensitive_and_whitespace_is_trimmed() {
    let server = start_http(Config::default()).await;
    let msg = modern(4, "tools/list", json!({}));
    let req = Req::json(&msg)
        .header("mcp-PROTOCOL-version", "  2026-07-28 ")
        .header("MCP-METHOD", "\ttools/list  ");
    let reply = send(server.local_addr(), &req).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
}

#[tokio::test]
async fn protocol_version_header_is_required_and_must_match() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let msg = modern(5, "tools/list", json!({}));
    for req in [
        Req::modern(&msg).without("MCP-Protocol-Version"),
        Req::modern(&msg).set("MCP-Protocol-Version", "2025-06-18"),
        Req::modern(&msg).header("MCP-Protocol-Version", "2026-07-28"),
    ] {
        let reply = send(addr, &req).await;
        assert_eq!(reply.status, 400, "{req:?}");
        assert_eq!(code_of(&reply), -32020, "{req:?}");
    }
}

#[tokio::test]
async fn base64_header_values_are_decoded() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let call = modern(
        6,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    // "echo" in base64.
    let ok = send(
        addr,
        &Req::modern(&call).set("Mcp-Name", "=?base64?ZWNobw==?="),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    for bad in ["=?base64?!!!!?=", "=?base64?YWRk?="] {
        let reply = send(addr, &Req::modern(&call).set("Mcp-Name", bad)).await;
        assert_eq!((reply.status, code_of(&reply)), (400, -32020), "{bad}");
    }
    // A non-ASCII URI travels encoded.
    let read = modern(7, "resources/read", json!({"uri": "file:///caf\u{e9}"}));
    let encoded = "=?base64?ZmlsZTovLy9jYWbDqQ==?=";
    let reply = send(addr, &Req::modern(&read).set("Mcp-Name", encoded)).await;
    assert_ne!(code_of(&reply), -32020, "{}", reply.text());
}

#[tokio::test]
async fn envelope_version_and_method_errors_have_their_statuses() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();

    let bare = request(8, "tools/list", json!({}));
    let reply = send(addr, &Req::modern(&bare)).await;
    assert_eq!(
        (reply.status, code_of(&reply)),
        (400, -32602),
        "{}",
        reply.text()
    );

    let mut old = modern(9, "tools/list", json!({}));
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let reply = send(addr, &Req::modern(&old)).await;
    assert_eq!((reply.status, code_of(&reply)), (400, -32022));
    assert_eq!(reply.json()["error"]["data"]["requested"], "2099-01-01");

    for name in ["no/such", "ping", "logging/setLevel"] {
        let reply = send(addr, &Req::modern(&modern(10, name, json!({})))).await;
        assert_eq!((reply.status, code_of(&reply)), (404, -32601), "{name}");
    }
    // `initialize` with the modern envelope is a removed method (VER-6).
    let init = modern(11, "initialize", json!({}));
    let reply = send(addr, &Req::modern(&init)).await;
    assert_eq!((reply.status, code_of(&reply)), (404, -32601));
}

#[tokio::test]
async fn notifications_get_202_and_no_body() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let mut note = notification("notifications/cancelled", json!({"requestId": 1}));
    note["params"]["_meta"] = envelope();
    let reply = send(addr, &Req::modern(&note)).await;
    assert_eq!(reply.status, 202);
    assert!(reply.body.is_empty());
    // Bad headers: refused with a 4xx and no body (never a JSON-RPC reply).
    let reply = send(addr, &Req::modern(&note).set("Mcp-Method", "other")).await;
    assert_eq!(reply.status, 400);
    assert!(reply.body.is_empty());
}

#[tokio::test]
async fn malformed_bodies_and_batches_are_400() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let reply = send(addr, &Req::post(b"{oops").header("Mcp-Method", "x")).await;
    assert_eq!((reply.status, code_of(&reply)), (400, -32700));
    assert_eq!(reply.json()["id"], Value::Null);
    let batch = json!([modern(1, "tools/list", json!({}))]);
    let reply = send(addr, &Req::json(&batch)).await;
    assert_eq!((reply.status, code_of(&reply)), (400, -32600));
    // Garbage that is not HTTP: answered by hyper, and the server still serves.
    let _ = tokio::time::timeout(WAIT, async {
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut tcp, b"\x00\xff GARBAGE\r\n\r\n")
            .await
            .unwrap();
    })
    .await;
    let ok = send(addr, &Req::modern(&modern(2, "tools/list", json!({})))).await;
    assert_eq!(ok.status, 200);
}

#[tokio::test]
async fn get_and_delete_without_a_session_are_405() {
    for eras in [Eras::Modern, Eras::Both] {
        let server = start_http(config_eras(&[], eras)).await;
        for method in ["GET", "DELETE"] {
            let req = Req::new(method, b"").header("Accept", "text/event-stream");
            let reply = send(server.local_addr(), &req).await;
            assert_eq!(reply.status, 405, "{eras:?} {method}");
            assert!(reply.header("allow").unwrap().contains("POST"));
        }
    }
    // Modern-only: a session id changes nothing (HTTP-15).
    let server = start_http(config_eras(&[], Eras::Modern)).await;
    let req = Req::new("GET", b"").header("Mcp-Session-Id", "abc");
    assert_eq!(send(server.local_addr(), &req).await.status, 405);
    let req = Req::modern(&modern(1, "tools/list", json!({})))
        .header("Mcp-Session-Id", "abc")
        .header("Last-Event-ID", "7");
    let reply = send(server.local_addr(), &req).await;
    assert_eq!(reply.status, 200);
    assert!(reply.header("mcp-session-id").is_none());
}

// --- modern: streams -----------------------------------------------------------------------

#[tokio::test]
async fn progress_turns_the_reply_into_a_terminated_sse_stream() {
    let server = start_http(Config::default()).await;
    let call = modern_meta(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
        json!({"progressToken": "p1"}),
    );
    let reply = send(server.local_addr(), &Req::modern(&call)).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type(), "text/event-stream");
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let events = reply.events();
    assert!(events.len() >= 2, "{events:?}");
    let (last, before) = events.split_last().unwrap();
    assert_eq!(last.json()["id"], 1);
    assert_eq!(last.json()["result"]["content"][0]["text"], "hi");
    for event in before {
        assert_eq!(event.json()["method"], "notifications/progress");
        assert!(event.id.is_none());
    }
}

#[tokio::test]
async fn sse_option_streams_every_reply() {
    let server = start_http(with_http(HttpOptions {
        sse: true,
        ..HttpOptions::default()
    }))
    .await;
    let reply = send(
        server.local_addr(),
        &Req::modern(&modern(1, "tools/list", json!({}))),
    )
    .await;
    assert_eq!(reply.content_type(), "text/event-stream");
    let events = reply.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event.as_deref(), Some("message"));
    assert_eq!(events[0].json()["id"], 1);
}

#[tokio::test]
async fn closing_the_response_cancels_the_request() {
    let slow = Arc::new(Slow::default());
    let server = start_http_server(slow_server(Config::default(), slow.clone())).await;
    let stream = tokio::time::timeout(WAIT, async {
        let mut tcp = tokio::net::TcpStream::connect(server.local_addr())
            .await
            .unwrap();
        let req = Req::modern(&modern(1, "tools/list", json!({})));
        tokio::io::AsyncWriteExt::write_all(&mut tcp, &req.bytes())
            .await
            .unwrap();
        tcp
    })
    .await
    .unwrap();
    // Closed once the request is being handled (before that there is nothing to cancel).
    assert!(slow.until(|s| s.started.load(Ordering::SeqCst)).await);
    drop(stream);
    // Cancelled is seen happen, not inferred from a flag still unset after a delay.
    assert_eq!(
        slow.settled().await,
        (false, true),
        "(finished, cancelled): the request ran on"
    );
}

/// Black-box HTTP-14 with the probe profile: the probe logs a request when it completes, so a
/// `mcpspec_slow` call whose stream was closed never shows up in the log.
#[tokio::test]
async fn a_closed_stream_leaves_no_trace_in_the_probe_log() {
    let server = start_http(Config {
        probe_profile: true,
        ..Config::default()
    })
    .await;
    let addr = server.local_addr();
    let slow = modern_meta(
        1,
        "tools/call",
        json!({"name": "mcpspec_slow", "arguments": {"steps": 3, "delay_ms": 150}}),
        json!({"progressToken": "t"}),
    );
    let mut stream = Stream::open(addr, &Req::modern(&slow)).await;
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let first = stream.next_event().await.unwrap();
    assert_eq!(first.json()["method"], "notifications/progress");
    drop(stream);
    // The control: the same call, started after the closed one and read to its end. Once the
    // log shows it, the closed call (started first, same work) would be there too had it run
    // on; a fixed delay would instead pass vacuously on a machine too slow to finish either.
    let mut control = slow.clone();
    control["id"] = json!(3);
    let done = send(addr, &Req::modern(&control)).await;
    assert!(done.events().iter().any(|e| e.json()["id"] == 3));
    let deadline = tokio::time::Instant::now() + WAIT;
    let entries = loop {
        let call = modern(2, "tools/call", json!({"name": "mcpspec_probe_log"}));
        let log = send(addr, &Req::modern(&call)).await.json();
        let entries = log["result"]["structuredContent"]["entries"].clone();
        let ids: Vec<&Value> = entries
            .as_array()
            .unwrap()
            .iter()
            .map(|e| &e["id"])
            .collect();
        if ids.contains(&&json!(3)) {
            break entries;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the control call never reached the probe log: {entries}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        entries.as_array().unwrap().iter().all(|e| e["id"] != 1),
        "{entries}"
    );
}

// --- modern: x-mcp-header parameters -------------------------------------------------------

#[tokio::test]
async fn param_headers_are_checked_against_the_arguments() {
    let server = start_http(header_tool()).await;
    let addr = server.local_addr();
    let list = send(addr, &Req::modern(&modern(1, "tools/list", json!({})))).await;
    let tools = list.json()["result"]["tools"].clone();
    let route = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "route");
    assert_eq!(
        route.unwrap()["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );

    let call = modern(
        2,
        "tools/call",
        json!({"name": "route", "arguments": {"region": "eu west", "priority": 3, "urgent": null}}),
    );
    let good = Req::modern(&call)
        .header("Mcp-Param-Region", "eu west")
        .header("mcp-param-priority", " 3 ");
    let reply = send(addr, &good).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "region=eu west priority=3"
    );
    let encoded = Req::modern(&call)
        .header("Mcp-Param-Region", "=?base64?ZXUgd2VzdA==?=")
        .header("Mcp-Param-Priority", "3");
    assert_eq!(send(addr, &encoded).await.status, 200);

    for bad in [
        Req::modern(&call).header("Mcp-Param-Priority", "3"),
        Req::modern(&call)
            .header("Mcp-Param-Region", "eu east")
            .header("Mcp-Param-Priority", "3"),
        Req::modern(&call)
            .header("Mcp-Param-Region", "eu west")
            .header("Mcp-Param-Priority", "4"),
        Req::modern(&call)
            .header("Mcp-Param-Region", "eu west")
            .header("Mcp-Param-Region", "eu west")
            .header("Mcp-Param-Priority", "3"),
        Req::modern(&call)
            .header("Mcp-Param-Region", "=?base64?%%?=")
            .header("Mcp-Param-Priority", "3"),
    ] {
        let reply = send(addr, &bad).await;
        assert_eq!((reply.status, code_of(&reply)), (400, -32020), "{bad:?}");
    }
}

// --- security ------------------------------------------------------------------------------

#[tokio::test]
async fn foreign_origins_get_403_and_loopback_ones_pass() {
    let server = start_http(with_http(HttpOptions {
        allowed_origins: vec!["https://app.test".into()],
        ..HttpOptions::default()
    }))
    .await;
    let addr = server.local_addr();
    let msg = modern(1, "tools/list", json!({}));
    for origin in ["http://evil.test", "null", "http://localhost.evil.test"] {
        let reply = send(addr, &Req::modern(&msg).header("Origin", origin)).await;
        assert_eq!(reply.status, 403, "{origin}");
    }
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1",
        "https://app.test",
    ] {
        let reply = send(addr, &Req::modern(&msg).header("Origin", origin)).await;
        assert_eq!(reply.status, 200, "{origin}");
    }
}

#[tokio::test]
async fn foreign_hosts_get_421() {
    let server = start_http(with_http(HttpOptions {
        allowed_hosts: vec!["mcp.test".into()],
        ..HttpOptions::default()
    }))
    .await;
    let addr = server.local_addr();
    let msg = modern(1, "tools/list", json!({}));
    let reply = send(addr, &Req::modern(&msg).set("Host", "evil.test:80")).await;
    assert_eq!(reply.status, 421);
    for host in ["localhost:1", "[::1]", "mcp.test:8080"] {
        let reply = send(addr, &Req::modern(&msg).set("Host", host)).await;
        assert_eq!(reply.status, 200, "{host}");
    }
}

#[tokio::test]
async fn bodies_over_the_limit_get_413() {
    let server = start_http(with_http(HttpOptions {
        max_body: 1024,
        ..HttpOptions::default()
    }))
    .await;
    let addr = server.local_addr();
    let msg = modern(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x".repeat(2000)}}),
    );
    assert_eq!(send(addr, &Req::modern(&msg)).await.status, 413);
    // Chunked, with no Content-Length: the limit holds while reading.
    let body = msg.to_string();
    let mut raw = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
        Transfer-Encoding: chunked\r\nMcp-Method: tools/call\r\n\r\n"
        .to_vec();
    raw.extend_from_slice(format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len()).as_bytes());
    assert_eq!(send_bytes(addr, &raw).await.status, 413);
}

// --- legacy sessions -----------------------------------------------------------------------

#[tokio::test]
async fn initialize_mints_an_unguessable_visible_session_id() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let a = legacy_session(addr, "2025-06-18").await;
    let b = legacy_session(addr, "2025-06-18").await;
    assert_ne!(a, b);
    assert_eq!(a.len(), 32);
    assert!(a.bytes().all(|c| c.is_ascii_hexdigit()), "{a}");
    // A refused handshake mints nothing.
    let bad = request(1, "initialize", json!({"capabilities": {}}));
    let reply = send(addr, &Req::json(&bad)).await;
    assert_eq!(reply.json()["error"]["code"], -32602);
    assert!(reply.header("mcp-session-id").is_none());
}

#[tokio::test]
async fn legacy_requests_use_the_session() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let id = legacy_session(addr, "2025-11-25").await;
    let list = request(2, "tools/list", json!({}));
    let reply = send(
        addr,
        &Req::json(&list)
            .header("Mcp-Session-Id", &id)
            .header("MCP-Protocol-Version", "2025-11-25"),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type(), "application/json");
    assert!(reply.json()["result"]["tools"].is_array());
    assert!(reply.json()["result"].get("resultType").is_none());
    // Absent version header: fine (LEG-8); a bad one: 400.
    let reply = send(addr, &Req::json(&list).header("Mcp-Session-Id", &id)).await;
    assert_eq!(reply.status, 200);
    for bad in ["2099-01-01", "garbage", "2026-07-28"] {
        let req = Req::json(&list)
            .header("Mcp-Session-Id", &id)
            .header("MCP-Protocol-Version", bad);
        assert_eq!(send(addr, &req).await.status, 400, "{bad}");
    }
    // An error reply on a session is still 200 with the JSON-RPC error.
    let reply = send(
        addr,
        &Req::json(&request(3, "no/such", json!({}))).header("Mcp-Session-Id", &id),
    )
    .await;
    assert_eq!((reply.status, code_of(&reply)), (200, -32601));
    // Unknown session: 404.
    let reply = send(addr, &Req::json(&list).header("Mcp-Session-Id", "nope")).await;
    assert_eq!(reply.status, 404);
}

#[tokio::test]
async fn legacy_only_server_requires_the_session() {
    let server = start_http(config_eras(&[], Eras::Legacy)).await;
    let addr = server.local_addr();
    let reply = send(addr, &Req::json(&request(1, "tools/list", json!({})))).await;
    assert_eq!((reply.status, code_of(&reply)), (400, -32600));
    let _ = legacy_session(addr, "2025-03-26").await;
}

#[tokio::test]
async fn delete_terminates_the_session() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let id = legacy_session(addr, "2025-06-18").await;
    let delete = Req::new("DELETE", b"").header("Mcp-Session-Id", &id);
    assert_eq!(send(addr, &delete).await.status, 200);
    assert_eq!(send(addr, &delete).await.status, 404);
    let list = Req::json(&request(2, "tools/list", json!({}))).header("Mcp-Session-Id", &id);
    assert_eq!(send(addr, &list).await.status, 404);
}

#[tokio::test]
async fn get_streams_server_messages_with_unique_ids() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let id = legacy_session(addr, "2025-06-18").await;
    let get = Req::new("GET", b"")
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", &id);
    let mut stream = Stream::open(addr, &get).await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    // The post-handshake ping waited for the stream.
    let ping = stream.next_event().await.unwrap();
    assert_eq!(ping.json()["method"], "ping");
    let first_id = ping.id.clone().unwrap();
    // The client answers it with a POST: 202.
    let answer = json!({"jsonrpc": "2.0", "id": ping.json()["id"], "result": {}});
    let reply = send(addr, &Req::json(&answer).header("Mcp-Session-Id", &id)).await;
    assert_eq!(reply.status, 202);
    assert!(reply.body.is_empty());
    // One stream at a time.
    assert_eq!(send(addr, &get).await.status, 409);
    // A second session's handshake never shows up here, and DELETE ends the stream.
    let _ = legacy_session(addr, "2025-06-18").await;
    let delete = Req::new("DELETE", b"").header("Mcp-Session-Id", &id);
    assert_eq!(send(addr, &delete).await.status, 200);
    assert_eq!(stream.next_event().await, None);
    assert!(!first_id.is_empty());
}

#[tokio::test]
async fn batches_only_on_a_2025_03_26_session() {
    let server = start_http(Config::default()).await;
    let addr = server.local_addr();
    let batch = json!([
        request(2, "tools/list", json!({})),
        request(3, "ping", json!({}))
    ]);
    let old = legacy_session(addr, "2025-03-26").await;
    let reply = send(addr, &Req::json(&batch).header("Mcp-Session-Id", &old)).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json().as_array().map(Vec::len), Some(2));
    let new = legacy_session(addr, "2025-06-18").await;
    let reply = send(addr, &Req::json(&batch).header("Mcp-Session-Id", &new)).await;
    assert_eq!((reply.status, code_of(&reply)), (400, -32600));
}

// --- embedding and the binary --------------------------------------------------------------

#[tokio::test]
async fn the_probe_log_spans_requests_and_shutdown_is_bounded() {
    let server = start_http(Config {
        probe_profile: true,
        ..Config::default()
    })
    .await;
    let addr = server.local_addr();
    assert!(server.url().ends_with("/mcp"));
    let _ = send(addr, &Req::modern(&modern(1, "tools/list", json!({})))).await;
    let call = modern(2, "tools/call", json!({"name": "mcpspec_probe_log"}));
    let log = send(addr, &Req::modern(&call)).await.json();
    let entries = log["result"]["structuredContent"]["entries"].clone();
    assert_eq!(entries[0]["method"], "tools/list", "{log}");
    server.shutdown().await.unwrap();
}

#[test]
fn the_binary_prints_its_address_and_serves() {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-reference-server"))
        .args(["--http", "127.0.0.1:0"])
        .stderr(std::process::Stdio::piped())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stderr).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(WAIT).expect("no address line within 2 s");
    let url = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("{line:?}"));
    let addr: std::net::SocketAddr = url.strip_suffix("/mcp").unwrap().parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reply = runtime.block_on(send(
        addr,
        &Req::modern(&modern(1, "tools/list", json!({}))),
    ));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(reply.status, 200);
}
