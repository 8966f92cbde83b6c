//! `progress/*` (2026-07-28): progress notifications only for a request's own
//! `progressToken`, strictly increasing, none after the reply. (Cancellation: `cancellation.rs`.)
//!
//! Requests that take time are probe-profile tool calls (`mcpspec_slow`, POL-12).

use serde_json::{Value, json};

use super::prelude::*;
use super::support::{self, PROGRESS_TOKEN, brief, call_tool, method_of, params_of};

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
