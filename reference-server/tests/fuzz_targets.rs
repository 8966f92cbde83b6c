//! The fuzzing entry points: arbitrary bytes never panic, and every reply is one JSON line.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use mcp_reference_server::{Config, Fault, Faults, fuzz_targets};
use serde_json::Value;

const DISCOVER: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";

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
        // The fast path writes what the transport writes, and both pass the invariants.
        assert_eq!(fuzz_targets::paths_agree(Config::default(), input), Ok(()));
        assert_eq!(
            fuzz_targets::serve_and_check(Config::default(), input),
            Ok(())
        );
        for invariants in [
            fuzz_targets::dispatch_invariants,
            fuzz_targets::transport_invariants,
        ] {
            assert_eq!(invariants(input), Ok(()));
        }
    }
    assert!(matches!(
        fuzz_targets::decode(b"\xff"),
        mcp_reference_server::wire::Inbound::ParseError(_)
    ));
}

#[test]
fn the_fast_path_cuts_lines_like_the_transport() {
    // No newline at the end, empty and blank lines, CR before LF, a line of NULs.
    let inputs: [&[u8]; 5] = [
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        b"\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\r\n",
        b"\0\0\0\n{\n}\n",
        b"",
        DISCOVER,
    ];
    for input in inputs {
        assert_eq!(fuzz_targets::paths_agree(Config::default(), input), Ok(()));
    }
}

#[test]
fn the_fast_path_still_reports_a_panic_and_a_stall() {
    let tool_call = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"__boom\":[1]},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
    let panicking = Config {
        faults: Faults::none().with(Fault::PanicOnDunderArgument),
        ..Config::default()
    };
    let served = fuzz_targets::serve_in_memory(panicking.clone(), tool_call).unwrap();
    assert!(served.panicked.is_some(), "{served:?}");
    let error = fuzz_targets::check_in_memory(panicking, tool_call).unwrap_err();
    assert!(error.contains("panicked"), "{error}");
    // The runtime is reused: the next input is served normally after a panic.
    assert_eq!(
        fuzz_targets::check_in_memory(Config::default(), tool_call),
        Ok(())
    );

    let stalling = Config {
        faults: Faults::none().with(Fault::IgnoreEof),
        ..Config::default()
    };
    let started = Instant::now();
    let error = fuzz_targets::check_in_memory(stalling, DISCOVER).unwrap_err();
    assert!(error.contains("stalled"), "{error}");
    let waited = started.elapsed();
    assert!(
        waited >= fuzz_targets::SERVE_LIMIT
            && waited < fuzz_targets::SERVE_LIMIT + Duration::from_secs(5),
        "{waited:?}"
    );
    assert_eq!(
        fuzz_targets::check_in_memory(Config::default(), DISCOVER),
        Ok(())
    );
}
