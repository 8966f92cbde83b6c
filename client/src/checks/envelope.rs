//! `client/envelope/*` and `client/request-metadata/*`: the 2026-07-28 request envelope (CLI-1)
//! on every request, the HTTP headers that repeat it, and the methods the era removed (CLI-9).
//!
//! What the client must have done for a check to apply (POL-34): sent a request (CLI-9: completed
//! a `server/discover`); otherwise Skipped. A client that sent nothing at all fails every check
//! of the scenario through how it ended (`run.rs`).

use super::prelude::*;

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/envelope/meta-on-every-request",
            requirements: &["CLI-1"],
            level: Level::Must,
            scenario: "negotiation/modern-only",
            only: None,
            description: "Every request to a modern peer carries `_meta` with the protocol version and the client capabilities.",
            expectation: "`params._meta` with `io.modelcontextprotocol/protocolVersion` (a string) and `io.modelcontextprotocol/clientCapabilities` (an object) on every request.",
            faults: &["drop-meta-after-first"],
            judge: meta_on_every_request,
        },
        ClientCheck {
            id: "client/envelope/version-header-matches-meta",
            requirements: &["CLI-1"],
            level: Level::Must,
            scenario: "negotiation/modern-only",
            only: Some(Transport::Http),
            description: "Every POST of a modern request carries one `MCP-Protocol-Version` header equal to its `_meta` version.",
            expectation: "`MCP-Protocol-Version: 2026-07-28` on every request POST, the same as `_meta`.",
            faults: &["version-header-mismatch"],
            judge: version_header_matches_meta,
        },
        ClientCheck {
            id: "client/envelope/method-headers",
            requirements: &["CLI-1"],
            level: Level::Must,
            scenario: "negotiation/modern-only",
            only: Some(Transport::Http),
            description: "Every modern POST carries `Mcp-Method`, and `tools/call`, `prompts/get` and `resources/read` carry `Mcp-Name` (SEP-2243).",
            expectation: "`Mcp-Method` equal to the body's method; `Mcp-Name` equal to `params.name` (`params.uri` for resources/read).",
            faults: &["no-method-header"],
            judge: method_headers,
        },
        ClientCheck {
            id: "client/envelope/no-removed-methods",
            requirements: &["CLI-9"],
            level: Level::Must,
            scenario: "negotiation/modern-only",
            only: None,
            description: "After a successful `server/discover`, the client sends no method 2026-07-28 removed.",
            expectation: "No `initialize`, `notifications/initialized`, `ping`, `logging/setLevel` or `resources/(un)subscribe` after the DiscoverResult.",
            faults: &["ping-after-discover"],
            judge: no_removed_methods,
        },
        ClientCheck {
            id: "client/request-metadata/meta-on-every-request",
            requirements: &["CLI-1"],
            level: Level::Must,
            scenario: "request-metadata",
            only: None,
            description: "The official `request-metadata` flow: `_meta` (and over HTTP the matching header) on every request, the retry included.",
            expectation: "`_meta` with protocolVersion and clientCapabilities on every request; over HTTP `MCP-Protocol-Version` equal to it.",
            faults: &["drop-meta-after-first"],
            judge: meta_and_header,
        },
    ]
}

/// What is missing from a request's envelope, if anything.
fn envelope_problem(m: &ClientMessage) -> Option<String> {
    let Some(meta) = judge::meta_of(m.json.as_ref()) else {
        return Some(format!("{} has no `params._meta`", m.describe()));
    };
    let mut missing = Vec::new();
    if !meta
        .get(meta::PROTOCOL_VERSION)
        .is_some_and(Value::is_string)
    {
        missing.push(meta::PROTOCOL_VERSION);
    }
    if !meta
        .get(meta::CLIENT_CAPABILITIES)
        .is_some_and(Value::is_object)
    {
        missing.push(meta::CLIENT_CAPABILITIES);
    }
    (!missing.is_empty()).then(|| {
        format!(
            "{}: `_meta` lacks {} (or it is not of the right type)",
            m.describe(),
            missing.join(" and ")
        )
    })
}

fn meta_on_every_request(obs: &Observation) -> Outcome {
    let mut count = 0;
    for m in obs.requests() {
        count += 1;
        if let Some(problem) = envelope_problem(m) {
            return fail_at(m, problem);
        }
    }
    if count == 0 {
        return Outcome::skipped("the client sent no request: nothing to judge");
    }
    Outcome::pass(format!("all {count} request(s) carry the envelope"))
}

/// The header problem of one request POST, if any.
fn header_problem(m: &ClientMessage) -> Option<String> {
    let http = m.http.as_ref()?;
    let meta = judge::meta_version(m.json.as_ref());
    match (
        http.header_count("mcp-protocol-version"),
        http.header("mcp-protocol-version"),
    ) {
        (0, _) => Some(format!(
            "{} came without an MCP-Protocol-Version header",
            m.describe()
        )),
        (1, Some(h)) if Some(h) == meta => None,
        (1, Some(h)) => Some(format!(
            "{}: MCP-Protocol-Version `{h}` but `_meta` names {}",
            m.describe(),
            meta.map_or("no version".to_owned(), |v| format!("`{v}`"))
        )),
        (n, _) => Some(format!(
            "{}: MCP-Protocol-Version sent {n} times",
            m.describe()
        )),
    }
}

fn version_header_matches_meta(obs: &Observation) -> Outcome {
    let mut count = 0;
    for m in obs.requests() {
        count += 1;
        if let Some(problem) = header_problem(m) {
            return fail_at(m, problem);
        }
    }
    if count == 0 {
        return Outcome::skipped("the client sent no request: nothing to judge");
    }
    Outcome::pass(format!(
        "all {count} request POST(s) carry MCP-Protocol-Version equal to `_meta`"
    ))
}

fn method_headers(obs: &Observation) -> Outcome {
    let mut count = 0;
    for m in &obs.sent {
        let (Some(method_name), Some(http)) = (m.method(), m.http.as_ref()) else {
            continue;
        };
        count += 1;
        match http.header("mcp-method") {
            Some(h) if h == method_name => {}
            Some(h) => {
                return fail_at(m, format!("{}: Mcp-Method is `{h}`", m.describe()));
            }
            None => return fail_at(m, format!("{} came without Mcp-Method", m.describe())),
        }
        let named = match method_name {
            method::TOOLS_CALL | method::PROMPTS_GET => Some("name"),
            method::RESOURCES_READ => Some("uri"),
            _ => None,
        };
        if let Some(key) = named {
            let want = m.params().and_then(|p| p.get(key)).and_then(Value::as_str);
            let got = http.header("mcp-name");
            if got.is_none() || got != want {
                return fail_at(
                    m,
                    format!(
                        "{}: Mcp-Name is {}, `params.{key}` is {}",
                        m.describe(),
                        got.map_or("missing".to_owned(), |v| format!("`{v}`")),
                        want.map_or("missing".to_owned(), |v| format!("`{v}`"))
                    ),
                );
            }
        }
    }
    if count == 0 {
        return Outcome::skipped("the client sent no request or notification: nothing to judge");
    }
    Outcome::pass(format!(
        "Mcp-Method (and Mcp-Name where due) on all {count} POST(s)"
    ))
}

fn no_removed_methods(obs: &Observation) -> Outcome {
    let discovered = obs.requests_of(method::DISCOVER).find(|m| {
        m.kind()
            .id()
            .and_then(|id| obs.reply_to(id))
            .and_then(|r| r.json.as_ref())
            .is_some_and(|j| j.get("result").is_some())
    });
    let Some(discovered) = discovered else {
        return Outcome::skipped(
            "the client never completed a `server/discover` (judged by \
             client/negotiation/discovers-first)",
        );
    };
    let removed = obs
        .sent
        .iter()
        .skip_while(|m| !std::ptr::eq(*m, discovered))
        .skip(1)
        .find(|m| m.method().is_some_and(judge::removed_in_modern));
    match removed {
        Some(m) => fail_at(
            m,
            format!(
                "after a successful `server/discover` the client sent {}, which 2026-07-28 removed",
                m.describe()
            ),
        ),
        None => Outcome::pass("no removed method after the DiscoverResult"),
    }
}

fn meta_and_header(obs: &Observation) -> Outcome {
    let mut count = 0;
    for m in obs.requests() {
        count += 1;
        if let Some(problem) = envelope_problem(m).or_else(|| header_problem(m)) {
            return fail_at(m, problem);
        }
    }
    if count == 0 {
        return Outcome::skipped("the client sent no request: nothing to judge");
    }
    Outcome::pass(format!("the envelope on all {count} request(s)"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::checks::script::{Script, assert_verdict, judge, result};
    use crate::observation::ClientEnd;
    use crate::scenario::Transport;
    use mcpspec_harness::outcome::Kind;

    #[test]
    fn a_client_that_sent_no_request_is_skipped() {
        let obs = Script::new(Transport::Http)
            .client(result(json!(7), json!({})))
            .finish("negotiation/modern-only", ClientEnd::Exited(0));
        for id in [
            "client/envelope/meta-on-every-request",
            "client/envelope/version-header-matches-meta",
            "client/envelope/method-headers",
            "client/envelope/no-removed-methods",
        ] {
            assert_eq!(judge(id, &obs).kind, Kind::Skipped, "{id}");
        }
        let metadata = Script::new(Transport::Http)
            .client(result(json!(7), json!({})))
            .finish("request-metadata", ClientEnd::Exited(0));
        assert_verdict(
            &judge("client/request-metadata/meta-on-every-request", &metadata),
            Kind::Skipped,
            "no request",
        );
    }
}
