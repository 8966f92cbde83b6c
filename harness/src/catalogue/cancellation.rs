//! `cancellation/*` (2026-07-28): an in-flight request the client cancels is never answered;
//! invalid cancellations are ignored.
//!
//! The request that takes time is a probe-profile tool call (`mcpspec_slow`, POL-12); the
//! invalid cancellations need no tool.

use std::time::Duration;

use serde_json::{Value, json};

use super::prelude::*;
use super::support::{self, PROGRESS_TOKEN, brief, call_tool, expect_alive, method_of, params_of};

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "cancellation/in-flight/no-reply",
            requirements: &["STDIO-4", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Stdio, Need::ProbeProfile],
            description: "`mcpspec_slow {steps: 4, delay_ms: 100}` cancelled with \
                          `notifications/cancelled` while in flight.",
            expectation: "no reply and no further message for it; the server keeps serving",
            faults: &["reply-after-cancel"],
            script: |s| Box::pin(in_flight_no_reply(s)),
        },
        Check {
            id: "cancellation/invalid/ignored",
            requirements: &["STDIO-5", "RPC-4"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "`notifications/cancelled` for a request never sent, for one already \
                          answered, and without `requestId`.",
            expectation: "no reply to any of them (a reply answers a notification: RPC-4); the \
                          server keeps serving",
            faults: &["answer-invalid-cancellation"],
            script: |s| Box::pin(invalid_ignored(s)),
        },
    ]
}

async fn in_flight_no_reply(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    support::require_probe_tool(&mut peer, tool::SLOW).await?;
    let token = json!("mcpspec-cancel-1");
    let id = peer
        .send(
            call_tool(tool::SLOW, json!({ "steps": 4, "delay_ms": 100 }))
                .meta_entry(PROGRESS_TOKEN, token.clone()),
        )
        .await
        .unwrap_or(Value::Null);
    // In flight: the first step takes 100 ms.
    tokio::time::sleep(Duration::from_millis(30)).await;
    peer.send(
        notification(method::CANCELLED)
            .param("requestId", id.clone())
            .param("reason", json!("mcpspec: cancelled in flight")),
    )
    .await;
    // The uncancelled call would take 400 ms; watch a little longer.
    let frames = peer.frames_within(Duration::from_millis(700)).await;
    let late: Vec<String> = frames
        .iter()
        .filter(|f| {
            method_of(f) == Some(method::PROGRESS)
                && params_of(f).and_then(|p| p.get("progressToken")) == Some(&token)
        })
        .map(brief)
        .collect();
    if let Some(reply) = frames.iter().find(|f| support::is_reply(f, &id)) {
        return Ok(Outcome::fail(format!(
            "the cancelled request was answered: {}",
            brief(reply)
        )));
    }
    // A progress notification already on its way when the cancellation arrived is no
    // violation; more than the one step in flight is.
    if late.len() > 1 {
        return Ok(Outcome::fail(format!(
            "messages for the cancelled request kept coming: {}",
            late.join("; ")
        )));
    }
    expect_alive(&mut peer, "a cancelled request").await?;
    Ok(Outcome::pass(
        "no reply for the cancelled request; the server keeps serving",
    ))
}

async fn invalid_ignored(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let answered = peer.call(request(method::DISCOVER)).await;
    answered.expect_result("server/discover")?;
    let done_id = answered
        .frame()
        .and_then(|f| f.raw_id().cloned())
        .unwrap_or(json!(1));
    let cancels = [
        (
            "a request never sent",
            json!({ "requestId": "mcpspec-never-sent" }),
        ),
        (
            "a request already answered",
            json!({ "requestId": done_id }),
        ),
        ("no `requestId`", json!({ "reason": "mcpspec: malformed" })),
    ];
    for (_, params) in &cancels {
        peer.send(notification(method::CANCELLED).params(params.clone()))
            .await;
    }
    if let Some(f) = peer.unasked_replies().await.first() {
        return Ok(Outcome::fail(format!(
            "an invalid `notifications/cancelled` ({}) was answered (RPC-4: a notification gets \
             no reply): {}",
            cancels
                .iter()
                .map(|(what, _)| *what)
                .collect::<Vec<_>>()
                .join(", "),
            brief(f)
        )));
    }
    expect_alive(&mut peer, "invalid cancellations").await?;
    Ok(Outcome::pass(
        "three invalid cancellations, no reply; the server keeps serving",
    ))
}
