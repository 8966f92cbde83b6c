//! The oracles: what a fuzz case may not make the server do. Each has a stable id (used in
//! reproducer names and by `mcpspec replay` to say it reproduced the same finding) and a rule
//! stated for the transport it judges ([`Oracle::rule`]).
//!
//! ```text
//! case lines --sent::Obligations::of--> slots (the replies each line may or must earn, under
//!                                        every way a peer may read it)
//! server output --judge::Judge::line/refusal--> replies and refusals
//!                                        --settle: match replies to slots--> violations
//! ```
//!
//! May import the wire codec (its shallow scan, its HTTP context), the target (to tell its
//! transport), the protocol constants, [`super::reading`] and [`super::headers`]; never the
//! transports or the strategies.

pub mod judge;
pub mod sent;

use std::fmt;

/// What went wrong, most serious first (when several oracles trip on one case, the first in
/// this order is the finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Oracle {
    /// The server process exited, or closed its output.
    Crash,
    /// The liveness probe sent after the case was not answered in time, the server still
    /// running.
    Hang,
    /// A line on stdout that is not JSON (a log line, a banner, binary noise).
    NonMcpOutput,
    /// A line longer than the message bound.
    OversizedOutput,
    /// JSON that is not a valid JSON-RPC message.
    InvalidReply,
    /// An error code outside the allowed set (POL-15).
    BadErrorCode,
    /// A server->client request on a connection in the modern era (RPC-8).
    ServerRequestInModernEra,
    /// More replies with an id than requests sent with it.
    DuplicateReply,
    /// A reply although only notifications (and nothing invalid) could have caused it.
    ReplyToNotification,
    /// A reply whose id no request carried.
    UnmatchedReply,
    /// A request left unanswered although the server answered the probe sent after it.
    UnansweredRequest,
}

impl Oracle {
    #[cfg(test)]
    pub const ALL: &'static [Oracle] = &[
        Oracle::Crash,
        Oracle::Hang,
        Oracle::NonMcpOutput,
        Oracle::OversizedOutput,
        Oracle::InvalidReply,
        Oracle::BadErrorCode,
        Oracle::ServerRequestInModernEra,
        Oracle::DuplicateReply,
        Oracle::ReplyToNotification,
        Oracle::UnmatchedReply,
        Oracle::UnansweredRequest,
    ];

    /// The stable id.
    pub fn id(self) -> &'static str {
        match self {
            Oracle::Crash => "crash",
            Oracle::Hang => "hang",
            Oracle::NonMcpOutput => "non-mcp-output",
            Oracle::OversizedOutput => "oversized-output",
            Oracle::InvalidReply => "invalid-reply",
            Oracle::BadErrorCode => "bad-error-code",
            Oracle::ServerRequestInModernEra => "server-request-in-modern-era",
            Oracle::DuplicateReply => "duplicate-reply",
            Oracle::ReplyToNotification => "reply-to-notification",
            Oracle::UnmatchedReply => "unmatched-reply",
            Oracle::UnansweredRequest => "unanswered-request",
        }
    }

    /// What the oracle asserts over `transport`, one line that names the transport.
    pub fn rule(self, transport: TransportKind) -> String {
        use TransportKind::{Http, Stdio};
        let rule = match (self, transport) {
            (Oracle::Crash, Stdio) => {
                "the server process keeps running, its stdout open, whatever it is sent"
            }
            (Oracle::Crash, Http) => {
                "the server keeps serving whatever it is sent: every POST gets an HTTP response"
            }
            (Oracle::Hang, Stdio) => {
                "the server keeps answering: a ping written after the case is answered in time"
            }
            (Oracle::Hang, Http) => {
                "the server keeps answering: a ping POSTed after the case is answered in time \
                 (a 4xx by the server's own rules, a session required, counts)"
            }
            (Oracle::NonMcpOutput, Stdio) => {
                "nothing but MCP messages on stdout: each line JSON text, no byte that is not \
                 UTF-8 unless the case sent it (STDIO-2)"
            }
            (Oracle::NonMcpOutput, Http) => {
                "a POSTed request is answered with JSON-RPC, a JSON body or an event stream \
                 (HTTP-4); only a POST that is no request, or one whose header the fuzzer made \
                 malformed on purpose, may get a bare 4xx, and a request of 64 KiB or more a 413"
            }
            (Oracle::OversizedOutput, Stdio) => "no line on stdout longer than the bound",
            (Oracle::OversizedOutput, Http) => "no JSON body or event longer than the bound",
            (Oracle::InvalidReply, _) => "every message the server writes is valid JSON-RPC 2.0",
            (Oracle::BadErrorCode, _) => {
                "error codes are JSON-RPC's, MCP's, implementation-defined (-32000..-32019) \
                 or outside the reserved range, never 0"
            }
            (Oracle::ServerRequestInModernEra, _) => {
                "no server->client requests in the modern era (RPC-8)"
            }
            (Oracle::DuplicateReply, _) => "each request is answered at most once",
            (Oracle::ReplyToNotification, _) => "notifications are never answered",
            (Oracle::UnmatchedReply, _) => "every reply carries the id of a request it answers",
            (Oracle::UnansweredRequest, _) => "every request is answered within the reply bound",
        };
        format!("{rule} ({transport})")
    }

    #[cfg(test)]
    pub fn from_id(id: &str) -> Option<Oracle> {
        Oracle::ALL.iter().copied().find(|o| o.id() == id)
    }
}

impl fmt::Display for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The transport a rule is stated for: a stdio server's (the embedded reference server is
/// read the same way, line by line), or a streamable HTTP endpoint's.
pub use crate::target::TransportKind;

/// The id of the liveness probe (a `ping`) sent after every case; no generated line carries it.
pub const PROBE_ID: &str = "mcpspec-fuzz-probe";

/// One oracle violation on one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub oracle: Oracle,
    /// What was seen, one line.
    pub detail: String,
}

/// Whether an error code is allowed (POL-15): the JSON-RPC codes, MCP's, the
/// implementation-defined server range, and anything outside the reserved range but 0.
pub fn allowed_error_code(code: i64) -> bool {
    const DEFINED: &[i64] = &[
        -32700, -32600, -32601, -32602, -32603, // JSON-RPC
        -32020, -32021, -32022, // 2026-07-28
        -32042, // legacy URL elicitation
    ];
    if code == 0 {
        return false;
    }
    if !(-32768..=-32000).contains(&code) {
        return true;
    }
    DEFINED.contains(&code) || (-32019..=-32000).contains(&code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_parse_back() {
        for o in Oracle::ALL {
            assert_eq!(Oracle::from_id(o.id()), Some(*o));
        }
        let mut ids: Vec<_> = Oracle::ALL.iter().map(|o| o.id()).collect();
        ids.dedup();
        assert_eq!(ids.len(), Oracle::ALL.len());
    }

    #[test]
    fn every_rule_names_its_transport() {
        for o in Oracle::ALL {
            assert!(o.rule(TransportKind::Stdio).ends_with("(over stdio)"));
            let http = o.rule(TransportKind::Http);
            assert!(http.ends_with("(over HTTP)"), "{http}");
            assert!(
                !http.contains("stdout") && !http.contains("STDIO"),
                "{http}"
            );
        }
    }

    #[test]
    fn error_codes() {
        assert!(allowed_error_code(-32601));
        assert!(allowed_error_code(-32002));
        assert!(allowed_error_code(1));
        assert!(allowed_error_code(-40000));
        assert!(!allowed_error_code(0));
        assert!(!allowed_error_code(-32050));
        assert!(!allowed_error_code(-32699));
    }
}
