//! Entry points for the cargo-fuzz targets (the top-level `fuzz/` crate) and the property tests;
//! not a stable API. The black-box fuzzer behind `mcpspec fuzz` is another module, [`crate::fuzz`].
//!
//! [`codec_invariants`] is the harness wire codec's property: decoding any bytes is total (a
//! message or a [`DecodeError`](crate::wire::DecodeError) naming a rule, never a panic), the
//! raw bytes are kept exactly, the classification agrees with [`classify`] on the parsed JSON,
//! and a decoded message survives encode∘decode (floats up to one rounding step, since the
//! JSON parser is not correctly rounded).

use serde_json::Value;

use crate::wire::{Frame, Message, classify};

/// Checks the codec properties on `data`; the `Err` names the broken one.
pub fn codec_invariants(data: &[u8]) -> Result<(), String> {
    let frame = Frame::decode(data);
    let expected_raw = data.strip_suffix(b"\r").unwrap_or(data);
    if frame.raw != expected_raw {
        return Err("the frame does not keep the raw bytes".into());
    }
    if let Some(json) = &frame.json {
        if classify(json) != frame.parsed {
            return Err("classification differs from classify() on the same JSON".into());
        }
    }
    match &frame.parsed {
        Ok(Message::Batch(items)) => {
            for item in items.iter().flatten() {
                round_trip(item)?;
            }
        }
        Ok(message) => round_trip(message)?,
        Err(_) => {}
    }
    Ok(())
}

/// [`codec_invariants`], panicking on a violation (the cargo-fuzz target).
pub fn fuzz_codec(data: &[u8]) {
    if let Err(violation) = codec_invariants(data) {
        panic!("codec invariant violated: {violation}");
    }
}

/// encode∘decode is the identity on a message (modulo float rounding).
pub fn round_trip(message: &Message) -> Result<(), String> {
    let encoded = message.encode();
    let line = encoded.strip_suffix(b"\n").unwrap_or(&encoded);
    if line.contains(&b'\n') {
        return Err("an encoded message spans several lines".into());
    }
    let again = Frame::decode(line);
    match &again.parsed {
        Ok(back) if same_json(&back.to_json(), &message.to_json()) => Ok(()),
        Ok(back) => Err(format!("round trip changed {message:?} into {back:?}")),
        Err(e) => Err(format!("an encoded message does not decode: {e}")),
    }
}

/// JSON equality with floats compared up to a few ulps.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x - y).abs() <= 4.0 * f64::EPSILON * x.abs(),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        _ => a == b,
    }
}

/// The SSE parser's properties on `data`: no panic; the events do not depend on how the bytes
/// are split into chunks (the first byte of `data` chooses the split points); a line past the
/// bound is an error, never an unbounded buffer.
pub fn sse_invariants(data: &[u8]) -> Result<(), String> {
    use crate::transport::http::sse::SseParser;
    const LIMIT: usize = 4096;
    let (split, body) = match data.split_first() {
        Some((s, rest)) => (usize::from(*s).max(1), rest),
        None => return Ok(()),
    };
    let whole = SseParser::new(LIMIT).feed(body);
    let mut chunked = SseParser::new(LIMIT);
    let mut events = Vec::new();
    let mut failed = None;
    for chunk in body.chunks(split) {
        match chunked.feed(chunk) {
            Ok(mut more) => events.append(&mut more),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    match (whole, failed) {
        (Ok(all), None) if all == events => Ok(()),
        (Ok(all), None) => Err(format!(
            "chunking changed the events: {all:?} vs {events:?}"
        )),
        (Err(a), Some(b)) if a == b => Ok(()),
        (a, b) => Err(format!("one-shot {a:?} but chunked error {b:?}")),
    }
}

/// [`sse_invariants`], panicking on a violation (the cargo-fuzz target).
pub fn fuzz_sse(data: &[u8]) {
    if let Err(violation) = sse_invariants(data) {
        panic!("SSE parser invariant violated: {violation}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_on_simple_inputs() {
        for input in [
            &b""[..],
            b"{oops",
            b"\xff",
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1.5e-300}}"#,
            br#"[{"jsonrpc":"2.0","id":"a","result":{}},3]"#,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r",
        ] {
            codec_invariants(input).unwrap_or_else(|e| panic!("{e}: {input:?}"));
        }
    }
}
