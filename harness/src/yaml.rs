//! The one place mcpspec reads and writes YAML (transcripts, baselines, the requirement
//! catalogue), so the YAML crate is named once. `cli/tests/testsuite/yaml_bytes.rs` pins the bytes
//! written: a change of crate must not change a file users commit or diff.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A YAML syntax or shape error, with its line and column when known.
pub type Error = serde_norway::Error;

/// Serializes `value` as one YAML document (block style, no leading `---`).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    serde_norway::to_string(value)
}

/// Parses one YAML document.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    serde_norway::from_str(text)
}
