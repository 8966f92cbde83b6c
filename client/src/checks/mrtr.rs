//! `client/mrtr/*`: multi-round-trip requests (CLI-7) on the official
//! `sep-2322-client-request-state` scenario. The peer answers `test_mrtr_echo_state` with an
//! InputRequiredResult holding a `requestState` that changes if it is parsed and written again,
//! and `test_mrtr_no_state` with one holding none; any other tool the client calls gets the
//! first, then (its retry) the second. Input requests are only of a kind the client declared
//! (MRTR-3). Each check finds the client's retry of the same tool after that reply and judges
//! it.
//!
//! What the client must have done for a check to apply (POL-34): called a tool and got an
//! InputRequiredResult (of the kind the check judges); otherwise the check is Skipped saying
//! which was missing. A client that got one and never retried fails.

use super::prelude::*;

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/mrtr/request-state-echoed",
            requirements: &["CLI-7"],
            level: Level::Must,
            scenario: "sep-2322-client-request-state",
            only: None,
            description: "The retry after an InputRequiredResult echoes its `requestState` byte for byte.",
            expectation: "`params.requestState` of the retry equal to the string the server sent.",
            faults: &["mangle-request-state"],
            judge: request_state_echoed,
        },
        ClientCheck {
            id: "client/mrtr/fresh-id",
            requirements: &["CLI-7"],
            level: Level::Must,
            scenario: "sep-2322-client-request-state",
            only: None,
            description: "The retry is a new request: a JSON-RPC id not used before.",
            expectation: "A retry id different from the original request's and every earlier one.",
            faults: &["reuse-id-on-retry"],
            judge: fresh_id,
        },
        ClientCheck {
            id: "client/mrtr/no-state-when-absent",
            requirements: &["CLI-7"],
            level: Level::Must,
            scenario: "sep-2322-client-request-state",
            only: None,
            description: "When the InputRequiredResult carries no `requestState`, the retry carries none.",
            expectation: "No `requestState` member in the retry of `test_mrtr_no_state`.",
            faults: &["invent-request-state"],
            judge: no_state_when_absent,
        },
        ClientCheck {
            id: "client/mrtr/input-responses",
            requirements: &["CLI-7"],
            level: Level::Must,
            scenario: "sep-2322-client-request-state",
            only: None,
            description: "The retry carries `inputResponses` with a response for every input request.",
            expectation: "`params.inputResponses` holding every key of `inputRequests`.",
            faults: &["drop-input-responses"],
            judge: input_responses,
        },
    ]
}

/// One InputRequiredResult the peer sent, the request it answered and the client's retry.
struct Round<'a> {
    tool: String,
    result: &'a Value,
    original: &'a ClientMessage,
    retry: Option<&'a ClientMessage>,
}

impl Round<'_> {
    fn state(&self) -> Option<&Value> {
        self.result.get("requestState")
    }
}

/// Every round the peer opened; `Err` with a Skip naming what the client did not do when none
/// reached it.
fn rounds(obs: &Observation) -> Result<Vec<Round<'_>>, Outcome> {
    let mut rounds = Vec::new();
    for p in &obs.received {
        let Some(result) = p.json.as_ref().and_then(|j| j.get("result")) else {
            continue;
        };
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            continue;
        }
        let Some(id) = p.json.as_ref().and_then(|j| j.get("id")) else {
            continue;
        };
        let Some(at) = obs
            .sent
            .iter()
            .position(|m| m.method() == Some(method::TOOLS_CALL) && m.kind().id() == Some(id))
        else {
            continue;
        };
        let original = &obs.sent[at];
        let tool = name_of(original).unwrap_or_default().to_owned();
        let retry = obs.sent[at + 1..]
            .iter()
            .find(|m| m.method() == Some(method::TOOLS_CALL) && name_of(m) == Some(tool.as_str()));
        rounds.push(Round {
            tool,
            result,
            original,
            retry,
        });
    }
    if rounds.is_empty() {
        let calls = obs.requests_of(method::TOOLS_CALL).count();
        return Err(Outcome::skipped(if calls == 0 {
            "the client never called a tool: CLI-7 needs a tools/call that gets an \
             InputRequiredResult"
                .to_owned()
        } else {
            format!(
                "no InputRequiredResult reached the client: its {calls} tools/call(s) were \
                 answered otherwise (CLI-7 needs one that gets an InputRequiredResult)"
            )
        }));
    }
    Ok(rounds)
}

fn name_of(m: &ClientMessage) -> Option<&str> {
    m.params()?.get("name")?.as_str()
}

/// The retry of `round`, or the Fail that it never came.
fn retry_of<'a>(round: &Round<'a>) -> Result<&'a ClientMessage, Outcome> {
    round.retry.ok_or_else(|| {
        fail_at(
            round.original,
            format!(
                "`{}` got an InputRequiredResult; the client never retried it",
                round.tool
            ),
        )
    })
}

fn request_state_echoed(obs: &Observation) -> Outcome {
    let rounds = match rounds(obs) {
        Ok(r) => r,
        Err(fail) => return fail,
    };
    let mut judged = 0;
    for round in rounds.iter().filter(|r| r.state().is_some()) {
        let retry = match retry_of(round) {
            Ok(r) => r,
            Err(fail) => return fail,
        };
        let sent = round.state();
        let echoed = retry.params().and_then(|p| p.get("requestState"));
        if echoed != sent {
            return fail_at(
                retry,
                format!(
                    "the retry of `{}` carries requestState {}, the server sent {}",
                    round.tool,
                    echoed.map_or("none".to_owned(), |v| mcpspec_core::text::preview(v, 80)),
                    sent.map_or("none".to_owned(), |v| mcpspec_core::text::preview(v, 80))
                ),
            );
        }
        judged += 1;
    }
    if judged == 0 {
        return Outcome::skipped(
            "no InputRequiredResult with a requestState reached the client (nothing to echo)",
        );
    }
    Outcome::pass("requestState echoed exactly")
}

fn fresh_id(obs: &Observation) -> Outcome {
    let rounds = match rounds(obs) {
        Ok(r) => r,
        Err(fail) => return fail,
    };
    for round in &rounds {
        let retry = match retry_of(round) {
            Ok(r) => r,
            Err(fail) => return fail,
        };
        let Some(id) = retry.kind().id() else {
            return fail_at(retry, "the retry has no id");
        };
        let reused = obs
            .sent
            .iter()
            .take_while(|m| !std::ptr::eq(*m, retry))
            .find(|m| m.is_request() && m.kind().id() == Some(id));
        if let Some(earlier) = reused {
            return fail_at(
                retry,
                format!(
                    "the retry of `{}` reuses id {id} of the earlier {}",
                    round.tool,
                    earlier.describe()
                ),
            );
        }
    }
    Outcome::pass(format!("{} retry(ies), each with a new id", rounds.len()))
}

fn no_state_when_absent(obs: &Observation) -> Outcome {
    let rounds = match rounds(obs) {
        Ok(r) => r,
        Err(fail) => return fail,
    };
    let Some(round) = rounds.iter().find(|r| r.state().is_none()) else {
        return Outcome::skipped(format!(
            "no InputRequiredResult without a requestState reached the client: the peer sends \
             one only with an input request, and only of a kind the client declared (it \
             declared {})",
            declared_inputs(obs)
        ));
    };
    let retry = match retry_of(round) {
        Ok(r) => r,
        Err(fail) => return fail,
    };
    match retry.params().and_then(|p| p.get("requestState")) {
        Some(state) => fail_at(
            retry,
            format!(
                "the server sent no requestState; the retry of `{}` carries {}",
                round.tool,
                mcpspec_core::text::preview(state, 80)
            ),
        ),
        None => Outcome::pass("no requestState where none was given"),
    }
}

fn input_responses(obs: &Observation) -> Outcome {
    let rounds = match rounds(obs) {
        Ok(r) => r,
        Err(fail) => return fail,
    };
    let mut judged = 0;
    for round in &rounds {
        let asked: Vec<&String> = round
            .result
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        if asked.is_empty() {
            continue;
        }
        let retry = match retry_of(round) {
            Ok(r) => r,
            Err(fail) => return fail,
        };
        judged += 1;
        let given = retry
            .params()
            .and_then(|p| p.get("inputResponses"))
            .and_then(Value::as_object);
        let missing: Vec<&str> = asked
            .iter()
            .filter(|k| !given.is_some_and(|g| g.contains_key(k.as_str())))
            .map(|k| k.as_str())
            .collect();
        if !missing.is_empty() {
            return fail_at(
                retry,
                format!(
                    "the retry of `{}` lacks inputResponses for {}",
                    round.tool,
                    missing.join(", ")
                ),
            );
        }
    }
    if judged == 0 {
        return Outcome::skipped(format!(
            "no InputRequiredResult with input requests reached the client: the peer asks only \
             for a kind of input the client declared (it declared {})",
            declared_inputs(obs)
        ));
    }
    Outcome::pass(format!(
        "{judged} retry(ies), each answering every input request"
    ))
}

/// The kinds of input (elicitation, sampling, roots) the client's tools/call requests declared
/// in their `clientCapabilities`, in words.
fn declared_inputs(obs: &Observation) -> String {
    let declared: Vec<&str> = ["elicitation", "sampling", "roots"]
        .into_iter()
        .filter(|capability| {
            obs.requests_of(method::TOOLS_CALL).any(|m| {
                judge::meta_of(m.json.as_ref())
                    .and_then(|envelope| envelope.get(meta::CLIENT_CAPABILITIES))
                    .and_then(|c| c.get(*capability))
                    .is_some_and(|c| !c.is_null())
            })
        })
        .collect();
    if declared.is_empty() {
        "none of elicitation, sampling, roots".to_owned()
    } else {
        declared.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::checks::script::{Script, assert_verdict, judge, request, result};
    use crate::observation::ClientEnd;
    use crate::scenario::Transport;
    use mcpspec_harness::outcome::Kind;

    const SCENARIO: &str = "sep-2322-client-request-state";
    const CHECKS: [&str; 4] = [
        "client/mrtr/request-state-echoed",
        "client/mrtr/fresh-id",
        "client/mrtr/no-state-when-absent",
        "client/mrtr/input-responses",
    ];

    fn listed() -> Script {
        Script::new(Transport::Stdio)
            .client(request(1, "server/discover", json!({})))
            .peer(result(
                json!(1),
                json!({"supportedVersions": ["2026-07-28"]}),
            ))
            .client(request(2, "tools/list", json!({})))
            .peer(result(json!(2), json!({"tools": []})))
    }

    #[test]
    fn a_client_that_calls_no_tool_is_skipped_not_failed() {
        let obs = listed().finish(SCENARIO, ClientEnd::Exited(0));
        for id in CHECKS {
            assert_verdict(
                &judge(id, &obs),
                Kind::Skipped,
                "the client never called a tool",
            );
        }
    }

    #[test]
    fn a_call_answered_otherwise_is_skipped_saying_so() {
        let obs = listed()
            .client(request(3, "tools/call", json!({"name": "x"})))
            .peer(result(json!(3), json!({"content": []})))
            .finish(SCENARIO, ClientEnd::Exited(0));
        for id in CHECKS {
            assert_verdict(&judge(id, &obs), Kind::Skipped, "1 tools/call(s)");
        }
    }

    #[test]
    fn a_state_only_round_judges_the_echo_and_skips_the_rest() {
        let state = json!({"resultType": "input_required", "requestState": "s-1"});
        let obs = listed()
            .client(request(3, "tools/call", json!({"name": "x"})))
            .peer(result(json!(3), state))
            .client(request(
                4,
                "tools/call",
                json!({"name": "x", "requestState": "s-1"}),
            ))
            .peer(result(json!(4), json!({"content": []})))
            .finish(SCENARIO, ClientEnd::Exited(0));
        assert_eq!(judge(CHECKS[0], &obs).kind, Kind::Pass);
        assert_eq!(judge(CHECKS[1], &obs).kind, Kind::Pass);
        assert_verdict(
            &judge(CHECKS[2], &obs),
            Kind::Skipped,
            "none of elicitation, sampling, roots",
        );
        assert_verdict(
            &judge(CHECKS[3], &obs),
            Kind::Skipped,
            "no InputRequiredResult with input requests",
        );
    }

    #[test]
    fn an_input_required_result_never_retried_fails() {
        let asked = json!({
            "resultType": "input_required",
            "requestState": "s-1",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {}}}
        });
        let obs = listed()
            .client(request(3, "tools/call", json!({"name": "x"})))
            .peer(result(json!(3), asked))
            .finish(SCENARIO, ClientEnd::Exited(0));
        for id in [CHECKS[0], CHECKS[1], CHECKS[3]] {
            assert_verdict(&judge(id, &obs), Kind::Fail, "never retried");
        }
    }
}
