//! `client/robustness/*`: a client survives unexpected messages (CLI-10). The peer sends an
//! unknown notification, a reply to an id the client never used and a line that is not
//! JSON-RPC before the reply to `tools/call`; the client must finish its operation (judged by
//! how it ended, in `run.rs`) and answer none of them.

use super::prelude::*;
use crate::client::scenario::STRAY_ID;

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
    let called = obs.requests_of(method::TOOLS_CALL).count();
    if called == 0 {
        return Outcome::fail(
            "the client never called `add_numbers`, where the peer's messages come",
        );
    }
    Outcome::pass("the unexpected messages were ignored and the operation completed")
}
