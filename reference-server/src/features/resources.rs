//! The resources: three static ones (enough for two pages of `resources/list` in the modern
//! era) and one template, `mcpspec://reference/notes/{topic}`, whose topics can be read and
//! completed.

use serde_json::{Value, json};

pub const README_URI: &str = "mcpspec://reference/readme";
const README_TEXT: &str = "mcp-reference-server: the server mcpspec proves its checks on.\n";

/// The static resources after the readme: `(uri, name, text)`.
const MORE: &[(&str, &str, &str)] = &[
    (
        "mcpspec://reference/changelog",
        "changelog",
        "Unreleased: the 2026-07-28 surface.\n",
    ),
    (
        "mcpspec://reference/license",
        "license",
        "MIT OR Apache-2.0\n",
    ),
];

/// The one resource template.
pub const NOTES_TEMPLATE: &str = "mcpspec://reference/notes/{topic}";
const NOTES_PREFIX: &str = "mcpspec://reference/notes/";
/// The topics the template resolves (and completes).
pub const NOTE_TOPICS: &[&str] = &["cancellation", "logging", "progress", "subscriptions"];

pub(crate) fn list() -> Vec<Value> {
    let mut resources = vec![json!({
        "uri": README_URI,
        "name": "readme",
        "description": "A static text resource.",
        "mimeType": "text/plain"
    })];
    resources.extend(
        MORE.iter()
            .map(|(uri, name, _)| json!({ "uri": uri, "name": name, "mimeType": "text/plain" })),
    );
    resources
}

pub(crate) fn templates() -> Vec<Value> {
    vec![json!({
        "uriTemplate": NOTES_TEMPLATE,
        "name": "notes",
        "description": "Notes on one topic of the 2026-07-28 surface.",
        "mimeType": "text/plain"
    })]
}

/// The `contents` of a resource, if it exists (never empty when it does).
pub(crate) fn read(uri: &str) -> Option<Vec<Value>> {
    let text = if uri == README_URI {
        README_TEXT.to_owned()
    } else if let Some((_, _, text)) = MORE.iter().find(|(u, _, _)| *u == uri) {
        (*text).to_owned()
    } else {
        let topic = uri.strip_prefix(NOTES_PREFIX)?;
        NOTE_TOPICS
            .contains(&topic)
            .then(|| format!("Notes on {topic}.\n"))?
    };
    Some(vec![
        json!({ "uri": uri, "mimeType": "text/plain", "text": text }),
    ])
}

pub(crate) fn exists(uri: &str) -> bool {
    read(uri).is_some()
}
