//! `mrtr/*` (2026-07-28 input-required results, multi round-trip requests) and the client
//! capabilities of one request (META-3, META-4).
//!
//! The probe tool `mcpspec_confirm` (POL-12) needs an elicitation: called with the
//! `elicitation` client capability it answers `resultType: "input_required"`; the retry carries
//! `inputResponses` and the `requestState` back. Called without the capability it cannot go on
//! and must say so with -32021. The list methods need no tool.

use serde_json::{Value, json};

use super::prelude::*;
use super::support::{
    self, advertised_lists, answers, capabilities, first_round, is_input_required, retry, tamper,
};

/// The methods an InputRequiredResult may ask the client to run (MRTR-2), with the client
/// capability each needs (MRTR-3).
const INPUT_METHODS: [(&str, &str); 3] = [
    ("elicitation/create", "elicitation"),
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
];

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "mrtr/methods/lists-never-input-required",
            requirements: &["MRTR-1", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "`server/discover` and the first page of every advertised list.",
            expectation: "no `resultType: \"input_required\"` (only tools/call, prompts/get and \
                          resources/read may ask for input)",
            faults: &["input-required-on-list"],
            script: |s| Box::pin(lists_never_input_required(s)),
        },
        Check {
            id: "mrtr/input-required/shape",
            requirements: &["MRTR-2", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "`mcpspec_confirm` with the `elicitation` client capability.",
            expectation: "`resultType: \"input_required\"` with `inputRequests` (an object of \
                          elicitation/create, sampling/createMessage or roots/list requests) \
                          and/or `requestState`",
            faults: &["input-required-no-requests", "input-request-wrong-method"],
            script: |s| Box::pin(input_required_shape(s)),
        },
        Check {
            id: "mrtr/input-required/no-cache-hints",
            requirements: &["CACHE-1", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "The InputRequiredResult of `mcpspec_confirm`.",
            expectation: "no `ttlMs` and no `cacheScope` (it is not a complete result)",
            faults: &["cache-hints-on-input-required"],
            script: |s| Box::pin(no_cache_hints(s)),
        },
        Check {
            id: "mrtr/capabilities/undeclared-not-requested",
            requirements: &["MRTR-3", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "`mcpspec_confirm` with empty client capabilities.",
            expectation: "no input request of a type the request did not declare",
            faults: &["input-requests-undeclared-capability"],
            script: |s| Box::pin(undeclared_not_requested(s)),
        },
        Check {
            id: "mrtr/capabilities/missing-gets-32021",
            requirements: &["META-4", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "`mcpspec_confirm` (which needs elicitation) with empty client \
                          capabilities.",
            expectation: "error -32021 with `data.requiredCapabilities` a ClientCapabilities \
                          object",
            faults: &[
                "missing-capability-wrong-shape",
                "missing-capability-wrong-code",
                "input-requests-undeclared-capability",
            ],
            script: |s| Box::pin(missing_gets_32021(s)),
        },
        Check {
            id: "mrtr/capabilities/per-request",
            requirements: &["META-3", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "`mcpspec_confirm` declaring `elicitation`, then again on the same \
                          connection declaring nothing.",
            expectation: "the second request is judged on its own capabilities: no elicitation \
                          input request (-32021)",
            faults: &["capability-from-previous-request"],
            script: |s| Box::pin(per_request(s)),
        },
        Check {
            id: "mrtr/request-state/tampered-rejected",
            requirements: &["MRTR-4", "MRTR-2", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "The retry of `mcpspec_confirm` with every input answered and the last \
                          character of `requestState` changed; then with the state as issued.",
            expectation: "the tampered retry does not complete (an error, or input required \
                          again); the untampered one completes",
            faults: &["request-state-not-verified"],
            script: |s| Box::pin(tampered_rejected(s)),
        },
        Check {
            id: "mrtr/retry/missing-responses",
            requirements: &["MRTR-5", "POL-12"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "The retry of `mcpspec_confirm` with `requestState` and only an input \
                          response to a key never asked for.",
            expectation: "a new InputRequiredResult for the missing responses (the extra one \
                          ignored), not an error",
            faults: &["missing-input-responses-error"],
            script: |s| Box::pin(missing_responses(s)),
        },
    ]
}

/// A connection where `mcpspec_confirm` is listed, or a skip.
async fn confirm_peer(s: &mut Scenario) -> Result<Peer, Outcome> {
    let mut peer = s.connect().await?;
    support::require_probe_tool(&mut peer, tool::CONFIRM).await?;
    Ok(peer)
}

async fn lists_never_input_required(s: &mut Scenario) -> Verdict {
    let mut methods = vec![method::DISCOVER];
    if let Ok(lists) = advertised_lists(s.facts()) {
        methods.extend(lists.into_iter().map(|(m, _)| m));
    }
    let mut peer = s.connect().await?;
    let mut bad = Vec::new();
    for m in &methods {
        let reply = peer.call(request(m)).await;
        if reply.result().is_some_and(is_input_required) {
            bad.push(format!("{m}: {}", reply.describe()));
        }
    }
    Ok(if bad.is_empty() {
        Outcome::pass(format!("no input_required from {}", methods.join(", ")))
    } else {
        Outcome::fail(format!(
            "input_required outside tools/call, prompts/get, resources/read: {}",
            bad.join("; ")
        ))
    })
}

async fn input_required_shape(s: &mut Scenario) -> Verdict {
    let mut peer = confirm_peer(s).await?;
    let result = first_round(&mut peer).await?;
    let requests = result.get("inputRequests");
    let state = result.get("requestState");
    let mut problems = Problems::new();
    if requests.is_none() && state.is_none() {
        problems.push("neither `inputRequests` nor `requestState`");
    }
    if state.is_some_and(|s| !s.is_string()) {
        problems.push(format!(
            "`requestState` is not a string: {}",
            state.unwrap_or(&Value::Null)
        ));
    }
    match requests {
        None => {}
        Some(Value::Object(reqs)) => {
            for (key, r) in reqs {
                let m = r.get("method").and_then(Value::as_str);
                if !INPUT_METHODS.iter().any(|(im, _)| Some(*im) == m) {
                    problems.push(format!(
                        "`inputRequests.{key}` is not an elicitation/create, sampling/createMessage \
                         or roots/list request: {}",
                        preview(r, 120)
                    ));
                }
            }
        }
        Some(other) => problems.push(format!("`inputRequests` is not an object: {other}")),
    }
    Ok(problems.verdict(format!("input_required with {}", preview(&result, 160))))
}

async fn no_cache_hints(s: &mut Scenario) -> Verdict {
    let mut peer = confirm_peer(s).await?;
    let result = first_round(&mut peer).await?;
    let present: Vec<&str> = ["ttlMs", "cacheScope"]
        .into_iter()
        .filter(|k| result.get(*k).is_some())
        .collect();
    Ok(if present.is_empty() {
        Outcome::pass("no cache hints on the InputRequiredResult")
    } else {
        Outcome::fail(format!(
            "the InputRequiredResult carries {}",
            present.join(" and ")
        ))
    })
}

/// The input requests of `result` whose capability `declared` lacks.
fn undeclared_requests(result: &Value, declared: &Value) -> Vec<String> {
    let Some(reqs) = result.get("inputRequests").and_then(Value::as_object) else {
        return Vec::new();
    };
    reqs.iter()
        .filter_map(|(key, r)| {
            let m = r.get("method").and_then(Value::as_str)?;
            let cap = INPUT_METHODS
                .iter()
                .find(|(im, _)| *im == m)
                .map_or("elicitation", |(_, c)| *c);
            declared
                .get(cap)
                .is_none()
                .then(|| format!("`{key}` ({m}) needs `{cap}`"))
        })
        .collect()
}

async fn undeclared_not_requested(s: &mut Scenario) -> Verdict {
    let mut peer = confirm_peer(s).await?;
    let reply = peer.call(capabilities(json!({}))).await;
    let Some(result) = reply.result() else {
        return Ok(Outcome::pass(format!(
            "no input requested without capabilities ({})",
            reply.describe()
        )));
    };
    let bad = undeclared_requests(result, &json!({}));
    Ok(if bad.is_empty() {
        Outcome::pass("no input request for an undeclared capability")
    } else {
        Outcome::fail(format!(
            "with no client capabilities declared the server asked for {}",
            bad.join(", ")
        ))
    })
}

fn judge_missing_capability(reply: &Reply, what: &str) -> Outcome {
    let Some(error) = reply.error() else {
        return Outcome::mismatch(what, "error -32021", reply.describe());
    };
    if error.code != code::MISSING_CLIENT_CAPABILITY {
        return Outcome::mismatch(what, "error -32021", reply.describe());
    }
    match error
        .data
        .as_ref()
        .and_then(|d| d.get("requiredCapabilities"))
    {
        Some(Value::Object(caps)) => Outcome::pass(format!(
            "{what}: -32021 with requiredCapabilities {}",
            Value::Object(caps.clone())
        )),
        Some(other) => Outcome::fail(format!(
            "{what}: `data.requiredCapabilities` is not a ClientCapabilities object: {other}"
        )),
        None => Outcome::fail(format!(
            "{what}: -32021 without `data.requiredCapabilities`"
        )),
    }
}

async fn missing_gets_32021(s: &mut Scenario) -> Verdict {
    let mut peer = confirm_peer(s).await?;
    let reply = peer.call(capabilities(json!({}))).await;
    Ok(judge_missing_capability(
        &reply,
        "`mcpspec_confirm` without the elicitation capability",
    ))
}

async fn per_request(s: &mut Scenario) -> Verdict {
    let mut peer = confirm_peer(s).await?;
    first_round(&mut peer).await?;
    let reply = peer.call(capabilities(json!({}))).await;
    if let Some(result) = reply.result() {
        let bad = undeclared_requests(result, &json!({}));
        if !bad.is_empty() {
            return Ok(Outcome::fail(format!(
                "a request declaring no capabilities got input requests for {} (the capability \
                 of an earlier request was used)",
                bad.join(", ")
            )));
        }
    }
    Ok(judge_missing_capability(
        &reply,
        "the second request, declaring nothing",
    ))
}

async fn tampered_rejected(s: &mut Scenario) -> Verdict {
    let mut peer = confirm_peer(s).await?;
    let first = first_round(&mut peer).await?;
    let Some(state) = first.get("requestState").and_then(Value::as_str) else {
        return Ok(Outcome::skipped(
            "the InputRequiredResult carries no `requestState` to tamper with",
        ));
    };
    let responses = answers(&first);
    let tampered = json!(tamper(state));
    let reply = retry(&mut peer, Some(&tampered), responses.clone()).await;
    if let Some(result) = reply.result() {
        if !is_input_required(result) {
            return Ok(Outcome::fail(format!(
                "a retry with a tampered `requestState` completed: {}",
                reply.describe()
            )));
        }
    }
    let honest = retry(&mut peer, Some(&json!(state)), responses).await;
    Ok(match honest.result() {
        Some(r) if !is_input_required(r) => Outcome::pass(format!(
            "tampered state: {}; the state as issued completes",
            reply.describe()
        )),
        _ => Outcome::fail(format!(
            "the retry with the state as issued and every input answered did not complete: {}",
            honest.describe()
        )),
    })
}

async fn missing_responses(s: &mut Scenario) -> Verdict {
    let mut peer = confirm_peer(s).await?;
    let first = first_round(&mut peer).await?;
    let state = first.get("requestState").cloned();
    let extra = json!({ "mcpspec-never-asked-7f3a": { "action": "decline" } });
    let reply = retry(&mut peer, state.as_ref(), extra).await;
    Ok(match reply.result() {
        Some(r) if is_input_required(r) => {
            Outcome::pass("a retry answering nothing that was asked got a new InputRequiredResult")
        }
        Some(_) => Outcome::fail(format!(
            "a retry answering nothing that was asked completed: {}",
            reply.describe()
        )),
        None => Outcome::non_strict(format!(
            "a retry missing input responses got {}; MRTR-5 says a new InputRequiredResult",
            reply.describe()
        )),
    })
}
