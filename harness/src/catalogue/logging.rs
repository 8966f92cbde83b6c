//! `logging/*`: per-request logging (2026-07-28). A request opts in with
//! `_meta["io.modelcontextprotocol/logLevel"]`; without it no `notifications/message` is sent
//! for it; with it only messages at or above the level, before its reply; servers that log
//! declare `logging`; an unknown level is -32602.
//!
//! The requests are read-only ones the server serves (POL-1); the level check with every
//! level uses the probe tool `mcpspec_log_demo` (POL-12). On stdio nothing else is in flight,
//! so every `notifications/message` that arrives belongs to the request under test.

use serde_json::json;

use super::prelude::*;
use super::support::{
    self, brief, call_tool, expect_code_or, level_rank, method_of, params_of, served_method,
};

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "logging/level/none-without-level",
            requirements: &["LOG-1"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A served read-only request without `io.modelcontextprotocol/logLevel`.",
            expectation: "no `notifications/message`, before or after the reply",
            faults: &["log-without-level"],
            script: |s| Box::pin(none_without_level(s)),
        },
        Check {
            id: "logging/level/at-or-above-only",
            requirements: &["LOG-2", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("logging")],
            description: "A served read-only request with `logLevel: error`.",
            expectation: "no `notifications/message` below `error`",
            faults: &["log-below-level"],
            script: |s| Box::pin(at_or_above_only(s)),
        },
        Check {
            id: "logging/level/before-reply",
            requirements: &["LOG-2", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("logging")],
            description: "A served read-only request with `logLevel: debug`.",
            expectation: "any `notifications/message` for it comes before its reply, none after",
            faults: &["log-after-reply"],
            script: |s| Box::pin(before_reply(s)),
        },
        Check {
            id: "logging/level/every-level-filtered",
            requirements: &["LOG-2", "POL-11", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[
                Need::Modern,
                Need::Capability("logging"),
                Need::ProbeProfile,
            ],
            description: "`mcpspec_log_demo` (one message at every level) with `logLevel: \
                          warning`.",
            expectation: "warning, error, critical, alert and emergency, all before the reply; \
                          nothing below warning, nothing after",
            faults: &["log-below-level", "log-after-reply"],
            script: |s| Box::pin(every_level_filtered(s)),
        },
        Check {
            id: "logging/capability/declared",
            requirements: &["LOG-3", "DISC-6"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A served read-only request with `logLevel: debug`, against the \
                          discover capabilities.",
            expectation: "a server that sends `notifications/message` advertises `logging`",
            faults: &["no-logging-capability"],
            script: |s| Box::pin(capability_declared(s)),
        },
        Check {
            id: "logging/level/invalid-rejected",
            requirements: &["META-6", "POL-11"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("logging")],
            description: "A served read-only request with `logLevel: \"mcpspec-loud\"`.",
            expectation: "error -32602; a result or another error code is NonStrict (META-6: \
                          SHOULD)",
            faults: &["invalid-log-level-accepted"],
            script: |s| Box::pin(invalid_rejected(s)),
        },
    ]
}

fn messages(frames: &[Frame]) -> Vec<&Frame> {
    frames
        .iter()
        .filter(|f| method_of(f) == Some(method::MESSAGE))
        .collect()
}

fn level_of(frame: &Frame) -> Option<&str> {
    params_of(frame)?.get("level")?.as_str()
}

fn listed(frames: &[&Frame]) -> String {
    frames
        .iter()
        .map(|f| brief(f))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The served read-only request with `level` (or no level), and what came with it.
async fn with_level(s: &mut Scenario, level: Option<&str>) -> Result<(Peer, Exchange), Outcome> {
    let served = served_method(s.facts());
    let mut peer = s.connect().await?;
    peer.warm_up().await?;
    let mut out = request(served);
    if let Some(level) = level {
        out = out.meta_entry(meta::LOG_LEVEL, json!(level));
    }
    let ex = peer.exchange(out).await;
    ex.reply.expect_result(served)?;
    Ok((peer, ex))
}

async fn none_without_level(s: &mut Scenario) -> Verdict {
    let (_peer, ex) = with_level(s, None).await?;
    let before = messages(&ex.before);
    let after = messages(&ex.after);
    Ok(if before.is_empty() && after.is_empty() {
        Outcome::pass("no log message for a request without a log level")
    } else {
        Outcome::fail(format!(
            "a request without `{}` got log messages: {}",
            meta::LOG_LEVEL,
            listed(&[before, after].concat())
        ))
    })
}

async fn at_or_above_only(s: &mut Scenario) -> Verdict {
    let (_peer, ex) = with_level(s, Some("error")).await?;
    let threshold = level_rank("error").unwrap_or(0);
    let all: Vec<&Frame> = [messages(&ex.before), messages(&ex.after)].concat();
    let below: Vec<&Frame> = all
        .iter()
        .copied()
        .filter(|f| {
            level_of(f)
                .and_then(level_rank)
                .is_none_or(|r| r < threshold)
        })
        .collect();
    Ok(if below.is_empty() {
        Outcome::pass(format!("{} log message(s), none below `error`", all.len()))
    } else {
        Outcome::fail(format!(
            "with `logLevel: error` the server sent messages below it (or with no valid level): {}",
            listed(&below)
        ))
    })
}

async fn before_reply(s: &mut Scenario) -> Verdict {
    let (_peer, ex) = with_level(s, Some("debug")).await?;
    let after = messages(&ex.after);
    Ok(if after.is_empty() {
        Outcome::pass(format!(
            "{} log message(s) before the reply, none after",
            messages(&ex.before).len()
        ))
    } else {
        Outcome::fail(format!("log messages after the reply: {}", listed(&after)))
    })
}

async fn every_level_filtered(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    support::require_probe_tool(&mut peer, tool::LOG_DEMO).await?;
    let ex = peer
        .exchange(
            call_tool(tool::LOG_DEMO, json!({})).meta_entry(meta::LOG_LEVEL, json!("warning")),
        )
        .await;
    ex.reply.expect_result(tool::LOG_DEMO)?;
    let mut problems = Problems::new();
    let after = messages(&ex.after);
    if !after.is_empty() {
        problems.push(format!("after the reply: {}", listed(&after)));
    }
    let levels: Vec<&str> = messages(&ex.before)
        .iter()
        .filter_map(|f| level_of(f))
        .collect();
    let below: Vec<&&str> = levels
        .iter()
        .filter(|l| level_rank(l).is_none_or(|r| r < 3))
        .collect();
    if !below.is_empty() {
        problems.push(format!("below warning: {below:?}"));
    }
    let missing: Vec<&str> = support::LOG_LEVELS[3..]
        .iter()
        .copied()
        .filter(|l| !levels.contains(l))
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "missing before the reply (`{}` logs at every level): {missing:?}",
            tool::LOG_DEMO
        ));
    }
    Ok(problems.verdict(format!("levels {levels:?} before the reply, nothing else")))
}

async fn capability_declared(s: &mut Scenario) -> Verdict {
    let advertised = s.facts().has_capability("logging");
    let (_peer, ex) = with_level(s, Some("debug")).await?;
    let all: Vec<&Frame> = [messages(&ex.before), messages(&ex.after)].concat();
    Ok(match (advertised, all.is_empty()) {
        (true, _) => Outcome::pass(format!(
            "`logging` advertised ({} message(s) at debug)",
            all.len()
        )),
        (false, true) => Outcome::pass("no log messages and no `logging` capability"),
        (false, false) => Outcome::fail(format!(
            "the server sends log messages ({}) but discover does not advertise `logging`",
            listed(&all)
        )),
    })
}

async fn invalid_rejected(s: &mut Scenario) -> Verdict {
    let served = served_method(s.facts());
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(served).meta_entry(meta::LOG_LEVEL, json!("mcpspec-loud")))
        .await;
    if reply.result().is_some() {
        return Ok(Outcome::non_strict(format!(
            "`logLevel: \"mcpspec-loud\"` was served ({}); META-6: it SHOULD be -32602",
            reply.describe()
        )));
    }
    Ok(expect_code_or(
        &reply,
        "an unrecognized log level",
        code::INVALID_PARAMS,
        Outcome::non_strict,
    ))
}
