//! First contact: before any check, fuzz case or replay, mcpspec makes sure the target can be
//! started or reached at all. A refused connection, a peer that is not HTTP, a command that
//! cannot be started or a process that exits before its first line is a start failure (exit 3):
//! one message naming the cause, with the tail of the server's stderr, instead of a verdict per
//! check that blames the server for being absent.
//!
//! The contact is short on purpose: it waits for the first sign of life or of death for at most
//! [`CONTACT_WINDOW`]. A target that is merely slow or silent passes; whether it ever speaks
//! JSON-RPC is the runner's probe to judge.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use crate::target::{StartError, Target};
use mcpspec_core::protocol::{meta, method, version};
use mcpspec_core::transport::Recv;
use mcpspec_core::transport::http::client::{self, HttpError, Request};

/// How long first contact waits for the target to answer or to die.
pub const CONTACT_WINDOW: Duration = Duration::from_secs(2);
/// How many stderr lines a start failure quotes.
pub const STDERR_LINES: usize = 20;

/// What first contact saw of a target that is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contact {
    /// It wrote something (or answered over HTTP) within the window.
    Answered,
    /// It is up but said nothing within the window: slow to start, or silent.
    Quiet,
}

/// Starts or reaches the target once and reports a start failure. The embedded server always
/// starts.
pub async fn preflight(target: &Target, max_message: usize) -> Result<Contact, StartError> {
    match target {
        Target::Embedded(_) => Ok(Contact::Answered),
        Target::Command { .. } => command(target, max_message).await,
        Target::Url(endpoint) => url(endpoint).await,
    }
}

/// A modern `server/discover`: read-only, safe to send to any server.
fn discover_line() -> Vec<u8> {
    let mut line = json!({
        "jsonrpc": "2.0", "id": "mcpspec-preflight", "method": method::DISCOVER,
        "params": {"_meta": {meta::PROTOCOL_VERSION: version::MODERN, meta::CLIENT_CAPABILITIES: {}}}
    })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

async fn command(target: &Target, max_message: usize) -> Result<Contact, StartError> {
    let mut transport = target.connect(max_message)?;
    let deadline = Instant::now() + CONTACT_WINDOW;
    // A server that does not read its input is not dead; the write's failure is not the cause.
    let _ = transport.send(&discover_line(), deadline).await;
    // Read in short steps and look at the process in between: a server that exits while a
    // grandchild still holds its stdout never closes the output.
    let exited_early = loop {
        let step = deadline.min(Instant::now() + Duration::from_millis(100));
        match transport.recv(step).await {
            Recv::Line(_) | Recv::Exchange(_) | Recv::Overflow { .. } => {
                return Ok(Contact::Answered);
            }
            Recv::Closed => break None,
            Recv::TimedOut => {}
        }
        if let mcpspec_core::transport::Liveness::Exited(info) = transport.liveness() {
            break Some(info.how);
        }
        if Instant::now() >= deadline {
            return Ok(Contact::Quiet);
        }
    };
    let how = match exited_early {
        Some(how) => how,
        None => match transport.wait_exit(Duration::from_millis(500)).await {
            mcpspec_core::transport::Liveness::Exited(info) => info.how,
            mcpspec_core::transport::Liveness::Running => "it closed its output".into(),
        },
    };
    transport.stderr_settled(Duration::from_millis(500)).await;
    Err(StartError::new(with_stderr(
        format!(
            "`{}` exited before writing anything ({how})",
            target.describe()
        ),
        &transport.stderr_tail(),
    )))
}

/// The message, then the last [`STDERR_LINES`] lines of stderr, indented.
pub fn with_stderr(message: String, stderr: &[String]) -> String {
    if stderr.is_empty() {
        return format!("{message}; it wrote nothing to stderr");
    }
    let tail = &stderr[stderr.len().saturating_sub(STDERR_LINES)..];
    let mut text = format!("{message}; the last {} line(s) of its stderr:", tail.len());
    for line in tail {
        text.push_str("\n  | ");
        text.push_str(line);
    }
    text
}

async fn url(endpoint: &client::Endpoint) -> Result<Contact, StartError> {
    let mut request = Request::new("POST")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", version::MODERN)
        .header("Mcp-Method", method::DISCOVER);
    request = request.body(
        discover_line()
            .strip_suffix(b"\n")
            .unwrap_or_default()
            .to_vec(),
    );
    let deadline = Instant::now() + CONTACT_WINDOW;
    match client::send(endpoint, &request, deadline).await {
        Ok(_) => Ok(Contact::Answered),
        Err(HttpError::TimedOut) => Ok(Contact::Quiet),
        Err(e @ HttpError::Connect(..)) => Err(StartError::new(format!(
            "{} cannot be reached: {e}",
            endpoint.url()
        ))),
        Err(e @ HttpError::Credentials(_)) => Err(StartError::new(format!(
            "{} cannot be tested: {e}",
            endpoint.url()
        ))),
        Err(e) => Err(StartError::new(format!(
            "{} is not an HTTP server: {e}",
            endpoint.url()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_the_stderr_tail() {
        let lines: Vec<String> = (1..=25).map(|i| format!("line {i}")).collect();
        let text = with_stderr("it died".into(), &lines);
        assert!(text.starts_with("it died; the last 20 line(s) of its stderr:"));
        assert!(text.contains("| line 6\n") && text.ends_with("| line 25"));
        assert!(!text.contains("| line 5\n"));
        assert_eq!(
            with_stderr("x".into(), &[]),
            "x; it wrote nothing to stderr"
        );
    }
}
