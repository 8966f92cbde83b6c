//! The scenarios: what the peer is and does, and what the client is asked to do. The client
//! sees only the name (`MCP_CONFORMANCE_SCENARIO`) and, for mcpspec's own scenarios, a context
//! naming the operation; the peer is the reference server with its eras and behaviour set here.
//!
//! Four names are the official conformance suite's, with the same behaviour, so a client
//! written for that suite runs them unchanged: `initialize`, `tools_call`, `request-metadata`
//! and `sep-2322-client-request-state`. Every other scenario asks for the `tools_call`
//! operation (`docs/testing-clients.md`): connect, list the tools,
//! call `add_numbers` with `{"a": 2, "b": 3}`, close.

use mcp_reference_server::Eras;
use mcp_reference_server::protocol::version;

/// The transport a scenario runs on.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// Streamable HTTP: the peer's URL is the client's last argument.
    Http,
    /// stdio: the client's last argument is a command that starts the peer.
    Stdio,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Stdio => "stdio",
        }
    }
}

/// What the client is asked to do, named in the context of mcpspec's own scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Connect, list the tools, call `add_numbers` with `{"a": 2, "b": 3}`, close.
    ToolsCall,
    /// The official `request-metadata` flow: `server/discover`, then `tools/list`, with `_meta`.
    RequestMetadata,
    /// The official `sep-2322-client-request-state` flow over its four tools.
    RequestState,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::ToolsCall => "tools_call",
            Operation::RequestMetadata => "request-metadata",
            Operation::RequestState => "sep-2322-client-request-state",
        }
    }
}

/// How a conforming client ends the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// It completes its operation and exits 0.
    Success,
    /// It cannot complete (no version in common, a version it does not support): it stops with
    /// an error; a non-zero exit is right, a hang is not.
    Failure,
}

/// How the peer answers `server/discover`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoverAnswer {
    /// JSON-RPC -32601 (over HTTP with status 404).
    MethodNotFound,
    /// -32022 with `data.supported` holding these versions (over HTTP with status 400).
    VersionError(&'static [&'static str]),
    /// HTTP only: this status with a plain-text body and no JSON-RPC message.
    HttpStatus(u16),
}

/// One thing the peer does beyond what its eras say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Answers `server/discover` so.
    Discover(DiscoverAnswer),
    /// The client's first request gets -32022 with `data.supported` = [2026-07-28] (the
    /// official `request-metadata` scenario); later ones are served.
    VersionErrorOnFirst,
    /// Every request gets -32022 with `data.supported` = [2026-07-28], `initialize` included.
    VersionErrorAlways,
    /// The `initialize` result names this `protocolVersion` (the handshake still commits).
    InitializeAnswers(&'static str),
    /// Before answering `tools/list` (legacy), asks the client `ping`, `roots/list`,
    /// `sampling/createMessage`, `elicitation/create` and an unknown method, and waits (bounded)
    /// for the replies.
    ServerRequests,
    /// Serves the official MRTR tools (`test_mrtr_echo_state`, `test_mrtr_no_state`,
    /// `test_mrtr_unrelated`, `test_mrtr_no_result_type`); any other tool the client calls
    /// answers input_required with a `requestState`, then (its retry) without one. Input
    /// requests only of a kind the client declared (MRTR-3).
    RequestState,
    /// HTTP: the session ends after its `tools/list`; later requests naming it get 404.
    ExpireSession,
    /// Before the reply to the client's first `tools/call` (whatever tool it names) or to its
    /// first other request after `tools/list`: an unknown notification, a reply to an id the
    /// client never used and a line that is not JSON (stdio), or the same as SSE events before
    /// the reply (HTTP).
    UnexpectedMessages,
    /// Serves requests without the `_meta` envelope or the HTTP headers of 2026-07-28 (the
    /// official suite's mocks do; the scenario judges something else).
    Lenient,
}

/// One scenario.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// `MCP_CONFORMANCE_SCENARIO`.
    pub name: &'static str,
    /// What the peer does, one line.
    pub description: &'static str,
    pub operation: Operation,
    /// The transports it runs on.
    pub transports: &'static [Transport],
    /// `MCP_CONFORMANCE_PROTOCOL_VERSION`: the version the scenario is written for.
    pub protocol_version: &'static str,
    /// The eras the peer serves.
    pub eras: Eras,
    pub behaviours: &'static [Behaviour],
    pub expect: Expect,
    /// Whether the name is the official suite's (no context is set, as there).
    pub official: bool,
}

impl Scenario {
    pub fn has(&self, b: Behaviour) -> bool {
        self.behaviours.contains(&b)
    }

    pub fn runs_on(&self, t: Transport) -> bool {
        self.transports.contains(&t)
    }

    /// How the peer answers `server/discover`, when the scenario says.
    pub fn discover(&self) -> Option<DiscoverAnswer> {
        self.behaviours.iter().find_map(|b| match b {
            Behaviour::Discover(d) => Some(*d),
            _ => None,
        })
    }

    /// `MCP_CONFORMANCE_CONTEXT`: `{"name", "operation"}` for mcpspec's own scenarios.
    pub fn context(&self) -> Option<serde_json::Value> {
        (!self.official).then(|| {
            serde_json::json!({
                "name": self.name,
                "operation": self.operation.name(),
                "tool": TOOL,
                "arguments": {"a": 2, "b": 3},
            })
        })
    }
}

/// The tool the `tools_call` operation calls (every peer lists it first).
pub const TOOL: &str = "add_numbers";

const BOTH: &[Transport] = &[Transport::Http, Transport::Stdio];
const HTTP: &[Transport] = &[Transport::Http];

/// Versions no client supports: a future modern revision.
pub const UNKNOWN_VERSIONS: &[&str] = &["2099-01-01"];
/// The modern version the version-error peers list.
pub const MODERN_ONLY: &[&str] = &[version::MODERN];
/// A `protocolVersion` no client supports, in an `initialize` result.
pub const UNSUPPORTED_VERSION: &str = "1999-01-01";
/// The unknown method the `server-requests/legacy` peer asks the client.
pub const UNKNOWN_METHOD: &str = "mcpspec/unknown-method";
/// The sampling request the `server-requests/legacy` peer asks.
pub const SAMPLING: &str = "sampling/createMessage";
/// The id of the reply the `robustness/unexpected-messages` peer sends unasked.
pub const STRAY_ID: &str = "mcpspec-never-sent";
/// The unknown notification the `robustness/unexpected-messages` peer sends.
pub const UNKNOWN_NOTIFICATION: &str = "notifications/mcpspec/unknown";

/// The scenario `mcpspec client fuzz` runs every case in: a dual-era peer and the tools_call
/// operation, with the case's hostile messages added to the peer's replies. No check judges
/// it; the fuzzer's oracle does (CLI-10).
pub static FUZZ: Scenario = Scenario {
    name: "fuzz/hostile-peer",
    description: "A dual-era peer that adds generated hostile messages to its replies.",
    operation: Operation::ToolsCall,
    transports: BOTH,
    protocol_version: version::MODERN,
    eras: Eras::Both,
    behaviours: &[],
    expect: Expect::Success,
    official: false,
};

/// Every scenario, in the order reports list them.
pub fn all() -> &'static [Scenario] {
    &SCENARIOS
}

/// The scenario named `name`.
pub fn named(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}

static SCENARIOS: [Scenario; 16] = [
    Scenario {
        name: "initialize",
        description: "A legacy-only peer (the official suite's `initialize`): the handshake, then the operation.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::V2025_11_25,
        eras: Eras::Legacy,
        behaviours: &[Behaviour::Discover(DiscoverAnswer::MethodNotFound)],
        expect: Expect::Success,
        official: true,
    },
    Scenario {
        name: "tools_call",
        description: "A dual-era peer listing `add_numbers` (the official suite's `tools_call`).",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::V2025_11_25,
        eras: Eras::Both,
        behaviours: &[],
        expect: Expect::Success,
        official: true,
    },
    Scenario {
        name: "request-metadata",
        description: "A modern peer that rejects the client's first request with -32022 listing 2026-07-28 (the official suite's `request-metadata`).",
        operation: Operation::RequestMetadata,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Modern,
        behaviours: &[Behaviour::VersionErrorOnFirst],
        expect: Expect::Success,
        official: true,
    },
    Scenario {
        name: "sep-2322-client-request-state",
        description: "A modern peer whose tools answer input_required with and without requestState (the official suite's MRTR client scenario; any other tool called answers so too).",
        operation: Operation::RequestState,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Modern,
        behaviours: &[Behaviour::RequestState, Behaviour::Lenient],
        expect: Expect::Success,
        official: true,
    },
    Scenario {
        name: "negotiation/modern-only",
        description: "A peer that serves 2026-07-28 only.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Modern,
        behaviours: &[],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "negotiation/legacy-only",
        description: "A legacy-only peer answering `server/discover` with -32601.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Legacy,
        behaviours: &[Behaviour::Discover(DiscoverAnswer::MethodNotFound)],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "negotiation/dual",
        description: "A peer that serves both eras.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Both,
        behaviours: &[],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "negotiation/no-mutual-version",
        description: "A legacy peer answering `server/discover` with -32022 listing only 2099-01-01, a version no client has.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Legacy,
        behaviours: &[Behaviour::Discover(DiscoverAnswer::VersionError(
            UNKNOWN_VERSIONS,
        ))],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "negotiation/version-error-forever",
        description: "A peer answering every request, `initialize` included, with -32022 listing 2026-07-28.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Legacy,
        behaviours: &[Behaviour::VersionErrorAlways],
        expect: Expect::Failure,
        official: false,
    },
    Scenario {
        name: "negotiation/http-discover-400",
        description: "A legacy HTTP peer answering the `server/discover` POST with 400 and a plain-text body.",
        operation: Operation::ToolsCall,
        transports: HTTP,
        protocol_version: version::MODERN,
        eras: Eras::Legacy,
        behaviours: &[Behaviour::Discover(DiscoverAnswer::HttpStatus(400))],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "negotiation/http-discover-404",
        description: "A legacy HTTP peer answering the `server/discover` POST with 404 and a plain-text body.",
        operation: Operation::ToolsCall,
        transports: HTTP,
        protocol_version: version::MODERN,
        eras: Eras::Legacy,
        behaviours: &[Behaviour::Discover(DiscoverAnswer::HttpStatus(404))],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "lifecycle/unsupported-version",
        description: "A legacy peer whose `initialize` result names protocolVersion 1999-01-01.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::V2025_11_25,
        eras: Eras::Legacy,
        behaviours: &[
            Behaviour::Discover(DiscoverAnswer::MethodNotFound),
            Behaviour::InitializeAnswers(UNSUPPORTED_VERSION),
        ],
        expect: Expect::Failure,
        official: false,
    },
    Scenario {
        name: "server-requests/legacy",
        description: "A legacy peer that asks the client ping, roots/list, sampling/createMessage, elicitation/create and an unknown method before answering tools/list.",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::V2025_11_25,
        eras: Eras::Legacy,
        behaviours: &[
            Behaviour::Discover(DiscoverAnswer::MethodNotFound),
            Behaviour::ServerRequests,
        ],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "sessions/session-id",
        description: "A legacy HTTP peer with sessions: the session id is minted on `initialize`.",
        operation: Operation::ToolsCall,
        transports: HTTP,
        protocol_version: version::V2025_11_25,
        eras: Eras::Legacy,
        behaviours: &[Behaviour::Discover(DiscoverAnswer::MethodNotFound)],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "sessions/expired",
        description: "A legacy HTTP peer whose session ends after `tools/list`: later requests naming it get 404.",
        operation: Operation::ToolsCall,
        transports: HTTP,
        protocol_version: version::V2025_11_25,
        eras: Eras::Legacy,
        behaviours: &[
            Behaviour::Discover(DiscoverAnswer::MethodNotFound),
            Behaviour::ExpireSession,
        ],
        expect: Expect::Success,
        official: false,
    },
    Scenario {
        name: "robustness/unexpected-messages",
        description: "A dual-era peer that sends an unknown notification, a reply to an id never used and a line that is not JSON-RPC before the reply to the client's first tools/call (or its first other request after tools/list).",
        operation: Operation::ToolsCall,
        transports: BOTH,
        protocol_version: version::MODERN,
        eras: Eras::Both,
        behaviours: &[Behaviour::UnexpectedMessages],
        expect: Expect::Success,
        official: false,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_official_four_are_marked() {
        let mut names: Vec<&str> = all().iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all().len());
        let official: Vec<&str> = all()
            .iter()
            .filter(|s| s.official)
            .map(|s| s.name)
            .collect();
        assert_eq!(
            official,
            [
                "initialize",
                "tools_call",
                "request-metadata",
                "sep-2322-client-request-state"
            ]
        );
        assert!(all().iter().all(|s| s.official == s.context().is_none()));
    }
}
