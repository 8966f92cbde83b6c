//! Named constants of the protocol: revisions, method names, error codes and `_meta` keys;
//! [`string_array`], the reader of the string lists they travel in; and
//! [`answer_server_request`], what mcpspec answers every server→client request.
//!
//! The harness keeps its own copy of these (it shares nothing with the reference server, so a
//! bug in one cannot hide in the other).

use serde_json::Value;

/// Protocol revisions mcpspec knows.
pub mod version {
    /// The stateless revision: no handshake, `_meta` on every request.
    pub const MODERN: &str = "2026-07-28";
    /// Handshake revisions, oldest first.
    pub const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
    /// The newest handshake revision.
    pub const LATEST_LEGACY: &str = "2025-11-25";
    /// Every known revision, oldest first.
    pub const ALL: [&str; 5] = [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ];
    /// A well-formed revision no server supports.
    pub const UNKNOWN: &str = "2099-01-01";
    /// Not a revision at all.
    pub const MALFORMED: &str = "not-a-version";

    pub fn is_known(v: &str) -> bool {
        ALL.contains(&v)
    }
}

/// Method names.
pub mod method {
    pub const DISCOVER: &str = "server/discover";
    pub const INITIALIZE: &str = "initialize";
    pub const INITIALIZED: &str = "notifications/initialized";
    pub const PING: &str = "ping";
    pub const CANCELLED: &str = "notifications/cancelled";
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    pub const RESOURCES_LIST: &str = "resources/list";
    pub const TOOLS_LIST: &str = "tools/list";
    pub const TOOLS_CALL: &str = "tools/call";
    /// A method no server implements.
    pub const NONEXISTENT: &str = "mcpspec/does-not-exist";
    /// A notification no server knows.
    pub const NONEXISTENT_NOTIFICATION: &str = "notifications/mcpspec/does-not-exist";
    pub const RESOURCES_READ: &str = "resources/read";
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    pub const PROMPTS_LIST: &str = "prompts/list";
    pub const PROMPTS_GET: &str = "prompts/get";
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// A server -> client request (legacy), which a client answers.
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    pub const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    pub const MESSAGE: &str = "notifications/message";
    pub const PROGRESS: &str = "notifications/progress";
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    pub const ROOTS_LIST: &str = "roots/list";
}

/// JSON-RPC and MCP error codes.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// 2026-07-28: an HTTP header disagrees with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the request needs a client capability that was not declared.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28: the requested protocol version is not supported.
    pub const UNSUPPORTED_VERSION: i64 = -32022;
    /// Legacy: resource not found (removed in 2026-07-28).
    pub const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;
    /// Legacy: URL elicitation required (removed in 2026-07-28).
    pub const LEGACY_URL_ELICITATION: i64 = -32042;
    /// Codes the pre-release drafts used for what -32020/-32021/-32022 mean now.
    pub const DRAFT_CODES: [i64; 3] = [-32001, -32003, -32004];

    /// The codes 2026-07-28 defines in the reserved range -32020..-32099.
    pub const MODERN_DEFINED_RESERVED: [i64; 3] = [
        HEADER_MISMATCH,
        MISSING_CLIENT_CAPABILITY,
        UNSUPPORTED_VERSION,
    ];
}

/// `_meta` keys.
pub mod meta {
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The probe profile's instruction key.
    pub const PROBE: &str = "dev.mcpspec/probe";
}

/// Names mcpspec uses where a name must not collide with anything real.
pub mod names {
    /// The client name the harness announces.
    pub const CLIENT: &str = "mcpspec";
}

/// Tool names: one no server has, and the probe profile's tools (POL-12: listed and callable
/// only with `--probe-profile`).
pub mod tool {
    /// A tool name no server has (POL-12).
    pub const NONEXISTENT: &str = "mcpspec-nonexistent-tool-7f3a";
    /// The probe profile's log tool.
    pub const PROBE_LOG: &str = "mcpspec_probe_log";
    /// The probe profile's slow tool (`steps`, `delay_ms`; progress per step).
    pub const SLOW: &str = "mcpspec_slow";
    pub const TRIGGER_LIST_CHANGED: &str = "mcpspec_trigger_list_changed";
    pub const TRIGGER_RESOURCE_UPDATED: &str = "mcpspec_trigger_resource_updated";
    pub const END_SUBSCRIPTIONS: &str = "mcpspec_end_subscriptions";
    pub const LOG_DEMO: &str = "mcpspec_log_demo";
    pub const CONFIRM: &str = "mcpspec_confirm";
}

/// A string array member, if it is one.
/// What mcpspec answers a server→client request, the driver and the fuzzer alike: `ping` gets
/// an empty result, anything else -32601 (mcpspec serves no client feature). `raw_id` is the
/// request's id as the server wrote it, sent back byte for byte.
pub fn answer_server_request(is_ping: bool, raw_id: &[u8]) -> Vec<u8> {
    let mut line = br#"{"jsonrpc":"2.0","id":"#.to_vec();
    line.extend_from_slice(raw_id);
    if is_ping {
        line.extend_from_slice(br#","result":{}}"#);
    } else {
        line.extend_from_slice(
            br#","error":{"code":-32601,"message":"mcpspec answers only ping"}}"#,
        );
    }
    line
}

pub fn string_array(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}
