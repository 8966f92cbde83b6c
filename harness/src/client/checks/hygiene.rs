//! `client/hygiene/*`: JSON-RPC hygiene of everything the client sends (CLI-5), judged on the
//! official `tools_call` scenario.

use std::collections::HashMap;

use super::prelude::*;

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/hygiene/jsonrpc-version",
            requirements: &["CLI-5"],
            level: Level::Must,
            scenario: "tools_call",
            only: None,
            description: "Every message the client sends is a JSON object with `\"jsonrpc\": \"2.0\"`.",
            expectation: "`\"jsonrpc\": \"2.0\"` on every request, notification and response.",
            faults: &["jsonrpc-1"],
            judge: jsonrpc_version,
        },
        ClientCheck {
            id: "client/hygiene/unique-ids",
            requirements: &["CLI-5"],
            level: Level::Must,
            scenario: "tools_call",
            only: None,
            description: "Request ids are strings or integers, never null, and never reused within a session.",
            expectation: "A fresh string or integer id on every request of a session.",
            faults: &["reuse-ids"],
            judge: unique_ids,
        },
        ClientCheck {
            id: "client/hygiene/notifications-without-id",
            requirements: &["CLI-5"],
            level: Level::Must,
            scenario: "tools_call",
            only: None,
            description: "Notifications (`notifications/*`) carry no `id`.",
            expectation: "No `id` member on any `notifications/*` message.",
            faults: &["notification-with-id"],
            judge: notifications_without_id,
        },
    ]
}

fn jsonrpc_version(obs: &Observation) -> Outcome {
    for m in &obs.sent {
        let version = m.json.as_ref().and_then(|j| j.get("jsonrpc"));
        if version != Some(&Value::from("2.0")) {
            return fail_at(
                m,
                format!(
                    "{}: `jsonrpc` is {}",
                    m.describe(),
                    version.map_or("missing".to_owned(), ToString::to_string)
                ),
            );
        }
    }
    if obs.sent.is_empty() {
        return Outcome::fail("the client sent nothing");
    }
    Outcome::pass(format!(
        "all {} message(s) say \"jsonrpc\": \"2.0\"",
        obs.sent.len()
    ))
}

/// The session a message belongs to: its stdio connection, or its `Mcp-Session-Id` over HTTP
/// (the requests without one form one more).
fn session_of(m: &ClientMessage) -> String {
    match &m.http {
        Some(h) => h.header("mcp-session-id").unwrap_or("").to_owned(),
        None => m.conn.to_string(),
    }
}

fn unique_ids(obs: &Observation) -> Outcome {
    let mut seen: HashMap<(String, String), &ClientMessage> = HashMap::new();
    let mut count = 0;
    for m in obs.requests() {
        let Some(id) = m.kind().id() else { continue };
        count += 1;
        let integer = id.as_i64().is_some() || id.as_u64().is_some();
        if !(id.is_string() || integer) {
            return fail_at(
                m,
                format!(
                    "{}: the id is {id}, not a string or an integer",
                    m.describe()
                ),
            );
        }
        if let Some(first) = seen.insert((session_of(m), id.to_string()), m) {
            return fail_at(
                m,
                format!(
                    "{} reuses the id of the earlier {} in the same session",
                    m.describe(),
                    first.describe()
                ),
            );
        }
    }
    if count == 0 {
        return Outcome::fail("the client sent no request");
    }
    Outcome::pass(format!("{count} request id(s), none reused"))
}

fn notifications_without_id(obs: &Observation) -> Outcome {
    let with_id = obs.sent.iter().find(|m| {
        m.json.as_ref().is_some_and(|j| {
            j.get("method")
                .and_then(Value::as_str)
                .is_some_and(|name| name.starts_with("notifications/"))
                && j.get("id").is_some()
        })
    });
    match with_id {
        Some(m) => fail_at(m, "a `notifications/*` message carries an `id`"),
        None => Outcome::pass("no notification carries an id"),
    }
}
