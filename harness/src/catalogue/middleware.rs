//! `middleware/*`: the four middleware powers (observe, refuse, rewrite, answer) and the
//! inline `initialize`, driven through the mcpspec probe profile (design.md, "Middleware
//! (reference server) and the probe profile").
//!
//! A black-box server cannot be asked about its middleware, so these checks run only against a
//! server that opts in (`--probe-profile`, Skipped otherwise): its probe middleware obeys the
//! request `_meta` key `dev.mcpspec/probe` (`refuse`, `rewrite`, `answer`), reacts to the legacy
//! `initialize` client names `mcpspec-probe-veto` / `mcpspec-probe-deadlock`, and logs what it
//! observed in the tool `mcpspec_probe_log`, the only tool these checks call (POL-12).
//!
//! The requests of the four powers are modern (2026-07-28); the `initialize` checks use fresh
//! legacy connections (POL-8). Every request a check steers is one the server serves or rejects
//! in a known way without the directive, so ignoring the directive is visible.

use serde_json::{Value, json};

use super::prelude::*;
use super::support::expect_alive;
use crate::catalogue::deadlock::{self, Detection};
use crate::negotiation::initialize;

/// The `clientInfo.name` of an `initialize` the probe middleware refuses.
pub const VETO_CLIENT: &str = "mcpspec-probe-veto";
/// The `clientInfo.name` of an `initialize` during which the probe middleware awaits a
/// server→client `ping` (the documented inline-initialize deadlock).
pub const DEADLOCK_CLIENT: &str = "mcpspec-probe-deadlock";

/// The error the refuse check asks for: an application-defined code (outside the reserved
/// -32768..-32000, so no code rule is at stake), a message and structured data.
const REFUSAL_CODE: i64 = 4217;
const REFUSAL_MESSAGE: &str = "refused by the mcpspec probe";

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "middleware/observe/modern-messages",
            requirements: &["RPC-4", "RPC-5"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::ProbeLog),
            needs: &[Need::ProbeProfile, Need::Stdio, Need::Modern],
            description: "The probe log after server/discover, a notification, an unknown method \
                          and a request failing validation.",
            expectation: "one entry each, in order, with kind and id; the failures with their \
                          error codes (a handler error flows back through the middleware)",
            faults: &["probe-log-blind"],
            script: |s| Box::pin(observe_modern(s)),
        },
        Check {
            id: "middleware/observe/rejected-version",
            requirements: &["VER-1"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::ProbeLog),
            needs: &[Need::ProbeProfile, Need::Stdio, Need::Modern],
            description: "The probe log after a `tools/list` naming protocol version 2099-01-01.",
            expectation: "the middleware wraps every inbound request, so the log shows it with the \
                          error it got (-32022): version validation runs inside the chain",
            faults: &["probe-log-blind"],
            script: |s| Box::pin(observe_rejected_version(s)),
        },
        Check {
            id: "middleware/observe/initialize",
            requirements: &["LEG-1", "LEG-3"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::ProbeLog),
            needs: &[Need::ProbeProfile, Need::Stdio, Need::Legacy],
            description: "The probe log after a legacy handshake: `initialize` and \
                          `notifications/initialized`.",
            expectation: "an `initialize` request entry (ok) and a `notifications/initialized` \
                          notification entry",
            faults: &["probe-log-blind"],
            script: |s| Box::pin(observe_initialize(s)),
        },
        Check {
            id: "middleware/refuse/exact-error",
            requirements: &["RPC-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::ProbeProfile, Need::Modern],
            description: "`tools/list` with a probe `refuse` naming code, message and data, then \
                          a plain `tools/list` on the same connection.",
            expectation: "exactly that error (code, message, data); the next request is served",
            faults: &["probe-refuse-ignored", "probe-refuse-closes"],
            script: |s| Box::pin(refuse(s)),
        },
        Check {
            id: "middleware/rewrite/method",
            requirements: &["RPC-5", "DISC-1"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::ProbeProfile, Need::Modern],
            description: "An unknown method with a probe `rewrite` to `server/discover`.",
            expectation: "a DiscoverResult: lookup and the handler read the rewritten method \
                          (without the rewrite: -32601)",
            faults: &["probe-rewrite-ignored"],
            script: |s| Box::pin(rewrite_method(s)),
        },
        Check {
            id: "middleware/rewrite/params",
            requirements: &["RPC-5", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::ProbeLog),
            needs: &[Need::ProbeProfile, Need::Modern],
            description: "`tools/call` without `name`, with a probe `rewrite` adding \
                          `name: mcpspec_probe_log`.",
            expectation: "the probe log tool's result: validation and the handler read the \
                          rewritten params (without the rewrite: -32602)",
            faults: &["probe-rewrite-ignored"],
            script: |s| Box::pin(rewrite_params(s)),
        },
        Check {
            id: "middleware/rewrite/initialize",
            requirements: &["LEG-1", "LEG-4", "POL-18"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::ProbeProfile, Need::Legacy],
            description: "A first `initialize` with a probe `rewrite` to `ping`, then `tools/list`.",
            expectation: "the ping result `{}`; no handshake ran, so nothing is committed and \
                          `tools/list` gets an error (the connection is still uninitialized)",
            faults: &["probe-rewrite-ignored"],
            script: |s| Box::pin(rewrite_initialize(s)),
        },
        Check {
            id: "middleware/answer/verbatim",
            requirements: &["RPC-6", "POL-16"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::ProbeProfile, Need::Modern],
            description: "`tools/list` with a probe `answer` object.",
            expectation: "that object as the result, verbatim: no `resultType`, no serverInfo \
                          stamped onto it (the POL-16 exception)",
            faults: &["probe-answer-stamped"],
            script: |s| Box::pin(answer_verbatim(s)),
        },
        Check {
            id: "middleware/answer/notification-discarded",
            requirements: &["RPC-4"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::ProbeProfile, Need::Modern],
            description: "A notification with a probe `answer`.",
            expectation: "no reply: a notification's outcome is discarded; the server keeps \
                          serving",
            faults: &["probe-notification-answered"],
            script: |s| Box::pin(notification_discarded(s)),
        },
        Check {
            id: "middleware/initialize/veto-then-success",
            requirements: &["LEG-1", "LEG-4", "POL-18"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Handshake),
            needs: &[Need::ProbeProfile, Need::Legacy],
            description: "`initialize` from `mcpspec-probe-veto` (refused by the probe), then a \
                          request, then a normal `initialize` on the same connection.",
            expectation: "the veto is an error; the connection stays uninitialized (the request \
                          gets an error); the later `initialize` succeeds and the session serves",
            faults: &["veto-commits-initialize"],
            script: |s| Box::pin(veto_then_success(s)),
        },
        Check {
            id: "middleware/initialize/deadlock-detected",
            requirements: &["LEG-1", "LEG-6", "POL-14"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Fresh(Fresh::Deadlock),
            // Stdio only: over HTTP each request is its own exchange, with no parked reader.
            needs: &[Need::ProbeProfile, Need::Legacy, Need::Stdio],
            description: "`initialize` from `mcpspec-probe-deadlock`: the probe awaits a \
                          server→client ping inside the inline `initialize`.",
            expectation: "the documented deadlock, detected as such (POL-14 verdict \"deadlock\"); \
                          an answered `initialize` means it is not handled inline",
            faults: &["initialize-not-inline"],
            script: |s| Box::pin(deadlock_detected(s)),
        },
    ]
}

/// One entry of the probe log.
#[derive(Debug, Clone)]
struct LogEntry {
    method: String,
    kind: String,
    id: Value,
    outcome: String,
}

impl LogEntry {
    fn parse(v: &Value) -> Option<Self> {
        let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(LogEntry {
            method: text("method")?,
            kind: text("kind")?,
            id: v.get("id").cloned().unwrap_or(Value::Null),
            outcome: text("outcome").unwrap_or_default(),
        })
    }

    fn describe(&self) -> String {
        format!(
            "{} {} (id {}): {}",
            self.kind, self.method, self.id, self.outcome
        )
    }
}

/// Calls `mcpspec_probe_log` (the only tool these checks call, POL-12) and reads its entries
/// from `structuredContent.entries`, or from the first text content (`{"entries": [..]}` or a
/// bare array).
async fn probe_log(peer: &mut Peer) -> Result<Vec<LogEntry>, Outcome> {
    let reply = peer
        .call(request(method::TOOLS_CALL).params(json!({
            "name": tool::PROBE_LOG,
            "arguments": {},
        })))
        .await;
    let result = reply.expect_result(tool::PROBE_LOG)?;
    log_entries(result).ok_or_else(|| {
        Outcome::fail(format!(
            "{} did not return a log (`structuredContent.entries` or a JSON text): {}",
            tool::PROBE_LOG,
            preview(result, 200)
        ))
    })
}

fn log_entries(result: &Value) -> Option<Vec<LogEntry>> {
    let from_text = || {
        let text = result.get("content")?.get(0)?.get("text")?.as_str()?;
        serde_json::from_str::<Value>(text).ok()
    };
    let log = result
        .get("structuredContent")
        .cloned()
        .or_else(from_text)?;
    let entries = match &log {
        Value::Array(items) => items,
        other => other.get("entries")?.as_array()?,
    };
    entries.iter().map(LogEntry::parse).collect()
}

/// What one expected log entry must show.
struct Expected<'a> {
    what: &'a str,
    method: &'a str,
    kind: &'a str,
    /// The request id (None for notifications).
    id: Option<Value>,
    outcome: Want,
}

/// What an entry's outcome must say.
#[derive(Debug, Clone, Copy)]
enum Want {
    Ok,
    Error(i64),
    /// Not judged: a notification's outcome is discarded, and whether e.g. an invalid
    /// cancellation counts as a failure is the server's business.
    Any,
}

/// Finds each expected entry in `log`, in order; returns what is missing or wrong.
fn compare(log: &[LogEntry], expected: &[Expected<'_>]) -> Problems {
    let mut problems = Problems::new();
    let mut from = 0;
    for e in expected {
        let found = log[from..].iter().position(|l| {
            l.method == e.method && l.kind == e.kind && e.id.as_ref().is_none_or(|id| l.id == *id)
        });
        let Some(pos) = found else {
            problems.push(format!(
                "no {} entry for {} ({} `{}`{})",
                e.kind,
                e.what,
                e.kind,
                e.method,
                e.id.as_ref()
                    .map(|id| format!(", id {id}"))
                    .unwrap_or_default()
            ));
            continue;
        };
        let entry = &log[from + pos];
        from += pos + 1;
        let want = match e.outcome {
            Want::Ok => "ok".to_owned(),
            Want::Error(code) => format!("error {code}"),
            Want::Any => continue,
        };
        if entry.outcome != want {
            problems.push(format!(
                "{}: outcome `{}`, expected `{want}`",
                e.what, entry.outcome
            ));
        }
    }
    problems
}

fn log_verdict(log: &[LogEntry], expected: &[Expected<'_>]) -> Outcome {
    let problems = compare(log, expected);
    let shown: Vec<String> = log.iter().map(LogEntry::describe).collect();
    if problems.is_empty() {
        Outcome::pass(format!(
            "the probe log shows {}",
            expected
                .iter()
                .map(|e| e.what)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else {
        Outcome::fail(format!(
            "{}; the log: [{}]",
            problems.joined(),
            shorten(&shown.join("; "), 400)
        ))
    }
}

async fn observe_modern(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let discover = peer.send(request(method::DISCOVER)).await;
    peer.expect_reply(&discover.clone().unwrap_or(Value::Null))
        .await
        .expect_result("server/discover")?;
    peer.send(
        notification(method::CANCELLED)
            .param("requestId", json!("mcpspec-never-sent"))
            .param("reason", json!("mcpspec probe-log check")),
    )
    .await;
    let unknown = peer.send(request(method::NONEXISTENT)).await;
    let reply = peer
        .expect_reply(&unknown.clone().unwrap_or(Value::Null))
        .await;
    let unknown_code = reply.expect_error("an unknown method")?.code;
    // A request the handler rejects: `tools/call` without `name` (never a tool call).
    let invalid = peer
        .send(request(method::TOOLS_CALL).param("arguments", json!({})))
        .await;
    let reply = peer
        .expect_reply(&invalid.clone().unwrap_or(Value::Null))
        .await;
    let invalid_code = reply.expect_error("`tools/call` without `name`")?.code;
    let log = probe_log(&mut peer).await?;
    Ok(log_verdict(
        &log,
        &[
            Expected {
                what: "server/discover",
                method: method::DISCOVER,
                kind: "request",
                id: discover,
                outcome: Want::Ok,
            },
            Expected {
                what: "a notification",
                method: method::CANCELLED,
                kind: "notification",
                id: None,
                outcome: Want::Any,
            },
            Expected {
                what: "an unknown method",
                method: method::NONEXISTENT,
                kind: "request",
                id: unknown,
                outcome: Want::Error(unknown_code),
            },
            Expected {
                what: "a request failing validation",
                method: method::TOOLS_CALL,
                kind: "request",
                id: invalid,
                outcome: Want::Error(invalid_code),
            },
        ],
    ))
}

async fn observe_initialize(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_as(Era::Legacy).await?;
    let reply = initialize(&mut peer, s.options().legacy_revision(), names::CLIENT).await;
    reply.expect_result("initialize")?;
    let initialize_id = reply.frame().and_then(|f| f.raw_id().cloned());
    peer.send(notification(method::INITIALIZED)).await;
    let log = probe_log(&mut peer).await?;
    Ok(log_verdict(
        &log,
        &[
            Expected {
                what: "initialize",
                method: method::INITIALIZE,
                kind: "request",
                id: initialize_id,
                outcome: Want::Ok,
            },
            Expected {
                what: "notifications/initialized",
                method: method::INITIALIZED,
                kind: "notification",
                id: None,
                outcome: Want::Any,
            },
        ],
    ))
}

async fn observe_rejected_version(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let sent = peer
        .send(request(method::TOOLS_LIST).version(version::UNKNOWN))
        .await;
    let reply = peer
        .expect_reply(&sent.clone().unwrap_or(Value::Null))
        .await;
    let code = reply
        .expect_error("`tools/list` naming protocol version 2099-01-01")?
        .code;
    let log = probe_log(&mut peer).await?;
    Ok(log_verdict(
        &log,
        &[Expected {
            what: "a request with an unsupported version",
            method: method::TOOLS_LIST,
            kind: "request",
            id: sent,
            outcome: Want::Error(code),
        }],
    ))
}

async fn refuse(s: &mut Scenario) -> Verdict {
    let data = json!({"probe": "refuse", "detail": [1, "two", {"three": 3}]});
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(method::TOOLS_LIST).probe(json!({"refuse": {
            "code": REFUSAL_CODE,
            "message": REFUSAL_MESSAGE,
            "data": data,
        }})))
        .await;
    let error = reply.expect_error("a refused `tools/list`")?;
    let mut problems = Vec::new();
    if error.code != REFUSAL_CODE {
        problems.push(format!("code {} (asked for {REFUSAL_CODE})", error.code));
    }
    if error.message != REFUSAL_MESSAGE {
        problems.push(format!(
            "message \"{}\" (asked for \"{REFUSAL_MESSAGE}\")",
            shorten(&error.message, 80)
        ));
    }
    if error.data.as_ref() != Some(&data) {
        problems.push(format!(
            "data {} (asked for {data})",
            error
                .data
                .as_ref()
                .map_or("absent".into(), |d| preview(d, 120))
        ));
    }
    if !problems.is_empty() {
        return Ok(Outcome::fail(format!(
            "the refusal is not the middleware's error: {}",
            problems.join(", ")
        )));
    }
    let next = peer.call(request(method::TOOLS_LIST)).await;
    match next.result() {
        Some(r) if r.get("tools").is_some_and(Value::is_array) => Ok(Outcome::pass(
            "the refusal came back exactly (code, message, data); the next request was served",
        )),
        _ => Ok(Outcome::fail(format!(
            "after the refusal, a plain `tools/list` on the same connection got {}",
            next.describe()
        ))),
    }
}

async fn rewrite_method(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(method::NONEXISTENT).probe(json!({"rewrite": {"method": method::DISCOVER}})))
        .await;
    Ok(match reply.result() {
        Some(r) if r.get("supportedVersions").is_some_and(Value::is_array) => Outcome::pass(
            "`mcpspec/does-not-exist` rewritten to `server/discover` got a DiscoverResult",
        ),
        _ => Outcome::fail(format!(
            "`mcpspec/does-not-exist` rewritten to `server/discover` got {} (the rewritten \
             method did not reach lookup and the handler)",
            reply.describe()
        )),
    })
}

async fn rewrite_params(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(
            request(method::TOOLS_CALL)
                .param("arguments", json!({}))
                .probe(json!({"rewrite": {"params": {"name": tool::PROBE_LOG}}})),
        )
        .await;
    Ok(match reply.result() {
        Some(r) if log_entries(r).is_some() => Outcome::pass(format!(
            "`tools/call` without `name`, rewritten to name `{}`, got the probe log",
            tool::PROBE_LOG
        )),
        _ => Outcome::fail(format!(
            "`tools/call` without `name`, rewritten to name `{}`, got {} (the rewritten params \
             did not reach validation and the handler)",
            tool::PROBE_LOG,
            reply.describe()
        )),
    })
}

async fn rewrite_initialize(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_as(Era::Legacy).await?;
    let reply = peer
        .call(
            request(method::INITIALIZE)
                .bare()
                .param("protocolVersion", json!(s.options().legacy_revision()))
                .param("capabilities", json!({}))
                .param(
                    "clientInfo",
                    json!({"name": names::CLIENT, "version": env!("CARGO_PKG_VERSION")}),
                )
                .probe(json!({"rewrite": {"method": method::PING}})),
        )
        .await;
    match reply.result() {
        Some(r) if *r == json!({}) => {}
        _ => {
            return Ok(Outcome::fail(format!(
                "`initialize` rewritten to `ping` got {} (expected the ping result {{}}: the \
                 handler must be the rewritten method's)",
                reply.describe()
            )));
        }
    }
    let after = peer.call(request(method::TOOLS_LIST)).await;
    Ok(match after.error() {
        Some(e) => Outcome::pass(format!(
            "`initialize` rewritten to `ping` got {{}}, committed nothing, and `tools/list` then \
             got error {}",
            e.code
        )),
        None => Outcome::fail(format!(
            "`initialize` rewritten to `ping` got {{}}, yet `tools/list` then got {}: a \
             handshake was committed although no `initialize` handler ran",
            after.describe()
        )),
    })
}

/// The object the answer checks ask the middleware to return.
fn answer_object() -> Value {
    json!({"mcpspec": "answered by the probe", "items": [1, 2], "nested": {"ok": true}})
}

async fn answer_verbatim(s: &mut Scenario) -> Verdict {
    let answer = answer_object();
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(method::TOOLS_LIST).probe(json!({ "answer": answer })))
        .await;
    let result = reply.expect_result("`tools/list` answered by the probe")?;
    if *result == answer {
        return Ok(Outcome::pass("the probe's answer came back verbatim"));
    }
    let mut added: Vec<String> = result
        .as_object()
        .map(|o| {
            o.keys()
                .filter(|k| answer.get(k.as_str()).is_none())
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    added.sort();
    Ok(Outcome::fail(if added.is_empty() {
        format!(
            "the answer came back changed: {} (sent {answer})",
            preview(result, 200)
        )
    } else {
        format!(
            "the answer came back with {} stamped onto it: {} (a middleware's answer is its own \
             envelope, POL-16)",
            added.join(", "),
            preview(result, 200)
        )
    }))
}

async fn notification_discarded(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    peer.warm_up().await?;
    peer.send(
        notification(method::NONEXISTENT_NOTIFICATION).probe(json!({ "answer": answer_object() })),
    )
    .await;
    expect_alive(&mut peer, "a notification answered by the probe").await?;
    let extra: Vec<String> = peer
        .unasked_replies()
        .await
        .iter()
        .map(|f| f.text())
        .collect();
    Ok(match extra.first() {
        None => Outcome::pass("the probe's answer to a notification was discarded (no reply)"),
        Some(first) => Outcome::fail(format!(
            "a notification answered by the probe got a reply: {}",
            shorten(first, 200)
        )),
    })
}

async fn veto_then_success(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_as(Era::Legacy).await?;
    let vetoed = initialize(&mut peer, s.options().legacy_revision(), VETO_CLIENT).await;
    let Some(error) = vetoed.error() else {
        return Ok(Outcome::fail(format!(
            "`initialize` from {VETO_CLIENT} should be refused by the probe, got {}",
            vetoed.describe()
        )));
    };
    let veto_code = error.code;
    let before = peer.call(request(method::TOOLS_LIST)).await;
    if before.error().is_none() {
        return Ok(Outcome::fail(format!(
            "after the vetoed initialize (error {veto_code}), `tools/list` got {}: the veto \
             left the session initialized",
            before.describe()
        )));
    }
    let again = initialize(&mut peer, s.options().legacy_revision(), names::CLIENT).await;
    if again.result().is_none() {
        return Ok(Outcome::fail(format!(
            "after the vetoed initialize, a normal `initialize` got {}",
            again.describe()
        )));
    }
    peer.send(notification(method::INITIALIZED)).await;
    let after = peer.call(request(method::TOOLS_LIST)).await;
    Ok(match after.result() {
        Some(_) => Outcome::pass(format!(
            "the veto (error {veto_code}) left the connection uninitialized ({}); a later \
             initialize succeeded and the session serves",
            before.describe()
        )),
        None => Outcome::fail(format!(
            "after the veto and a successful initialize, `tools/list` got {}",
            after.describe()
        )),
    })
}

async fn deadlock_detected(s: &mut Scenario) -> Verdict {
    // Spawned now, not a warm spare: the readiness window times the start.
    let mut peer = s.connect_spawned(Era::Legacy).await?;
    // The server's start-up is not what this check is about: a first `ping` gets the start-up
    // allowance, so the detection's own pre-initialize ping (3 s) meets a running server.
    let _ = peer.call(request(method::PING)).await;
    let version = s.options().legacy_revision();
    Ok(
        match deadlock::detect(&mut peer, DEADLOCK_CLIENT, version, s.facts().startup).await {
            Detection::Deadlock(m) => Outcome::pass(format!(
                "the documented inline-initialize deadlock was detected: {m}"
            )),
            Detection::Answered(r) => Outcome::fail(format!(
                "`initialize` from {DEADLOCK_CLIENT} got {}: the probe's server→client ping was \
             answered, so `initialize` is not handled inline",
                r.describe()
            )),
            Detection::LikelyDeadlock(m)
            | Detection::NotReady(m)
            | Detection::Crash(m)
            | Detection::Slow(m) => Outcome::fail(format!(
                "expected the documented deadlock (a server→client ping, then a stalled reader); {m}"
            )),
        },
    )
}
