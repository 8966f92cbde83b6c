//! The invariants on what the server wrote for an input ([`check_output`]; see the parent
//! module's doc).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::config::Config;
use crate::config::faults::{Fault, Faults};
use crate::protocol::{code, method};

use super::reader::*;
use super::serve::Served;

/// The invariants on one serve: no panic, no stall, then [`check_output`].
pub(super) fn judge(config: &Config, input: &[u8], served: Served) -> Result<(), String> {
    if let Some(message) = served.panicked {
        return Err(format!("the server panicked: {message}"));
    }
    if served.stalled {
        return Err("the server stalled (no EOF within 5 s)".into());
    }
    check_output(config, input, &served.output)
}

/// What the input obliges the server to write for one id, and what it wrote.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Replies that must come exactly (0: the id was not required).
    required: usize,
    /// Replies that may additionally come (batch elements and their invalid wrapper).
    optional: usize,
    /// Methods of the requests with this id, to check era rules on their replies.
    methods: Vec<String>,
    /// Replies written with this id.
    seen: usize,
}

/// Checks what the server wrote against what it was sent (see the module doc).
pub fn check_output(config: &Config, input: &[u8], output: &[u8]) -> Result<(), String> {
    let mut tallies = expectations(config, input);
    let text = std::str::from_utf8(output).map_err(|e| format!("output is not UTF-8: {e}"))?;
    let mut legacy_session = false;
    // The previous line and its reading: a line the same as the one before (one parse error
    // per bad input line, typically) is not read again.
    let mut previous: Option<(&str, Line)> = None;
    for line in text.lines() {
        let read = match previous.take() {
            Some((before, read)) if before == line => read,
            _ => read_whole_line(line.as_bytes())
                .map_err(|e| format!("output line is not JSON ({e}): {line:?}"))?,
        };
        let read = &previous.insert((line, read)).1;
        let replies = match read {
            Line::Batch(items) => items.as_slice(),
            Line::Single(one) => std::slice::from_ref(one),
        };
        for (index, reply) in replies.iter().enumerate() {
            // The reply as a `Value`, for a violation's message only.
            let shown = || reply_text(line, read, index);
            let Shape::Object(obj) = reply else {
                return Err(format!("output is not an object: {}", shown()));
            };
            if !obj.jsonrpc_2_0 {
                return Err(format!("output without `jsonrpc: \"2.0\"`: {}", shown()));
            }
            if obj.method.is_some() {
                // A server->client request or notification.
                if obj.id.is_some() && !legacy_session {
                    return Err(format!(
                        "server->client request outside a legacy session: {}",
                        shown()
                    ));
                }
                continue;
            }
            let tally = tallies
                .entry(key(obj.id.as_ref().unwrap_or(&Value::Null)))
                .or_default();
            tally.seen += 1;
            match (&obj.result, &obj.error) {
                (Some(result), None) => {
                    if tally.methods.iter().any(|m| m == method::INITIALIZE)
                        && result.protocol_version
                    {
                        legacy_session = true;
                    }
                    if legacy_session
                        && tally.methods.iter().all(|m| m == method::DISCOVER)
                        && result.supported_versions
                    {
                        return Err(format!("a DiscoverResult in a legacy session: {}", shown()));
                    }
                }
                (None, Some(code)) => {
                    if !code.is_some_and(allowed_code) {
                        return Err(format!("error code not in the allowed set: {}", shown()));
                    }
                }
                _ => {
                    return Err(format!(
                        "a reply needs exactly one of result/error: {}",
                        shown()
                    ));
                }
            }
        }
    }
    for (key, tally) in &tallies {
        let (got, want, extra) = (tally.seen, tally.required, tally.optional);
        if want > 0 && (got < want || got > want + extra) {
            return Err(format!(
                "id {key}: {got} replies, expected {want}{}",
                if extra > 0 {
                    format!(" (up to {})", want + extra)
                } else {
                    String::new()
                }
            ));
        }
        if want == 0 && got > extra {
            return Err(format!(
                "{got} replies with id {key}, which no request carried"
            ));
        }
    }
    Ok(())
}

/// Reply `index` of an output line that was read, as compact JSON.
pub(super) fn reply_text(line: &str, read: &Line, index: usize) -> String {
    let value: Value = serde_json::from_str(line).unwrap_or_default();
    match (read, value) {
        (Line::Batch(_), Value::Array(mut items)) if index < items.len() => {
            items.swap_remove(index).to_string()
        }
        (_, value) => value.to_string(),
    }
}

/// An id as the key of the reply counts: its compact JSON text (what `Display` gives), through
/// the serializer the server's encoder uses.
pub(super) fn key(id: &Value) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// Error codes the reference server emits (faults aside).
pub(super) fn allowed_code(code: i64) -> bool {
    matches!(
        code,
        code::PARSE_ERROR
            | code::INVALID_REQUEST
            | code::METHOD_NOT_FOUND
            | code::INVALID_PARAMS
            | code::INTERNAL_ERROR
            | code::UNSUPPORTED_PROTOCOL_VERSION
            | code::RESOURCE_NOT_FOUND_LEGACY
    )
}

/// What `input` obliges the server to write, per id (`null` included).
pub(super) fn expectations(config: &Config, input: &[u8]) -> BTreeMap<String, Tally> {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let null = key(&Value::Null);
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if input.ends_with(b"\n") {
        lines.pop();
    }
    for line in lines {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if line.len() > crate::protocol::MAX_LINE {
            tallies.entry(null.clone()).or_default().required += 1;
            continue;
        }
        match owed(line, &config.faults) {
            Owed::Nothing => {}
            Owed::Reply(id) => tallies.entry(key(&id)).or_default().required += 1,
            Owed::Answer { id, method } => {
                let tally = tallies.entry(key(&id)).or_default();
                tally.required += 1;
                tally.methods.push(method);
            }
            Owed::Batch(ids) => {
                // Rejected whole (one null-id error) or answered element by element.
                tallies.entry(null.clone()).or_default().optional += 1;
                for id in ids {
                    tallies.entry(key(&id)).or_default().optional += 1;
                }
            }
        }
    }
    tallies
}

/// What one input line obliges the server to write, as [`wire::decode`] classifies it.
#[derive(Debug, PartialEq)]
pub(super) enum Owed {
    /// A notification (served or dropped) or a client response: no reply.
    Nothing,
    /// One error reply with this id: a parse error (`null`) or an invalid request.
    Reply(Value),
    /// One reply (a result or an error) to a request.
    Answer { id: Value, method: String },
    /// A batch: one null-id error, or one reply per element with these ids.
    Batch(Vec<Value>),
}

/// [`Owed`] for one line: the members [`wire::classify`] reads, by its rules, read without
/// building the message (a tool call's arguments, say) as a `Value`; the parse is the one a
/// `Value` goes through, so the line is JSON exactly when `wire::decode` says so.
pub(super) fn owed(line: &[u8], faults: &Faults) -> Owed {
    match read_whole_line(line) {
        Err(_) => Owed::Reply(Value::Null),
        Ok(Line::Batch(items)) => Owed::Batch(
            items
                .into_iter()
                .filter_map(|item| match owed_by(item, faults) {
                    Owed::Reply(id) | Owed::Answer { id, .. } => Some(id),
                    Owed::Nothing | Owed::Batch(_) => None,
                })
                .collect(),
        ),
        Ok(Line::Single(message)) => owed_by(message, faults),
    }
}

/// [`wire::classify`]'s rules on the members read.
pub(super) fn owed_by(message: Shape, faults: &Faults) -> Owed {
    let Shape::Object(m) = message else {
        return Owed::Reply(Value::Null);
    };
    let id = match m.id {
        None => None,
        Some(id @ Value::String(_)) => Some(id),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
        Some(Value::Null) if faults.has(Fault::NullIdAnswered) => Some(Value::Null),
        Some(_) => return Owed::Reply(Value::Null),
    };
    let jsonrpc_ok = m.jsonrpc_2_0 || faults.has(Fault::AcceptAnyJsonrpcVersion);
    let params_ok = m.params_structured.unwrap_or(true);
    match (m.method, id) {
        (Some(Some(_)), None) => Owed::Nothing,
        (Some(Some(method)), Some(id)) if jsonrpc_ok && params_ok => Owed::Answer { id, method },
        (Some(_), id) => Owed::Reply(id.unwrap_or(Value::Null)),
        (None, Some(_)) if m.result.is_some() != m.error.is_some() => Owed::Nothing,
        (None, id) => Owed::Reply(id.unwrap_or(Value::Null)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::fuzz_targets::model::Session;
    use crate::wire::Message;
    use crate::wire::{self, Inbound};

    /// [`Owed`] through the server's own codec: what [`owed`] must agree with.
    fn owed_by_decode(line: &[u8], faults: &Faults) -> Owed {
        let of = |inbound| match inbound {
            Inbound::ParseError(_) => Owed::Reply(Value::Null),
            Inbound::Invalid { id, .. } => Owed::Reply(id),
            Inbound::Message(Message::Request { id, method, .. }) => Owed::Answer {
                id: id.as_json().clone(),
                method,
            },
            Inbound::Batch(_)
            | Inbound::DroppedNotification(_)
            | Inbound::Message(Message::Notification { .. } | Message::Response { .. }) => {
                Owed::Nothing
            }
        };
        match wire::decode(line, faults) {
            Inbound::Batch(items) => Owed::Batch(
                items
                    .into_iter()
                    .filter_map(|item| match of(wire::classify(item, faults)) {
                        Owed::Reply(id) | Owed::Answer { id, .. } => Some(id),
                        _ => None,
                    })
                    .collect(),
            ),
            inbound => of(inbound),
        }
    }

    fn lines_of(input: &[u8]) -> impl Iterator<Item = &[u8]> {
        input.split(|&b| b == b'\n')
    }

    #[test]
    fn the_judge_reads_input_lines_as_the_codec_classifies_them() {
        let deep = |depth: usize| format!("{}0{}", "[".repeat(depth), "]".repeat(depth));
        let crafted: Vec<String> = vec![
            String::new(),
            "{oops".into(),
            "42".into(),
            "\"text\"".into(),
            "null".into(),
            "[]".into(),
            "[1,{},{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]".into(),
            "[{\"id\":\"a\",\"method\":7},{\"id\":1.5,\"method\":\"m\"},{\"id\":null,\"method\":\"m\"}]".into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.into(),
            r#"{"jsonrpc":"2.0","id":"x","method":"ping","params":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":-4,"method":"ping","params":[1]}"#.into(),
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#.into(),
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#.into(),
            r#"{"jsonrpc":2,"id":1,"method":"ping"}"#.into(),
            r#"{"id":1,"method":"ping"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
            r#"{"jsonrpc":"1.0","method":"n"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"n","params":"p"}"#.into(),
            r#"{"jsonrpc":"2.0","method":7}"#.into(),
            r#"{"jsonrpc":"2.0","id":2,"method":{"a":1}}"#.into(),
            r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1e2,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":{"a":[]},"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":"srv-1","result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":"srv-1","error":{"code":1}}"#.into(),
            r#"{"jsonrpc":"2.0","id":"srv-1","result":{},"error":{}}"#.into(),
            r#"{"jsonrpc":"2.0","result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":5}"#.into(),
            r#"{"jsonrpc":"2.0"}"#.into(),
            r#"{}"#.into(),
            // Duplicates: the last one counts.
            r#"{"jsonrpc":"2.0","id":1,"id":true,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":true,"id":1,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","jsonrpc":"1","id":1,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":1,"params":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":"\u0031","me\u0074hod":"p\u00e9"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1e400}}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} trailing"#.into(),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}}}"#, deep(126)),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}}}"#, deep(127)),
            deep(200),
        ];
        let mut lines: Vec<Vec<u8>> = crafted.into_iter().map(String::into_bytes).collect();
        lines.push(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec());
        lines.push(b"\xff\xfe".to_vec());
        let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/fuzz");
        for dir in ["seeds", "regressions"] {
            for entry in std::fs::read_dir(seeds.join(dir)).unwrap() {
                let input = std::fs::read(entry.unwrap().path()).unwrap();
                lines.extend(lines_of(&input).map(<[u8]>::to_vec));
                if let Some(session) = Session::from_bytes(&input) {
                    let (_, rendered) = session.render(Faults::none());
                    lines.extend(lines_of(&rendered).map(<[u8]>::to_vec));
                }
            }
        }
        let fault_sets = [
            Faults::none(),
            Faults::none().with(Fault::NullIdAnswered),
            Faults::none().with(Fault::AcceptAnyJsonrpcVersion),
            Faults::none().with(Fault::InvalidRequestWrongCode),
        ];
        for faults in &fault_sets {
            for line in &lines {
                assert_eq!(
                    owed(line, faults),
                    owed_by_decode(line, faults),
                    "{:?} with {faults:?}",
                    String::from_utf8_lossy(line)
                );
            }
        }
    }
}
