//! `http/*`: streamable HTTP (HTTP-1..16). These speak HTTP directly with exact header sets
//! (odd case, duplicates, bad bytes), through the raw client of [`super::http_support`]. The
//! handshake revisions over HTTP (`legacy/http/*`) are in `legacy_http.rs`.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::http_support::{
    Answer, endpoint, event_messages, is_response, post, post_refusal, quote_messages,
    validate_messages,
};
use super::prelude::*;
use mcpspec_core::transport::http::client::{self, Request};

/// A modern request body (with the envelope) for `m`, id 1.
fn modern_body(m: &str, params: Value) -> Vec<u8> {
    let mut out = request(m).id(json!(1)).modern();
    if let Value::Object(p) = params {
        for (k, v) in p {
            out = out.param(&k, v);
        }
    }
    out.render(1, true).0
}

/// A POST with the headers a conforming modern client sends for `m`.
fn modern_post(m: &str, body: Vec<u8>) -> Request {
    Request::new("POST")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", version::MODERN)
        .header("Mcp-Method", m)
        .body(body)
}

/// 400 with JSON-RPC error `code` passes; anything else fails (POL-10: both are required).
fn expect_400(a: &Answer, what: &str, code: i64) -> Outcome {
    match (a.status, a.code()) {
        (400, Some(c)) if c == code => Outcome::pass(format!("{what}: 400 with {code}")),
        _ => Outcome::fail(format!(
            "{what}: expected HTTP 400 with error {code}, got {}",
            a.describe()
        )),
    }
}

fn served(a: &Answer) -> bool {
    a.status == 200 && a.json.as_ref().is_some_and(|j| j.get("result").is_some())
}

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "http/post/json-or-sse",
            requirements: &["HTTP-1", "HTTP-4"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http],
            description: "A valid modern `server/discover` POST to the endpoint.",
            expectation: "200 with `application/json` (one JSON-RPC response) or `text/event-stream`",
            faults: &["http-json-wrong-content-type", "http-post-405"],
            script: |s| Box::pin(post_json_or_sse(s)),
        },
        Check {
            id: "http/origin/invalid-rejected",
            requirements: &["HTTP-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A POST with `Origin: http://evil.example`.",
            expectation: "403 (a JSON-RPC error without an id in its body, as HTTP-2 describes \
                          it, is no deviation: POL-29's exception)",
            faults: &["http-no-origin-check"],
            script: |s| Box::pin(origin_rejected(s)),
        },
        Check {
            id: "http/host/foreign-rejected",
            requirements: &["HTTP-2", "POL-33"],
            level: Level::Policy,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A POST with `Host: evil.example` and no `Origin` (DNS rebinding).",
            expectation: "403 or 421 (an error without an id in the body is no deviation); \
                          served, or any other answer, is NonStrict: HTTP-2's MUST is about \
                          `Origin` (POL-33)",
            faults: &["http-no-host-check"],
            script: |s| Box::pin(host_rejected(s)),
        },
        Check {
            id: "http/sse/no-server-requests",
            requirements: &["HTTP-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::ProbeProfile],
            description: "A streamed `tools/call` of the probe tool `mcpspec_slow` with a progressToken.",
            expectation: "the event stream carries notifications and the response, never a JSON-RPC request",
            faults: &["http-sse-server-request"],
            script: |s| Box::pin(sse_no_server_requests(s)),
        },
        Check {
            id: "http/sse/terminates",
            requirements: &["HTTP-13"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::ProbeProfile],
            description: "The same streamed call, read to its end.",
            expectation: "`X-Accel-Buffering: no`, and the stream ends after the final response",
            faults: &["http-sse-no-terminate"],
            script: |s| Box::pin(sse_terminates(s)),
        },
        Check {
            id: "http/sse/close-cancels",
            requirements: &["HTTP-14"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::ProbeProfile],
            description: "A streamed slow call whose stream the client closes after the first event.",
            expectation: "the call does not complete (the probe log does not show it \
                          answered); a call run to completion is NonStrict (HTTP-14: the server \
                          SHOULD stop work)",
            faults: &["http-close-not-cancellation"],
            script: |s| Box::pin(sse_close_cancels(s)),
        },
        Check {
            id: "http/notification/accepted-202",
            requirements: &["HTTP-3"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A modern `notifications/cancelled` POST (for an id never sent).",
            expectation: "202 with an empty body (or 4xx if not accepted)",
            faults: &["http-notification-200-body"],
            script: |s| Box::pin(notification_202(s)),
        },
        Check {
            id: "http/version-header/mismatch",
            requirements: &["HTTP-5", "POL-10", "POL-26"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "`MCP-Protocol-Version: 2099-01-01` (served in no era) with a 2026-07-28 body.",
            expectation: "400 with -32020",
            faults: &["http-version-header-mismatch-accepted"],
            script: |s| Box::pin(version_header_mismatch(s)),
        },
        Check {
            id: "http/version-header/missing",
            requirements: &["HTTP-6", "POL-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A modern POST without `MCP-Protocol-Version`.",
            expectation: "400 with -32020; a server that also serves pre-2025-06-18 clients may treat it as 2025-03-26 (Info)",
            faults: &["http-missing-version-header-accepted"],
            script: |s| Box::pin(version_header_missing(s)),
        },
        Check {
            id: "http/unknown-method/404",
            requirements: &["HTTP-7"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A modern POST for a method no server has.",
            expectation: "404 with -32601",
            faults: &["http-unknown-method-200"],
            script: |s| Box::pin(unknown_method_404(s)),
        },
        Check {
            id: "http/method-header/missing",
            requirements: &["HTTP-8", "POL-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A modern POST without `Mcp-Method`.",
            expectation: "400 with -32020",
            faults: &[
                "http-header-mismatch-accepted",
                "http-header-error-wrong-code",
            ],
            script: |s| Box::pin(method_header_missing(s)),
        },
        Check {
            id: "http/method-header/mismatch",
            requirements: &["HTTP-8", "POL-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "`Mcp-Method: tools/list` on a `server/discover` body.",
            expectation: "400 with -32020",
            faults: &["http-header-mismatch-accepted"],
            script: |s| Box::pin(method_header_mismatch(s)),
        },
        Check {
            id: "http/name-header/missing",
            requirements: &["HTTP-8", "POL-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::Capability("tools")],
            description: "`tools/call` (for a tool that cannot exist) without `Mcp-Name`.",
            expectation: "400 with -32020",
            faults: &["http-header-mismatch-accepted"],
            script: |s| Box::pin(name_header_missing(s)),
        },
        Check {
            id: "http/headers/duplicate",
            requirements: &["HTTP-8", "POL-10", "POL-32"],
            level: Level::Policy,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "`Mcp-Method: server/discover` sent twice, the same value both times.",
            expectation: "400 with -32020 (the joined value contradicts the body), or served \
                          (the value read once): NonStrict (POL-32); anything else is Fail",
            faults: &["http-header-mismatch-accepted"],
            script: |s| Box::pin(duplicate_header(s)),
        },
        Check {
            id: "http/headers/duplicate-mismatched",
            requirements: &["HTTP-8", "POL-10", "POL-32"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "`Mcp-Method: server/discover` then `Mcp-Method: tools/list` on a \
                          `server/discover` body.",
            expectation: "400 with -32020 (one of the values contradicts the body)",
            faults: &["http-header-mismatch-accepted"],
            script: |s| Box::pin(duplicate_header_mismatched(s)),
        },
        Check {
            id: "http/headers/invalid-characters",
            requirements: &["HTTP-8", "POL-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::Capability("tools")],
            description: "`Mcp-Name` carrying raw non-ASCII bytes (instead of `=?base64?…?=`).",
            expectation: "400 with -32020",
            faults: &["http-header-mismatch-accepted"],
            script: |s| Box::pin(invalid_characters(s)),
        },
        Check {
            id: "http/headers/value-case-sensitive",
            requirements: &["HTTP-9", "POL-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "`Mcp-Method: SERVER/DISCOVER`.",
            expectation: "400 with -32020",
            faults: &["http-method-header-case-insensitive"],
            script: |s| Box::pin(values_case_sensitive(s)),
        },
        Check {
            id: "http/headers/base64-decoded",
            requirements: &["HTTP-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::Capability("tools")],
            description: "`Mcp-Name: =?base64?…?=` naming (a tool that cannot exist) exactly as the body does.",
            expectation: "the header is decoded and matches: not -32020 (the unknown tool's -32602)",
            faults: &["http-no-base64-decoding"],
            script: |s| Box::pin(base64_decoded(s)),
        },
        Check {
            id: "http/headers/invalid-base64",
            requirements: &["HTTP-10", "POL-10"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::Capability("tools")],
            description: "`Mcp-Name: =?base64?%%%?=`.",
            expectation: "400 with -32020",
            faults: &["http-header-mismatch-accepted"],
            script: |s| Box::pin(invalid_base64(s)),
        },
        Check {
            id: "http/param-headers/validated",
            requirements: &["HTTP-11", "POL-10", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern, Need::AllowedTool],
            description: "`tools/call` of an allowed tool whose argument is mirrored in `Mcp-Param-*` \
                 (`x-mcp-header`): a header that differs from the body, then no header.",
            expectation: "400 with -32020 for both (the tool is never run)",
            faults: &["http-param-header-not-checked --header-tool"],
            script: |s| Box::pin(param_headers_validated(s)),
        },
        Check {
            id: "http/errors/status-400",
            requirements: &["HTTP-16", "META-1", "VER-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A body without `_meta`, and one naming version 2099-01-01.",
            expectation: "400 with -32602, and 400 with -32022",
            faults: &["http-version-error-status-200"],
            script: |s| Box::pin(errors_status_400(s)),
        },
        Check {
            id: "http/modern/no-session-id",
            requirements: &["HTTP-15"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::Modern],
            description: "A modern POST (no session header).",
            expectation: "served, and no `Mcp-Session-Id` minted in the response",
            faults: &["http-mints-session-id-modern"],
            script: |s| Box::pin(no_session_id(s)),
        },
        Check {
            id: "http/modern-only/get-delete-405",
            requirements: &["HTTP-15"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Http, Need::ModernOnly],
            description: "GET and DELETE on a modern-only server's endpoint.",
            expectation: "405 for both",
            faults: &["http-modern-get-200 --eras modern"],
            script: |s| Box::pin(get_delete_405(s)),
        },
    ]
}

fn discover_post() -> Request {
    modern_post(method::DISCOVER, modern_body(method::DISCOVER, json!({})))
}

async fn post_json_or_sse(s: &mut Scenario) -> Verdict {
    // Not `Need::Modern`: a server that refuses every POST must fail here, not be skipped.
    if !s.facts().modern() && s.facts().legacy() {
        return Ok(Outcome::skipped(
            "a legacy-only server: its POSTs are checked by legacy/http/*",
        ));
    }
    let a = post(s, &discover_post()).await?;
    Ok(match (a.status, a.content_type.as_str()) {
        (200, "application/json") if a.json.as_ref().is_some_and(|j| j.get("result").is_some()) => {
            Outcome::pass("200 application/json with the DiscoverResult")
        }
        (200, "text/event-stream") if a.json.is_some() => {
            Outcome::pass("200 text/event-stream carrying the response")
        }
        _ => Outcome::fail(format!(
            "a valid discover POST got {} ({})",
            a.describe(),
            a.content_type
        )),
    })
}

/// The status HTTP-2 gives the refusal of a foreign `Origin`.
const ORIGIN_REFUSAL: &[u16] = &[403];

/// The statuses of a DNS-rebinding refusal of a foreign `Host` (POL-33): 403 as for `Origin`, or
/// 421 Misdirected Request.
const HOST_REFUSALS: &[u16] = &[403, 421];

async fn origin_rejected(s: &mut Scenario) -> Verdict {
    let req = discover_post().header("Origin", "http://evil.example");
    let a = post_refusal(s, &req, ORIGIN_REFUSAL).await?;
    Ok(if a.status == 403 {
        Outcome::pass("403 for a foreign Origin")
    } else {
        Outcome::fail(format!(
            "a foreign Origin got {} (HTTP-2: 403)",
            a.describe()
        ))
    })
}

async fn notification_202(s: &mut Scenario) -> Verdict {
    let (body, _) = crate::driver::notification(method::CANCELLED)
        .modern()
        .param("requestId", json!("mcpspec-never-sent"))
        .render(1, true);
    let a = post(s, &modern_post(method::CANCELLED, body)).await?;
    Ok(match a.status {
        202 if a.body.trim().is_empty() => Outcome::pass("202 with an empty body"),
        400..=499 => Outcome::pass(format!("not accepted: HTTP {}", a.status)),
        _ => Outcome::fail(format!(
            "a notification POST got {} (HTTP-3: 202, empty body)",
            a.describe()
        )),
    })
}

async fn version_header_mismatch(s: &mut Scenario) -> Verdict {
    // POL-26: a version no era serves, so the header cannot route the request to a legacy
    // transport (which a served legacy version may do, as is the server's right).
    let req = discover_post()
        .without("MCP-Protocol-Version")
        .header("MCP-Protocol-Version", version::UNKNOWN);
    let a = post(s, &req).await?;
    Ok(expect_400(
        &a,
        "MCP-Protocol-Version ≠ the body's version",
        code::HEADER_MISMATCH,
    ))
}

async fn version_header_missing(s: &mut Scenario) -> Verdict {
    let legacy_too = s.facts().legacy();
    let a = post(s, &discover_post().without("MCP-Protocol-Version")).await?;
    Ok(match (a.status, a.code()) {
        (400, Some(code::HEADER_MISMATCH)) => Outcome::pass("400 with -32020"),
        _ if legacy_too && !served(&a) => Outcome::info(format!(
            "the server also serves legacy clients and treated the request as one (HTTP-6 allows it): {}",
            a.describe()
        )),
        _ => Outcome::fail(format!(
            "a modern POST without MCP-Protocol-Version got {}",
            a.describe()
        )),
    })
}

async fn unknown_method_404(s: &mut Scenario) -> Verdict {
    let a = post(
        s,
        &modern_post(
            method::NONEXISTENT,
            modern_body(method::NONEXISTENT, json!({})),
        ),
    )
    .await?;
    Ok(match (a.status, a.code()) {
        (404, Some(code::METHOD_NOT_FOUND)) => Outcome::pass("404 with -32601"),
        _ => Outcome::fail(format!(
            "an unknown method got {} (HTTP-7: 404 with -32601)",
            a.describe()
        )),
    })
}

async fn method_header_missing(s: &mut Scenario) -> Verdict {
    let a = post(s, &discover_post().without("Mcp-Method")).await?;
    Ok(expect_400(&a, "no Mcp-Method", code::HEADER_MISMATCH))
}

async fn method_header_mismatch(s: &mut Scenario) -> Verdict {
    let req = discover_post()
        .without("Mcp-Method")
        .header("Mcp-Method", method::TOOLS_LIST);
    let a = post(s, &req).await?;
    Ok(expect_400(
        &a,
        "Mcp-Method ≠ the body's method",
        code::HEADER_MISMATCH,
    ))
}

fn call_unknown_tool(name: &str) -> Request {
    let body = modern_body(method::TOOLS_CALL, json!({"name": name, "arguments": {}}));
    modern_post(method::TOOLS_CALL, body)
}

async fn name_header_missing(s: &mut Scenario) -> Verdict {
    let a = post(s, &call_unknown_tool(tool::NONEXISTENT)).await?;
    Ok(expect_400(
        &a,
        "tools/call without Mcp-Name",
        code::HEADER_MISMATCH,
    ))
}

/// POL-32: the same value twice is read either as that value (the request is then served) or
/// as the comma-joined list of RFC 9110 §5.3, which contradicts the body (400 with -32020).
/// Anything else is wrong under both readings.
async fn duplicate_header(s: &mut Scenario) -> Verdict {
    let a = post(s, &discover_post().header("Mcp-Method", method::DISCOVER)).await?;
    let what = "Mcp-Method twice, the same value";
    Ok(match (a.status, a.code()) {
        (400, Some(code::HEADER_MISMATCH)) => Outcome::pass(format!("{what}: 400 with -32020")),
        _ if served(&a) => Outcome::non_strict(format!(
            "{what}: served ({}); an HTTP stack may read a repeated field as its first value, \
             so this is no mismatch, but a strict server rejects it (POL-32)",
            a.describe()
        )),
        _ => Outcome::fail(format!(
            "{what}: expected HTTP 400 with error -32020 (the joined value contradicts the body) \
             or the request served (the value read once), got {}",
            a.describe()
        )),
    })
}

/// POL-32: two different values are a mismatch whichever one a server reads; the one that
/// matches the body comes first, so a server reading the first value and ignoring the second
/// serves it.
async fn duplicate_header_mismatched(s: &mut Scenario) -> Verdict {
    let a = post(s, &discover_post().header("Mcp-Method", method::TOOLS_LIST)).await?;
    Ok(expect_400(
        &a,
        "Mcp-Method twice, `server/discover` then `tools/list`",
        code::HEADER_MISMATCH,
    ))
}

async fn invalid_characters(s: &mut Scenario) -> Verdict {
    let name = format!("{}-é", tool::NONEXISTENT);
    let a = post(
        s,
        &call_unknown_tool(&name).header("Mcp-Name", name.as_bytes()),
    )
    .await?;
    Ok(expect_400(
        &a,
        "Mcp-Name with raw non-ASCII bytes",
        code::HEADER_MISMATCH,
    ))
}

async fn values_case_sensitive(s: &mut Scenario) -> Verdict {
    let req = discover_post()
        .without("Mcp-Method")
        .header("Mcp-Method", "SERVER/DISCOVER");
    let a = post(s, &req).await?;
    Ok(expect_400(
        &a,
        "Mcp-Method: SERVER/DISCOVER",
        code::HEADER_MISMATCH,
    ))
}

async fn base64_decoded(s: &mut Scenario) -> Verdict {
    let req = call_unknown_tool(tool::NONEXISTENT)
        .header("Mcp-Name", client::base64_header(tool::NONEXISTENT));
    let a = post(s, &req).await?;
    Ok(match a.code() {
        Some(code::HEADER_MISMATCH) => Outcome::fail(format!(
            "a base64-encoded Mcp-Name equal to the body got {} (HTTP-10)",
            a.describe()
        )),
        Some(_) | None if a.json.is_some() => {
            Outcome::pass(format!("the encoded name was decoded ({})", a.describe()))
        }
        _ => Outcome::fail(format!("a base64-encoded Mcp-Name got {}", a.describe())),
    })
}

async fn invalid_base64(s: &mut Scenario) -> Verdict {
    let a = post(
        s,
        &call_unknown_tool(tool::NONEXISTENT).header("Mcp-Name", "=?base64?%%%?="),
    )
    .await?;
    Ok(expect_400(
        &a,
        "Mcp-Name with invalid base64",
        code::HEADER_MISMATCH,
    ))
}

async fn errors_status_400(s: &mut Scenario) -> Verdict {
    let (no_meta, _) = request(method::DISCOVER)
        .id(json!(1))
        .no_meta()
        .render(1, true);
    let a = post(s, &modern_post(method::DISCOVER, no_meta)).await?;
    let first = expect_400(&a, "no _meta", code::INVALID_PARAMS);
    if first.kind != crate::outcome::Kind::Pass {
        return Ok(first);
    }
    let (unknown, _) = request(method::DISCOVER)
        .id(json!(1))
        .version(version::UNKNOWN)
        .render(1, true);
    let req = modern_post(method::DISCOVER, unknown)
        .without("MCP-Protocol-Version")
        .header("MCP-Protocol-Version", version::UNKNOWN);
    let b = post(s, &req).await?;
    Ok(
        match expect_400(&b, "an unsupported version", code::UNSUPPORTED_VERSION) {
            o if o.kind == crate::outcome::Kind::Pass => {
                Outcome::pass("400 with -32602, and 400 with -32022")
            }
            o => o,
        },
    )
}

async fn no_session_id(s: &mut Scenario) -> Verdict {
    let a = post(s, &discover_post()).await?;
    Ok(match (served(&a), &a.session_id) {
        (true, None) => Outcome::pass("served; no Mcp-Session-Id in the response"),
        (true, Some(id)) => Outcome::non_strict(format!(
            "a modern response mints Mcp-Session-Id {id:?} (HTTP-15)"
        )),
        (false, _) => Outcome::fail(format!("a valid modern POST got {}", a.describe())),
    })
}

async fn get_delete_405(s: &mut Scenario) -> Verdict {
    let get = post(
        s,
        &Request::new("GET").header("Accept", "text/event-stream"),
    )
    .await?;
    let delete = post(s, &Request::new("DELETE")).await?;
    Ok(if get.status == 405 && delete.status == 405 {
        Outcome::pass("GET and DELETE: 405")
    } else {
        Outcome::non_strict(format!(
            "GET got HTTP {}, DELETE got HTTP {} (HTTP-15: 405)",
            get.status, delete.status
        ))
    })
}

/// POL-33: HTTP-2's MUST is about `Origin`; refusing a foreign `Host` sent without one is defence
/// in depth (the official SDKs refuse it), so nothing here is a Fail.
async fn host_rejected(s: &mut Scenario) -> Verdict {
    let req = discover_post().header("Host", "evil.example");
    let a = match post_refusal(s, &req, HOST_REFUSALS).await {
        Ok(a) => a,
        Err(o) if o.kind == crate::outcome::Kind::Fail => {
            return Ok(Outcome::non_strict(format!(
                "a foreign Host without Origin was neither served nor refused with 403 or 421: \
                 {} (POL-33)",
                o.message
            )));
        }
        Err(o) => return Err(o),
    };
    Ok(match a.status {
        status if HOST_REFUSALS.contains(&status) => {
            Outcome::pass(format!("HTTP {status} for a foreign Host"))
        }
        _ if served(&a) => Outcome::non_strict(format!(
            "a foreign Host without Origin was served ({}); HTTP-2's MUST is about Origin, but \
             refusing a foreign Host (403 or 421) is the DNS-rebinding defence the official \
             SDKs have (POL-33)",
            a.describe()
        )),
        _ => Outcome::non_strict(format!(
            "a foreign Host without Origin got {}: neither served nor refused with 403 or 421 \
             (POL-33)",
            a.describe()
        )),
    })
}

/// A streamed `mcpspec_slow` call: the response head and every SSE event up to the final
/// response (or the deadline), and whether the stream then ended.
struct Streamed {
    status: u16,
    accel: Option<String>,
    events: Vec<Value>,
    ended: bool,
}

fn slow_call(id: Value, steps: u64, delay_ms: u64) -> Request {
    let body = request(method::TOOLS_CALL)
        .id(id)
        .modern()
        .param("name", json!(tool::SLOW))
        .param("arguments", json!({"steps": steps, "delay_ms": delay_ms}))
        .meta_entry("progressToken", json!("mcpspec-progress"))
        .render(1, true)
        .0;
    modern_post(method::TOOLS_CALL, body).header("Mcp-Name", tool::SLOW)
}

async fn streamed(s: &Scenario, steps: u64, delay_ms: u64) -> Result<Streamed, Outcome> {
    let e = endpoint(s)?;
    let deadline = Instant::now() + s.settings().expect_timeout + s.settings().startup_timeout;
    let call = slow_call(json!(7), steps, delay_ms);
    let mut r = client::send(&e, &call, deadline)
        .await
        .map_err(|err| Outcome::fail(format!("the streamed call: {err}")))?;
    let mut out = Streamed {
        status: r.status,
        accel: r.header("x-accel-buffering").map(str::to_owned),
        events: vec![],
        ended: false,
    };
    if !r.is_event_stream() {
        let text = format!(
            "POST tools/call {} -> HTTP {} {}",
            tool::SLOW,
            r.status,
            r.content_type()
        );
        s.note_judged(text.clone(), &text);
        return Ok(out);
    }
    let mut parser = mcpspec_core::transport::http::sse::SseParser::new(s.settings().max_message);
    let mut answered = false;
    loop {
        // After the final response the stream has a short grace to end.
        let wait = if answered {
            Instant::now() + Duration::from_millis(500)
        } else {
            deadline
        };
        match r.chunk(wait).await {
            Ok(None) => {
                out.ended = true;
                break;
            }
            Ok(Some(chunk)) => {
                for v in event_messages(&mut parser, &chunk) {
                    answered |= is_response(&v);
                    out.events.push(v);
                }
            }
            Err(_) => break,
        }
    }
    // The stream as a whole is what the SSE checks judge: its events, quoted, and its end.
    let quoted = quote_messages(&out.events);
    let text = format!(
        "POST tools/call {} -> HTTP {} text/event-stream, {} events ({}), stream ended: {}",
        tool::SLOW,
        out.status,
        out.events.len(),
        quoted,
        out.ended
    );
    // The events first: a request among them is what one SSE check judges.
    let quote = format!("{quoted} (stream ended: {})", out.ended);
    s.note_judged(text, &quote);
    // Every event is a message the server sent: judged by the schema layer like any other.
    validate_messages(s, &call, out.status, &out.events);
    Ok(out)
}

async fn sse_no_server_requests(s: &mut Scenario) -> Verdict {
    let st = streamed(s, 2, 20).await?;
    if st.events.is_empty() {
        return Ok(Outcome::skipped(format!(
            "the call was not streamed (HTTP {})",
            st.status
        )));
    }
    Ok(
        match st
            .events
            .iter()
            .find(|e| e.get("method").is_some() && e.get("id").is_some())
        {
            Some(req) => Outcome::fail(format!(
                "a JSON-RPC request on the response stream: {}",
                crate::driver::preview(req, 160)
            )),
            None => Outcome::pass(format!("{} events, none a request", st.events.len())),
        },
    )
}

async fn sse_terminates(s: &mut Scenario) -> Verdict {
    let st = streamed(s, 2, 20).await?;
    if st.events.is_empty() {
        return Ok(Outcome::skipped(format!(
            "the call was not streamed (HTTP {})",
            st.status
        )));
    }
    let mut problems = Problems::new();
    if !st.ended {
        problems.push("the stream stayed open after the final response");
    }
    if st.accel.as_deref() != Some("no") {
        problems.push(format!(
            "X-Accel-Buffering is {:?}, expected \"no\"",
            st.accel
        ));
    }
    Ok(problems.verdict_as(
        Outcome::non_strict,
        "the stream ended after the final response; X-Accel-Buffering: no",
    ))
}

async fn sse_close_cancels(s: &mut Scenario) -> Verdict {
    // The probe log is the server's, shared by every client: an id no other check uses.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let id = json!(format!("mcpspec-close-cancels-{nanos}"));
    let (steps, delay_ms) = (5u64, 100u64);
    let e = endpoint(s)?;
    let deadline = Instant::now() + s.settings().expect_timeout + s.settings().startup_timeout;
    {
        let call = slow_call(id.clone(), steps, delay_ms);
        let mut r = client::send(&e, &call, deadline)
            .await
            .map_err(|err| Outcome::fail(format!("the streamed call: {err}")))?;
        if !r.is_event_stream() {
            return Ok(Outcome::skipped(format!(
                "the call was not streamed (HTTP {})",
                r.status
            )));
        }
        // Read the first event, then drop the connection; what it carried is judged too.
        if let Ok(Some(chunk)) = r.chunk(deadline).await {
            let mut parser =
                mcpspec_core::transport::http::sse::SseParser::new(s.settings().max_message);
            let events = event_messages(&mut parser, &chunk);
            let quote = quote_messages(&events);
            s.note_judged(
                format!("POST tools/call {}: its first event {quote}", tool::SLOW),
                &quote,
            );
            validate_messages(s, &call, r.status, &events);
        }
    }
    s.note(format!(
        "closed the stream of tools/call {id} after its first event"
    ));
    // Give the call the time it would have needed, then read what the probe middleware saw.
    tokio::time::sleep(Duration::from_millis(steps * delay_ms + 200)).await;
    let body = request(method::TOOLS_CALL)
        .id(json!(8))
        .modern()
        .param("name", json!(tool::PROBE_LOG))
        .param("arguments", json!({}))
        .render(1, true)
        .0;
    let a = post(
        s,
        &modern_post(method::TOOLS_CALL, body).header("Mcp-Name", tool::PROBE_LOG),
    )
    .await?;
    let entries = a
        .json
        .as_ref()
        .and_then(|j| j.pointer("/result/structuredContent/entries"))
        .and_then(Value::as_array)
        .cloned()
        .ok_or_else(|| Outcome::error(format!("mcpspec_probe_log got {}", a.describe())))?;
    let completed = entries.iter().any(|en| {
        en.get("method") == Some(&json!(method::TOOLS_CALL))
            && en.get("id") == Some(&id)
            && en.get("outcome") == Some(&json!("ok"))
    });
    Ok(if completed {
        Outcome::non_strict(
            "the call ran to completion after the client closed its stream (HTTP-14: closing \
             the stream is cancellation, and the server SHOULD stop work)",
        )
    } else {
        Outcome::pass("the call did not complete after the stream closed")
    })
}

/// An allowed tool with a string argument mirrored in a header: (tool, property, header name,
/// the other required arguments filled with strings).
fn header_mirrored_tool(
    tools: &[Value],
    allowed: &[String],
) -> Option<(String, String, String, serde_json::Map<String, Value>)> {
    tools.iter().find_map(|t| {
        let name = t.get("name")?.as_str()?;
        if !allowed.iter().any(|a| a == name) {
            return None;
        }
        let props = t.pointer("/inputSchema/properties")?.as_object()?;
        let (prop, header) = props.iter().find_map(|(p, schema)| {
            let header = schema.get("x-mcp-header")?.as_str()?;
            (schema.get("type") == Some(&json!("string"))).then(|| (p.clone(), header.to_owned()))
        })?;
        let mut args = serde_json::Map::new();
        for r in t
            .pointer("/inputSchema/required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str()?;
            if r == prop {
                continue;
            }
            if props.get(r)?.get("type") != Some(&json!("string")) {
                return None;
            }
            args.insert(r.to_owned(), json!("mcpspec"));
        }
        Some((name.to_owned(), prop, header, args))
    })
}

async fn param_headers_validated(s: &mut Scenario) -> Verdict {
    let allowed = s.options().allowed_tools.clone();
    let listed = post(
        s,
        &modern_post(
            method::TOOLS_LIST,
            modern_body(method::TOOLS_LIST, json!({})),
        ),
    )
    .await?;
    let tools = listed
        .json
        .as_ref()
        .and_then(|j| j.pointer("/result/tools"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some((tool, prop, header, mut args)) = header_mirrored_tool(&tools, &allowed) else {
        return Ok(Outcome::skipped(
            "no allowed tool has a string argument with `x-mcp-header`",
        ));
    };
    args.insert(prop.clone(), json!("mcpspec-body"));
    let body = modern_body(
        method::TOOLS_CALL,
        json!({"name": tool, "arguments": Value::Object(args)}),
    );
    let call = || modern_post(method::TOOLS_CALL, body.clone()).header("Mcp-Name", tool.as_str());
    let header_name = format!("Mcp-Param-{header}");
    let differs = post(s, &call().header(&header_name, "mcpspec-header")).await?;
    let first = expect_400(
        &differs,
        &format!("{header_name} ≠ the body's `{prop}`"),
        code::HEADER_MISMATCH,
    );
    if first.kind != crate::outcome::Kind::Pass {
        return Ok(first);
    }
    let omitted = post(s, &call()).await?;
    Ok(
        match expect_400(
            &omitted,
            &format!("no {header_name} while the body has `{prop}`"),
            code::HEADER_MISMATCH,
        ) {
            o if o.kind == crate::outcome::Kind::Pass => Outcome::pass(format!(
                "`{tool}`: a differing and a missing {header_name} both got 400 with -32020"
            )),
            o => o,
        },
    )
}
