//! The `showcase` tool: one content block of every type the negotiated revision knows (text,
//! image, audio, a resource link, an embedded resource) and structured output under its
//! `outputSchema`, for arguments its `inputSchema` describes with `$ref`, `enum`, `pattern`,
//! lengths and bounds (a generator of valid arguments has something to satisfy). Arguments
//! outside the schema are a tool failure (`isError: true`, FEAT-2).

use serde_json::{Map, Value, json};

use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::features::resources;
use crate::protocol::version;

pub const SHOWCASE: &str = "showcase";

/// Eight samples of 8 kHz 8-bit silence, as a WAV file.
const WAV_BASE64: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
/// `label`: lowercase letters, 3 to 12 of them.
const LABEL_MIN: usize = 3;
const LABEL_MAX: usize = 12;
/// `count`: 1 to 3.
const COUNT_MAX: i64 = 3;
const STYLES: &[&str] = &["plain", "fancy"];

/// The tool definition.
pub(crate) fn definition() -> Value {
    json!({
        "name": SHOWCASE,
        "description": "Returns one content block of every type and structured output.",
        "inputSchema": {
            "type": "object",
            "$defs": { "style": { "type": "string", "enum": STYLES } },
            "properties": {
                "label": {
                    "type": "string",
                    "pattern": "^[a-z]+$",
                    "minLength": LABEL_MIN,
                    "maxLength": LABEL_MAX
                },
                "count": { "type": "integer", "minimum": 1, "maximum": COUNT_MAX },
                "style": { "$ref": "#/$defs/style" }
            },
            "required": ["label", "count"]
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "label": { "type": "string" },
                "count": { "type": "integer" },
                "blocks": { "type": "integer" }
            },
            "required": ["label", "count", "blocks"]
        }
    })
}

/// Runs the tool: the CallToolResult, or the tool failure's text.
pub(crate) fn run(conn: &Connection, args: &Map<String, Value>) -> Result<Value, String> {
    let label = match args.get("label").and_then(Value::as_str) {
        Some(l)
            if (LABEL_MIN..=LABEL_MAX).contains(&l.chars().count())
                && l.chars().all(|c| c.is_ascii_lowercase()) =>
        {
            l
        }
        _ => return Err("showcase: `label` must be 3 to 12 lowercase letters".into()),
    };
    let count = match args.get("count").and_then(Value::as_i64) {
        Some(c) if (1..=COUNT_MAX).contains(&c) => c,
        _ => return Err("showcase: `count` must be an integer from 1 to 3".into()),
    };
    if let Some(style) = args.get("style") {
        if !style.as_str().is_some_and(|s| STYLES.contains(&s)) {
            return Err("showcase: `style` must be \"plain\" or \"fancy\"".into());
        }
    }
    // What the negotiated revision knows: audio from 2025-03-26, resource links and
    // structured output from 2025-06-18 (the modern era has no negotiated version: all).
    let since = |v: &str| conn.negotiated().is_none_or(|n| n.as_str() >= v);
    let image = if conn.has(Fault::ToolImageNotBase64) {
        "not base64!".to_owned()
    } else {
        resources::PNG_BASE64.to_owned()
    };
    let mut content = vec![
        json!({ "type": "text", "text": format!("{label} × {count}") }),
        json!({ "type": "image", "data": image, "mimeType": "image/png" }),
    ];
    if since(version::V2025_03_26) {
        content.push(json!({ "type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav" }));
    }
    if since(version::V2025_06_18) {
        content.push(json!({
            "type": "resource_link",
            "uri": resources::README_URI,
            "name": "readme",
            "mimeType": "text/plain"
        }));
    }
    content.push(json!({
        "type": "resource",
        "resource": {
            "uri": resources::README_URI,
            "mimeType": "text/plain",
            "text": resources::README_TEXT
        }
    }));
    let blocks = content.len();
    let mut result = json!({ "content": content });
    if since(version::V2025_06_18) && !conn.has(Fault::ToolStructuredContentMissing) {
        result["structuredContent"] = json!({ "label": label, "count": count, "blocks": blocks });
    }
    Ok(result)
}
