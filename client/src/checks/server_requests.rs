//! `client/server-requests/*`: how a legacy client answers the server's requests (CLI-6). The
//! peer asks `ping`, `roots/list`, `sampling/createMessage`, `elicitation/create` and an
//! unknown method before it answers `tools/list`; the checks match each request on the wire to
//! the client's reply by id.
//!
//! What the client must have done for a check to apply (POL-34): received the peer's requests
//! (over HTTP a legacy server sends them on the session's GET stream, which a client may not
//! open), and for the capability checks declared (or not) the capability. Otherwise Skipped.
//! A request for a capability the client did not declare gets an error, which SHOULD be -32601
//! (the roots page says so): another code is NonStrict; a result, or no reply, fails.

use super::prelude::*;
use crate::scenario::{SAMPLING, UNKNOWN_METHOD};

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/server-requests/ping",
            requirements: &["CLI-6"],
            level: Level::Must,
            scenario: "server-requests/legacy",
            only: None,
            description: "Every `ping` from the server gets an empty result.",
            expectation: "`{\"result\": {}}` with the ping's id.",
            faults: &["ignore-server-requests", "ping-error"],
            judge: ping,
        },
        ClientCheck {
            id: "client/server-requests/declared-capabilities",
            requirements: &["CLI-6"],
            level: Level::Must,
            scenario: "server-requests/legacy",
            only: None,
            description: "`roots/list`, `sampling/createMessage` and `elicitation/create` get a result when the client declared the capability in `initialize`.",
            expectation: "A result (not an error) for each declared capability's request.",
            faults: &["ignore-server-requests", "error-on-declared"],
            judge: declared,
        },
        ClientCheck {
            id: "client/server-requests/undeclared-capabilities",
            requirements: &["CLI-6"],
            level: Level::Must,
            scenario: "server-requests/legacy",
            only: None,
            description: "A request for a capability the client did not declare gets an error (SHOULD be -32601; another code is NonStrict).",
            expectation: "Error -32601 for `roots/list`, `sampling/createMessage`, `elicitation/create` without the capability.",
            faults: &["ignore-server-requests", "result-for-undeclared"],
            judge: undeclared,
        },
        ClientCheck {
            id: "client/server-requests/unknown-method",
            requirements: &["CLI-6"],
            level: Level::Must,
            scenario: "server-requests/legacy",
            only: None,
            description: "A server request of an unknown method gets -32601.",
            expectation: "Error -32601 for `mcpspec/unknown-method`.",
            faults: &["ignore-server-requests", "unknown-method-result"],
            judge: unknown_method,
        },
        ClientCheck {
            id: "client/server-requests/reply-ids",
            requirements: &["CLI-6"],
            level: Level::Must,
            scenario: "server-requests/legacy",
            only: None,
            description: "Each server request gets exactly one reply, carrying its id (same JSON type), and no reply names an id the server never used.",
            expectation: "One reply per server request, its id echoed exactly.",
            faults: &["answer-with-wrong-id"],
            judge: reply_ids,
        },
    ]
}

/// A server→client request the peer sent, and the client's replies to it.
struct Asked<'a> {
    method: &'a str,
    request: &'a PeerMessage,
    replies: Vec<&'a ClientMessage>,
}

/// The peer's requests on the wire, each with the client's replies; `Err` with a Skipped
/// verdict when none reached the client.
fn asked(obs: &Observation) -> Result<Vec<Asked<'_>>, Outcome> {
    let asked: Vec<Asked<'_>> = obs
        .received
        .iter()
        .filter_map(|p| match judge::kind(p.json.as_ref()) {
            Kind::Request { id, method } => Some(Asked {
                method,
                request: p,
                replies: obs
                    .sent
                    .iter()
                    .filter(|m| matches!(m.kind(), Kind::Response { id: got } if got == id))
                    .collect(),
            }),
            _ => None,
        })
        .collect();
    if asked.is_empty() {
        let why = if obs.transport == Transport::Http {
            "no server request reached the client: it opened no GET stream, where a legacy \
             HTTP server sends them (2025-11-25 lets a client open none)"
        } else {
            "no server request reached the client"
        };
        return Err(Outcome::skipped(why));
    }
    Ok(asked)
}

/// Whether the client declared `capability` in its `initialize`.
fn declared_capability(obs: &Observation, capability: &str) -> bool {
    obs.requests_of(method::INITIALIZE).any(|m| {
        m.params()
            .and_then(|p| p.get("capabilities"))
            .and_then(|c| c.get(capability))
            .is_some_and(|c| !c.is_null())
    })
}

/// The capability a server request needs, if it needs one.
fn capability_of(method_name: &str) -> Option<&'static str> {
    match method_name {
        method::ROOTS_LIST => Some("roots"),
        SAMPLING => Some("sampling"),
        method::ELICITATION_CREATE => Some("elicitation"),
        _ => None,
    }
}

fn result_of(reply: &ClientMessage) -> Option<&Value> {
    reply.json.as_ref()?.get("result")
}

fn error_code(reply: &ClientMessage) -> Option<i64> {
    reply.json.as_ref()?.pointer("/error/code")?.as_i64()
}

/// Words for what a reply is.
fn what(reply: Option<&&ClientMessage>) -> String {
    match reply {
        None => "no reply".into(),
        Some(r) => match (result_of(r), error_code(r)) {
            (Some(result), _) => format!("the result {}", mcpspec_core::text::preview(result, 80)),
            (None, Some(code)) => format!("error {code}"),
            (None, None) => "a reply with neither result nor error code".into(),
        },
    }
}

fn ping(obs: &Observation) -> Outcome {
    let asked = match asked(obs) {
        Ok(a) => a,
        Err(skip) => return skip,
    };
    let pings: Vec<&Asked<'_>> = asked.iter().filter(|a| a.method == method::PING).collect();
    for a in &pings {
        let empty = a
            .replies
            .first()
            .and_then(|r| result_of(r))
            .and_then(Value::as_object)
            .is_some_and(|o| o.keys().all(|k| k == "_meta"));
        if !empty {
            return Outcome::fail(format!(
                "a server `ping` got {}, not an empty result",
                what(a.replies.first())
            ))
            .with_evidence(a.replies.first().map(|r| r.evidence()));
        }
    }
    if pings.is_empty() {
        return Outcome::skipped("no server `ping` reached the client");
    }
    Outcome::pass(format!("{} ping(s), each answered {{}}", pings.len()))
}

fn declared(obs: &Observation) -> Outcome {
    judge_capabilities(obs, true)
}

fn undeclared(obs: &Observation) -> Outcome {
    judge_capabilities(obs, false)
}

/// The capability requests whose capability was declared (or not), each judged.
fn judge_capabilities(obs: &Observation, want_declared: bool) -> Outcome {
    let asked = match asked(obs) {
        Ok(a) => a,
        Err(skip) => return skip,
    };
    let mut judged = Vec::new();
    let mut other_codes = Vec::new();
    for a in &asked {
        let Some(capability) = capability_of(a.method) else {
            continue;
        };
        if declared_capability(obs, capability) != want_declared {
            continue;
        }
        let reply = a.replies.first();
        let (ok, other_code) = match reply {
            Some(r) if want_declared => (result_of(r).is_some(), None),
            Some(r) => match (result_of(r), error_code(r)) {
                (None, Some(code::METHOD_NOT_FOUND)) => (true, None),
                (None, Some(other)) => (true, Some(other)),
                _ => (false, None),
            },
            None => (false, None),
        };
        if !ok {
            let wanted = if want_declared {
                "a result"
            } else {
                "an error (-32601)"
            };
            let declared = if want_declared {
                "declared"
            } else {
                "did not declare"
            };
            return Outcome::fail(format!(
                "`{}` (the client {declared} `{capability}`) got {}, not {wanted}",
                a.method,
                what(reply)
            ))
            .with_evidence(reply.map(|r| r.evidence()));
        }
        if let (Some(other), Some(r)) = (other_code, reply) {
            other_codes.push((a.method, capability, other, *r));
        }
        judged.push(a.method);
    }
    if judged.is_empty() {
        return Outcome::skipped(if want_declared {
            "the client declared none of roots, sampling, elicitation"
        } else {
            "the client declared roots, sampling and elicitation: none is undeclared"
        });
    }
    if !other_codes.is_empty() {
        let listed: Vec<String> = other_codes
            .iter()
            .map(|(m, capability, c, _)| {
                format!("`{m}` (the client did not declare `{capability}`) got error {c}")
            })
            .collect();
        return Outcome::non_strict(format!(
            "{}: an error, as due, but not the -32601 a client SHOULD answer for a capability \
             it did not declare",
            listed.join(", ")
        ))
        .with_evidence(other_codes.first().map(|(.., r)| r.evidence()));
    }
    Outcome::pass(format!("{} answered as due", judged.join(", ")))
}

fn unknown_method(obs: &Observation) -> Outcome {
    let asked = match asked(obs) {
        Ok(a) => a,
        Err(skip) => return skip,
    };
    let Some(a) = asked.iter().find(|a| a.method == UNKNOWN_METHOD) else {
        return Outcome::skipped(format!("`{UNKNOWN_METHOD}` did not reach the client"));
    };
    match a.replies.first() {
        Some(r) if error_code(r) == Some(code::METHOD_NOT_FOUND) => {
            Outcome::pass(format!("`{UNKNOWN_METHOD}` got -32601"))
        }
        reply => Outcome::fail(format!(
            "`{UNKNOWN_METHOD}` got {}, not error -32601",
            what(reply)
        ))
        .with_evidence(reply.map(|r| r.evidence())),
    }
}

fn reply_ids(obs: &Observation) -> Outcome {
    let asked = match asked(obs) {
        Ok(a) => a,
        Err(skip) => return skip,
    };
    if let Some(a) = asked.iter().find(|a| a.replies.len() > 1) {
        return Outcome::fail(format!("`{}` got {} replies", a.method, a.replies.len()))
            .with_evidence(a.replies.get(1).map(|r| r.evidence()));
    }
    let ids: Vec<&Value> = asked
        .iter()
        .filter_map(|a| a.request.json.as_ref()?.get("id"))
        .collect();
    let stray = obs.sent.iter().find(|m| match m.kind() {
        Kind::Response { id } => !ids.contains(&id),
        _ => false,
    });
    if let Some(m) = stray {
        return fail_at(
            m,
            format!("{}: the server sent no request with that id", m.describe()),
        );
    }
    if let Some(a) = asked.iter().find(|a| a.replies.is_empty()) {
        return Outcome::fail(format!("`{}` got no reply", a.method)).with_evidence(
            a.request
                .entry
                .map(|entry| mcpspec_harness::outcome::Evidence {
                    entry,
                    conn: a.request.conn,
                    instance: None,
                    quote: a
                        .request
                        .json
                        .as_ref()
                        .map(|j| mcpspec_core::text::preview(j, 200))
                        .unwrap_or_default(),
                }),
        );
    }
    Outcome::pass(format!(
        "{} server request(s), each answered once with its id",
        asked.len()
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::checks::script::{Script, assert_verdict, error, judge, request, result};
    use crate::observation::ClientEnd;
    use crate::scenario::Transport;
    use mcpspec_harness::outcome::Kind;

    const SCENARIO: &str = "server-requests/legacy";
    const UNDECLARED: &str = "client/server-requests/undeclared-capabilities";

    /// A client that declared no capability is asked `roots/list` and answers `reply`.
    fn roots_answered(reply: Option<Value>) -> Kind {
        let mut s = Script::new(Transport::Stdio)
            .client(request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
            ))
            .peer(json!({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"}));
        if let Some(reply) = reply {
            s = s.client(reply);
        }
        judge(UNDECLARED, &s.finish(SCENARIO, ClientEnd::Exited(0))).kind
    }

    #[test]
    fn an_undeclared_capability_gets_an_error_which_should_be_method_not_found() {
        let id = json!("srv-1");
        assert_eq!(roots_answered(Some(error(id.clone(), -32601))), Kind::Pass);
        assert_eq!(
            roots_answered(Some(error(id.clone(), -32600))),
            Kind::NonStrict
        );
        assert_eq!(
            roots_answered(Some(result(id, json!({"roots": []})))),
            Kind::Fail
        );
        assert_eq!(roots_answered(None), Kind::Fail);
    }

    #[test]
    fn a_non_strict_verdict_names_the_code() {
        let obs = Script::new(Transport::Stdio)
            .client(request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}}),
            ))
            .peer(json!({"jsonrpc": "2.0", "id": "srv-2", "method": "elicitation/create"}))
            .client(error(json!("srv-2"), -32600))
            .finish(SCENARIO, ClientEnd::Exited(0));
        let outcome = judge(UNDECLARED, &obs);
        assert_verdict(&outcome, Kind::NonStrict, "got error -32600");
        assert!(outcome.evidence.is_some(), "a NonStrict quotes the reply");
    }
}
