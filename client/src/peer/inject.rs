//! What the peer sends in place of a reply: the robustness scenario's unexpected messages and
//! every hostile case of `mcpspec client fuzz` go through here, on either transport.
//!
//! The peer counts the client's requests (0, 1, 2, … in the order they arrive, over all
//! connections); an [`Injector`] says which replies it replaces and with what. Over stdio each
//! message is written as one line (whatever its bytes); over HTTP the messages become the SSE
//! events of a 200 `text/event-stream` response, or an [`Injection::Http`] response is sent as
//! it is.

use mcp_reference_server::config::http_hook::HookResponse;
use serde_json::Value;

/// What goes out in place of one reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injection {
    /// These messages in order (the reply among them, or not).
    Messages(Vec<Vec<u8>>),
    /// HTTP: this response as it is. Over stdio its body's lines are sent.
    Http(HookResponse),
}

/// Which replies the peer replaces; see the module doc.
pub trait Injector: std::fmt::Debug + Send + Sync {
    /// Whether the reply to the client's request number `n` (`request` as sent) is replaced.
    fn touches(&self, n: usize, request: &Value) -> bool;

    /// What goes out in place of `reply`: the messages the server sent in answer to request
    /// `n` (one on stdio; over HTTP every message of the response body).
    fn inject(&self, n: usize, request: &Value, reply: Vec<Vec<u8>>) -> Injection;
}

/// `messages` as a 200 `text/event-stream` response: one `message` event each, every data
/// line of a message that spans lines given its own `data:` field.
pub fn as_sse(messages: &[Vec<u8>]) -> HookResponse {
    let mut body = Vec::new();
    for m in messages {
        body.extend_from_slice(b"event: message\n");
        for line in m.split(|&b| b == b'\n') {
            body.extend_from_slice(b"data: ");
            body.extend_from_slice(line);
            body.push(b'\n');
        }
        body.push(b'\n');
    }
    HookResponse::new(200, "text/event-stream", body)
}

/// The lines an injection writes on stdio.
pub fn as_lines(injection: Injection) -> Vec<Vec<u8>> {
    match injection {
        Injection::Messages(m) => m,
        Injection::Http(response) => response
            .body()
            .split(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect(),
    }
}

/// Takes the complete SSE events from the front of `buf` and returns their data (the `data:`
/// lines of each, joined with `\n`); what is left is an event still arriving. Written here, not
/// shared with the harness's SSE reader (the reference client reads with that one).
pub fn take_events(buf: &mut Vec<u8>) -> Vec<Vec<u8>> {
    let mut events = Vec::new();
    while let Some((end, sep)) = event_end(buf) {
        let event: Vec<u8> = buf.drain(..end + sep).take(end).collect();
        let mut data: Option<Vec<u8>> = None;
        for line in event.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let value = match line.strip_prefix(b"data:") {
                Some(v) => v.strip_prefix(b" ").unwrap_or(v),
                None if line == b"data" => b"",
                None => continue,
            };
            match data.as_mut() {
                Some(d) => {
                    d.push(b'\n');
                    d.extend_from_slice(value);
                }
                None => data = Some(value.to_vec()),
            }
        }
        events.extend(data);
    }
    events
}

/// Where the first event of `buf` ends (a blank line) and how long its separator is.
fn event_end(buf: &[u8]) -> Option<(usize, usize)> {
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2));
    let crlf = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_round_trip_and_partial_events_wait() {
        let response = as_sse(&[b"{\"a\":1}".to_vec(), b"x\ny".to_vec()]);
        let mut body = response.body();
        body.extend_from_slice(b"data: partial");
        let events = take_events(&mut body);
        assert_eq!(events, vec![b"{\"a\":1}".to_vec(), b"x\ny".to_vec()]);
        assert_eq!(body, b"data: partial");
        let mut crlf = b": comment\r\ndata:{}\r\n\r\n".to_vec();
        assert_eq!(take_events(&mut crlf), vec![b"{}".to_vec()]);
    }
}
