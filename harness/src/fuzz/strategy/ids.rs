//! Distinct ids across a case: every `id` member a line carries (a request's, a client
//! response's, each batch element's; found even in a line that is not JSON, up to the damage)
//! is made unlike every id before it in the case, and unlike the probe's. "Unlike" holds under
//! every way a peer may read it (a replacing and an escaping decoder, a double's rounding), so a
//! reply's id names one line. The first line with an id keeps it; a later one that repeats it
//! gets a fresh one of the same type (a string gains a suffix, an integer a digit), its other
//! bytes untouched. A `requestId` is left as it is: a cancellation still names the line that
//! first carried its id. `null`, booleans and structures are not ids and stay as they are.

use std::collections::HashSet;
use std::ops::Range;

use crate::fuzz::oracle::PROBE_ID;
use crate::fuzz::reading::{self, Decoder, IdKey, Kind};

/// How many fresh spellings are tried before an id is left as it is.
const TRIES: usize = 64;

/// `lines` with every id distinct (see the module doc).
pub fn distinct(lines: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let mut used: HashSet<IdKey> = HashSet::from([IdKey::string(PROBE_ID)]);
    lines
        .into_iter()
        .map(|line| {
            let mut edits: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
            for span in reading::id_spans(&line) {
                let value = &line[span.clone()];
                let Some(keys) = keys_of(value) else { continue };
                if keys.iter().all(|k| !used.contains(k)) {
                    used.extend(keys);
                    continue;
                }
                match fresh(value, &used) {
                    Some((text, keys)) => {
                        used.extend(keys);
                        edits.push((span, text));
                    }
                    None => used.extend(keys),
                }
            }
            if edits.is_empty() {
                return line;
            }
            let mut line = line;
            for (span, text) in edits.into_iter().rev() {
                line.splice(span, text);
            }
            line
        })
        .collect()
}

/// Every key an id may be read as; `None` for what is no id (null, booleans, structures, a
/// token that is not JSON).
fn keys_of(value: &[u8]) -> Option<Vec<IdKey>> {
    let doc = reading::read(value).ok()?;
    if !matches!(doc.root.kind, Kind::String | Kind::Number) {
        return None;
    }
    let mut keys = Vec::new();
    for decoder in Decoder::ALL {
        for key in doc.id_keys(doc.root, decoder) {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    Some(keys)
}

/// A spelling of `value` of its own type that no used key matches, and its keys.
fn fresh(value: &[u8], used: &HashSet<IdKey>) -> Option<(Vec<u8>, Vec<IdKey>)> {
    let string = value.first() == Some(&b'"');
    let integer = !string && value.iter().all(|b| b.is_ascii_digit() || *b == b'-');
    let zero = value == b"0" || value == b"-0";
    (1..=TRIES).find_map(|n| {
        let text = if string {
            let mut t = value[..value.len() - 1].to_vec();
            t.extend_from_slice(format!("~{n}\"").as_bytes());
            t
        } else if integer && !zero {
            // `3` becomes `31`, `32`, …: still an integer of the same sign.
            let mut t = value.to_vec();
            t.extend_from_slice(n.to_string().as_bytes());
            t
        } else {
            let sign = if value.first() == Some(&b'-') {
                "-"
            } else {
                ""
            };
            format!("{sign}{}", 100 * n).into_bytes()
        };
        let keys = keys_of(&text)?;
        keys.iter()
            .all(|k| !used.contains(k))
            .then_some((text, keys))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(lines: &[&[u8]]) -> Vec<String> {
        let out = distinct(lines.iter().map(|l| l.to_vec()).collect());
        out.iter()
            .flat_map(|l| {
                reading::id_spans(l)
                    .into_iter()
                    .map(|r| String::from_utf8_lossy(&l[r]).into_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn repeated_ids_get_fresh_ones_of_their_type() {
        let got = ids(&[
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            br#"[{"id":"a"},{"id":"a"},{"id":1e0}]"#,
            br#"{"id":"mcpspec-fuzz-probe","result":{}}"#,
            br#"{"id":null},{"id":null}"#,
            br#"{"id":0,"x":1}"#,
            br#"{"id":-0,"x":"#,
        ]);
        assert_eq!(
            got,
            [
                "1",
                "100",
                "\"a\"",
                "\"a~1\"",
                "200",
                "\"mcpspec-fuzz-probe~1\"",
                "null",
                "0",
                "-100",
            ]
        );
    }

    #[test]
    fn distinct_under_every_decoder_and_the_rest_untouched() {
        // Two ids that a replacing decoder reads alike.
        let out = distinct(vec![
            b"{\"id\":\"r\xff\",\"method\":\"ping\"}".to_vec(),
            b"{\"id\":\"r\xfe\",\"method\":\"ping\"}".to_vec(),
        ]);
        assert_eq!(out[1], b"{\"id\":\"r\xfe~1\",\"method\":\"ping\"}".to_vec());
        // A double's rounding counts: 2^64 - 1 and 2^64 are one double.
        let out = distinct(vec![
            b"{\"id\":18446744073709551615}".to_vec(),
            b"{\"id\":18446744073709551616}".to_vec(),
        ]);
        assert_eq!(out[1], b"{\"id\":184467440737095516161}".to_vec());
        let plain = br#"{"jsonrpc":"2.0", "id" : 5 ,"method":"x"}"#.to_vec();
        assert_eq!(distinct(vec![plain.clone()]), [plain]);
    }
}
