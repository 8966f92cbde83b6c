//! The resources: three static text ones and a blob (two pages of `resources/list` in the
//! modern era) and one template, `mcpspec://reference/notes/{topic}`, whose topics can be read
//! and completed. [`read`] says what exists; [`read_as`] is what `resources/read` answers, with
//! the faults of FEAT-4 and FEAT-5 acted out.

use serde_json::{Value, json};

use crate::config::faults::Fault;
use crate::engine::connection::Connection;

pub const README_URI: &str = "mcpspec://reference/readme";
pub const README_TEXT: &str = "mcp-reference-server: the server mcpspec proves its checks on.\n";
/// A 1×1 PNG: the blob resource's bytes, and the `showcase` tool's image.
pub const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
/// The blob resource: a 1×1 PNG.
pub const LOGO_URI: &str = "mcpspec://reference/logo.png";
const LOGO_MIME: &str = "image/png";
/// The resource `listed-resource-unreadable` lists but cannot read.
const LICENSE_URI: &str = "mcpspec://reference/license";
/// Where `read-contents-wrong-uri` says the contents came from.
const ELSEWHERE_URI: &str = "mcpspec://reference/elsewhere";
/// The `mimeType` `read-mime-type-changed` gives every read content item.
const CHANGED_MIME: &str = "application/octet-stream";

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

pub(crate) fn list(conn: &Connection) -> Vec<Value> {
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
    resources.push(json!({
        "uri": LOGO_URI,
        "name": "logo",
        "description": "A binary resource: a 1×1 PNG.",
        "mimeType": LOGO_MIME
    }));
    if conn.has(Fault::ResourceListedWithoutName) {
        if let Some(changelog) = resources[1].as_object_mut() {
            changelog.remove("name");
        }
    }
    if conn.has(Fault::ResourceListedRelativeUri) {
        resources[2]["uri"] = json!("license");
    }
    resources
}

pub(crate) fn templates(conn: &Connection) -> Vec<Value> {
    let mut notes = json!({
        "uriTemplate": NOTES_TEMPLATE,
        "name": "notes",
        "description": "Notes on one topic of the 2026-07-28 surface.",
        "mimeType": "text/plain"
    });
    if conn.has(Fault::TemplateInvalidUriTemplate) {
        notes["uriTemplate"] = json!(NOTES_TEMPLATE.trim_end_matches('}'));
    }
    if conn.has(Fault::TemplateWithoutName) {
        if let Some(notes) = notes.as_object_mut() {
            notes.remove("name");
        }
    }
    vec![notes]
}

/// The `contents` of a resource, if it exists (never empty when it does).
pub(crate) fn read(uri: &str) -> Option<Vec<Value>> {
    if uri == LOGO_URI {
        return Some(vec![
            json!({ "uri": uri, "mimeType": LOGO_MIME, "blob": PNG_BASE64 }),
        ]);
    }
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

/// What `resources/read` of `uri` answers: [`read`], as the faults distort it.
pub(crate) fn read_as(conn: &Connection, uri: &str) -> Option<Vec<Value>> {
    if uri == LICENSE_URI && conn.has(Fault::ListedResourceUnreadable) {
        return None;
    }
    let mut contents = read(uri)?;
    let note = uri.starts_with(NOTES_PREFIX);
    for item in &mut contents {
        if note && conn.has(Fault::TemplateReadUnexpandedUri) {
            item["uri"] = json!(NOTES_TEMPLATE);
        }
        if !note && conn.has(Fault::ReadContentsWrongUri) {
            item["uri"] = json!(ELSEWHERE_URI);
        }
        if item.get("blob").is_some() && conn.has(Fault::ReadBlobNotBase64) {
            item["blob"] = json!("not base64!");
        }
        if conn.has(Fault::ReadMimeTypeChanged) {
            item["mimeType"] = json!(CHANGED_MIME);
        }
    }
    Some(contents)
}

pub(crate) fn exists(uri: &str) -> bool {
    read(uri).is_some()
}
