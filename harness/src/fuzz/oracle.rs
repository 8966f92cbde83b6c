//! The oracles: what a fuzz case may not make the server do. Each has a stable id (used in
//! reproducer names and by `mcpspec replay` to say it reproduced the same finding).

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

    /// What the oracle asserts, one line.
    pub fn rule(self) -> &'static str {
        match self {
            Oracle::Crash => "the server keeps running whatever it is sent",
            Oracle::Hang => "the server keeps answering: a ping sent after the case is answered",
            Oracle::NonMcpOutput => "nothing but MCP messages on stdout (STDIO)",
            Oracle::OversizedOutput => "no message larger than the bound",
            Oracle::InvalidReply => "every message the server writes is valid JSON-RPC 2.0",
            Oracle::BadErrorCode => {
                "error codes are JSON-RPC's, MCP's, implementation-defined (-32000..-32019) \
                 or outside the reserved range, never 0"
            }
            Oracle::ServerRequestInModernEra => {
                "no server->client requests in the modern era (RPC-8)"
            }
            Oracle::DuplicateReply => "each request is answered at most once",
            Oracle::ReplyToNotification => "notifications are never answered",
            Oracle::UnmatchedReply => "every reply carries the id of a request it answers",
            Oracle::UnansweredRequest => "every request is answered within the reply bound",
        }
    }

    pub fn from_id(id: &str) -> Option<Oracle> {
        Oracle::ALL.iter().copied().find(|o| o.id() == id)
    }
}

impl fmt::Display for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

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
