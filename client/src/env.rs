//! The environment variables a client under test reads (the official conformance suite's).

/// The scenario's name, which the client routes on.
pub const SCENARIO: &str = "MCP_CONFORMANCE_SCENARIO";
/// The protocol version the scenario is written for.
pub const PROTOCOL_VERSION: &str = "MCP_CONFORMANCE_PROTOCOL_VERSION";
/// JSON with the scenario's data, when it has some (its `name` included).
pub const CONTEXT: &str = "MCP_CONFORMANCE_CONTEXT";
/// `stdio` when the last argument is a command that starts the peer.
pub const TRANSPORT: &str = "MCP_CONFORMANCE_TRANSPORT";
