//! The driver against scripted servers that reproduce odd behaviour byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::Instant;

use super::*;
use crate::transport::{LineReader, LineTransport, ServerHandle};

/// A server that answers each line it reads with what `answer` returns for it (raw bytes,
/// written as they are).
fn scripted(answer: impl Fn(&Value) -> Vec<u8> + Send + 'static) -> Peer {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (mut server_out, client_in) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(async move {
        let mut lines = BufReader::new(server_in).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            server_out.write_all(&answer(&message)).await?;
        }
        Ok(())
    });
    let transport = LineTransport::new(
        Box::new(client_out),
        LineReader::new(Box::new(client_in), 1 << 20),
        ServerHandle::task(task),
    );
    let settings = Settings {
        expect_timeout: Duration::from_millis(300),
        startup_timeout: Duration::ZERO,
        quiet: Duration::from_millis(100),
        ..Settings::default()
    };
    Peer::new(
        transport,
        Recorder::default(),
        1,
        Era::Modern,
        Arc::new(settings),
    )
}

fn reply_to(message: &Value, body: &str) -> Vec<u8> {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{},{body}}}\n", message["id"]).into_bytes()
}

#[tokio::test]
async fn a_verdict_quotes_the_reply_it_judged_byte_for_byte_and_names_its_entry() {
    // Keys in the server's own order and spacing: the quote is the bytes, not a re-encoding.
    let mut peer = scripted(|m| {
        format!(
            "{{\"jsonrpc\": \"2.0\", \"id\": {}, \"error\": {{\"code\": -32601, \"message\": \"{}\"}}}}\n",
            m["id"],
            "x".repeat(300)
        )
        .into_bytes()
    });
    let reply = peer.call(request("ping")).await;
    let verdict = reply.expect_result("ping").unwrap_err();
    let evidence = verdict
        .evidence
        .clone()
        .expect("a Fail from a reply carries evidence");
    // Entry 1 is the request, entry 2 the reply.
    assert_eq!((evidence.entry, evidence.conn), (2, 1));
    assert!(
        evidence
            .quote
            .starts_with(r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601"#),
        "{}",
        evidence.quote
    );
    assert!(evidence.quote.ends_with('…') && evidence.quote.len() <= 200 + '…'.len_utf8());
    let text = verdict.full_message();
    assert!(
        text.contains("[judged: transcript entry 2 (connection 1): {\"jsonrpc\": \"2.0\""),
        "{text}"
    );
    // The recorder knows it too: a verdict built without the reply gets the same evidence.
    assert_eq!(peer.rec.evidence(), Some(evidence));
}

#[tokio::test]
async fn a_no_reply_verdict_points_at_the_timeout() {
    let mut peer = scripted(|_| Vec::new());
    let reply = peer.call(request("ping")).await;
    assert!(matches!(reply, Reply::NoReply { .. }), "{reply:?}");
    let evidence = peer.rec.evidence().expect("evidence for silence");
    assert_eq!(evidence.entry, 2);
    assert_eq!(
        evidence.quote,
        "nothing: waited 300 ms for the reply to id 1"
    );
}

#[tokio::test]
async fn a_notification_after_a_reply_is_not_a_reply() {
    let mut peer = scripted(|m| {
        let mut out = reply_to(m, r#""result":{}"#);
        out.extend_from_slice(
            b"{\"method\":\"notifications/tools/list_changed\",\"jsonrpc\":\"2.0\"}\n",
        );
        out
    });
    assert!(peer.call(request("ping")).await.result().is_some());
    assert!(peer.unasked_replies().await.is_empty());
}

#[tokio::test]
async fn an_idless_error_to_a_readable_id_is_a_wrong_id_not_silence() {
    let mut peer = scripted(|_| {
        b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Invalid Request\"}}\n"
            .to_vec()
    });
    let reply = peer.call(request("ping").jsonrpc(json!("1.0"))).await;
    assert!(matches!(reply, Reply::IdLess { .. }), "{reply:?}");
    assert!(reply.error().is_none());
    let text = reply.describe();
    assert!(
        text.contains("without an id") && text.contains("RPC-3"),
        "{text}"
    );
}

#[tokio::test]
async fn an_idless_error_before_the_real_reply_is_left_for_later() {
    let mut peer = scripted(|m| {
        let mut out =
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"x\"}}\n"
                .to_vec();
        out.extend(reply_to(m, r#""result":{}"#));
        out
    });
    let reply = peer.call(request("ping")).await;
    assert!(reply.result().is_some(), "{reply:?}");
    let left = peer.unasked_replies().await;
    assert_eq!(left.len(), 1);
    assert!(matches!(
        left[0].parsed,
        Ok(Message::Error { id: None, .. })
    ));
}

#[tokio::test]
async fn a_reply_too_deep_to_parse_is_said_to_be_unreadable() {
    let mut peer = scripted(|m| {
        let deep = format!("{}1{}", "[".repeat(200_000), "]".repeat(200_000));
        reply_to(m, &format!("\"result\":{deep}"))
    });
    let reply = peer.call(request("ping")).await;
    let text = reply.describe();
    assert!(
        text.starts_with("a reply mcpspec could not read, because it is nested 200001 levels deep"),
        "{text}"
    );
}

#[tokio::test]
async fn a_burst_of_server_requests_cannot_stretch_a_wait() {
    // 5000 server→client requests per line read, and never the reply.
    let mut peer = scripted(|_| {
        (0..5000)
            .flat_map(|i| {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":\"s-{i}\",\"method\":\"roots/list\"}}\n")
                    .into_bytes()
            })
            .collect()
    });
    let started = Instant::now();
    let reply = peer.call(request("ping")).await;
    assert!(matches!(reply, Reply::NoReply { .. }), "{reply:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(peer.server_request_count() > MAX_SERVER_REQUESTS_KEPT as u64);
    assert!(peer.server_requests.len() <= MAX_SERVER_REQUESTS_KEPT);
}
