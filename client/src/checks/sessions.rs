//! `client/sessions/*`: streamable HTTP sessions from the client's side (CLI-8): the minted
//! `Mcp-Session-Id` on every later request, a new session after a 404, `DELETE` at the end.
//!
//! What the client must have done for a check to apply (POL-34): completed `initialize` (a
//! session was minted) and, for the 404, made a request in the session after it expired other
//! than its closing `DELETE` (a 404 to that asks for no new session). Otherwise Skipped, saying
//! which.

use super::prelude::*;
use crate::observation::HttpHead;

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/sessions/echoes-session-id",
            requirements: &["CLI-8"],
            level: Level::Must,
            scenario: "sessions/session-id",
            only: Some(Transport::Http),
            description: "Every request after `initialize` names the session the server minted.",
            expectation: "`Mcp-Session-Id` equal to the minted id on every later POST, GET and DELETE.",
            faults: &["ignore-session-id"],
            judge: echoes_session_id,
        },
        ClientCheck {
            id: "client/sessions/delete-at-end",
            requirements: &["CLI-8"],
            level: Level::Should,
            scenario: "sessions/session-id",
            only: Some(Transport::Http),
            description: "The client ends the session it no longer needs with `DELETE`.",
            expectation: "A `DELETE` naming the session before the client exits.",
            faults: &["no-delete"],
            judge: delete_at_end,
        },
        ClientCheck {
            id: "client/sessions/new-session-after-404",
            requirements: &["CLI-8"],
            level: Level::Must,
            scenario: "sessions/expired",
            only: Some(Transport::Http),
            description: "After HTTP 404 for its session, the client starts a new one with `initialize` and goes on in it.",
            expectation: "`initialize` without the old session id, then requests naming the new one.",
            faults: &["no-reinitialize-on-404"],
            judge: new_session_after_404,
        },
    ]
}

/// The first session the peer minted, and where in `obs.http` it was minted.
fn minted(obs: &Observation) -> Option<(usize, &str)> {
    obs.http
        .iter()
        .enumerate()
        .find_map(|(i, h)| h.minted_session.as_deref().map(|s| (i, s)))
}

fn evidence(obs: &Observation, h: &HttpHead) -> Option<mcpspec_harness::outcome::Evidence> {
    obs.message_of(h.exchange).map(ClientMessage::evidence)
}

/// `GET /mcp`: a request without a message, in words.
fn named(h: &HttpHead) -> String {
    format!("{} {}", h.method, h.target)
}

/// The Skip of a check that needs a session when none was minted.
fn no_session() -> Outcome {
    Outcome::skipped(
        "no session was minted: the client never completed `initialize` (how it negotiated is \
         judged by client/negotiation/* and client/lifecycle/*)",
    )
}

fn echoes_session_id(obs: &Observation) -> Outcome {
    let Some((at, session)) = minted(obs) else {
        return no_session();
    };
    let later = &obs.http[at + 1..];
    for h in later {
        let sent = h.header("mcp-session-id");
        if sent != Some(session) {
            let what = obs
                .message_of(h.exchange)
                .map_or_else(|| named(h), ClientMessage::describe);
            return Outcome::fail(format!(
                "{what} came with Mcp-Session-Id {}, not the minted `{session}`",
                sent.map_or("missing".to_owned(), |s| format!("`{s}`"))
            ))
            .with_evidence(evidence(obs, h));
        }
    }
    if later.is_empty() {
        return Outcome::skipped("the client sent nothing after `initialize`: no request to judge");
    }
    Outcome::pass(format!(
        "all {} later request(s) name the session",
        later.len()
    ))
}

fn delete_at_end(obs: &Observation) -> Outcome {
    let Some((_, session)) = minted(obs) else {
        return no_session();
    };
    if obs
        .deletes()
        .any(|h| h.header("mcp-session-id") == Some(session))
    {
        Outcome::pass("DELETE naming the session")
    } else {
        Outcome::non_strict("the client never sent DELETE for its session")
    }
}

fn new_session_after_404(obs: &Observation) -> Outcome {
    let Some((at, session)) = minted(obs) else {
        return no_session();
    };
    // The peer ends the session as it answers the first `tools/list` naming it.
    let names_it = |h: &HttpHead| h.header("mcp-session-id") == Some(session);
    let listed = obs.http[at + 1..].iter().position(|h| {
        names_it(h)
            && obs
                .message_of(h.exchange)
                .is_some_and(|m| m.method() == Some(method::TOOLS_LIST))
    });
    let Some(listed) = listed.map(|i| at + 1 + i) else {
        return Outcome::skipped(
            "the client never sent `tools/list` in its session, after whose reply the session \
             expires",
        );
    };
    // The client's first request the expired session was refused for; its closing DELETE's
    // 404 asks for no new session (POL-34).
    let refused = |h: &&HttpHead| h.status == Some(404) && names_it(h);
    let Some(gone) = obs.http[listed + 1..]
        .iter()
        .position(|h| refused(&h) && h.method != "DELETE")
        .map(|i| listed + 1 + i)
    else {
        let closing = obs.http[listed + 1..]
            .iter()
            .any(|h| refused(&h) && h.method == "DELETE");
        return Outcome::skipped(if closing {
            format!(
                "after session `{session}` expired the client's only request in it was its \
                 closing DELETE (HTTP 404): that asks for no new session"
            )
        } else {
            format!(
                "the client made no request in session `{session}` after it expired (after \
                 `tools/list`): nothing asked it for a new session"
            )
        });
    };
    let after = &obs.http[gone + 1..];
    let renewed = after.iter().position(|h| {
        obs.message_of(h.exchange)
            .is_some_and(|m| m.method() == Some(method::INITIALIZE))
            && h.header("mcp-session-id") != Some(session)
    });
    let Some(renewed) = renewed else {
        return Outcome::fail(format!(
            "HTTP 404 for session `{session}`; the client started no new session with `initialize`"
        ))
        .with_evidence(evidence(obs, &obs.http[gone]));
    };
    let Some(new) = after[renewed].minted_session.as_deref() else {
        return Outcome::error("the new `initialize` got no session id from the peer");
    };
    let stale = after[renewed + 1..]
        .iter()
        .find(|h| h.header("mcp-session-id") != Some(new));
    match stale {
        Some(h) => Outcome::fail(format!(
            "after the new session `{new}`, {} named {}",
            obs.message_of(h.exchange)
                .map_or_else(|| named(h), ClientMessage::describe),
            h.header("mcp-session-id")
                .map_or("no session".to_owned(), |s| format!("`{s}`"))
        ))
        .with_evidence(evidence(obs, h)),
        None if after[renewed + 1..].is_empty() => Outcome::fail(format!(
            "a new session `{new}`, but the client sent nothing in it"
        )),
        None => Outcome::pass(format!(
            "HTTP 404 for `{session}`, then a new session `{new}` used to the end"
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::checks::script::{Script, assert_verdict, judge, request};
    use crate::observation::ClientEnd;
    use crate::scenario::Transport;
    use mcpspec_harness::outcome::Kind;

    const EXPIRED: &str = "sessions/expired";
    const RENEWS: &str = "client/sessions/new-session-after-404";
    const OLD: &str = "0123";

    fn initialize(id: u64) -> Value {
        request(id, "initialize", json!({"protocolVersion": "2025-11-25"}))
    }

    /// A session minted, the handshake done and the tools listed (the session expires then).
    fn listed() -> Script {
        Script::new(Transport::Http)
            .post(initialize(1), None, 200, Some(OLD))
            .post(
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                Some(OLD),
                202,
                None,
            )
            .post(request(2, "tools/list", json!({})), Some(OLD), 200, None)
    }

    #[test]
    fn a_404_to_the_closing_delete_asks_for_no_new_session() {
        let obs = listed()
            .bare("DELETE", Some(OLD), 404)
            .finish(EXPIRED, ClientEnd::Exited(0));
        assert_verdict(&judge(RENEWS, &obs), Kind::Skipped, "closing DELETE");
    }

    #[test]
    fn no_request_after_the_expiry_or_no_session_is_skipped() {
        let quiet = listed().finish(EXPIRED, ClientEnd::Exited(0));
        assert_verdict(&judge(RENEWS, &quiet), Kind::Skipped, "no request");
        let unlisted = Script::new(Transport::Http)
            .post(initialize(1), None, 200, Some(OLD))
            .finish(EXPIRED, ClientEnd::Exited(0));
        assert_verdict(&judge(RENEWS, &unlisted), Kind::Skipped, "tools/list");
        let none = Script::new(Transport::Http)
            .post(initialize(1), None, 400, None)
            .finish(EXPIRED, ClientEnd::Exited(1));
        for id in [
            RENEWS,
            "client/sessions/echoes-session-id",
            "client/sessions/delete-at-end",
        ] {
            assert_verdict(&judge(id, &none), Kind::Skipped, "no session was minted");
        }
    }

    #[test]
    fn a_request_refused_with_404_needs_a_new_session() {
        let refused = listed()
            .post(
                request(3, "tools/call", json!({"name": "t"})),
                Some(OLD),
                404,
                None,
            )
            .bare("DELETE", Some(OLD), 404);
        let obs = refused.finish(EXPIRED, ClientEnd::Exited(1));
        assert_verdict(&judge(RENEWS, &obs), Kind::Fail, "started no new session");
        let renewed = listed()
            .post(
                request(3, "tools/call", json!({"name": "t"})),
                Some(OLD),
                404,
                None,
            )
            .post(initialize(4), None, 200, Some("4567"))
            .post(
                request(5, "tools/call", json!({"name": "t"})),
                Some("4567"),
                200,
                None,
            )
            .bare("DELETE", Some("4567"), 200)
            .finish(EXPIRED, ClientEnd::Exited(0));
        assert_eq!(judge(RENEWS, &renewed).kind, Kind::Pass);
    }
}
