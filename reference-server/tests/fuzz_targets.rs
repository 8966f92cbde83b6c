//! The fuzzing entry points: arbitrary bytes never panic, and every reply is one JSON line.
#![allow(clippy::unwrap_used)]

use mcp_reference_server::{Config, fuzz_targets};
use serde_json::Value;

#[test]
fn arbitrary_input_gives_valid_lines_and_one_reply_per_request() {
    let inputs: [&[u8]; 5] = [
        b"",
        b"{oops\n\xff\xfe\n[1,2]\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\"}}\n[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n",
        b"\n\n  \n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    ];
    let expected_lines = [0, 3, 3, 1, 0];
    for (input, want) in inputs.iter().zip(expected_lines) {
        let out = fuzz_targets::serve_bytes(Config::default(), input).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in text.lines() {
            let _: Value = serde_json::from_str(line).unwrap();
        }
        assert_eq!(text.lines().count(), want, "{text}");
    }
    assert!(matches!(
        fuzz_targets::decode(b"\xff"),
        mcp_reference_server::wire::Inbound::ParseError(_)
    ));
}
