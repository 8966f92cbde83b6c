//! The driver against scripted servers that reproduce odd behaviour byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::Instant;

use super::*;
use mcpspec_core::transport::{LineReader, LineTransport, ServerHandle};

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
    quick_peer(transport)
}

/// A modern-era peer on `transport` with short waits (a scripted server answers at once).
fn quick_peer(transport: LineTransport) -> Peer {
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
    let timeout = peer
        .rec
        .entries()
        .into_iter()
        .find(|e| matches!(e.event, Event::Timeout { .. }))
        .expect("the timeout is recorded");
    assert_eq!(evidence.entry, timeout.seq);
    // The wait and its late-reply grace (POL-24).
    assert_eq!(
        evidence.quote,
        "nothing: waited 600 ms for the reply to id 1"
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

/// A server that sleeps `start` before its first read and `delay` before each answer; it
/// answers every request with an empty result.
fn slow(start: Duration, delay: Duration, settings: Settings) -> Peer {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (mut server_out, client_in) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(async move {
        tokio::time::sleep(start).await;
        let mut lines = BufReader::new(server_in).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("id").is_none() {
                continue;
            }
            tokio::time::sleep(delay).await;
            server_out
                .write_all(&reply_to(&message, r#""result":{}"#))
                .await?;
        }
        Ok(())
    });
    let transport = LineTransport::new(
        Box::new(client_out),
        LineReader::new(Box::new(client_in), 1 << 20),
        ServerHandle::task(task),
    );
    Peer::new(
        transport,
        Recorder::default(),
        1,
        Era::Modern,
        Arc::new(settings),
    )
}

fn quick() -> Settings {
    Settings {
        expect_timeout: Duration::from_millis(300),
        startup_timeout: Duration::ZERO,
        quiet: Duration::from_millis(100),
        ..Settings::default()
    }
}

#[tokio::test]
async fn a_reply_50_ms_after_the_deadline_is_late_not_missing() {
    let mut peer = slow(Duration::ZERO, Duration::from_millis(350), quick());
    let reply = peer.call(request("ping")).await;
    let Reply::Late {
        latency, waited, ..
    } = &reply
    else {
        panic!("{reply:?}")
    };
    assert!(*latency >= Duration::from_millis(350), "{latency:?}");
    assert_eq!(*waited, Duration::from_millis(300));
    // Its content is judged as usual.
    assert_eq!(reply.result(), Some(&json!({})));
    assert_eq!(reply.describe(), "a result {}");
    let lates = peer.rec.lates();
    assert_eq!(lates.len(), 1);
    assert_eq!(lates[0].id, "1");
    // The runner's verdict: a pass becomes NonStrict, naming the latency; a Fail stands.
    let ms = latency.as_millis();
    let verdict = crate::runner::slow_is_not_silent(
        crate::outcome::Outcome::pass("ping answered"),
        &lates,
        None,
    );
    assert_eq!(verdict.kind, crate::outcome::Kind::NonStrict);
    assert_eq!(
        verdict.message,
        format!(
            "late ({ms} ms): the reply to id 1 came after its 0.3 s wait (POL-24); ping answered"
        )
    );
    let failed = crate::runner::slow_is_not_silent(
        crate::outcome::Outcome::fail("wrong result"),
        &lates,
        None,
    );
    assert_eq!(failed.kind, crate::outcome::Kind::Fail);
    assert_eq!(
        failed.message,
        format!(
            "wrong result (late ({ms} ms): the reply to id 1 came after its 0.3 s wait, POL-24)"
        )
    );
    let note = peer.rec.entries().into_iter().any(|e| {
        matches!(&e.event, Event::Note { text } if text.starts_with("the reply to id 1 came late: "))
    });
    assert!(note, "{:?}", peer.rec.entries());
}

#[tokio::test]
async fn a_reply_that_never_comes_is_no_reply_within_the_wait_and_its_grace() {
    let mut peer = slow(Duration::ZERO, Duration::from_secs(30), quick());
    let started = Instant::now();
    let reply = peer.call(request("ping")).await;
    assert!(matches!(reply, Reply::NoReply { .. }), "{reply:?}");
    // 0.3 s, then a grace of one more expected-message timeout.
    assert_eq!(reply.describe(), "no reply within 0.6 s");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(peer.rec.lates().is_empty());
}

#[tokio::test]
async fn the_grace_stops_short_of_the_scenario_cap() {
    let mut peer = slow(Duration::ZERO, Duration::from_secs(30), quick());
    // When the 0.3 s wait ends 0.5 s are left: less one timeout for the check to finish, the
    // grace is 0.2 s.
    peer.rec
        .set_ends(Instant::now() + Duration::from_millis(800));
    let reply = peer.call(request("ping")).await;
    assert_eq!(reply.describe(), "no reply within 0.5 s");
}

#[tokio::test]
async fn silence_before_any_answer_proves_nothing() {
    // Sleeps 1.5 s before reading: at first it is silent because it is not up yet.
    let settings = Settings {
        startup_timeout: Duration::from_secs(5),
        ..quick()
    };
    let mut peer = slow(
        Duration::from_millis(1500),
        Duration::ZERO,
        settings.clone(),
    );
    peer.send(notification("notifications/initialized")).await;
    assert!(peer.expect_silence().await.is_none());
    let what = peer.rec.unready_silence();
    assert_eq!(what.as_deref(), Some("silence"));
    // A pass resting on it is an Error, never a pass; a Fail stands.
    let verdict = crate::runner::slow_is_not_silent(
        crate::outcome::Outcome::pass("the notification got no reply"),
        &[],
        what.clone(),
    );
    assert_eq!(verdict.kind, crate::outcome::Kind::Error);
    assert!(
        verdict.message.starts_with(
            "silence was judged before the server answered any request, so it proves nothing"
        ),
        "{}",
        verdict.message
    );
    let fail = crate::runner::slow_is_not_silent(crate::outcome::Outcome::fail("x"), &[], what);
    assert_eq!(fail.kind, crate::outcome::Kind::Fail);

    // Warmed up first, the same server's silence is evidence.
    let mut peer = slow(Duration::from_millis(1500), Duration::ZERO, settings);
    peer.warm_up()
        .await
        .expect("the warm-up is answered after the slow start");
    assert!(peer.has_answered());
    peer.send(notification("notifications/initialized")).await;
    assert!(peer.expect_silence().await.is_none());
    assert!(peer.unasked_replies().await.is_empty());
    assert_eq!(peer.rec.unready_silence(), None);
}

#[tokio::test]
async fn a_line_written_unasked_is_not_an_answer() {
    let mut peer = scripted(|_| Vec::new());
    peer.send(notification("notifications/initialized")).await;
    let _ = peer.expect_silence().await;
    assert!(!peer.has_answered());
    assert!(peer.rec.unready_silence().is_some());
}

#[tokio::test]
async fn a_legacy_warm_up_is_a_ping() {
    let mut peer = scripted(|m| {
        assert_eq!(m["method"], "ping");
        reply_to(m, r#""result":{}"#)
    });
    peer.era = Era::Legacy;
    peer.warm_up().await.expect("ping answered");
    assert!(peer.has_answered());
}

/// A scripted HTTP endpoint: each POSTed request gets one exchange, status `status`, whose
/// body is an id-null message with `body`'s members (the typed event the HTTP transport posts).
fn over_http(status: u16, body: &'static str) -> Peer {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (events, inbound) = tokio::sync::mpsc::channel(16);
    let task = tokio::spawn(async move {
        let mut lines = BufReader::new(server_in).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let exchange = mcpspec_core::transport::Exchange {
                http: mcpspec_core::wire::HttpContext {
                    status,
                    request_id: Some(message["id"].clone()),
                },
                body: mcpspec_core::transport::ExchangeBody::Message(
                    format!("{{\"jsonrpc\":\"2.0\",\"id\":null,{body}}}").into_bytes(),
                ),
            };
            if events.send(Recv::Exchange(exchange)).await.is_err() {
                break;
            }
        }
        Ok(())
    });
    let transport =
        LineTransport::over_exchanges(Box::new(client_out), inbound, ServerHandle::task(task));
    quick_peer(transport)
}

#[tokio::test]
async fn an_id_null_error_in_a_4xx_answers_its_post_and_is_remembered_for_pol_29() {
    let mut peer = over_http(
        400,
        r#""error":{"code":-32020,"message":"Header mismatch"}"#,
    );
    let reply = peer.call(request("tools/list")).await;
    assert_eq!(reply.error().map(|e| e.code), Some(-32020), "{reply:?}");
    assert_eq!(peer.rec.null_ids(), [("1".to_owned(), 400)]);
}

#[tokio::test]
async fn an_id_null_reply_in_a_200_has_the_wrong_id() {
    let mut peer = over_http(200, r#""result":{"tools":[]}"#);
    let reply = peer.call(request("tools/list")).await;
    assert!(matches!(reply, Reply::IdLess { .. }), "{reply:?}");
    assert!(
        reply.describe().contains("a result without an id")
            && reply.describe().contains("POL-29: in an HTTP 200 response"),
        "{}",
        reply.describe()
    );
    assert!(peer.rec.null_ids().is_empty());
}

// Fenced waits (driver/fence.rs): silence after input that may get no answer is judged once
// the server has answered a later request, not after the whole wait.

/// A server that reads lines in order and answers each one `answer` gives bytes for, after
/// `delay` (a line it gives nothing for is ignored); `stall_after` lines in, it stops reading.
fn ordered(
    answer: impl Fn(&str) -> Vec<u8> + Send + 'static,
    delay: Duration,
    stall_after: usize,
    settings: Settings,
) -> Peer {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (mut server_out, client_in) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(async move {
        let mut lines = BufReader::new(server_in).lines();
        let mut read = 0;
        while let Ok(Some(line)) = lines.next_line().await {
            read += 1;
            if read > stall_after {
                std::future::pending::<()>().await;
            }
            let out = answer(&line);
            if !out.is_empty() {
                tokio::time::sleep(delay).await;
                server_out.write_all(&out).await?;
            }
        }
        Ok(())
    });
    let transport = LineTransport::new(
        Box::new(client_out),
        LineReader::new(Box::new(client_in), 1 << 20),
        ServerHandle::task(task),
    );
    let mut peer = Peer::new(
        transport,
        Recorder::default(),
        1,
        Era::Modern,
        Arc::new(settings),
    );
    peer.assume_heard();
    peer
}

/// Answers well-formed requests with an empty result; silent on anything else (the Python
/// SDK's way with invalid JSON and invalid Requests).
fn silent_on_malformed(line: &str) -> Vec<u8> {
    match serde_json::from_str::<Value>(line) {
        Ok(m) if m["method"].is_string() && m["jsonrpc"] == "2.0" && m.get("id").is_some() => {
            reply_to(&m, r#""result":{}"#)
        }
        _ => Vec::new(),
    }
}

/// A 2 s wait, as a run's default.
fn two_seconds() -> Settings {
    Settings {
        expect_timeout: Duration::from_secs(2),
        startup_timeout: Duration::ZERO,
        ..Settings::default()
    }
}

fn fences_sent(peer: &Peer) -> Vec<Value> {
    peer.rec
        .entries()
        .into_iter()
        .filter_map(|e| match e.event {
            Event::Send { message }
                if message["id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("mcpspec-fence-")) =>
            {
                Some(message)
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn silence_is_judged_once_a_later_request_is_answered_not_after_the_whole_wait() {
    let mut peer = ordered(
        silent_on_malformed,
        Duration::ZERO,
        usize::MAX,
        two_seconds(),
    );
    let started = Instant::now();
    peer.send(raw(&br#"{"jsonrpc":"2.0","id":1,"method":42}"#[..]))
        .await;
    let reply = peer.expect_next().await;
    let Reply::NoReply { waited, fenced, .. } = &reply else {
        panic!("{reply:?}")
    };
    // No answer within FENCE_AFTER: a fence; answered at once; FENCE_GRACE more.
    assert_eq!(*fenced, Some(fence::FENCE_AFTER));
    assert_eq!(*waited, fence::FENCE_AFTER + fence::FENCE_GRACE);
    assert_eq!(started.elapsed(), fence::FENCE_AFTER + fence::FENCE_GRACE);
    assert_eq!(
        reply.describe(),
        "no reply: the server answered a later request (a fence), so it had read the input, and \
         nothing came in the 100 ms after"
    );
    // The fence is a modern era's request the server must answer, under an id nothing else uses.
    let fences = fences_sent(&peer);
    assert_eq!(fences.len(), 1, "{fences:?}");
    assert_eq!(fences[0]["method"], "server/discover");
    // The verdict quotes the timeout, which names the wait that was made.
    let evidence = peer.rec.evidence().expect("evidence for silence");
    assert_eq!(
        evidence.quote,
        "nothing: waited 100 ms for any reply once the fence was answered"
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_that_answers_within_the_fence_delay_never_sees_a_fence() {
    let answer = |line: &str| match serde_json::from_str::<Value>(line) {
        Ok(m) if m["method"] == 42 => {
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"bad\"}}\n"
                .to_vec()
        }
        _ => silent_on_malformed(line),
    };
    let mut peer = ordered(answer, Duration::from_millis(90), usize::MAX, two_seconds());
    peer.send(raw(&br#"{"jsonrpc":"2.0","id":1,"method":42}"#[..]))
        .await;
    let reply = peer.expect_next().await;
    assert_eq!(reply.error().map(|e| e.code), Some(-32600), "{reply:?}");
    assert!(fences_sent(&peer).is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_answer_written_just_after_the_fence_s_is_still_the_reply_and_the_fence_is_read() {
    // Answers the malformed line only after it answered the next request (as a server whose
    // tasks finish out of order would), 30 ms later.
    let owed = Arc::new(std::sync::Mutex::new(false));
    let answer = move |line: &str| {
        let m: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let mut owed = owed.lock().unwrap();
        if m["method"] == 42 {
            *owed = true;
            return Vec::new();
        }
        let mut out = silent_on_malformed(line);
        if std::mem::take(&mut *owed) {
            out.extend_from_slice(
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"late"}}"#,
            );
            out.push(b'\n');
        }
        out
    };
    let mut peer = ordered(answer, Duration::ZERO, usize::MAX, two_seconds());
    peer.send(raw(&br#"{"jsonrpc":"2.0","id":1,"method":42}"#[..]))
        .await;
    let reply = peer.expect_next().await;
    assert_eq!(reply.error().map(|e| e.code), Some(-32600), "{reply:?}");
    assert_eq!(fences_sent(&peer).len(), 1);
    // The fence's answer was read with it: nothing is left for a later wait.
    assert!(peer.drain_backlog().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_fence_without_an_answer_proves_nothing_so_the_whole_wait_is_made() {
    // Reads the malformed line, then stops reading: the fence is never answered.
    let mut peer = ordered(silent_on_malformed, Duration::ZERO, 1, two_seconds());
    peer.send(raw(&br#"{"jsonrpc":"2.0","id":1,"method":42}"#[..]))
        .await;
    let reply = peer.expect_next().await;
    let Reply::NoReply { waited, fenced, .. } = &reply else {
        panic!("{reply:?}")
    };
    assert_eq!(*fenced, None);
    assert_eq!(*waited, Duration::from_secs(2));
    assert_eq!(reply.describe(), "no reply within 2 s");
    let note = peer.rec.entries().into_iter().any(
        |e| matches!(&e.event, Event::Note { text } if text.starts_with("the fence got no answer")),
    );
    assert!(note, "{:?}", peer.rec.entries());
}

#[tokio::test(start_paused = true)]
async fn an_invalid_request_awaited_by_id_is_fenced_without_a_late_grace() {
    let mut peer = ordered(
        silent_on_malformed,
        Duration::ZERO,
        usize::MAX,
        two_seconds(),
    );
    let reply = peer
        .call_fenced(request("ping").jsonrpc(json!("1.0")))
        .await;
    let Reply::NoReply { fenced, waited, .. } = &reply else {
        panic!("{reply:?}")
    };
    assert_eq!(*fenced, Some(fence::FENCE_AFTER));
    assert_eq!(*waited, fence::FENCE_AFTER + fence::FENCE_GRACE);
    assert!(peer.rec.lates().is_empty());
    // A well-formed request is never fenced: `call` waits its reply out, with the late grace.
    let mut peer = ordered(|_| Vec::new(), Duration::ZERO, usize::MAX, two_seconds());
    let reply = peer.call(request("ping")).await;
    assert_eq!(reply.describe(), "no reply within 4 s");
    assert!(fences_sent(&peer).is_empty());
}
