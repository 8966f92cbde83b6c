//! The one static resource, so `resources/*` (and legacy subscribe) have something to act on.

use serde_json::{Value, json};

pub const README_URI: &str = "mcpspec://reference/readme";
const README_TEXT: &str = "mcp-reference-server: the server mcpspec proves its checks on.\n";

pub(crate) fn list() -> Vec<Value> {
    vec![json!({
        "uri": README_URI,
        "name": "readme",
        "description": "A static text resource.",
        "mimeType": "text/plain"
    })]
}

/// The `contents` of a resource, if it exists.
pub(crate) fn read(uri: &str) -> Option<Vec<Value>> {
    (uri == README_URI)
        .then(|| vec![json!({ "uri": README_URI, "mimeType": "text/plain", "text": README_TEXT })])
}

pub(crate) fn exists(uri: &str) -> bool {
    uri == README_URI
}
