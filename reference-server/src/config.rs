//! What the server is told at start-up: faults, the eras it serves, the probe profile, the HTTP
//! options. The ground floor, with `protocol` and `error`: read by every layer above.
//!
//! Owns [`Config`], the era types and the fault switch list ([`faults`]). May import only
//! `protocol` and `error`.

pub mod faults;
pub mod http_hook;

use std::fmt;
use std::str::FromStr;

use self::faults::Faults;

/// Start-up configuration. `Default`: no faults, both eras, no probe profile.
#[derive(Debug, Clone)]
pub struct Config {
    pub faults: Faults,
    pub eras: Eras,
    /// Installs the probe middleware and lists the `mcpspec_probe_log` tool and the feature
    /// triggers (`mcpspec_trigger_*`, `mcpspec_end_subscriptions`, `mcpspec_slow`,
    /// `mcpspec_log_demo`, `mcpspec_confirm`).
    pub probe_profile: bool,
    /// The streamable HTTP transport's options (`--http`); unused on stdio.
    pub http: HttpOptions,
    /// The key that seals `requestState` (and that every instance started from the same
    /// configuration shares, SCALE-1): a `requestState` one instance issued opens on another.
    pub sealing_key: u64,
    /// This instance's identity, drawn when a [`crate::Server`] is made (one per process over
    /// stdio or HTTP, one per in-memory connection); only the instance faults read it.
    pub instance: u64,
}

/// The default sealing key: a constant, so instances of one deployment agree (SCALE-1).
pub const DEFAULT_SEALING_KEY: u64 = 0x6d63_7073_7065_6331;

impl Default for Config {
    fn default() -> Self {
        Self {
            faults: Faults::none(),
            eras: Eras::Both,
            probe_profile: false,
            http: HttpOptions::default(),
            sealing_key: DEFAULT_SEALING_KEY,
            instance: 0,
        }
    }
}

/// `config` as a new instance: a fresh random identity (what a process start gives a server).
pub(crate) fn with_new_instance(config: Config) -> Config {
    use std::hash::BuildHasher;
    Config {
        instance: std::collections::hash_map::RandomState::new().hash_one(0u8),
        ..config
    }
}

/// Which protocol eras the server serves (`--eras`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eras {
    /// 2026-07-28 only: `initialize` gets -32601 naming the supported versions.
    Modern,
    /// The `initialize` revisions only: `server/discover` is never answered with a result.
    Legacy,
    /// Both; the first request selects the era of the connection (see the crate doc).
    Both,
}

impl FromStr for Eras {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "modern" => Ok(Eras::Modern),
            "legacy" => Ok(Eras::Legacy),
            "both" => Ok(Eras::Both),
            other => Err(format!(
                "unknown eras `{other}` (expected modern, legacy or both)"
            )),
        }
    }
}

impl fmt::Display for Eras {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Eras::Modern => "modern",
            Eras::Legacy => "legacy",
            Eras::Both => "both",
        })
    }
}

/// The era one message is handled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: stateless, per-request `_meta` envelope.
    Modern,
    /// 2024-11-05 .. 2025-11-25: the `initialize` handshake.
    Legacy,
}

impl Era {
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }
}

/// The HTTP transport's default request body limit (4 MiB).
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;

/// What the HTTP transport is told at start-up (part of [`Config`]; read by `crate::transport::http`).
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Origins accepted besides loopback ones, compared exactly (ASCII case-insensitive):
    /// `https://app.example`.
    pub allowed_origins: Vec<String>,
    /// `Host` values accepted besides loopback ones: `example.test` (any port) or
    /// `example.test:8080`.
    pub allowed_hosts: Vec<String>,
    /// The request body limit in bytes (413 beyond).
    pub max_body: usize,
    /// Answer every request POST as a `text/event-stream` (servers may), not only when the
    /// handler streams: lets a client exercise its SSE path.
    pub sse: bool,
    /// List the `route` tool, whose arguments carry `x-mcp-header` annotations (HTTP-11). Off
    /// by default so that the tool list stays as it was.
    pub header_tool: bool,
    /// Authorization mode (`--auth-issuer`): every request needs a bearer token.
    pub auth: Option<AuthOptions>,
    /// A hook below the protocol that sees (and may answer or rewrite) every HTTP exchange
    /// ([`http_hook`]); none by default.
    pub hook: Option<std::sync::Arc<dyn http_hook::HttpHook>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body: DEFAULT_MAX_BODY,
            sse: false,
            header_tool: false,
            auth: None,
            hook: None,
        }
    }
}

/// Authorization mode (AUTH-1..9): the server is an OAuth protected resource whose tokens come
/// from one issuer (part of [`HttpOptions`]; read by `crate::transport::http`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthOptions {
    /// The issuer's URL (`http://127.0.0.1:9000`): the `iss` tokens must carry, and where its
    /// metadata names the JWKS the server trusts.
    pub issuer: String,
    /// The server's canonical URL: the `resource` of its metadata and the `aud` tokens must
    /// carry. `None`: `http://ADDR/mcp` of the address it is bound to.
    pub resource: Option<String>,
}
