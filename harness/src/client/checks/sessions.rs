//! `client/sessions/*`: streamable HTTP sessions from the client's side (CLI-8): the minted
//! `Mcp-Session-Id` on every later request, a new session after a 404, `DELETE` at the end.

use super::prelude::*;
use crate::client::observation::HttpHead;

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

fn evidence(obs: &Observation, h: &HttpHead) -> Option<crate::outcome::Evidence> {
    obs.message_of(h.exchange).map(ClientMessage::evidence)
}

/// `GET /mcp`: a request without a message, in words.
fn named(h: &HttpHead) -> String {
    format!("{} {}", h.method, h.target)
}

fn echoes_session_id(obs: &Observation) -> Outcome {
    let Some((at, session)) = minted(obs) else {
        return Outcome::fail("no session was minted: the client never completed `initialize`");
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
        return Outcome::fail("the client sent nothing after `initialize`");
    }
    Outcome::pass(format!(
        "all {} later request(s) name the session",
        later.len()
    ))
}

fn delete_at_end(obs: &Observation) -> Outcome {
    let Some((_, session)) = minted(obs) else {
        return Outcome::fail("no session was minted: the client never completed `initialize`");
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
    let Some((_, session)) = minted(obs) else {
        return Outcome::fail("no session was minted: the client never completed `initialize`");
    };
    let Some(gone) = obs
        .http
        .iter()
        .position(|h| h.status == Some(404) && h.header("mcp-session-id") == Some(session))
    else {
        return Outcome::fail(
            "the session expired after `tools/list`; the client sent no request naming it \
             afterwards (it had `add_numbers` to call)",
        );
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
