//! `legacy/http/*`: the handshake revisions over HTTP (LEG-8..11): sessions, the version
//! header, GET streams and POSTed notifications, spoken directly through the raw client of
//! [`super::http_support`]. Streamable HTTP (`http/*`) is in `http.rs`.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::http_support::{endpoint, post};
use super::prelude::*;
use mcpspec_core::transport::http::client::{self, Request};

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "legacy/http/session-id-visible-ascii",
            requirements: &["LEG-9"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::Http, Need::Legacy],
            description: "The `Mcp-Session-Id` minted on `initialize`.",
            expectation: "visible ASCII (0x21-0x7E) only, if assigned",
            faults: &["http-legacy-session-id-invalid-chars"],
            script: |s| Box::pin(session_id_visible_ascii(s)),
        },
        Check {
            id: "legacy/http/terminated-session-404",
            requirements: &["LEG-9"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::Http, Need::Legacy],
            description: "A `ping` on a session ended with DELETE.",
            expectation: "404 (DELETE itself may be 405: then Skipped)",
            faults: &["http-legacy-terminated-session-200"],
            script: |s| Box::pin(terminated_session_404(s)),
        },
        Check {
            id: "legacy/http/get-stream-or-405",
            requirements: &["LEG-10"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::Http, Need::Legacy],
            description: "GET on the endpoint with the session id.",
            expectation: "`text/event-stream` or 405",
            faults: &["http-legacy-get-200-json"],
            script: |s| Box::pin(get_stream_or_405(s)),
        },
        Check {
            id: "legacy/http/notification-202",
            requirements: &["LEG-11"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::Http, Need::Legacy],
            description: "`notifications/initialized` POSTed after `initialize`.",
            expectation: "202 with no body (or 4xx)",
            faults: &["http-legacy-notification-200"],
            script: |s| Box::pin(legacy_notification_202(s)),
        },
        Check {
            id: "legacy/http/bad-version-header-400",
            requirements: &["LEG-8"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::Http, Need::Legacy],
            description: "A `ping` in a session with `MCP-Protocol-Version: 1999-01-01`.",
            expectation: "400",
            faults: &["http-legacy-version-header-ignored"],
            script: |s| Box::pin(bad_version_header_400(s)),
        },
    ]
}

fn legacy_post(body: Value, session: Option<&str>, version_header: Option<&str>) -> Request {
    let mut req = Request::new("POST")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(serde_json::to_vec(&body).unwrap_or_default());
    if let Some(v) = version_header {
        req = req.header("MCP-Protocol-Version", v);
    }
    if let Some(id) = session {
        req = req.header("Mcp-Session-Id", id);
    }
    req
}

/// `initialize` at the latest legacy version; returns the session id (if any) and the version.
async fn legacy_session(s: &Scenario) -> Result<(Option<String>, String), Outcome> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method::INITIALIZE, "params": {
        "protocolVersion": s.options().legacy_revision(), "capabilities": {},
        "clientInfo": {"name": "mcpspec", "version": env!("CARGO_PKG_VERSION")}}});
    let a = post(s, &legacy_post(body, None, None)).await?;
    let v = a
        .json
        .as_ref()
        .and_then(|j| j.pointer("/result/protocolVersion"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| Outcome::fail(format!("initialize got {}", a.describe())))?;
    let initialized = json!({"jsonrpc": "2.0", "method": method::INITIALIZED});
    post(
        s,
        &legacy_post(initialized, a.session_id.as_deref(), Some(&v)),
    )
    .await?;
    Ok((a.session_id, v))
}

fn ping_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": method::PING})
}

async fn session_id_visible_ascii(s: &mut Scenario) -> Verdict {
    let (id, _) = legacy_session(s).await?;
    Ok(match id {
        None => Outcome::pass("no session id assigned (stateless legacy server)"),
        Some(id) if !id.is_empty() && id.bytes().all(|b| (0x21..=0x7e).contains(&b)) => {
            Outcome::pass(format!(
                "session id of {} visible ASCII characters",
                id.len()
            ))
        }
        Some(id) => Outcome::fail(format!(
            "session id {id:?} has characters outside 0x21-0x7E (LEG-9)"
        )),
    })
}

async fn terminated_session_404(s: &mut Scenario) -> Verdict {
    let (id, v) = legacy_session(s).await?;
    let Some(id) = id else {
        return Ok(Outcome::skipped("the server assigns no session id"));
    };
    let delete = post(
        s,
        &Request::new("DELETE")
            .header("Mcp-Session-Id", id.as_str())
            .header("MCP-Protocol-Version", v.as_str()),
    )
    .await?;
    if delete.status == 405 {
        return Ok(Outcome::skipped(
            "DELETE answered 405 (the server does not let clients end sessions)",
        ));
    }
    let a = post(s, &legacy_post(ping_body(), Some(&id), Some(&v))).await?;
    Ok(if a.status == 404 {
        Outcome::pass("404 for a terminated session")
    } else {
        Outcome::fail(format!(
            "a request on a terminated session got {} (LEG-9: 404)",
            a.describe()
        ))
    })
}

async fn get_stream_or_405(s: &mut Scenario) -> Verdict {
    let (id, v) = legacy_session(s).await?;
    let e = endpoint(s)?;
    let mut req = Request::new("GET")
        .header("Accept", "text/event-stream")
        .header("MCP-Protocol-Version", v.as_str());
    if let Some(id) = &id {
        req = req.header("Mcp-Session-Id", id.as_str());
    }
    // Only the head matters: the stream itself stays open.
    let deadline = Instant::now() + s.settings().expect_timeout + Duration::from_secs(1);
    let r = client::send(&e, &req, deadline)
        .await
        .map_err(|err| Outcome::fail(format!("GET: {err}")))?;
    s.note(format!(
        "GET {} -> HTTP {} {}",
        e.url(),
        r.status,
        r.content_type()
    ));
    Ok(match r.status {
        405 => Outcome::pass("GET: 405"),
        200 if r.is_event_stream() => Outcome::pass("GET: text/event-stream"),
        _ => Outcome::fail(format!(
            "GET got HTTP {} {} (LEG-10: text/event-stream or 405)",
            r.status,
            r.content_type()
        )),
    })
}

async fn legacy_notification_202(s: &mut Scenario) -> Verdict {
    let (id, v) = legacy_session(s).await?;
    let note = json!({"jsonrpc": "2.0", "method": method::CANCELLED, "params": {"requestId": "mcpspec-never-sent"}});
    let a = post(s, &legacy_post(note, id.as_deref(), Some(&v))).await?;
    Ok(match a.status {
        202 if a.body.trim().is_empty() => Outcome::pass("202 with no body"),
        400..=499 => Outcome::pass(format!("not accepted: HTTP {}", a.status)),
        _ => Outcome::fail(format!(
            "a POSTed notification got {} (LEG-11: 202, no body)",
            a.describe()
        )),
    })
}

async fn bad_version_header_400(s: &mut Scenario) -> Verdict {
    let (id, _) = legacy_session(s).await?;
    let a = post(
        s,
        &legacy_post(ping_body(), id.as_deref(), Some("1999-01-01")),
    )
    .await?;
    Ok(if a.status == 400 {
        Outcome::pass("400 for an unsupported MCP-Protocol-Version")
    } else {
        Outcome::fail(format!(
            "MCP-Protocol-Version 1999-01-01 got {} (LEG-8: 400)",
            a.describe()
        ))
    })
}
