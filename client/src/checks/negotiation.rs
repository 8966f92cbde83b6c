//! `client/negotiation/*`: version fallback (CLI-2) and bounded negotiation (CLI-3), each
//! against a peer that answers `server/discover` its own way.
//!
//! What the client must have done for a check to apply (POL-34): sent a request (the fallback
//! checks: `server/discover` or `initialize`); otherwise Skipped. A client that sent nothing at
//! all fails every check of the scenario through how it ended (`run.rs`).

use super::prelude::*;

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/negotiation/discovers-first",
            requirements: &["CLI-2"],
            level: Level::Must,
            scenario: "negotiation/modern-only",
            only: None,
            description: "Against a modern-only peer, the first request is `server/discover` at a modern version.",
            expectation: "`server/discover` with `_meta` naming 2026-07-28 first; never `initialize`.",
            faults: &["initialize-first"],
            judge: discovers_first,
        },
        ClientCheck {
            id: "client/negotiation/dual-uses-modern",
            requirements: &["CLI-2"],
            level: Level::Must,
            scenario: "negotiation/dual",
            only: None,
            description: "Against a dual-era peer, the client discovers and stays modern.",
            expectation: "`server/discover` first, a DiscoverResult, then modern requests only; no `initialize`.",
            faults: &["initialize-first"],
            judge: dual_uses_modern,
        },
        ClientCheck {
            id: "client/negotiation/retries-listed-version",
            requirements: &["CLI-2"],
            level: Level::Must,
            scenario: "request-metadata",
            only: None,
            description: "After -32022 listing a version the client supports, it retries with that version.",
            expectation: "The next request repeats the refused one at 2026-07-28 (`_meta` and, over HTTP, the header); no fallback to `initialize`.",
            faults: &["ignore-supported-list"],
            judge: retries_listed_version,
        },
        ClientCheck {
            id: "client/negotiation/falls-back-on-method-not-found",
            requirements: &["CLI-2"],
            level: Level::Must,
            scenario: "negotiation/legacy-only",
            only: None,
            description: "After `server/discover` gets -32601, the client falls back to the `initialize` handshake.",
            expectation: "`initialize` at a legacy version after the refused discover, then the operation.",
            faults: &["never-fall-back"],
            judge: falls_back,
        },
        ClientCheck {
            id: "client/negotiation/falls-back-without-mutual-version",
            requirements: &["CLI-2"],
            level: Level::Must,
            scenario: "negotiation/no-mutual-version",
            only: None,
            description: "After -32022 listing only versions the client lacks, it falls back to `initialize`.",
            expectation: "`initialize` at a legacy version after the refused discover, then the operation.",
            faults: &["never-fall-back"],
            judge: falls_back,
        },
        ClientCheck {
            id: "client/negotiation/falls-back-on-http-400",
            requirements: &["CLI-2"],
            level: Level::Must,
            scenario: "negotiation/http-discover-400",
            only: Some(Transport::Http),
            description: "After the discover POST gets HTTP 400 without a JSON-RPC body, the client falls back to `initialize`.",
            expectation: "`initialize` at a legacy version after the refused discover, then the operation.",
            faults: &["never-fall-back"],
            judge: falls_back,
        },
        ClientCheck {
            id: "client/negotiation/falls-back-on-http-404",
            requirements: &["CLI-2"],
            level: Level::Must,
            scenario: "negotiation/http-discover-404",
            only: Some(Transport::Http),
            description: "After the discover POST gets HTTP 404 without a JSON-RPC body, the client falls back to `initialize`.",
            expectation: "`initialize` at a legacy version after the refused discover, then the operation.",
            faults: &["never-fall-back"],
            judge: falls_back,
        },
        ClientCheck {
            id: "client/negotiation/stops-after-version-errors",
            requirements: &["CLI-3"],
            level: Level::Must,
            scenario: "negotiation/version-error-forever",
            only: None,
            description: "Against a peer answering every request with -32022, the client stops after at most one retry per version.",
            expectation: "At most two attempts at any version, then an error and exit (non-zero) within the timeout.",
            faults: &["loop-on-version-error"],
            judge: stops_after_version_errors,
        },
    ]
}

/// The version a negotiation attempt asks for: the `_meta` version of a modern request, the
/// `protocolVersion` of an `initialize`.
fn asked_version(m: &ClientMessage) -> Option<String> {
    if m.method() == Some(method::INITIALIZE) {
        if let Some(v) = m
            .params()
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
        {
            return Some(v.to_owned());
        }
    }
    judge::meta_version(m.json.as_ref()).map(str::to_owned)
}

/// The Skip of a check that judges the client's requests when it sent none.
fn no_request() -> Outcome {
    Outcome::skipped("the client sent no request or notification: nothing to judge")
}

fn discovers_first(obs: &Observation) -> Outcome {
    let Some(first) = obs.first_call() else {
        return no_request();
    };
    let initialize = obs.requests_of(method::INITIALIZE).next();
    match (first.method(), judge::meta_version(first.json.as_ref())) {
        (Some(method::DISCOVER), Some(v)) if !judge::is_legacy(v) => match initialize {
            Some(m) => fail_at(
                m,
                format!("discovered at {v}, then sent `initialize` to a modern-only peer"),
            ),
            None => Outcome::pass(format!("`server/discover` first, at {v}")),
        },
        (Some(method::DISCOVER), v) => fail_at(
            first,
            format!(
                "`server/discover` first, but its `_meta` names {}: not a modern version",
                v.map_or("no version".to_owned(), |v| format!("`{v}`"))
            ),
        ),
        (Some(method::INITIALIZE), _) => fail_at(
            first,
            "the first request is `initialize`: the client never tried the modern era",
        ),
        (_, Some(v)) if first.is_request() => Outcome::non_strict(format!(
            "the first request is {} at {v}, not `server/discover` (a client that supports both \
             eras must discover first; a modern-only one may skip it)",
            first.describe()
        ))
        .with_evidence(Some(first.evidence())),
        _ => fail_at(
            first,
            format!(
                "the first message is {}, not `server/discover`",
                first.describe()
            ),
        ),
    }
}

fn dual_uses_modern(obs: &Observation) -> Outcome {
    let discovered = discovers_first(obs);
    if discovered.kind != mcpspec_harness::outcome::Kind::Pass {
        return discovered;
    }
    let legacy = obs
        .requests()
        .skip(1)
        .find(|m| !judge::is_modern(m.json.as_ref()));
    match legacy {
        Some(m) => fail_at(
            m,
            format!(
                "after a DiscoverResult the client sent {} without the modern envelope",
                m.describe()
            ),
        ),
        None => Outcome::pass("discovered, then every request modern"),
    }
}

fn retries_listed_version(obs: &Observation) -> Outcome {
    let mut requests = obs.requests();
    let Some(first) = requests.next() else {
        return no_request();
    };
    let refused = first.method().unwrap_or_default().to_owned();
    let Some(retry) = requests.next() else {
        return fail_at(
            first,
            format!(
                "`{refused}` got -32022 listing {}; the client sent nothing after it",
                version::MODERN
            ),
        );
    };
    let meta = judge::meta_version(retry.json.as_ref());
    let header = retry
        .http
        .as_ref()
        .and_then(|h| h.header("mcp-protocol-version"));
    let mut problems = Problems::new();
    if retry.method() == Some(method::INITIALIZE) {
        problems.push(
            "the client fell back to `initialize` although the -32022 listed a version it supports",
        );
    } else if retry.method() != Some(refused.as_str()) {
        problems.push(format!(
            "the next request is {}, not a retry of `{refused}`",
            retry.describe()
        ));
    }
    if meta != Some(version::MODERN) {
        problems.push(format!(
            "the retry's `_meta` names {}, not {}",
            meta.map_or("no version".to_owned(), |v| format!("`{v}`")),
            version::MODERN
        ));
    }
    if obs.transport == Transport::Http && header != Some(version::MODERN) {
        problems.push(format!(
            "the retry's MCP-Protocol-Version header is {}, not {}",
            header.map_or("missing".to_owned(), |v| format!("`{v}`")),
            version::MODERN
        ));
    }
    let outcome = problems.verdict(format!(
        "`{refused}` retried at {} after -32022",
        version::MODERN
    ));
    if outcome.wants_evidence() {
        outcome.with_evidence(Some(retry.evidence()))
    } else {
        outcome
    }
}

/// The judgement of the fallback scenarios: after the (refused) discover, `initialize` at a
/// legacy version.
fn falls_back(obs: &Observation) -> Outcome {
    let discovers: Vec<&ClientMessage> = obs.requests_of(method::DISCOVER).collect();
    let Some(last_discover) = discovers.last() else {
        return match obs.requests_of(method::INITIALIZE).next() {
            Some(_) => Outcome::info(
                "the client never tried `server/discover` (a legacy-only client): there was \
                 nothing to fall back from",
            ),
            None => Outcome::skipped(
                "the client sent neither `server/discover` nor `initialize`: no refusal to fall \
                 back from",
            ),
        };
    };
    let after = obs
        .sent
        .iter()
        .skip_while(|m| !std::ptr::eq(*m, *last_discover))
        .skip(1);
    let initialize = after
        .clone()
        .find(|m| m.method() == Some(method::INITIALIZE));
    let Some(initialize) = initialize else {
        let others: Vec<String> = after
            .filter(|m| m.is_request())
            .map(ClientMessage::describe)
            .take(3)
            .collect();
        let what = if others.is_empty() {
            "nothing more".to_owned()
        } else {
            others.join(", ")
        };
        return fail_at(
            last_discover,
            format!(
                "`server/discover` was refused ({} attempt(s)); the client did not fall back to \
                 `initialize` (it sent {what})",
                discovers.len()
            ),
        );
    };
    match asked_version(initialize) {
        Some(v) if judge::is_legacy(&v) => Outcome::pass(format!(
            "fell back to `initialize` at {v} after {} refused discover(s)",
            discovers.len()
        )),
        v => fail_at(
            initialize,
            format!(
                "fell back to `initialize`, but at {}: not a legacy version",
                v.map_or("no version".to_owned(), |v| format!("`{v}`"))
            ),
        ),
    }
}

/// The most attempts any one version may get: the first and one retry (CLI-3).
const MAX_ATTEMPTS_PER_VERSION: usize = 2;

fn stops_after_version_errors(obs: &Observation) -> Outcome {
    let mut attempts: std::collections::BTreeMap<String, Vec<&ClientMessage>> = Default::default();
    for m in obs.requests() {
        let v = asked_version(m).unwrap_or_else(|| "(no version)".into());
        attempts.entry(v).or_default().push(m);
    }
    let total: usize = attempts.values().map(Vec::len).sum();
    if total == 0 {
        return Outcome::skipped("the client sent no request: no version error to stop after");
    }
    let looped = attempts
        .iter()
        .find(|(_, tries)| tries.len() > MAX_ATTEMPTS_PER_VERSION);
    if let Some((v, tries)) = looped {
        return fail_at(
            tries[MAX_ATTEMPTS_PER_VERSION],
            format!(
                "{} attempts at {v} (at most {MAX_ATTEMPTS_PER_VERSION}), {total} requests in all: \
                 the client loops on -32022",
                tries.len()
            ),
        );
    }
    let summary = attempts
        .iter()
        .map(|(v, tries)| format!("{v} ×{}", tries.len()))
        .collect::<Vec<_>>()
        .join(", ");
    match &obs.end {
        crate::observation::ClientEnd::Exited(0) => Outcome::non_strict(format!(
            "stopped after {total} request(s) ({summary}), but exited 0 although it never \
             connected (an error is expected)"
        )),
        crate::observation::ClientEnd::Exited(_) => Outcome::pass(format!(
            "stopped after {total} request(s) ({summary}) and exited with an error"
        )),
        _ => Outcome::pass(format!("{total} request(s) ({summary})")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::checks::script::{Script, judge, result};
    use crate::observation::ClientEnd;
    use crate::scenario::Transport;
    use mcpspec_harness::outcome::Kind;

    #[test]
    fn a_client_that_sent_no_request_is_skipped() {
        for (id, scenario) in [
            (
                "client/negotiation/discovers-first",
                "negotiation/modern-only",
            ),
            ("client/negotiation/dual-uses-modern", "negotiation/dual"),
            (
                "client/negotiation/retries-listed-version",
                "request-metadata",
            ),
            (
                "client/negotiation/falls-back-on-method-not-found",
                "negotiation/legacy-only",
            ),
            (
                "client/negotiation/stops-after-version-errors",
                "negotiation/version-error-forever",
            ),
        ] {
            // Only a reply to nothing: no request or notification.
            let obs = Script::new(Transport::Stdio)
                .client(result(json!(7), json!({})))
                .finish(scenario, ClientEnd::Exited(0));
            assert_eq!(judge(id, &obs).kind, Kind::Skipped, "{id}");
        }
    }
}
