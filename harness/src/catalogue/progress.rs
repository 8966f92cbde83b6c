//! `progress/*` and `cancellation/*` (2026-07-28): progress notifications only for a request's
//! own `progressToken`, strictly increasing, none after the reply; an in-flight request the
//! client cancels is never answered; invalid cancellations are ignored.
//!
//! Requests that take time are probe-profile tool calls (`mcpspec_slow`, POL-12); the invalid
//! cancellations need no tool.

use std::time::Duration;

use serde_json::{Value, json};

use super::prelude::*;
use super::support::{self, PROGRESS_TOKEN, brief, call_tool, expect_alive, method_of, params_of};

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "progress/token/none-without-token",
            requirements: &["PROG-1", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "A probe-profile `tools/call` without `_meta.progressToken`.",
            expectation: "no `notifications/progress` (there is no token to report against)",
            faults: &["progress-without-token"],
            script: |s| Box::pin(none_without_token(s)),
        },
        Check {
            id: "progress/notifications/increasing-before-reply",
            requirements: &["PROG-1", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "`mcpspec_slow {steps: 3, delay_ms: 20}` with a progress token.",
            expectation: "progress notifications carry that token, `progress` strictly \
                          increases, and none follows the reply",
            faults: &["progress-not-increasing", "progress-after-reply"],
            script: |s| Box::pin(increasing_before_reply(s)),
        },
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
            requirements: &["STDIO-5"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "`notifications/cancelled` for a request never sent, for one already \
                          answered, and without `requestId`.",
            expectation: "no reply to any of them; the server keeps serving",
            faults: &["answer-invalid-cancellation"],
            script: |s| Box::pin(invalid_ignored(s)),
        },
    ]
}

fn progress(frames: &[Frame]) -> Vec<&Frame> {
    frames
        .iter()
        .filter(|f| method_of(f) == Some(method::PROGRESS))
        .collect()
}

async fn none_without_token(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let tool = support::first_probe_tool(&mut peer, &[tool::SLOW, tool::PROBE_LOG]).await?;
    let args = if tool == tool::SLOW {
        json!({ "steps": 2, "delay_ms": 10 })
    } else {
        json!({})
    };
    let ex = peer.exchange(call_tool(tool, args)).await;
    ex.reply.expect_result(tool)?;
    let all: Vec<&Frame> = [progress(&ex.before), progress(&ex.after)].concat();
    Ok(if all.is_empty() {
        Outcome::pass(format!("no progress for `{tool}` without a token"))
    } else {
        Outcome::fail(format!(
            "`{tool}` without a progress token got {}",
            all.iter().map(|f| brief(f)).collect::<Vec<_>>().join("; ")
        ))
    })
}

fn judge_progress(ex: &Exchange, token: &Value) -> Outcome {
    let mut problems = Problems::new();
    let after = progress(&ex.after);
    if !after.is_empty() {
        problems.push(format!(
            "progress after the reply: {}",
            after
                .iter()
                .map(|f| brief(f))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let before = progress(&ex.before);
    let mut last: Option<f64> = None;
    for f in &before {
        let params = params_of(f);
        if params.and_then(|p| p.get("progressToken")) != Some(token) {
            problems.push(format!("a notification for another token: {}", brief(f)));
            continue;
        }
        let Some(value) = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64)
        else {
            problems.push(format!("`progress` is not a number: {}", brief(f)));
            continue;
        };
        if last.is_some_and(|l| value <= l) {
            problems.push(format!(
                "`progress` did not increase ({} then {value})",
                last.unwrap_or_default()
            ));
        }
        last = Some(value);
    }
    problems.verdict(format!(
        "{} progress notification(s), increasing, all before the reply",
        before.len()
    ))
}

async fn increasing_before_reply(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    support::require_probe_tool(&mut peer, tool::SLOW).await?;
    let token = json!("mcpspec-progress-1");
    let ex = peer
        .exchange(
            call_tool(tool::SLOW, json!({ "steps": 3, "delay_ms": 20 }))
                .meta_entry(PROGRESS_TOKEN, token.clone()),
        )
        .await;
    ex.reply.expect_result(tool::SLOW)?;
    Ok(judge_progress(&ex, &token))
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
            "an invalid `notifications/cancelled` ({}) was answered: {}",
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
