//! `jsonrpc/*`: JSON-RPC 2.0 framing, ids, notifications and error codes (RPC-1..7).
//!
//! The checks of JSON-RPC 2.0 itself need no modern envelope: they run on either era
//! ([`Need::AnyEra`], POL-28), on a legacy-only server after the `initialize` handshake with
//! `ping` as their harmless request. The four that judge 2026-07-28 rules need the modern era:
//! `batch/rejected` (RPC-9; 2025-03-26 batches are `legacy/*`'s), `invalid-params` (FEAT-2 and
//! the discovered `tools` capability), `error-codes/allowed` (RPC-7's code set; two of its
//! probes are envelope errors) and `result-type/present` (RPC-6).

use serde_json::{Value, json};

use super::prelude::*;
use super::support::{
    expect_alive, expect_code_or, grade_error_code, harmless_method, served_method,
    served_method_in,
};
use mcpspec_core::wire::{HttpContext, Message};

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "jsonrpc/parse-error/replies-32700",
            requirements: &["RPC-5", "POL-3", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "A line that is not JSON is answered with a parse error.",
            expectation: "error -32700; another error code is NonStrict; silence is Fail",
            faults: &[
                "parse-error-silent",
                "parse-error-wrong-code",
                "parse-error-silent --eras legacy",
                "parse-error-wrong-code --eras legacy",
                "stall-on-parse-error",
            ],
            script: |s| Box::pin(parse_error_replies(s)),
        },
        Check {
            id: "jsonrpc/parse-error/id-null",
            requirements: &["RPC-3", "POL-2", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "The parse-error reply cannot know the request id.",
            expectation: "the error's id is null or absent",
            faults: &["parse-error-id-zero", "parse-error-id-zero --eras legacy"],
            script: |s| Box::pin(parse_error_id_null(s)),
        },
        Check {
            id: "jsonrpc/parse-error/keeps-serving",
            requirements: &["RPC-5", "POL-3", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "Invalid JSON does not stop the server.",
            expectation: "a server/discover sent after invalid JSON is answered",
            faults: &[
                "exit-on-parse-error",
                "exit-on-parse-error --eras legacy",
                "stall-on-parse-error",
            ],
            script: |s| Box::pin(parse_error_keeps_serving(s)),
        },
        Check {
            id: "jsonrpc/invalid-request/method-not-string",
            requirements: &["RPC-5", "POL-2", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "A request whose `method` is a number is not a valid request.",
            expectation: "error -32600",
            faults: &[
                "invalid-request-wrong-code",
                "invalid-request-wrong-code --eras legacy",
            ],
            script: |s| Box::pin(invalid_request_method_type(s)),
        },
        Check {
            id: "jsonrpc/invalid-request/wrong-jsonrpc-version",
            requirements: &["RPC-1", "RPC-5", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "A request with `\"jsonrpc\": \"1.0\"` is not JSON-RPC 2.0.",
            expectation: "error -32600; another error code is NonStrict; a result is Fail",
            faults: &[
                "accept-any-jsonrpc-version",
                "accept-any-jsonrpc-version --eras legacy",
            ],
            script: |s| Box::pin(wrong_jsonrpc_version(s)),
        },
        Check {
            id: "jsonrpc/batch/rejected",
            requirements: &["RPC-9", "POL-4"],
            level: Level::Policy,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A JSON array (batch) is not a valid 2026-07-28 message.",
            expectation: "one -32600 error; silence or per-element processing is NonStrict",
            faults: &["process-batches"],
            script: |s| Box::pin(batch_rejected(s)),
        },
        Check {
            id: "jsonrpc/id/null-rejected",
            requirements: &["RPC-5", "LEG-14", "POL-5", "POL-28"],
            level: Level::Policy,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "A request with `\"id\": null` is an invalid request.",
            expectation: "error -32600; silence (treated as a notification) is NonStrict; a result is Fail",
            faults: &["null-id-answered", "null-id-answered --eras legacy"],
            script: |s| Box::pin(null_id_rejected(s)),
        },
        Check {
            id: "jsonrpc/id/string-echoed",
            requirements: &["RPC-2", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "A string id that looks like a number is echoed as that string.",
            expectation: "the reply's id is the string \"7\"",
            faults: &["id-as-number", "id-as-number --eras legacy"],
            script: |s| Box::pin(id_echoed(s, json!("7"))),
        },
        Check {
            id: "jsonrpc/id/integer-echoed",
            requirements: &["RPC-2", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "An integer id is echoed as that integer.",
            expectation: "the reply's id is the integer 4242",
            faults: &["id-as-string", "id-as-string --eras legacy"],
            script: |s| Box::pin(id_echoed(s, json!(4242))),
        },
        Check {
            id: "jsonrpc/notification/no-reply",
            requirements: &["RPC-4", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "An unknown notification and a known one (`notifications/cancelled`) get no reply.",
            expectation: "nothing but the reply to a following request",
            faults: &[
                "reply-to-notifications",
                "reply-to-notifications --eras legacy",
            ],
            script: |s| Box::pin(notification_no_reply(s)),
        },
        Check {
            id: "jsonrpc/notification/malformed-no-reply",
            requirements: &["RPC-4", "POL-25", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "An id-less message whose `params` is a string is not a valid notification but an invalid Request (POL-25).",
            expectation: "silence, or -32600 with no id or `id: null`; never a result or another reply",
            faults: &[
                "result-to-invalid-message",
                "result-to-invalid-message --eras legacy",
            ],
            script: |s| Box::pin(malformed_notification_no_reply(s)),
        },
        Check {
            id: "jsonrpc/unknown-method/replies-32601",
            requirements: &["RPC-5", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "A request for a method no server has.",
            expectation: "error -32601",
            faults: &[
                "unknown-method-wrong-code",
                "unknown-method-wrong-code --eras legacy",
            ],
            script: |s| Box::pin(unknown_method(s)),
        },
        Check {
            id: "jsonrpc/invalid-params/replies-32602",
            requirements: &["RPC-5", "FEAT-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("tools")],
            description: "`tools/call` without the required `name` (no tool is called).",
            expectation: "error -32602",
            faults: &["invalid-params-internal-error"],
            script: |s| Box::pin(invalid_params(s)),
        },
        Check {
            id: "jsonrpc/response/well-formed",
            requirements: &["RPC-1", "RPC-2", "POL-28"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "Replies to a result, an error and a list request are JSON-RPC 2.0.",
            expectation: "`jsonrpc: \"2.0\"`, the request's id, exactly one of `result` and `error`",
            faults: &[
                "wrong-jsonrpc-version-out",
                "result-and-error",
                // Not `wrong-jsonrpc-version-out` on the legacy path: with every reply unreadable,
                // the probe sees no legacy era at all and the check is skipped.
                "result-and-error --eras legacy",
            ],
            script: |s| Box::pin(responses_well_formed(s)),
        },
        Check {
            id: "jsonrpc/error-codes/allowed",
            requirements: &["RPC-2", "RPC-7", "POL-15"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "Error codes of several rejected requests come from the allowed set.",
            expectation: "no 0, no -32002/-32042, no undefined code in -32020..-32099, no draft \
                          codes; -32000..-32019 is NonStrict",
            faults: &[
                "unknown-method-code-32000",
                "unknown-method-code-32050",
                "version-error-draft-code",
            ],
            script: |s| Box::pin(error_codes_allowed(s)),
        },
        Check {
            id: "jsonrpc/result-type/present",
            requirements: &["RPC-6", "POL-16"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "Every 2026-07-28 result carries `resultType`.",
            expectation: "`resultType: \"complete\"` on the results of server/discover and a list request",
            faults: &["no-result-type"],
            script: |s| Box::pin(result_type_present(s)),
        },
    ]
}

/// Sends invalid JSON and returns what came back first.
async fn send_invalid_json(s: &mut Scenario) -> Result<(Peer, Reply), Outcome> {
    let mut peer = s.connect_any_era_ready().await?;
    peer.send(raw(
        &br#"{"jsonrpc": "2.0", "id": 1, "method": "server/discover""#[..],
    ))
    .await;
    let got = peer.expect_next().await;
    Ok((peer, got))
}

async fn parse_error_replies(s: &mut Scenario) -> Verdict {
    let (_peer, got) = send_invalid_json(s).await?;
    let what = "invalid JSON";
    Ok(expect_code_or(&got, what, code::PARSE_ERROR, |m| {
        Outcome::non_strict(format!("{m} (POL-3)"))
    }))
}

async fn parse_error_id_null(s: &mut Scenario) -> Verdict {
    let (_peer, got) = send_invalid_json(s).await?;
    let Some(f) = got.frame() else {
        return Ok(Outcome::skipped(format!(
            "no reply to inspect ({}); see jsonrpc/parse-error/replies-32700",
            got.describe()
        )));
    };
    match f.json.as_ref().and_then(|j| j.get("id")) {
        None => Ok(Outcome::pass("the parse error has no id")),
        Some(Value::Null) => Ok(Outcome::pass("the parse error has id null")),
        Some(other) => Ok(Outcome::fail(format!(
            "the parse error carries id {other}, but no id could be read from invalid JSON (RPC-3)"
        ))),
    }
}

async fn parse_error_keeps_serving(s: &mut Scenario) -> Verdict {
    let (mut peer, _) = send_invalid_json(s).await?;
    expect_alive(&mut peer, "invalid JSON").await?;
    Ok(Outcome::pass("the server answered after invalid JSON"))
}

async fn invalid_request_method_type(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era_ready().await?;
    peer.send(raw(&br#"{"jsonrpc":"2.0","id":1,"method":42}"#[..]))
        .await;
    let reply = peer.expect_next().await;
    Ok(expect_code_or(
        &reply,
        "a request with a numeric method",
        code::INVALID_REQUEST,
        Outcome::fail,
    ))
}

async fn wrong_jsonrpc_version(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era_ready().await?;
    let reply = peer
        .call_fenced(request(harmless_method(peer.era)).jsonrpc(json!("1.0")))
        .await;
    Ok(expect_code_or(
        &reply,
        "a request with jsonrpc \"1.0\"",
        code::INVALID_REQUEST,
        Outcome::non_strict,
    ))
}

async fn batch_rejected(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let (a, _) = request(method::DISCOVER).render(101, true);
    let (b, _) = request(method::DISCOVER).render(102, true);
    let batch = format!(
        "[{},{}]",
        String::from_utf8_lossy(a.trim_ascii_end()),
        String::from_utf8_lossy(b.trim_ascii_end())
    );
    peer.warm_up().await?;
    peer.send(raw(batch.into_bytes())).await;
    let got = peer.expect_next().await;
    Ok(match &got {
        Reply::Frame(f) => match &f.parsed {
            Ok(Message::Error { error, .. }) if error.code == code::INVALID_REQUEST => {
                Outcome::pass("the batch got one -32600 error")
            }
            Ok(Message::Batch(_)) | Ok(Message::Response { .. }) => Outcome::non_strict(
                "the batch was processed element by element (POL-4: batches are not valid in 2026-07-28)",
            ),
            Ok(Message::Error { error, .. }) => Outcome::fail(format!(
                "the batch got error {} instead of -32600",
                error.code
            )),
            _ => Outcome::fail(format!("the batch got {}", got.describe())),
        },
        Reply::NoReply { .. } => Outcome::non_strict(format!(
            "the batch got {} (POL-4: silence is NonStrict)",
            got.describe()
        )),
        _ => Outcome::fail(format!("the batch got {}", got.describe())),
    })
}

async fn null_id_rejected(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era_ready().await?;
    peer.send(request(harmless_method(peer.era)).id(Value::Null))
        .await;
    let got = peer.expect_next().await;
    Ok(match &got {
        // Over HTTP, 202 with no body is the answer to a notification: the request was
        // treated as one (POL-5), as over a stream silence is.
        Reply::Frame(f) if f.json.is_none() && f.http.as_ref().is_some_and(|h| h.status == 202) => {
            Outcome::non_strict(format!(
                "the null-id request was treated as a notification ({}; POL-5)",
                got.describe()
            ))
        }
        Reply::Frame(f) => match &f.parsed {
            Ok(Message::Error { error, .. }) if error.code == code::INVALID_REQUEST => {
                Outcome::pass("the null-id request got -32600")
            }
            Ok(Message::Error { error, .. }) => Outcome::fail(format!(
                "the null-id request got error {} instead of -32600",
                error.code
            )),
            _ if f.json.as_ref().is_some_and(|j| j.get("result").is_some()) => {
                Outcome::fail("the null-id request was served with a result (POL-5)")
            }
            _ => Outcome::fail(format!("the null-id request got {}", got.describe())),
        },
        Reply::NoReply { .. } => Outcome::non_strict(
            "the null-id request was treated as a notification (no reply; POL-5)",
        ),
        _ => Outcome::fail(format!("the null-id request got {}", got.describe())),
    })
}

async fn id_echoed(s: &mut Scenario, id: Value) -> Verdict {
    let mut peer = s.connect_any_era().await?;
    let sent = peer
        .send(request(harmless_method(peer.era)).id(id.clone()))
        .await
        .unwrap_or(Value::Null);
    let reply = peer.expect_reply(&sent).await;
    let Some(f) = reply.frame() else {
        return Ok(Outcome::fail(format!(
            "the request with id {id} got {}",
            reply.describe()
        )));
    };
    let got = f.raw_id().cloned().unwrap_or(Value::Null);
    if got == id {
        Ok(Outcome::pass(format!("id {id} echoed exactly")))
    } else {
        Ok(Outcome::fail(format!(
            "sent id {id}, the reply carries id {got} (same value and JSON type required)"
        )))
    }
}

/// After notifications, a sentinel request's reply must be the only thing that arrives.
async fn only_sentinel_reply(peer: &mut Peer, what: &str) -> Verdict {
    only_sentinel_reply_or(peer, what, false).await
}

/// The sentinel's reply and nothing else may come back. With `invalid_request`, what was sent is
/// an invalid Request rather than a notification (POL-25), so a -32600 error without an id (or
/// with `id: null`) may answer it too.
async fn only_sentinel_reply_or(peer: &mut Peer, what: &str, invalid_request: bool) -> Verdict {
    let sentinel = peer
        .send(request(harmless_method(peer.era)))
        .await
        .unwrap_or(Value::Null);
    let reply = peer.expect_reply(&sentinel).await;
    if reply.message().is_none() {
        return Ok(Outcome::error(format!(
            "the sentinel request after {what} got {}, so silence cannot be judged",
            reply.describe()
        )));
    }
    let frames = peer.unasked_replies().await;
    // Over HTTP a notification POST that is not accepted gets a 4xx (HTTP-3), possibly with an
    // error body: that is the transport's rejection, not a JSON-RPC response.
    let (rejections, extra): (Vec<_>, Vec<_>) = frames.into_iter().partition(|f| {
        f.http
            .as_ref()
            .is_some_and(HttpContext::rejects_notification)
    });
    let (invalid_request_errors, extra): (Vec<_>, Vec<_>) = extra.into_iter().partition(|f| {
        invalid_request
            && matches!(&f.parsed, Ok(Message::Error { id: None, error })
                    if error.code == code::INVALID_REQUEST)
    });
    let extra: Vec<String> = extra.iter().map(|f| f.text()).collect();
    match extra.first() {
        None if !invalid_request_errors.is_empty() => Ok(Outcome::pass(format!(
            "{what} got -32600 without an id, as JSON-RPC 2.0 answers an invalid Request (POL-25)"
        ))),
        None if !rejections.is_empty() => Ok(Outcome::pass(format!(
            "no JSON-RPC reply to {what} ({} HTTP 4xx rejection(s), as HTTP-3 allows)",
            rejections.len()
        ))),
        None => Ok(Outcome::pass(format!("no reply to {what}"))),
        Some(first) => Ok(Outcome::fail(format!(
            "{what} got a reply: {}",
            crate::driver::shorten(first, 200)
        ))),
    }
}

async fn notification_no_reply(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era().await?;
    peer.send(notification(method::NONEXISTENT_NOTIFICATION))
        .await;
    peer.send(notification(method::CANCELLED).param("requestId", json!("mcpspec-never-sent")))
        .await;
    only_sentinel_reply(&mut peer, "an unknown and a known notification").await
}

async fn malformed_notification_no_reply(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era().await?;
    peer.send(raw(
        &br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"oops"}"#[..],
    ))
    .await;
    only_sentinel_reply_or(&mut peer, "an id-less message with string params", true).await
}

async fn unknown_method(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era().await?;
    let reply = peer.call(request(method::NONEXISTENT)).await;
    Ok(expect_code_or(
        &reply,
        "an unknown method",
        code::METHOD_NOT_FOUND,
        Outcome::fail,
    ))
}

async fn invalid_params(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(method::TOOLS_CALL).param("arguments", json!({})))
        .await;
    Ok(expect_code_or(
        &reply,
        "tools/call without `name`",
        code::INVALID_PARAMS,
        Outcome::fail,
    ))
}

async fn responses_well_formed(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era().await?;
    let list = served_method_in(s.facts(), peer.era);
    let mut problems = Problems::new();
    for out in [
        request(harmless_method(peer.era)),
        request(method::NONEXISTENT),
        request(list),
    ] {
        let id = peer.send(out).await.unwrap_or(Value::Null);
        let reply = peer.expect_reply(&id).await;
        match reply.frame() {
            None => problems.push(format!("request {id} got {}", reply.describe())),
            Some(f) => match &f.parsed {
                Ok(Message::Response { .. } | Message::Error { .. }) => {}
                Ok(_) => problems.push(format!("request {id} got a non-response")),
                Err(e) => problems.push(format!(
                    "the reply to request {id} is not JSON-RPC 2.0: {e}"
                )),
            },
        }
    }
    Ok(problems.verdict("3 replies, all well-formed JSON-RPC 2.0"))
}

async fn error_codes_allowed(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    peer.warm_up().await?;
    let list = served_method(s.facts());
    let probes = [
        ("an unknown method", request(method::NONEXISTENT)),
        ("a request without _meta", request(list).no_meta()),
        (
            "an unsupported version",
            request(list).version(mcpspec_core::protocol::version::UNKNOWN),
        ),
        (
            "a request with a boolean id",
            request(method::DISCOVER).id(json!(true)),
        ),
    ];
    let mut worst: Option<Outcome> = None;
    let mut seen = Vec::new();
    for (what, out) in probes {
        let id = peer.send(out).await.unwrap_or(Value::Null);
        let reply = if id.is_boolean() {
            peer.expect_next().await
        } else {
            peer.expect_reply(&id).await
        };
        let Some(e) = reply.error() else { continue };
        seen.push(format!("{what}: {}", e.code));
        if let Some(o) = grade_error_code(e.code) {
            let o = Outcome::new(o.kind, format!("{what}: {}", o.message));
            if worst
                .as_ref()
                .is_none_or(|w| o.kind == crate::outcome::Kind::Fail && w.kind != o.kind)
            {
                worst = Some(o);
            }
        }
    }
    if seen.is_empty() {
        return Ok(Outcome::fail(
            "none of the 4 rejected requests got an error reply",
        ));
    }
    Ok(worst.unwrap_or_else(|| Outcome::pass(format!("codes seen: {}", seen.join(", ")))))
}

async fn result_type_present(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let list = served_method(s.facts());
    for m in [method::DISCOVER, list] {
        let reply = peer.call(request(m)).await;
        let result = reply.expect_result(m)?;
        match result.get("resultType") {
            Some(Value::String(t)) if t == "complete" => {}
            Some(other) => {
                return Ok(Outcome::fail(format!(
                    "{m}: resultType is {other}, expected \"complete\""
                )));
            }
            None => {
                return Ok(Outcome::fail(format!(
                    "{m}: the result has no resultType (RPC-6)"
                )));
            }
        }
    }
    Ok(Outcome::pass("resultType \"complete\" on every result"))
}
