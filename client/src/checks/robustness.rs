//! `client/robustness/*`: a client survives unexpected messages (CLI-10). The peer sends an
//! unknown notification, a reply to an id the client never used and a line that is not
//! JSON-RPC before the reply to the client's first `tools/call` (whatever tool it names), or to
//! its first other request after `tools/list`; the client must finish its operation (judged by
//! how it ended, in `run.rs`) and answer none of them. A client that made no such request never
//! got them: the check is Skipped (POL-34).

use super::prelude::*;
use crate::scenario::{STRAY_ID, UNKNOWN_NOTIFICATION};

pub fn group() -> Vec<ClientCheck> {
    vec![ClientCheck {
        id: "client/robustness/unexpected-messages",
        requirements: &["CLI-10"],
        level: Level::Must,
        scenario: "robustness/unexpected-messages",
        only: None,
        description: "An unknown notification, a reply to an id never used and a line that is not JSON-RPC neither crash nor stall the client, and none is answered.",
        expectation: "The operation completes (exit 0 within the timeout); no reply to the notification or to the stray reply.",
        faults: &["crash-on-unexpected"],
        judge: unexpected_messages,
    }]
}

fn unexpected_messages(obs: &Observation) -> Outcome {
    let sent = obs.received.iter().any(|p| {
        p.json
            .as_ref()
            .and_then(|j| j.get("method"))
            .and_then(Value::as_str)
            == Some(UNKNOWN_NOTIFICATION)
    });
    if !sent {
        return Outcome::skipped(
            "the unexpected messages were never sent: the client made no tools/call and no \
             other request after tools/list, before whose reply the peer sends them",
        );
    }
    let answered = obs.sent.iter().find(|m| match m.kind() {
        Kind::Response { id } => id == &Value::from(STRAY_ID) || id.is_null(),
        _ => false,
    });
    if let Some(m) = answered {
        return fail_at(
            m,
            format!(
                "{}: the client answered a message that was not a request",
                m.describe()
            ),
        );
    }
    Outcome::pass("none of the unexpected messages was answered")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::checks::script::{Script, assert_verdict, judge, request, result};
    use crate::observation::ClientEnd;
    use crate::scenario::{STRAY_ID, Transport, UNKNOWN_NOTIFICATION};
    use mcpspec_harness::outcome::Kind;

    const SCENARIO: &str = "robustness/unexpected-messages";
    const CHECK: &str = "client/robustness/unexpected-messages";

    fn listed() -> Script {
        Script::new(Transport::Stdio)
            .client(request(1, "tools/list", json!({})))
            .peer(result(json!(1), json!({"tools": []})))
    }

    fn strays(s: Script) -> Script {
        s.peer(json!({"jsonrpc": "2.0", "method": UNKNOWN_NOTIFICATION}))
            .peer(result(json!(STRAY_ID), json!({"content": []})))
    }

    #[test]
    fn a_client_that_never_got_the_messages_is_skipped() {
        let obs = listed().finish(SCENARIO, ClientEnd::Exited(0));
        assert_verdict(&judge(CHECK, &obs), Kind::Skipped, "never sent");
    }

    #[test]
    fn the_messages_before_any_tool_call_are_judged() {
        let obs = strays(listed().client(request(2, "tools/call", json!({"name": "first"}))))
            .peer(result(json!(2), json!({"content": []})))
            .finish(SCENARIO, ClientEnd::Exited(0));
        assert_eq!(judge(CHECK, &obs).kind, Kind::Pass);
        let answered = strays(listed().client(request(2, "resources/list", json!({}))))
            .client(result(json!(STRAY_ID), json!({})))
            .finish(SCENARIO, ClientEnd::Exited(0));
        assert_verdict(
            &judge(CHECK, &answered),
            Kind::Fail,
            "answered a message that was not a request",
        );
    }
}
