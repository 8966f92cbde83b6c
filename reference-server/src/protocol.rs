//! Named constants: method names, error codes, protocol versions and `_meta` keys, in one place.

/// Method names, inbound and outbound.
pub mod method {
    pub const DISCOVER: &str = "server/discover";
    pub const INITIALIZE: &str = "initialize";
    pub const INITIALIZED: &str = "notifications/initialized";
    pub const CANCELLED: &str = "notifications/cancelled";
    pub const PING: &str = "ping";
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    pub const TOOLS_LIST: &str = "tools/list";
    pub const TOOLS_CALL: &str = "tools/call";
    pub const RESOURCES_LIST: &str = "resources/list";
    pub const RESOURCES_READ: &str = "resources/read";
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    /// Server -> client (legacy only; sent under a fault).
    pub const ROOTS_LIST: &str = "roots/list";
    pub const PROMPTS_LIST: &str = "prompts/list";
    pub const PROMPTS_GET: &str = "prompts/get";
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// Server -> client notifications (2026-07-28).
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    pub const MESSAGE: &str = "notifications/message";
    pub const PROGRESS: &str = "notifications/progress";
    /// MRTR input requests (never sent as requests in the modern era; see `mrtr`).
    pub const ELICITATION_CREATE: &str = "elicitation/create";

    /// Legacy methods the 2026-07-28 revision removed: they get -32601 in the modern era.
    pub const REMOVED_IN_MODERN: &[&str] = &[
        INITIALIZE,
        PING,
        LOGGING_SET_LEVEL,
        RESOURCES_SUBSCRIBE,
        RESOURCES_UNSUBSCRIBE,
    ];
}

/// JSON-RPC and MCP error codes (only these are ever emitted, faults aside).
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// 2026-07-28 HeaderMismatch: HTTP headers missing, malformed or disagreeing with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28 UnsupportedProtocolVersion.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// 2026-07-28 MissingRequiredClientCapability (META-4).
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// Legacy (2024-11-05 .. 2025-11-25) resource not found; never used in the modern era.
    pub const RESOURCE_NOT_FOUND_LEGACY: i64 = -32002;
    /// The pre-release draft code for an unsupported version (emitted only under a fault).
    pub const DRAFT_UNSUPPORTED_VERSION: i64 = -32004;
    /// Implementation-defined server error (emitted only under a fault).
    pub const SERVER_ERROR: i64 = -32000;
    /// An undefined reserved code (emitted only under a fault).
    pub const UNDEFINED_RESERVED: i64 = -32050;
}

/// Protocol revisions.
pub mod version {
    pub const MODERN: &str = "2026-07-28";
    /// The modern revisions served (what `server/discover` lists).
    pub const MODERN_SUPPORTED: &[&str] = &[MODERN];
    pub const V2024_11_05: &str = "2024-11-05";
    pub const V2025_03_26: &str = "2025-03-26";
    pub const V2025_06_18: &str = "2025-06-18";
    pub const V2025_11_25: &str = "2025-11-25";
    /// The legacy (initialize-handshake) revisions served, oldest first.
    pub const LEGACY_SUPPORTED: &[&str] = &[V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25];
    /// The counter-offer for an unknown legacy version.
    pub const LATEST_LEGACY: &str = V2025_11_25;
    /// The one legacy revision with JSON-RPC batches (RPC-10).
    pub const BATCHING: &str = V2025_03_26;
    /// A fabricated version listed under the `version-error-bad-data` fault.
    pub const BOGUS: &str = "2099-12-31";
}

/// `_meta` keys.
pub mod meta {
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The probe profile's directive key (see `probe`).
    pub const PROBE: &str = "dev.mcpspec/probe";
    /// Per-request log level (replaces `logging/setLevel`).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// On every notification of a `subscriptions/listen` stream, and on its completion result.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// A request's progress token (a plain `_meta` key).
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// This server's identity.
pub mod server_info {
    pub const NAME: &str = "mcp-reference-server";
    pub const VERSION: &str = env!("CARGO_PKG_VERSION");
}

/// Cache hints on cacheable modern results (CACHE-1).
pub mod cache {
    pub const TTL_MS: u64 = 60_000;
    pub const SCOPE: &str = "public";
}

/// The legacy log levels `logging/setLevel` accepts.
pub const LOG_LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The longest line the reader buffers (bytes, newline excluded); longer ones get -32700.
pub const MAX_LINE: usize = 16 * 1024 * 1024;
