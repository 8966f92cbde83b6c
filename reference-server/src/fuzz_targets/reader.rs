//! The judge's reader: the members of a line the invariants need, read through the parser a
//! `Value` goes through but without building one.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// One line as the judge reads it, input or output: a message, or an array of them (a batch,
/// or a batch reply).
#[derive(Debug)]
pub(super) enum Line {
    Single(Shape),
    Batch(Vec<Shape>),
}

#[derive(Debug)]
pub(super) enum Shape {
    NotObject,
    Object(Members),
}

/// The members of one message the judge reads: those [`wire::classify`] reads of an input
/// line, and those the invariants read of a reply (the last of duplicates wins).
#[derive(Debug, Default)]
pub(super) struct Members {
    /// `jsonrpc` is the string `"2.0"`.
    pub(super) jsonrpc_2_0: bool,
    pub(super) id: Option<Value>,
    /// `method` is present; its text when it is a string.
    pub(super) method: Option<Option<String>>,
    /// `params` is present; whether it is an object or an array.
    pub(super) params_structured: Option<bool>,
    /// `result` is present; the keys it has of those the invariants read.
    pub(super) result: Option<ResultKeys>,
    /// `error` is present; its `code` as an `i64` when it is one.
    pub(super) error: Option<Option<i64>>,
}

/// The keys of a result that tell an InitializeResult and a DiscoverResult apart.
#[derive(Debug, Default)]
pub(super) struct ResultKeys {
    pub(super) protocol_version: bool,
    pub(super) supported_versions: bool,
}

pub(super) fn read_whole_line(line: &[u8]) -> serde_json::Result<Line> {
    Ok(match read_line(line, Want::Line)? {
        Got::Line(read) => read,
        _ => Line::Single(Shape::NotObject),
    })
}

// --- the reader --------------------------------------------------------------------------------
//
// The judge reads lines for the few members it checks, through the parser a `Value` goes
// through (`deserialize_any` all the way down, on a byte slice as `wire::decode` does: the same
// syntax errors, number rules and recursion limit), without building the value: no map, no
// string copies. One visitor type for every kind of read, so that the parser's generic code is
// compiled (and instrumented) once more, not once per kind: every copy is more coverage
// counters for libFuzzer to walk after each input.

/// What to take from one JSON value.
#[derive(Debug, Clone, Copy)]
pub(super) enum Want {
    /// Nothing (the value is read and dropped).
    Skip,
    /// A member name the judge reads.
    KeyName,
    /// Whether it is the string `"2.0"`.
    Is20,
    /// A string's text.
    Text,
    /// An integer that fits an `i64`.
    I64,
    /// Whether it is an object or an array.
    Structured,
    /// A whole line: a message or an array of them.
    Line,
    /// One message's [`Members`].
    Members,
    ResultKeys,
    /// An error object's `code`.
    ErrorCode,
}

/// What was taken: `Nothing` when the value is not of the kind wanted.
#[derive(Debug)]
pub(super) enum Got {
    Nothing,
    Key(&'static str),
    Yes,
    Text(String),
    I64(i64),
    Line(Line),
    Members(Members),
    ResultKeys(ResultKeys),
}

/// Member names the judge reads.
pub(super) const KEY_NAMES: [&str; 9] = [
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "protocolVersion",
    "supportedVersions",
];

/// Reads one whole line (nothing but whitespace after the value) for `want`.
pub(super) fn read_line(line: &[u8], want: Want) -> serde_json::Result<Got> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let got = Read(want).deserialize(&mut de)?;
    de.end()?;
    Ok(got)
}

/// A [`Want`] as a serde seed and visitor.
pub(super) struct Read(Want);

impl<'de> DeserializeSeed<'de> for Read {
    type Value = Got;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Got, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Read {
    fn key<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Option<&'static str>>, A::Error> {
        Ok(map
            .next_key_seed(Read(Want::KeyName))?
            .map(|got| match got {
                Got::Key(name) => Some(name),
                _ => None,
            }))
    }

    fn value<'de, A: MapAccess<'de>>(map: &mut A, want: Want) -> Result<Got, A::Error> {
        map.next_value_seed(Read(want))
    }

    fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
        while map
            .next_entry_seed(Read(Want::Skip), Read(Want::Skip))?
            .is_some()
        {}
        Ok(())
    }

    fn members<'de, A: MapAccess<'de>>(mut map: A) -> Result<Members, A::Error> {
        let mut m = Members::default();
        while let Some(name) = Self::key(&mut map)? {
            match name {
                Some("jsonrpc") => {
                    m.jsonrpc_2_0 = matches!(Self::value(&mut map, Want::Is20)?, Got::Yes);
                }
                Some("id") => m.id = Some(map.next_value()?),
                Some("method") => {
                    m.method = Some(match Self::value(&mut map, Want::Text)? {
                        Got::Text(text) => Some(text),
                        _ => None,
                    });
                }
                Some("params") => {
                    let structured = Self::value(&mut map, Want::Structured)?;
                    m.params_structured = Some(matches!(structured, Got::Yes));
                }
                Some("result") => {
                    m.result = Some(match Self::value(&mut map, Want::ResultKeys)? {
                        Got::ResultKeys(keys) => keys,
                        _ => ResultKeys::default(),
                    });
                }
                Some("error") => {
                    m.error = Some(match Self::value(&mut map, Want::ErrorCode)? {
                        Got::I64(code) => Some(code),
                        _ => None,
                    });
                }
                _ => {
                    Self::value(&mut map, Want::Skip)?;
                }
            }
        }
        Ok(m)
    }

    fn result_keys<'de, A: MapAccess<'de>>(mut map: A) -> Result<ResultKeys, A::Error> {
        let mut keys = ResultKeys::default();
        while let Some(name) = Self::key(&mut map)? {
            match name {
                Some("protocolVersion") => keys.protocol_version = true,
                Some("supportedVersions") => keys.supported_versions = true,
                _ => {}
            }
            Self::value(&mut map, Want::Skip)?;
        }
        Ok(keys)
    }

    fn error_code<'de, A: MapAccess<'de>>(mut map: A) -> Result<Got, A::Error> {
        let mut code = Got::Nothing;
        while let Some(name) = Self::key(&mut map)? {
            let want = if name == Some("code") {
                Want::I64
            } else {
                Want::Skip
            };
            let got = Self::value(&mut map, want)?;
            if name == Some("code") {
                code = got;
            }
        }
        Ok(code)
    }
}

impl<'de> Visitor<'de> for Read {
    type Value = Got;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Got, E> {
        Ok(match self.0 {
            Want::I64 => Got::I64(v),
            _ => Got::Nothing,
        })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Got, E> {
        Ok(match (self.0, i64::try_from(v)) {
            (Want::I64, Ok(v)) => Got::I64(v),
            _ => Got::Nothing,
        })
    }

    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Got, E> {
        Ok(match self.0 {
            Want::KeyName => KEY_NAMES
                .into_iter()
                .find(|name| *name == v)
                .map_or(Got::Nothing, Got::Key),
            Want::Is20 if v == "2.0" => Got::Yes,
            Want::Text => Got::Text(v.to_owned()),
            _ => Got::Nothing,
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Got, A::Error> {
        Ok(match self.0 {
            Want::Line => {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element_seed(Read(Want::Members))? {
                    items.push(match item {
                        Got::Members(m) => Shape::Object(m),
                        _ => Shape::NotObject,
                    });
                }
                Got::Line(Line::Batch(items))
            }
            want => {
                while seq.next_element_seed(Read(Want::Skip))?.is_some() {}
                match want {
                    Want::Structured => Got::Yes,
                    _ => Got::Nothing,
                }
            }
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Got, A::Error> {
        Ok(match self.0 {
            Want::Line => Got::Line(Line::Single(Shape::Object(Self::members(map)?))),
            Want::Members => Got::Members(Self::members(map)?),
            Want::ResultKeys => Got::ResultKeys(Self::result_keys(map)?),
            Want::ErrorCode => Self::error_code(map)?,
            Want::Structured => {
                Self::skip_map(map)?;
                Got::Yes
            }
            Want::Skip | Want::KeyName | Want::Is20 | Want::Text | Want::I64 => {
                Self::skip_map(map)?;
                Got::Nothing
            }
        })
    }
}

// --- the structure-aware model --------------------------------------------------------------
