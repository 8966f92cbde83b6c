//! `stdio/*`: the stdio transport — framing, a clean stdout, no server requests in the modern
//! era, exit on EOF, and concurrent requests answered by id.

use std::time::Duration;

use serde_json::Value;

use super::prelude::*;
use super::support::served_method;
use mcpspec_core::transport::Liveness;
use mcpspec_core::wire::Message;

/// How long a server gets to exit after its stdin closes.
const EXIT_GRACE: Duration = Duration::from_secs(2);

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "stdio/framing/one-message-per-line",
            requirements: &["STDIO-1", "RPC-1"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::Stdio],
            description: "Each reply is one JSON-RPC message on one line.",
            expectation: "every line written is a complete JSON-RPC message",
            faults: &["pretty-print"],
            script: |s| Box::pin(one_message_per_line(s)),
        },
        Check {
            id: "stdio/stdout/only-mcp-messages",
            requirements: &["STDIO-2"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Fresh(Fresh::Startup),
            needs: &[Need::Stdio],
            description: "Nothing but MCP messages on stdout, from start-up on.",
            expectation: "no line on stdout that is not a JSON-RPC message",
            faults: &["log-to-stdout", "pretty-print"],
            script: |s| Box::pin(only_mcp_on_stdout(s)),
        },
        Check {
            id: "stdio/modern/no-server-requests",
            requirements: &["STDIO-3", "RPC-8"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Stdio],
            description: "A modern server never sends requests to the client.",
            expectation: "no JSON-RPC request on stdout during discover and list requests",
            faults: &["modern-sends-ping"],
            script: |s| Box::pin(no_server_requests(s)),
        },
        Check {
            id: "stdio/shutdown/exit-on-eof",
            requirements: &["STDIO-6"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Exit),
            needs: &[Need::Modern, Need::Stdio],
            description: "Closing the server's stdin ends it.",
            expectation: "the process exits within 2 s of stdin EOF (or 3 × its measured \
                          start-up, if longer: POL-24); later is NonStrict",
            faults: &["ignore-eof"],
            script: |s| Box::pin(exit_on_eof(s)),
        },
        Check {
            id: "stdio/concurrency/answered-by-id",
            requirements: &["STDIO-8", "RPC-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Stdio],
            description: "Three requests sent back to back, before any reply.",
            expectation: "each reply carries its request's id and answers that request, once",
            faults: &["stale-reply-id"],
            script: |s| Box::pin(answered_by_id(s)),
        },
    ]
}

/// Sends discover and a list request and returns every line received until both replies
/// arrived (or the waits ran out).
async fn discover_and_list(s: &mut Scenario) -> Result<(Vec<Frame>, Vec<Reply>), Outcome> {
    let list = served_method(s.facts());
    let mut peer = s.connect().await?;
    let mut replies = Vec::new();
    for m in [method::DISCOVER, list] {
        replies.push(peer.call(request(m)).await);
    }
    let mut lines: Vec<_> = replies.iter().filter_map(Reply::frame).cloned().collect();
    lines.extend(peer.drain_backlog());
    if let Some(Incoming::Frame(f)) = peer.expect_silence().await {
        lines.push(f);
    }
    lines.extend(peer.server_requests.iter().cloned());
    Ok((lines, replies))
}

async fn one_message_per_line(s: &mut Scenario) -> Verdict {
    let (lines, replies) = discover_and_list(s).await?;
    if let Some(bad) = lines.iter().find(|f| f.parsed.is_err()) {
        return Ok(Outcome::fail(format!(
            "a line on stdout is not a whole JSON-RPC message ({}): {}",
            bad.parsed
                .as_ref()
                .err()
                .map(ToString::to_string)
                .unwrap_or_default(),
            shorten(&bad.text(), 120)
        )));
    }
    if let Some(r) = replies.iter().find(|r| r.message().is_none()) {
        return Ok(Outcome::fail(format!("a request got {}", r.describe())));
    }
    Ok(Outcome::pass(format!(
        "{} lines, each one JSON-RPC message",
        lines.len()
    )))
}

async fn only_mcp_on_stdout(s: &mut Scenario) -> Verdict {
    let (lines, _) = discover_and_list(s).await?;
    match lines.iter().find(|f| f.parsed.is_err()) {
        Some(bad) => Ok(Outcome::fail(format!(
            "stdout carried a line that is not an MCP message: {}",
            shorten(&bad.text(), 120)
        ))),
        None => Ok(Outcome::pass("stdout carried only JSON-RPC messages")),
    }
}

async fn no_server_requests(s: &mut Scenario) -> Verdict {
    let list = served_method(s.facts());
    let mut peer = s.connect().await?;
    // Nothing answers: a modern client has no reply to give.
    peer.answer_server_requests = false;
    for m in [method::DISCOVER, list] {
        peer.call(request(m)).await;
    }
    let _ = peer.expect_silence().await;
    Ok(match peer.server_requests.first() {
        None => Outcome::pass("no server→client requests"),
        Some(f) => Outcome::fail(format!(
            "the server sent a request in the modern era: {}",
            shorten(&f.text(), 160)
        )),
    })
}

async fn exit_on_eof(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    peer.call(request(method::DISCOVER))
        .await
        .expect_result("server/discover")?;
    // Slow is not silent (POL-24): a target that was slow to start is given as many times its
    // start-up to exit as the deadlock check gives it to become ready.
    let window = super::deadlock::adapted_window(s.settings(), s.facts().startup, EXIT_GRACE);
    peer.close_input().await;
    let started = tokio::time::Instant::now();
    Ok(match peer.wait_exit(window).await {
        Liveness::Exited(info) => {
            let took = started.elapsed();
            if took > EXIT_GRACE {
                peer.note(format!(
                    "exited {} ms after stdin EOF: past {} but within {} ({} × the start-up the \
                     probe measured, POL-24)",
                    took.as_millis(),
                    seconds(EXIT_GRACE),
                    seconds(window),
                    super::deadlock::STARTUP_FACTOR
                ));
            }
            Outcome::pass(format!("exited after stdin EOF ({})", info.how))
        }
        Liveness::Running => Outcome::non_strict(format!(
            "still running {} after stdin EOF (STDIO-6)",
            seconds(window)
        )),
    })
}

async fn answered_by_id(s: &mut Scenario) -> Verdict {
    let list = served_method(s.facts());
    let mut peer = s.connect().await?;
    let a = peer
        .send(request(method::DISCOVER))
        .await
        .unwrap_or(Value::Null);
    let b = peer
        .send(request(method::NONEXISTENT))
        .await
        .unwrap_or(Value::Null);
    let c = peer.send(request(list)).await.unwrap_or(Value::Null);
    let (ra, rb, rc) = (
        peer.expect_reply(&a).await,
        peer.expect_reply(&b).await,
        peer.expect_reply(&c).await,
    );
    let mut problems = Problems::new();
    let exact = |r: &Reply, id: &Value| r.frame().and_then(|f| f.raw_id()) == Some(id);
    match ra.result() {
        Some(r) if exact(&ra, &a) && r.get("supportedVersions").is_some() => {}
        _ => problems.push(format!("server/discover (id {a}) got {}", ra.describe())),
    }
    match rb.message() {
        Some(Message::Error { error, .. })
            if exact(&rb, &b) && error.code == code::METHOD_NOT_FOUND => {}
        _ => problems.push(format!("the unknown method (id {b}) got {}", rb.describe())),
    }
    match rc.result() {
        Some(_) if exact(&rc, &c) => {}
        _ => problems.push(format!("{list} (id {c}) got {}", rc.describe())),
    }
    // Exactly one reply each: a second reply with the same id is a duplicate. A duplicate of the
    // first two replies has arrived by the time the third is read; no extra wait is spent here.
    for extra in peer.drain_backlog() {
        if let Some(id) = extra.raw_id().filter(|id| [&a, &b, &c].contains(id)) {
            problems.push(format!(
                "id {id} was answered twice (a duplicate reply): {}",
                shorten(&extra.text(), 120)
            ));
        }
    }
    Ok(problems.verdict("three interleaved requests, each answered under its own id"))
}
