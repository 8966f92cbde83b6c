//! The earlier traffic a verdict depends on (POL-30): the writes that went to a shared process
//! before the check, shrunk to the fewest that still give the check's verdict on a fresh
//! process. A transcript that starts with a prefix replays to its verdict on its own
//! (`mcpspec replay TRANSCRIPT`): the prefix is written again, then the check runs.

use serde::{Deserialize, Serialize};

/// Writes to replay, in order, before a check runs on its process.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Prefix(pub Vec<Write>);

/// One write: UTF-8 text as a string, anything else as hex (a prefix may hold malformed input).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Write {
    Text(String),
    Bytes { hex: String },
}

impl Write {
    pub fn from_bytes(bytes: &[u8]) -> Write {
        match std::str::from_utf8(bytes) {
            Ok(text) => Write::Text(text.to_owned()),
            Err(_) => Write::Bytes {
                hex: bytes.iter().map(|b| format!("{b:02x}")).collect(),
            },
        }
    }

    /// The bytes to write; `None` for hex that is not hex.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        match self {
            Write::Text(text) => Some(text.as_bytes().to_vec()),
            Write::Bytes { hex } => {
                if hex.len() % 2 != 0 {
                    return None;
                }
                (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
                    .collect()
            }
        }
    }
}

impl Prefix {
    pub fn from_writes(writes: &[Vec<u8>]) -> Prefix {
        Prefix(writes.iter().map(|w| Write::from_bytes(w)).collect())
    }

    /// The bytes of every write; `None` when one cannot be read back.
    pub fn writes(&self) -> Option<Vec<Vec<u8>>> {
        self.0.iter().map(Write::bytes).collect()
    }

    /// How many messages it holds (lines across its writes).
    pub fn messages(&self) -> usize {
        self.writes().map_or(self.0.len(), |w| {
            w.iter()
                .map(|b| b.split(|c| *c == b'\n').filter(|l| !l.is_empty()).count())
                .sum()
        })
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_round_trip_as_text_or_hex() {
        let writes = vec![b"{\"id\":1}\n".to_vec(), vec![0xff, b'{', b'\n']];
        let prefix = Prefix::from_writes(&writes);
        let yaml = serde_json::to_string(&prefix).expect("serializes");
        assert_eq!(yaml, r#"["{\"id\":1}\n",{"hex":"ff7b0a"}]"#);
        let back: Prefix = serde_json::from_str(&yaml).expect("reads back");
        assert_eq!(back.writes(), Some(writes));
        assert_eq!(back.messages(), 2);
    }
}
