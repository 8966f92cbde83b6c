//! The initialize-handshake revisions, era selection and `--eras`.
use crate::support;

use mcp_reference_server::Eras;
use serde_json::{Value, json};
use support::*;

const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[tokio::test]
async fn supported_versions_are_echoed() {
    for version in LEGACY {
        let mut c = start(config(&[]));
        let r = c.call(initialize(1, version, "t")).await["result"].clone();
        assert_eq!(r["protocolVersion"], version);
        assert_eq!(r["serverInfo"]["name"], "mcp-reference-server");
        assert!(r["capabilities"]["tools"].is_object());
        assert_eq!(r["capabilities"]["resources"]["subscribe"], true);
        assert!(r.get("resultType").is_none() && r.get("_meta").is_none());
    }
}

#[tokio::test]
async fn unknown_versions_get_the_latest_legacy_counter_offer() {
    for version in ["2099-01-01", "2026-07-28", "not-a-version"] {
        let mut c = start(config(&[]));
        let r = c.call(initialize(1, version, "t")).await;
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{version}");
    }
    let mut c = start(config(&[]));
    let mut bad = initialize(1, "x", "t");
    bad["params"]["protocolVersion"] = json!(42);
    assert_eq!(error_code(&c.call(bad).await), -32602);
}

#[tokio::test]
async fn lifecycle_methods_after_the_handshake() {
    let mut c = start(config(&[]));
    c.initialize("2025-06-18").await;
    assert_eq!(
        c.call(request(2, "ping", json!({}))).await["result"],
        json!({})
    );
    let tools = c.call(request(3, "tools/list", json!({}))).await["result"].clone();
    assert!(
        tools["tools"].is_array()
            && tools.get("resultType").is_none()
            && tools.get("_meta").is_none()
    );
    let call = c
        .call(request(
            4,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        ))
        .await;
    assert_eq!(call["result"]["content"][0]["text"], "3");
    assert!(call["result"].get("resultType").is_none());
    let level = c
        .call(request(5, "logging/setLevel", json!({"level": "info"})))
        .await;
    assert_eq!(level["result"], json!({}));
    let bad_level = c
        .call(request(6, "logging/setLevel", json!({"level": "loud"})))
        .await;
    assert_eq!(error_code(&bad_level), -32602);
    let uri = json!({"uri": "mcpspec://reference/readme"});
    assert_eq!(
        c.call(request(7, "resources/subscribe", uri.clone())).await["result"],
        json!({})
    );
    assert_eq!(
        c.call(request(8, "resources/unsubscribe", uri.clone()))
            .await["result"],
        json!({})
    );
    let read = c.call(request(9, "resources/read", uri)).await;
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/plain");
    let missing = c
        .call(request(
            10,
            "resources/read",
            json!({"uri": "mcpspec://nope"}),
        ))
        .await;
    assert_eq!(error_code(&missing), -32002);
    let discover = c.call(modern(11, "server/discover", json!({}))).await;
    assert_eq!(
        error_code(&discover),
        -32601,
        "a legacy connection stays legacy"
    );
    let again = c.call(initialize(12, "2025-06-18", "t")).await;
    assert_eq!(error_code(&again), -32600);
}

#[tokio::test]
async fn initialized_is_not_answered_and_the_server_pings_once() {
    let mut c = start(config(&[]));
    c.call(initialize(1, "2025-11-25", "t")).await;
    c.send(notification("notifications/initialized", json!({})))
        .await;
    let ping = c.recv().await;
    assert_eq!(
        ping,
        json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
    );
    c.send(json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}}))
        .await;
    c.send(notification("notifications/initialized", json!({})))
        .await;
    c.expect_silence().await;
}

#[tokio::test]
async fn before_initialize() {
    // Both eras, undecided: ping answered, other requests -32602, nothing locked.
    let mut c = start(config(&[]));
    assert_eq!(
        c.call(request(1, "ping", json!({}))).await["result"],
        json!({})
    );
    assert_eq!(
        error_code(&c.call(request(2, "tools/list", json!({}))).await),
        -32602
    );
    assert!(c.call(initialize(3, "2025-06-18", "t")).await["result"].is_object());

    // Legacy only: "not initialized" is -32600, server/discover included.
    let mut c = start(config_eras(&[], Eras::Legacy));
    assert_eq!(
        c.call(request(1, "ping", json!({}))).await["result"],
        json!({})
    );
    assert_eq!(
        error_code(&c.call(request(2, "tools/list", json!({}))).await),
        -32600
    );
    assert_eq!(
        error_code(&c.call(modern(3, "server/discover", json!({}))).await),
        -32600
    );
    c.initialize("2025-06-18").await;
    assert_eq!(
        error_code(&c.call(modern(4, "server/discover", json!({}))).await),
        -32601
    );
}

#[tokio::test]
async fn modern_only_names_its_versions_to_initialize() {
    let mut c = start(config_eras(&[], Eras::Modern));
    let reply = c.call(initialize(1, "2025-06-18", "t")).await;
    assert_eq!(error_code(&reply), -32601);
    assert_eq!(reply["error"]["data"]["supported"], json!([MODERN]));
    assert!(c.call(modern(2, "server/discover", json!({}))).await["result"].is_object());
}

#[tokio::test]
async fn initialize_with_the_modern_envelope_is_32601_and_locks_modern() {
    let mut c = start(config(&[]));
    let mut init = initialize(1, "2025-06-18", "t");
    init["params"]["_meta"] = envelope();
    assert_eq!(error_code(&c.call(init).await), -32601);
    assert!(c.call(modern(2, "tools/list", json!({}))).await["result"]["resultType"].is_string());
}

#[tokio::test]
async fn batches_on_2025_03_26() {
    let mut c = start(config(&[]));
    c.initialize("2025-03-26").await;
    let batch = json!([
        request(2, "ping", json!({})),
        notification("notifications/whatever", json!({})),
        request(3, "no/such", json!({})),
        42,
        initialize(4, "2025-03-26", "t"),
    ]);
    let reply = c.call(batch).await;
    let items = reply.as_array().unwrap();
    let ids: Vec<&Value> = items.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!(2), &json!(3), &Value::Null, &json!(4)]);
    assert_eq!(items[0]["result"], json!({}));
    assert_eq!(items[1]["error"]["code"], -32601);
    assert_eq!(items[2]["error"]["code"], -32600);
    assert_eq!(items[3]["error"]["code"], -32600);
    // Notifications only: no reply at all. Empty: -32600.
    c.send(json!([notification("notifications/x", json!({}))]))
        .await;
    c.expect_silence().await;
    assert_eq!(error_code(&c.call(json!([])).await), -32600);
}

#[tokio::test]
async fn batches_rejected_on_later_revisions() {
    let mut c = start(config(&[]));
    c.initialize("2025-06-18").await;
    let reply = c.call(json!([request(2, "ping", json!({}))])).await;
    assert_eq!(error_code(&reply), -32600);
    assert!(reply["id"].is_null());
}

#[tokio::test]
async fn client_errors_to_server_requests_and_stray_responses_are_ignored() {
    let mut c = start(config(&[]));
    c.call(initialize(1, "2025-06-18", "t")).await;
    c.send(notification("notifications/initialized", json!({})))
        .await;
    let ping = c.recv().await;
    c.send(json!({"jsonrpc": "2.0", "id": ping["id"], "error": {"code": -32601, "message": "no"}}))
        .await;
    c.send(json!({"jsonrpc": "2.0", "id": "never-sent", "result": {}}))
        .await;
    c.expect_silence().await;
    assert_eq!(
        c.call(request(2, "ping", json!({}))).await["result"],
        json!({})
    );
}
