//! The 2026-07-28 era over an in-process stream.
use crate::support;

use serde_json::{Value, json};
use support::*;

fn server_info_of(result: &Value) -> &Value {
    &result["_meta"]["io.modelcontextprotocol/serverInfo"]
}

#[tokio::test]
async fn discover_result_shape() {
    let mut c = start(config(&[]));
    let reply = c.call(modern(1, "server/discover", json!({}))).await;
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], 1);
    let r = &reply["result"];
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["supportedVersions"], json!([MODERN]));
    assert!(r["capabilities"]["tools"].is_object());
    assert!(r["ttlMs"].as_u64().is_some());
    assert_eq!(r["cacheScope"], "public");
    assert_eq!(server_info_of(r)["name"], "mcp-reference-server");
    assert!(server_info_of(r)["version"].is_string());
    assert!(r.get("serverInfo").is_none());
    c.close().await.unwrap();
}

#[tokio::test]
async fn every_result_is_stamped() {
    let mut c = start(config(&[]));
    for (i, (method, params)) in [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
        ("resources/list", json!({})),
        (
            "resources/read",
            json!({"uri": "mcpspec://reference/readme"}),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = c.call(modern(i as i64, method, params)).await;
        assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
        assert!(server_info_of(&reply["result"]).is_object(), "{reply}");
    }
}

#[tokio::test]
async fn envelope_is_required_but_client_info_is_optional() {
    let mut c = start(config(&[]));
    // Lock the connection modern first, then violate one rule per request (POL-1).
    c.call(modern(0, "server/discover", json!({}))).await;
    let no_meta = request(1, "tools/list", json!({}));
    assert_eq!(error_code(&c.call(no_meta).await), -32602);
    let mut no_version = modern(2, "tools/list", json!({}));
    no_version["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/protocolVersion");
    assert_eq!(error_code(&c.call(no_version).await), -32602);
    let mut no_caps = modern(3, "tools/list", json!({}));
    no_caps["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    assert_eq!(error_code(&c.call(no_caps).await), -32602);
    let mut no_info = modern(4, "tools/list", json!({}));
    no_info["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientInfo");
    assert!(c.call(no_info).await["result"].is_object());
}

#[tokio::test]
async fn first_request_without_meta_gets_32602() {
    let mut c = start(config(&[]));
    let reply = c.call(request(1, "server/discover", json!({}))).await;
    assert_eq!(error_code(&reply), -32602);
    let reply = c.call(request(2, "tools/list", json!({}))).await;
    assert_eq!(error_code(&reply), -32602);
}

#[tokio::test]
async fn unsupported_version_gets_32022_with_data() {
    let mut c = start(config(&[]));
    for (id, version) in ["2099-01-01", "2025-11-25", "garbage"]
        .into_iter()
        .enumerate()
    {
        let mut msg = modern(id as i64, "server/discover", json!({}));
        msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(version);
        let reply = c.call(msg).await;
        assert_eq!(error_code(&reply), -32022, "{reply}");
        assert_eq!(reply["error"]["data"]["supported"], json!([MODERN]));
        assert_eq!(reply["error"]["data"]["requested"], version);
    }
}

#[tokio::test]
async fn removed_and_unknown_methods_get_32601() {
    let mut c = start(config(&[]));
    for (id, method) in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "no/such/method",
    ]
    .into_iter()
    .enumerate()
    {
        let reply = c.call(modern(id as i64, method, json!({}))).await;
        assert_eq!(error_code(&reply), -32601, "{method}: {reply}");
    }
    let reply = c.call(modern(99, "initialize", json!({}))).await;
    assert_eq!(reply["error"]["data"]["supported"], json!([MODERN]));
}

#[tokio::test]
async fn tools_list_is_deterministic_with_schemas() {
    let mut c = start(config(&[]));
    let a = c.call(modern(1, "tools/list", json!({}))).await;
    let b = c.call(modern(2, "tools/list", json!({}))).await;
    assert_eq!(a["result"]["tools"], b["result"]["tools"]);
    let names: Vec<&str> = a["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "add", "showcase"]);
    for tool in a["result"]["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object");
    }
    assert_eq!(a["result"]["cacheScope"], "public");
}

#[tokio::test]
async fn tools_call_paths() {
    let mut c = start(config(&[]));
    let echo = c
        .call(modern(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hé"}}),
        ))
        .await;
    assert_eq!(
        echo["result"]["content"],
        json!([{"type": "text", "text": "hé"}])
    );
    let add = c
        .call(modern(
            2,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 40}}),
        ))
        .await;
    assert_eq!(add["result"]["content"][0]["text"], "42");
    let bad = c
        .call(modern(
            3,
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x"}}),
        ))
        .await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    let unknown = c
        .call(modern(
            4,
            "tools/call",
            json!({"name": "mcpspec-no-such-tool-7f3a"}),
        ))
        .await;
    assert_eq!(error_code(&unknown), -32602);
    let nameless = c.call(modern(5, "tools/call", json!({}))).await;
    assert_eq!(error_code(&nameless), -32602);
    let missing = c
        .call(modern(
            6,
            "resources/read",
            json!({"uri": "mcpspec://nope"}),
        ))
        .await;
    assert_eq!(error_code(&missing), -32602);
}

#[tokio::test]
async fn parse_error_then_still_alive() {
    let mut c = start(config(&[]));
    c.send_raw("{oops").await;
    let reply = c.recv().await;
    assert_eq!(error_code(&reply), -32700);
    assert_eq!(reply["id"], Value::Null);
    c.send_raw("\u{0}\u{1}not json").await;
    assert_eq!(error_code(&c.recv().await), -32700);
    let alive = c.call(modern(1, "tools/list", json!({}))).await;
    assert!(alive["result"].is_object());
}

#[tokio::test]
async fn invalid_requests_get_32600() {
    let mut c = start(config(&[]));
    for (line, id) in [
        (r#"42"#, Value::Null),
        (r#""str""#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":1}"#, json!(1)),
        (r#"{"jsonrpc":"2.0","id":2,"method":7}"#, json!(2)),
        (
            r#"{"jsonrpc":"1.0","id":3,"method":"tools/list"}"#,
            json!(3),
        ),
        (r#"{"id":4,"method":"tools/list"}"#, json!(4)),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"tools/list"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#,
            Value::Null,
        ),
        (
            r#"[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]"#,
            Value::Null,
        ),
        (r#"[]"#, Value::Null),
    ] {
        c.send_raw(line).await;
        let reply = c.recv().await;
        assert_eq!(error_code(&reply), -32600, "{line}: {reply}");
        assert_eq!(reply["id"], id, "{line}");
        assert!(reply.get("result").is_none());
    }
}

#[tokio::test]
async fn notifications_never_get_replies() {
    let mut c = start(config(&[]));
    c.send(notification(
        "notifications/cancelled",
        json!({"requestId": 99}),
    ))
    .await;
    c.send(notification("notifications/whatever", json!({})))
        .await;
    c.send_raw(r#"{"jsonrpc":"1.0","method":"notifications/x"}"#)
        .await;
    c.send(notification("notifications/initialized", json!({})))
        .await;
    c.expect_silence().await;
}

#[tokio::test]
async fn ids_are_echoed_with_their_type() {
    let mut c = start(config(&[]));
    for id in [
        json!("abc"),
        json!("7"),
        json!(7),
        json!(-3),
        json!(9_007_199_254_740_993_u64),
    ] {
        let reply = c.call(modern(id.clone(), "tools/list", json!({}))).await;
        assert_eq!(reply["id"], id);
    }
}

#[tokio::test]
async fn interleaved_requests_answered_by_id() {
    let mut c = start(config(&[]));
    let ids: Vec<Value> = (0..20).map(|i| json!(format!("r{i}"))).collect();
    for (i, id) in ids.iter().enumerate() {
        let msg = if i % 2 == 0 {
            modern(
                id.clone(),
                "tools/call",
                json!({"name": "echo", "arguments": {"text": id}}),
            )
        } else {
            modern(id.clone(), "server/discover", json!({}))
        };
        c.send(msg).await;
    }
    let mut seen = Vec::new();
    for _ in 0..ids.len() {
        let reply = c.recv().await;
        assert!(reply["result"].is_object(), "{reply}");
        if let Some(text) = reply["result"]["content"][0]["text"].as_str() {
            assert_eq!(reply["id"], text);
        }
        seen.push(reply["id"].clone());
    }
    seen.sort_by_key(|v| v.to_string());
    let mut want = ids.clone();
    want.sort_by_key(|v| v.to_string());
    assert_eq!(seen, want);
}

#[tokio::test]
async fn one_line_per_message_and_exit_on_eof() {
    let mut c = start(config(&[]));
    c.send(modern(1, "tools/list", json!({}))).await;
    c.close_input();
    let lines = c.drain().await;
    assert_eq!(lines.len(), 1);
    assert!(lines[0].ends_with('\n') && !lines[0].trim_end().contains('\n'));
    tokio::time::timeout(WAIT, c.task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn crlf_and_blank_lines_are_tolerated() {
    let mut c = start(config(&[]));
    c.send_raw("").await;
    let line = format!("{}\r", modern(1, "tools/list", json!({})));
    c.send_raw(&line).await;
    assert!(c.recv().await["result"].is_object());
}

#[tokio::test]
async fn a_modern_connection_stays_modern() {
    let mut c = start(config(&[]));
    c.call(modern(1, "server/discover", json!({}))).await;
    let reply = c.call(initialize(2, "2025-06-18", "late-legacy")).await;
    assert_eq!(error_code(&reply), -32601, "{reply}");
}
