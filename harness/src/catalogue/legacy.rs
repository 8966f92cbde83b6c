//! `legacy/*`: the initialize-handshake revisions — the handshake itself (LEG-1, LEG-2), the
//! lifecycle around it (LEG-3..7, LEG-14) and 2025-03-26 batches (RPC-10). No modern envelope
//! anywhere (POL-8). The checks that judge a session's handshake (its result, what came before
//! `initialized`, what answered it) or need only a session share one legacy session per
//! version (POL-21): the handshake is made once and written into each of their transcripts.
//! Those whose handshake is unusual (an unknown version, requests before it) start their own.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::prelude::*;
use crate::negotiation::initialize;
use mcpspec_core::wire::Message;

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "legacy/initialize/result-shape",
            requirements: &["LEG-1"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "`initialize` as the first request is answered with an InitializeResult.",
            expectation: "`protocolVersion` (string), `capabilities` (object), `serverInfo` {name, version}",
            faults: &["initialize-bad-shape", "crash-on-initialize"],
            script: |s| Box::pin(result_shape(s)),
        },
        Check {
            id: "legacy/initialize/echoes-supported-version",
            requirements: &["LEG-2"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "A version the server just offered, requested on a fresh connection.",
            expectation: "the server echoes the version it itself offered",
            faults: &["initialize-wrong-version"],
            script: |s| Box::pin(echoes_supported_version(s)),
        },
        Check {
            id: "legacy/initialize/counter-offers-unknown-version",
            requirements: &["LEG-2", "POL-6"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::Legacy],
            description: "`initialize` asking for protocol version 2099-01-01.",
            expectation: "a result with a version the server supports; an error listing the \
                          supported versions is NonStrict; any other error is Fail",
            faults: &[
                "initialize-error-on-unknown-version",
                "initialize-internal-error-on-unknown-version",
            ],
            script: |s| Box::pin(counter_offers_unknown(s)),
        },
        Check {
            id: "legacy/lifecycle/initialized-not-answered",
            requirements: &["LEG-3", "RPC-4"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "`notifications/initialized` after the handshake.",
            expectation: "no reply (server→client pings may follow and are answered)",
            faults: &["reply-to-initialized"],
            script: |s| Box::pin(initialized_not_answered(s)),
        },
        Check {
            id: "legacy/lifecycle/no-requests-before-initialized",
            requirements: &["LEG-3"],
            level: Level::Should,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "Between the InitializeResult and `notifications/initialized`.",
            expectation: "no server→client request other than ping or logging; others are NonStrict",
            faults: &["roots-before-initialized"],
            script: |s| Box::pin(no_requests_before_initialized(s)),
        },
        Check {
            id: "legacy/lifecycle/requests-before-initialize",
            requirements: &["LEG-4", "POL-18"],
            level: Level::Policy,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::Legacy],
            description: "`tools/list` (no envelope) before `initialize`.",
            expectation: "any error passes; a result is Info; silence is NonStrict",
            faults: &["silent-before-initialize"],
            script: |s| Box::pin(requests_before_initialize(s)),
        },
        Check {
            id: "legacy/lifecycle/capabilities-respected",
            requirements: &["LEG-5", "DISC-6"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "`resources/subscribe` on a listed resource, against the announced capabilities.",
            expectation: "served exactly when `capabilities.resources.subscribe` was announced",
            faults: &["legacy-wrong-capabilities"],
            script: |s| Box::pin(capabilities_respected(s)),
        },
        Check {
            id: "legacy/lifecycle/ping",
            requirements: &["LEG-6"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "`ping` after the handshake.",
            expectation: "a result `{}`",
            faults: &["no-ping"],
            script: |s| Box::pin(ping(s)),
        },
        Check {
            id: "legacy/lifecycle/invalid-cancellation-ignored",
            requirements: &["LEG-7", "STDIO-5"],
            level: Level::Should,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "`notifications/cancelled` for a request id never sent.",
            expectation: "no reply, and the server keeps serving",
            faults: &["answer-invalid-cancellation"],
            script: |s| Box::pin(invalid_cancellation_ignored(s)),
        },
        Check {
            id: "legacy/lifecycle/server-request-ids-unique",
            requirements: &["LEG-14"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "Server→client requests after the handshake.",
            expectation: "ids never null and never reused within the session",
            faults: &["reuse-server-request-ids"],
            script: |s| Box::pin(server_request_ids_unique(s)),
        },
        Check {
            id: "legacy/batch/accepted-2025-03-26",
            requirements: &["RPC-10"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "A batch of two requests in a 2025-03-26 session.",
            expectation: "one array reply answering both requests by id",
            faults: &["reject-batches-2025-03-26"],
            script: |s| Box::pin(batch_accepted_2025_03_26(s)),
        },
        Check {
            id: "legacy/batch/rejected-after-2025-03-26",
            requirements: &["RPC-10", "POL-4"],
            level: Level::Policy,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "A batch in a session of the server's newest legacy revision (2025-06-18+).",
            expectation: "one -32600 error; silence or processing is NonStrict",
            faults: &["process-batches"],
            script: |s| Box::pin(batch_rejected_after_2025_03_26(s)),
        },
        Check {
            id: "legacy/modern-only/initialize-names-versions",
            requirements: &["VER-5"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::ModernOnly],
            description: "A modern-only server receiving a legacy `initialize`.",
            expectation: "an error whose data names the supported versions",
            faults: &["modern-initialize-no-versions --eras modern"],
            script: |s| Box::pin(modern_only_names_versions(s)),
        },
    ]
}

/// A legacy session at `v` (initialize, then `notifications/initialized`): shared for a
/// shared-class check (POL-21). Returns the peer and the InitializeResult.
pub(crate) async fn handshake(s: &mut Scenario, v: &str) -> Result<(Peer, Value), Outcome> {
    let (peer, reply, _) = s.session(v).await?;
    let result = reply.expect_result("initialize")?.clone();
    Ok((peer, result))
}

fn offered(result: &Value) -> Option<&str> {
    result.get("protocolVersion").and_then(Value::as_str)
}

async fn result_shape(s: &mut Scenario) -> Verdict {
    let (_peer, reply, _) = s.session(s.options().legacy_revision()).await?;
    let result = reply.expect_result("initialize")?;
    let mut problems = Problems::new();
    if offered(result).is_none() {
        problems.push("protocolVersion is not a string");
    }
    if !result.get("capabilities").is_some_and(Value::is_object) {
        problems.push("capabilities is not an object");
    }
    let info = result.get("serverInfo");
    if !info
        .and_then(|i| i.get("name"))
        .is_some_and(Value::is_string)
        || !info
            .and_then(|i| i.get("version"))
            .is_some_and(Value::is_string)
    {
        problems.push("serverInfo {name, version} is missing");
    }
    Ok(problems.verdict("InitializeResult with protocolVersion, capabilities, serverInfo"))
}

async fn echoes_supported_version(s: &mut Scenario) -> Verdict {
    let (first, reply, _) = s.session(s.options().legacy_revision()).await?;
    let v = offered(reply.expect_result("initialize")?)
        .unwrap_or_default()
        .to_owned();
    drop(first);
    if v == s.options().legacy_revision() {
        return Ok(Outcome::pass(format!(
            "{v}, asked for, was echoed (the session's handshake)"
        )));
    }
    // The server offered `v`, so it supports `v`: asked for it, it must echo it.
    let mut second = s.connect_as(Era::Legacy).await?;
    let reply = initialize(&mut second, &v, "mcpspec").await;
    let answered = offered(reply.expect_result(&format!("initialize at {v}"))?)
        .unwrap_or_default()
        .to_owned();
    Ok(if answered == v {
        Outcome::pass(format!("{v} (which the server offered) was echoed"))
    } else {
        Outcome::fail(format!(
            "the server offered {v}, but asked for {v} it answered {answered} (LEG-2)"
        ))
    })
}

async fn counter_offers_unknown(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_as(Era::Legacy).await?;
    let reply = initialize(&mut peer, version::UNKNOWN, "mcpspec").await;
    if let Some(result) = reply.result() {
        return Ok(match offered(result) {
            Some(v) if version::LEGACY.contains(&v) => {
                Outcome::pass(format!("counter-offered {v}"))
            }
            Some(v) if v == version::UNKNOWN => Outcome::fail(format!(
                "echoed the unknown version {v} instead of one it supports"
            )),
            Some(v) => Outcome::fail(format!("counter-offered {v}, not a legacy revision")),
            None => Outcome::fail("the result has no protocolVersion"),
        });
    }
    Ok(match reply.error() {
        Some(e) if e.data.as_ref().and_then(|d| d.get("supported")).is_some() => {
            Outcome::non_strict(format!(
                "error {} listing the supported versions instead of a counter-offer (POL-6)",
                e.code
            ))
        }
        _ => Outcome::fail(format!(
            "initialize at {} got {} (LEG-2: counter-offer)",
            version::UNKNOWN,
            reply.describe()
        )),
    })
}

/// Replies that arrived on the peer other than those the check asked for (server notifications
/// are not replies: POL-23).
async fn stray_frames(peer: &mut Peer) -> Vec<String> {
    peer.unasked_replies()
        .await
        .iter()
        .map(|f| f.text())
        .collect()
}

async fn initialized_not_answered(s: &mut Scenario) -> Verdict {
    let (_peer, reply, session) = s.session(s.options().legacy_revision()).await?;
    reply.expect_result("initialize")?;
    // The session's handshake sent `initialized`, then a ping whose round trip orders any reply
    // to it before the ping's.
    Ok(match session.stray_replies.first() {
        None => Outcome::pass("notifications/initialized got no reply"),
        Some(f) => Outcome::fail(format!(
            "notifications/initialized got a reply: {}",
            crate::driver::shorten(f, 160)
        )),
    })
}

async fn no_requests_before_initialized(s: &mut Scenario) -> Verdict {
    let (_peer, reply, session) = s.session(s.options().legacy_revision()).await?;
    reply.expect_result("initialize")?;
    // The session's handshake waited a quiet period after the result before `initialized`.
    Ok(match session.early_requests.first() {
        None => Outcome::pass("no server→client request before notifications/initialized"),
        Some(m) => Outcome::non_strict(format!(
            "the server sent `{m}` before notifications/initialized (LEG-3)"
        )),
    })
}

async fn requests_before_initialize(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_as(Era::Legacy).await?;
    // A pre-initialize ping shows the server is up, so silence afterwards means something.
    let alive = peer.call(request(method::PING)).await;
    if alive.frame().is_none() {
        return Ok(Outcome::skipped(format!(
            "the pre-initialize ping got {}; see deadlock/initialize",
            alive.describe()
        )));
    }
    let reply = peer.call(request(method::TOOLS_LIST)).await;
    // Over HTTP a session-less request is refused by the transport before any JSON-RPC is read
    // (2025-03-26 transports: SHOULD 400): that is an error answer too (POL-18).
    let refused = reply.frame().and_then(|f| match (&f.parsed, &f.http) {
        (Err(mcpspec_core::wire::DecodeError::Http(_)), Some(h))
            if (400..500).contains(&h.status) =>
        {
            Some(h.status)
        }
        _ => None,
    });
    Ok(match (&reply, reply.error(), reply.result()) {
        (_, Some(e), _) => Outcome::pass(format!("tools/list before initialize: error {}", e.code)),
        _ if refused.is_some() => Outcome::pass(format!(
            "tools/list before initialize was refused by the HTTP transport: {} (POL-18: any \
             error passes)",
            reply.describe()
        )),
        (_, _, Some(_)) => {
            Outcome::info("tools/list before initialize was served (LEG-4 leaves it open)")
        }
        (Reply::NoReply { .. }, _, _) => Outcome::non_strict(format!(
            "tools/list before initialize got {} (POL-18: clients need an answer)",
            reply.describe()
        )),
        _ => Outcome::fail(format!(
            "tools/list before initialize got {}",
            reply.describe()
        )),
    })
}

async fn capabilities_respected(s: &mut Scenario) -> Verdict {
    let (mut peer, result) = handshake(s, s.options().legacy_revision()).await?;
    let announced = result.pointer("/capabilities/resources/subscribe") == Some(&json!(true));
    let listed = peer.call(request(method::RESOURCES_LIST)).await;
    let uri = listed
        .result()
        .and_then(|r| r.get("resources"))
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(|r| r.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(uri) = uri else {
        return Ok(Outcome::skipped(format!(
            "no resource listed to subscribe to (resources/list got {})",
            listed.describe()
        )));
    };
    let reply = peer
        .call(request(method::RESOURCES_SUBSCRIBE).param("uri", json!(uri)))
        .await;
    Ok(match (announced, reply.result().is_some()) {
        (true, true) => Outcome::pass("subscribe announced and served"),
        (false, false) if reply.error().is_some() => {
            Outcome::pass("subscribe not announced and refused")
        }
        (false, true) => Outcome::fail(
            "resources/subscribe is served but `resources.subscribe` was not announced (LEG-5)",
        ),
        (true, false) => Outcome::fail(format!(
            "`resources.subscribe` announced, but resources/subscribe got {}",
            reply.describe()
        )),
        (false, false) => Outcome::fail(format!("resources/subscribe got {}", reply.describe())),
    })
}

async fn ping(s: &mut Scenario) -> Verdict {
    let (mut peer, _) = handshake(s, s.options().legacy_revision()).await?;
    let reply = peer.call(request(method::PING)).await;
    let result = reply.expect_result("ping")?;
    Ok(
        if result
            .as_object()
            .is_some_and(|o| o.keys().all(|k| k == "_meta"))
        {
            Outcome::pass("ping answered with {}")
        } else {
            Outcome::fail(format!("ping answered with {result}, expected {{}}"))
        },
    )
}

async fn invalid_cancellation_ignored(s: &mut Scenario) -> Verdict {
    let (mut peer, _) = handshake(s, s.options().legacy_revision()).await?;
    peer.send(notification(method::CANCELLED).param("requestId", json!("mcpspec-never-sent")))
        .await;
    let reply = peer.call(request(method::PING)).await;
    reply.expect_result("ping after the cancellation")?;
    let extra = stray_frames(&mut peer).await;
    Ok(match extra.first() {
        None => Outcome::pass("the invalid cancellation was ignored"),
        Some(f) => Outcome::non_strict(format!(
            "the invalid cancellation got a reply: {}",
            crate::driver::shorten(f, 160)
        )),
    })
}

async fn server_request_ids_unique(s: &mut Scenario) -> Verdict {
    let (mut peer, reply, session) = s.session(s.options().legacy_revision()).await?;
    reply.expect_result("initialize")?;
    peer.call(request(method::PING)).await;
    let _ = peer.expect_silence().await;
    let mut seen = BTreeSet::new();
    // The session's handshake's server→client requests, then this check's.
    let ids = session.server_request_ids.iter().cloned().chain(
        peer.server_requests
            .iter()
            .map(|f| f.raw_id().cloned().unwrap_or(Value::Null)),
    );
    for id in ids {
        if id.is_null() {
            return Ok(Outcome::fail("a server→client request with a null id"));
        }
        if !seen.insert(id.to_string()) {
            return Ok(Outcome::fail(format!(
                "the server reused request id {id} within the session (LEG-14)"
            )));
        }
    }
    Ok(Outcome::pass(format!(
        "{} server→client request(s), ids unique",
        seen.len()
    )))
}

async fn batch_accepted_2025_03_26(s: &mut Scenario) -> Verdict {
    const V: &str = "2025-03-26";
    if let Some(revision) = s.options().revision.filter(|r| *r != V) {
        return Ok(Outcome::skipped(format!(
            "judges {V}; the run judges revision {revision} (--revision)"
        )));
    }
    let (mut peer, result) = handshake(s, V).await?;
    if offered(&result) != Some(V) {
        return Ok(Outcome::skipped(format!(
            "the server does not serve {V} (it offered {:?})",
            offered(&result)
        )));
    }
    peer.send(raw(&br#"[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]"#[..])).await;
    let want: BTreeSet<String> = ["\"b1\"".to_owned(), "\"b2\"".to_owned()].into();
    let mut answered: BTreeSet<String> = BTreeSet::new();
    // Replies may come as one array or spread over several messages (several SSE events of one
    // stream, POL-27): every reply counts. The first is awaited with its silence fenced (a
    // server that answers nothing is known to have read the batch); the rest follow it.
    let mut separate = false;
    let first = peer.expect_next().await;
    let mut next = match first {
        Reply::Frame(f) => Some(f),
        Reply::Closed { .. } => {
            return Ok(Outcome::fail("the server closed its output after a batch"));
        }
        other => {
            return Ok(Outcome::fail(format!(
                "a 2025-03-26 batch got {}",
                other.describe()
            )));
        }
    };
    let deadline = tokio::time::Instant::now() + peer.settings().expect_timeout;
    while answered != want {
        let f = match next.take() {
            Some(f) => f,
            None => match peer.next(deadline).await {
                Incoming::Frame(f) => f,
                Incoming::TimedOut => {
                    return Ok(Outcome::fail(format!(
                        "the batch replies answer ids {answered:?} only, expected b1 and b2"
                    )));
                }
                Incoming::Closed => {
                    return Ok(Outcome::fail("the server closed its output after a batch"));
                }
            },
        };
        match &f.parsed {
            Ok(Message::Batch(items)) => {
                answered.extend(
                    items
                        .iter()
                        .filter_map(|m| m.as_ref().ok()?.reply_id().map(ToString::to_string)),
                );
            }
            Ok(Message::Error {
                error, id: None, ..
            }) => {
                return Ok(Outcome::fail(format!(
                    "a 2025-03-26 batch got error {} (RPC-10: must be accepted)",
                    error.code
                )));
            }
            Ok(m @ (Message::Response { .. } | Message::Error { .. })) => {
                separate = true;
                answered.extend(m.reply_id().map(ToString::to_string));
            }
            // An HTTP answer without a JSON-RPC body is what came, not silence.
            Err(mcpspec_core::wire::DecodeError::Http(why)) => {
                return Ok(Outcome::fail(format!(
                    "a 2025-03-26 batch got no JSON-RPC reply: {why} (RPC-10: must be accepted)"
                )));
            }
            _ => {}
        }
    }
    Ok(match (separate, s.endpoint().is_some()) {
        (false, _) => Outcome::pass("the batch got one array answering both requests"),
        (true, true) => Outcome::pass(
            "both batch requests were answered, in separate messages of the response (POL-27)",
        ),
        (true, false) => Outcome::non_strict(
            "both batch requests were answered, but as separate lines instead of one array \
             (JSON-RPC 2.0 §6: the server SHOULD answer a batch with an array)",
        ),
    })
}

async fn batch_rejected_after_2025_03_26(s: &mut Scenario) -> Verdict {
    let (mut peer, result) = handshake(s, s.options().legacy_revision()).await?;
    match offered(&result) {
        Some("2024-11-05" | "2025-03-26") | None => {
            return Ok(Outcome::skipped(
                "the server's newest legacy revision predates 2025-06-18",
            ));
        }
        Some(_) => {}
    }
    peer.call(request(method::PING))
        .await
        .expect_result("ping")?;
    let _ = peer.expect_silence().await;
    peer.drain_backlog();
    peer.send(raw(&br#"[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]"#[..])).await;
    let got = peer.expect_next().await;
    Ok(match got.message() {
        Some(Message::Error { error, .. }) if error.code == code::INVALID_REQUEST => {
            Outcome::pass("the batch got one -32600")
        }
        Some(Message::Batch(_) | Message::Response { .. }) => Outcome::non_strict(
            "the batch was processed; batches were removed in 2025-06-18 (POL-4)",
        ),
        None if matches!(got, Reply::NoReply { .. }) => {
            Outcome::non_strict("the batch got no reply (POL-4)")
        }
        _ => Outcome::fail(format!("the batch got {}", got.describe())),
    })
}

async fn modern_only_names_versions(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_as(Era::Legacy).await?;
    let reply = initialize(&mut peer, s.options().legacy_revision(), "mcpspec").await;
    let e = reply.expect_error("initialize on a modern-only server")?;
    let supported = e
        .data
        .as_ref()
        .and_then(|d| mcpspec_core::protocol::string_array(d.get("supported")));
    Ok(match supported {
        Some(list) if !list.is_empty() => {
            Outcome::pass(format!("error {} naming {}", e.code, list.join(", ")))
        }
        _ => Outcome::non_strict(format!("error {} without `data.supported` (VER-5)", e.code)),
    })
}
