//! What a protected peer is (the `auth/*` scenarios, CLI-10..19): a protected MCP server and an
//! authorization server on another loopback origin, each variation one field away from
//! [`BASIC`]. Data only; the peer (`peer/oauth.rs`) serves it and the checks read it.

/// The scopes the protected server knows: every request needs the first, `tools/call` the
/// second when the scenario steps up.
pub const SCOPE_READ: &str = "mcp:read";
pub const SCOPE_TOOLS: &str = "mcp:tools";
/// Both, as the basic challenge names them.
pub const SCOPES: &str = "mcp:read mcp:tools";
/// The scope only a client that means to refresh asks for, and only when the AS lists it.
pub const OFFLINE_ACCESS: &str = "offline_access";
/// The issuer path of `auth/as-path-issuer`.
pub const TENANT: &str = "/tenant";
/// The pre-registered credentials `auth/pre-registered` hands the client in its context.
pub const PRE_REGISTERED_ID: &str = "mcpspec-pre-registered";
pub const PRE_REGISTERED_SECRET: &str = "mcpspec-pre-registered-secret-7f3a";
/// The Client ID Metadata Document URL `auth/cimd` hands the client (the test AS accepts it
/// without fetching it: mcpspec has no TLS and no network).
pub const CLIENT_METADATA_URL: &str = "https://client.mcpspec.test/oauth/client-metadata.json";
/// The `state` the `auth/wrong-state` redirect carries instead of the client's.
pub const FOREIGN_STATE: &str = "mcpspec-not-your-state";
/// The path that turns the AS's issuer into another issuer (`auth/wrong-iss`,
/// `auth/as-wrong-issuer`), and the MCP endpoint into another resource.
pub const ANOTHER: &str = "/another";
/// Registrations the AS takes before it answers 429.
pub const MAX_REGISTRATIONS: usize = 100;
/// The request body limit of both origins (413 beyond).
pub const MAX_BODY: usize = 1024 * 1024;
/// The size of the hostile metadata body.
pub const HUGE_METADATA: usize = 30 * 1024 * 1024;

/// Where the peer serves its Protected Resource Metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrmAt {
    /// `/.well-known/oauth-protected-resource/mcp` (RFC 9728 §3.1, path inserted).
    PathInserted,
    /// Only `/.well-known/oauth-protected-resource` (the root one).
    Root,
}

/// The authorization response's `state` and `iss`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect {
    /// The client's `state` and the AS's issuer.
    Right,
    /// [`FOREIGN_STATE`] instead of the client's.
    WrongState,
    /// Another issuer's URL as `iss`.
    WrongIss,
    /// No `iss` (the metadata still says it is sent).
    NoIss,
}

/// How the client comes by a client_id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registration {
    /// The AS offers Dynamic Client Registration.
    Dynamic,
    /// The context holds pre-registered credentials; the AS offers no registration.
    PreRegistered,
    /// The AS advertises Client ID Metadata Documents (and DCR); the context names a URL.
    MetadataDocument,
}

/// A hostile authorization document or server (CLI-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    /// The PRM names its own URL as the authorization server; every well-known URL of the MCP
    /// origin answers that PRM.
    PrmSelf,
    /// Every metadata URL answers 302 to itself.
    RedirectLoop,
    /// The PRM body is [`HUGE_METADATA`] bytes.
    HugeMetadata,
    /// Every token is answered 401 `invalid_token`.
    UnauthorizedForever,
}

/// One protected peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Protection {
    /// Whether the 401 challenge names `resource_metadata`.
    pub challenge_metadata: bool,
    /// The challenge's `scope`, if it names one.
    pub challenge_scope: Option<&'static str>,
    pub prm_at: PrmAt,
    /// Whether the PRM's `resource` is another server's.
    pub foreign_resource: bool,
    /// The issuer's path (`""` or [`TENANT`]).
    pub issuer_path: &'static str,
    /// Whether AS metadata is served only at the last URL of the spec's order (OIDC, path
    /// appended); otherwise at every URL.
    pub metadata_last_only: bool,
    /// Whether the AS metadata's `issuer` is another issuer's.
    pub foreign_issuer: bool,
    /// Whether the metadata lists `code_challenge_methods_supported: ["S256"]`.
    pub s256: bool,
    pub registration: Registration,
    pub redirect: Redirect,
    /// Whether `tools/call` needs [`SCOPE_TOOLS`] (403 `insufficient_scope` otherwise).
    pub step_up: bool,
    /// Whether the AS lists `offline_access`, issues refresh tokens, and the first access token
    /// dies after the client's first `tools/list`.
    pub refresh: bool,
    pub hostile: Option<Hostile>,
}

/// The basic protected peer: a challenge naming the PRM and the scopes, the PRM at the
/// path-inserted URL, an AS with S256, DCR and `iss`.
pub const BASIC: Protection = Protection {
    challenge_metadata: true,
    challenge_scope: Some(SCOPES),
    prm_at: PrmAt::PathInserted,
    foreign_resource: false,
    issuer_path: "",
    metadata_last_only: false,
    foreign_issuer: false,
    s256: true,
    registration: Registration::Dynamic,
    redirect: Redirect::Right,
    step_up: false,
    refresh: false,
    hostile: None,
};

impl Protection {
    /// The scopes a token gets when the client asked for none: what the challenge names.
    pub fn default_scope(&self) -> &'static str {
        self.challenge_scope.unwrap_or(SCOPES)
    }
}
