//! `client/hygiene/*`: JSON-RPC hygiene of everything the client sends (CLI-5), judged on the
//! official `tools_call` scenario.
//!
//! What the client must have done for a check to apply (POL-34): sent a message (ids: a
//! request; notifications: a `notifications/*` message); otherwise Skipped. A client that sent
//! nothing at all fails every check of the scenario through how it ended (`run.rs`).

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
        return Outcome::skipped("the client sent no message: nothing to judge");
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
        return Outcome::skipped("the client sent no request: no id to judge");
    }
    Outcome::pass(format!("{count} request id(s), none reused"))
}

fn notifications_without_id(obs: &Observation) -> Outcome {
    let notifications: Vec<&ClientMessage> = obs
        .sent
        .iter()
        .filter(|m| {
            m.json
                .as_ref()
                .and_then(|j| j.get("method"))
                .and_then(Value::as_str)
                .is_some_and(|name| name.starts_with("notifications/"))
        })
        .collect();
    if notifications.is_empty() {
        return Outcome::skipped(
            "the client sent no `notifications/*` message (a 2026-07-28 client need send none \
             here): nothing to judge",
        );
    }
    match notifications
        .iter()
        .find(|m| m.json.as_ref().is_some_and(|j| j.get("id").is_some()))
    {
        Some(m) => fail_at(m, "a `notifications/*` message carries an `id`"),
        None => Outcome::pass(format!(
            "{} notification(s), none with an id",
            notifications.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::checks::script::{Script, assert_verdict, judge, request};
    use crate::observation::ClientEnd;
    use crate::scenario::Transport;
    use mcpspec_harness::outcome::Kind;

    const NOTIFICATIONS: &str = "client/hygiene/notifications-without-id";

    #[test]
    fn notifications_are_judged_only_when_the_client_sent_some() {
        let modern = Script::new(Transport::Stdio)
            .client(request(1, "server/discover", json!({})))
            .finish("tools_call", ClientEnd::Exited(0));
        assert_verdict(
            &judge(NOTIFICATIONS, &modern),
            Kind::Skipped,
            "no `notifications/*` message",
        );
        let with_id = Script::new(Transport::Stdio)
            .client(json!({"jsonrpc": "2.0", "id": 9, "method": "notifications/initialized"}))
            .finish("tools_call", ClientEnd::Exited(0));
        assert_eq!(judge(NOTIFICATIONS, &with_id).kind, Kind::Fail);
        let bare = Script::new(Transport::Stdio)
            .client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .finish("tools_call", ClientEnd::Exited(0));
        assert_eq!(judge(NOTIFICATIONS, &bare).kind, Kind::Pass);
        assert_verdict(
            &judge("client/hygiene/unique-ids", &bare),
            Kind::Skipped,
            "no request",
        );
    }
}
