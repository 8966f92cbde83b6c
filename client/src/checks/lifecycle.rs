//! `client/lifecycle/*`: the legacy handshake from the client's side (CLI-4): `initialize`
//! first, `notifications/initialized` after its result, other requests after that, and no
//! session with a server whose version the client does not support.
//!
//! What the client must have done for a check to apply (POL-34): sent `initialize` (for the
//! order of requests: sent a request after it); otherwise Skipped. A client that sent nothing at
//! all fails every check of the scenario through how it ended (`run.rs`).

use super::prelude::*;

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/lifecycle/initialize-first",
            requirements: &["CLI-4"],
            level: Level::Must,
            scenario: "initialize",
            only: None,
            description: "Against a legacy peer, `initialize` is the first request (after a refused `server/discover`, `ping` excepted).",
            expectation: "`initialize` before any other request but `ping`.",
            faults: &["request-before-initialize"],
            judge: initialize_first,
        },
        ClientCheck {
            id: "client/lifecycle/initialized-after-result",
            requirements: &["CLI-4"],
            level: Level::Must,
            scenario: "initialize",
            only: None,
            description: "`notifications/initialized` is sent, after the `initialize` result.",
            expectation: "`notifications/initialized` once the InitializeResult came.",
            faults: &["skip-initialized"],
            judge: initialized_after_result,
        },
        ClientCheck {
            id: "client/lifecycle/requests-after-initialized",
            requirements: &["CLI-4"],
            level: Level::Must,
            scenario: "initialize",
            only: None,
            description: "No request but `ping` between `initialize` and `notifications/initialized`.",
            expectation: "`tools/list` and the rest only after `notifications/initialized`.",
            faults: &["request-before-initialized"],
            judge: requests_after_initialized,
        },
        ClientCheck {
            id: "client/lifecycle/disconnects-on-unsupported-version",
            requirements: &["CLI-4"],
            level: Level::Must,
            scenario: "lifecycle/unsupported-version",
            only: None,
            description: "When the `initialize` result names a version the client does not support (1999-01-01), it goes no further.",
            expectation: "No `notifications/initialized` and no other request after that result; the client ends with an error.",
            faults: &["accept-unsupported-version"],
            judge: disconnects_on_unsupported_version,
        },
    ]
}

/// The client's messages from its last `server/discover` on (all of them if it never
/// discovered): where a dual client's handshake starts.
fn after_last_discover(obs: &Observation) -> &[ClientMessage] {
    let start = obs
        .sent
        .iter()
        .rposition(|m| m.method() == Some(method::DISCOVER))
        .map_or(0, |i| i + 1);
    &obs.sent[start..]
}

fn initialize_first(obs: &Observation) -> Outcome {
    let first = after_last_discover(obs)
        .iter()
        .filter(|m| m.is_request())
        .find(|m| m.method() != Some(method::PING));
    match first {
        None => Outcome::skipped(
            "the client sent no request (but `ping`) after its last `server/discover`: no \
             handshake to judge",
        ),
        Some(m) if m.method() == Some(method::INITIALIZE) => {
            Outcome::pass("`initialize` is the first request")
        }
        Some(m) => fail_at(m, format!("{} came before any `initialize`", m.describe())),
    }
}

/// The Skip of a check of the handshake when the client never began one.
fn never_initialized() -> Outcome {
    Outcome::skipped("the client never sent `initialize`: no handshake to judge")
}

/// The first `initialize` and the peer's reply to it.
fn handshake(obs: &Observation) -> Option<(&ClientMessage, Option<&PeerMessage>)> {
    let initialize = obs.requests_of(method::INITIALIZE).next()?;
    let reply = initialize.kind().id().and_then(|id| obs.reply_to(id));
    Some((initialize, reply))
}

fn initialized_after_result(obs: &Observation) -> Outcome {
    let Some((initialize, reply)) = handshake(obs) else {
        return never_initialized();
    };
    let Some(result) = reply.filter(|r| r.json.as_ref().is_some_and(|j| j.get("result").is_some()))
    else {
        return Outcome::skipped("the peer did not answer `initialize` with a result");
    };
    let initialized = obs
        .sent
        .iter()
        .find(|m| m.method() == Some(method::INITIALIZED));
    let Some(n) = initialized else {
        return Outcome::fail("the client never sent `notifications/initialized`")
            .with_evidence(Some(initialize.evidence()));
    };
    // Transcript entries are numbered in the order mcpspec saw the messages.
    match (n.entry, initialize.entry, result.entry) {
        (Some(n_at), Some(i_at), _) if n_at < i_at => {
            fail_at(n, "`notifications/initialized` came before `initialize`")
        }
        (Some(n_at), _, Some(r_at)) if n_at < r_at => fail_at(
            n,
            "`notifications/initialized` came before the peer's InitializeResult",
        ),
        _ => Outcome::pass("`notifications/initialized` after the InitializeResult"),
    }
}

fn requests_after_initialized(obs: &Observation) -> Outcome {
    let Some((initialize, _)) = handshake(obs) else {
        return never_initialized();
    };
    let judged = |m: &&ClientMessage| {
        m.is_request() && !matches!(m.method(), Some(method::PING | method::INITIALIZE))
    };
    let after = obs
        .sent
        .iter()
        .skip_while(|m| !std::ptr::eq(*m, initialize))
        .skip(1);
    let early = after
        .clone()
        .take_while(|m| m.method() != Some(method::INITIALIZED))
        .find(judged);
    match early {
        Some(m) => fail_at(
            m,
            format!("{} came before `notifications/initialized`", m.describe()),
        ),
        None if !after.clone().any(|m| judged(&m)) => Outcome::skipped(
            "the client sent no request (but `ping`) after `initialize`: no order to judge",
        ),
        None => Outcome::pass("no request but ping before `notifications/initialized`"),
    }
}

fn disconnects_on_unsupported_version(obs: &Observation) -> Outcome {
    let Some((initialize, reply)) = handshake(obs) else {
        return never_initialized();
    };
    let answered = reply
        .and_then(|r| r.json.as_ref())
        .and_then(|j| j.pointer("/result/protocolVersion"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let Some(answered) = answered else {
        return Outcome::error("the peer's InitializeResult was not seen");
    };
    let further = obs
        .sent
        .iter()
        .skip_while(|m| !std::ptr::eq(*m, initialize))
        .skip(1)
        .find(|m| {
            m.method()
                .is_some_and(|name| !matches!(name, method::INITIALIZE | method::PING))
        });
    match further {
        Some(m) => fail_at(
            m,
            format!(
                "the InitializeResult named protocolVersion `{answered}`; the client went on \
                 with {}",
                m.describe()
            ),
        ),
        None => Outcome::pass(format!(
            "went no further after protocolVersion `{answered}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::checks::script::{Script, assert_verdict, judge, request, result};
    use crate::observation::ClientEnd;
    use crate::scenario::Transport;
    use mcpspec_harness::outcome::Kind;

    #[test]
    fn a_client_that_never_initialized_is_skipped() {
        let obs = Script::new(Transport::Stdio)
            .client(request(1, "server/discover", json!({})))
            .finish("initialize", ClientEnd::Exited(1));
        for id in [
            "client/lifecycle/initialize-first",
            "client/lifecycle/initialized-after-result",
            "client/lifecycle/requests-after-initialized",
        ] {
            assert_eq!(judge(id, &obs).kind, Kind::Skipped, "{id}");
        }
        let unsupported = Script::new(Transport::Stdio)
            .client(request(1, "server/discover", json!({})))
            .finish("lifecycle/unsupported-version", ClientEnd::Exited(1));
        assert_verdict(
            &judge(
                "client/lifecycle/disconnects-on-unsupported-version",
                &unsupported,
            ),
            Kind::Skipped,
            "never sent `initialize`",
        );
    }

    #[test]
    fn no_request_after_the_handshake_leaves_no_order_to_judge() {
        let handshake = || {
            Script::new(Transport::Stdio)
                .client(request(
                    1,
                    "initialize",
                    json!({"protocolVersion": "2025-11-25"}),
                ))
                .peer(result(json!(1), json!({"protocolVersion": "2025-11-25"})))
                .client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        };
        let id = "client/lifecycle/requests-after-initialized";
        let quiet = handshake().finish("initialize", ClientEnd::Exited(0));
        assert_verdict(&judge(id, &quiet), Kind::Skipped, "no order to judge");
        let listed = handshake()
            .client(request(2, "tools/list", json!({})))
            .finish("initialize", ClientEnd::Exited(0));
        assert_eq!(judge(id, &listed).kind, Kind::Pass);
    }
}
