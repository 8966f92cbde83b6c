//! The scenarios: what the peer is and does, and what the client is asked to do. The client
//! sees only the name (`MCP_CONFORMANCE_SCENARIO`) and, for mcpspec's own scenarios, a context
//! naming the operation; the peer is the reference server with its eras and behaviour set here.
//!
//! Four names are the official conformance suite's, with the same behaviour, so a client
//! written for that suite runs them unchanged: `initialize`, `tools_call`, `request-metadata`
//! and `sep-2322-client-request-state`. Every other scenario asks for the `tools_call`
//! operation (`docs/testing-clients.md`): connect, list the tools,
//! call `add_numbers` with `{"a": 2, "b": 3}`, close.

pub mod protection;

use mcp_reference_server::Eras;
use mcp_reference_server::protocol::version;
use protection::{
    BASIC, CLIENT_METADATA_URL, Hostile, PRE_REGISTERED_ID, PRE_REGISTERED_SECRET, PrmAt,
    Protection, Redirect, Registration, TENANT,
};

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
    /// HTTP: the server is an OAuth protected resource with an authorization server on another
    /// loopback origin (`protection.rs`, served by `peer/oauth.rs`).
    Protected(Protection),
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

    /// The protected peer, for an `auth/*` scenario.
    pub fn protection(&self) -> Option<&Protection> {
        self.behaviours.iter().find_map(|b| match b {
            Behaviour::Protected(p) => Some(p),
            _ => None,
        })
    }

    /// `MCP_CONFORMANCE_CONTEXT`: `{"name", "operation", "tool", "arguments"}` for mcpspec's
    /// own scenarios, and the client's credentials where an `auth/*` scenario hands it some
    /// (`client_id` and `client_secret`, or `client_metadata_url`).
    pub fn context(&self) -> Option<serde_json::Value> {
        (!self.official).then(|| {
            let mut context = serde_json::json!({
                "name": self.name,
                "operation": self.operation.name(),
                "tool": TOOL,
                "arguments": {"a": 2, "b": 3},
            });
            match self.protection().map(|p| p.registration) {
                Some(Registration::PreRegistered) => {
                    context["client_id"] = PRE_REGISTERED_ID.into();
                    context["client_secret"] = PRE_REGISTERED_SECRET.into();
                }
                Some(Registration::MetadataDocument) => {
                    context["client_metadata_url"] = CLIENT_METADATA_URL.into();
                }
                _ => {}
            }
            context
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

static SCENARIOS: [Scenario; 33] = [
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
    protected(
        "auth/basic",
        "A protected peer: a 401 naming its Protected Resource Metadata and scopes, an authorization server on another origin with S256, Dynamic Client Registration and `iss`.",
        &[Behaviour::Protected(BASIC)],
        Expect::Success,
    ),
    protected(
        "auth/prm-at-root",
        "A protected peer whose 401 names no metadata URL and no scope, with its Protected Resource Metadata only at the root well-known URL.",
        &[Behaviour::Protected(Protection {
            challenge_metadata: false,
            challenge_scope: None,
            prm_at: PrmAt::Root,
            ..BASIC
        })],
        Expect::Success,
    ),
    protected(
        "auth/as-path-issuer",
        "A protected peer whose issuer has a path (`/tenant`), its metadata served only at the OIDC path-appended URL (the last of the spec's order).",
        &[Behaviour::Protected(Protection {
            challenge_metadata: false,
            issuer_path: TENANT,
            metadata_last_only: true,
            ..BASIC
        })],
        Expect::Success,
    ),
    protected(
        "auth/pre-registered",
        "A protected peer whose authorization server offers no registration; the context holds pre-registered credentials.",
        &[Behaviour::Protected(Protection {
            registration: Registration::PreRegistered,
            ..BASIC
        })],
        Expect::Success,
    ),
    protected(
        "auth/cimd",
        "A protected peer whose authorization server advertises Client ID Metadata Documents (and DCR); the context names the client's metadata URL.",
        &[Behaviour::Protected(Protection {
            registration: Registration::MetadataDocument,
            ..BASIC
        })],
        Expect::Success,
    ),
    protected(
        "auth/scope-step-up",
        "A protected peer whose 401 asks for `mcp:read` and whose `tools/call` answers 403 `insufficient_scope` until the token also has `mcp:tools`.",
        &[Behaviour::Protected(Protection {
            challenge_scope: Some(protection::SCOPE_READ),
            step_up: true,
            ..BASIC
        })],
        Expect::Success,
    ),
    protected(
        "auth/refresh",
        "A protected peer whose authorization server lists `offline_access` and issues refresh tokens; the first access token dies after the client's first `tools/list`.",
        &[Behaviour::Protected(Protection {
            refresh: true,
            ..BASIC
        })],
        Expect::Success,
    ),
    protected(
        "auth/no-s256",
        "A protected peer whose authorization server metadata has no `code_challenge_methods_supported`: the client must not authorize.",
        &[Behaviour::Protected(Protection {
            s256: false,
            ..BASIC
        })],
        Expect::Failure,
    ),
    protected(
        "auth/wrong-state",
        "A protected peer whose authorization response carries another `state`: the code must not be redeemed.",
        &[Behaviour::Protected(Protection {
            redirect: Redirect::WrongState,
            ..BASIC
        })],
        Expect::Failure,
    ),
    protected(
        "auth/wrong-iss",
        "A protected peer whose authorization response names another issuer as `iss` (RFC 9207): the code must not be redeemed.",
        &[Behaviour::Protected(Protection {
            redirect: Redirect::WrongIss,
            ..BASIC
        })],
        Expect::Failure,
    ),
    protected(
        "auth/missing-iss",
        "A protected peer whose authorization response has no `iss` although its metadata says it sends one: the code must not be redeemed.",
        &[Behaviour::Protected(Protection {
            redirect: Redirect::NoIss,
            ..BASIC
        })],
        Expect::Failure,
    ),
    protected(
        "auth/prm-wrong-resource",
        "A protected peer whose Protected Resource Metadata names another server as its `resource`: the client must not go on to its authorization server.",
        &[Behaviour::Protected(Protection {
            foreign_resource: true,
            ..BASIC
        })],
        Expect::Failure,
    ),
    protected(
        "auth/as-wrong-issuer",
        "A protected peer whose authorization server metadata names another `issuer`: the client must not use it.",
        &[Behaviour::Protected(Protection {
            foreign_issuer: true,
            ..BASIC
        })],
        Expect::Failure,
    ),
    protected(
        "auth/hostile/prm-self",
        "A protected peer whose Protected Resource Metadata names its own URL as the authorization server, every well-known URL answering it again.",
        &[Behaviour::Protected(hostile(Hostile::PrmSelf))],
        Expect::Failure,
    ),
    protected(
        "auth/hostile/redirect-loop",
        "A protected peer whose every metadata URL answers 302 to itself.",
        &[Behaviour::Protected(hostile(Hostile::RedirectLoop))],
        Expect::Failure,
    ),
    protected(
        "auth/hostile/huge-metadata",
        "A protected peer whose Protected Resource Metadata is a 30 MB body.",
        &[Behaviour::Protected(hostile(Hostile::HugeMetadata))],
        Expect::Failure,
    ),
    protected(
        "auth/hostile/unauthorized-forever",
        "A protected peer that answers every token 401 `invalid_token`.",
        &[Behaviour::Protected(hostile(Hostile::UnauthorizedForever))],
        Expect::Failure,
    ),
];

/// An `auth/*` scenario: the tools_call operation against a dual-era protected peer.
const fn protected(
    name: &'static str,
    description: &'static str,
    behaviours: &'static [Behaviour],
    expect: Expect,
) -> Scenario {
    Scenario {
        name,
        description,
        operation: Operation::ToolsCall,
        transports: HTTP,
        protocol_version: version::V2025_11_25,
        eras: Eras::Both,
        behaviours,
        expect,
        official: false,
    }
}

const fn hostile(h: Hostile) -> Protection {
    Protection {
        hostile: Some(h),
        ..BASIC
    }
}

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
