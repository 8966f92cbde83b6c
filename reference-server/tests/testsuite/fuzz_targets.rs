//! The fuzzing entry points: arbitrary bytes never panic, and every reply is one JSON line.
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

const PING_1: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";

/// `[[[...0...]]]`, `depth` arrays deep.
fn nested(depth: usize) -> String {
    format!("{}0{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn the_judge_names_every_violation() {
    let legacy = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\"}\n";
    let initialized = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}"#;
    let deep_result = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}}}"#, nested(126));
    let deeper_result = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}}}"#, nested(127));
    // (input, output, the violation named, or None when the output is right)
    let cases: Vec<(&[u8], String, Option<&str>)> = vec![
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(),
            None,
        ),
        (PING_1, "{oops".into(), Some("output line is not JSON")),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"result":{}} x"#.into(),
            Some("not JSON"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"result":1e400}"#.into(),
            Some("not JSON"),
        ),
        (PING_1, "42".into(), Some("output is not an object: 42")),
        (PING_1, "[7]".into(), Some("output is not an object: 7")),
        (
            PING_1,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#.into(),
            Some("without `jsonrpc"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":2.0,"id":1,"result":{}}"#.into(),
            Some("without `jsonrpc"),
        ),
        // The last of duplicate members counts, as in a parsed `Value`.
        (
            PING_1,
            r#"{"jsonrpc":"2.0","jsonrpc":"2","id":1,"result":{}}"#.into(),
            Some("without `jsonrpc"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2","jsonrpc":"2.0","id":1,"result":{}}"#.into(),
            None,
        ),
        (
            PING_1,
            r#"{"jsonr\u0070c":"2.0","id":1,"result":{}}"#.into(),
            None,
        ),
        (
            PING_1,
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}}\n{}",
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
            ),
            Some("server->client request outside a legacy session"),
        ),
        (
            PING_1,
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}}\n{}",
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
            ),
            None,
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32600,"message":"x"}}"#.into(),
            Some("exactly one of result/error"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1}"#.into(),
            Some("exactly one of result/error"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#.into(),
            Some("error code not in the allowed set"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600.0}}"#.into(),
            Some("allowed set"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"-32600"}}"#.into(),
            Some("allowed set"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"code":1}}"#.into(),
            Some("allowed set"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"error":-32600}"#.into(),
            Some("allowed set"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":1,"error":{"message":"x","code":-32600}}"#.into(),
            None,
        ),
        (PING_1, String::new(), Some("id 1: 0 replies, expected 1")),
        (
            PING_1,
            format!("{0}\n{0}", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Some("id 1: 2 replies, expected 1"),
        ),
        (
            PING_1,
            r#"{"jsonrpc":"2.0","id":"1","result":{}}"#.into(),
            Some("replies"),
        ),
        (
            PING_1,
            format!(
                "{}\n{}",
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                r#"{"jsonrpc":"2.0","id":9,"result":{}}"#
            ),
            Some("1 replies with id 9, which no request carried"),
        ),
        (
            legacy,
            format!(
                "{initialized}\n{}",
                r#"{"jsonrpc":"2.0","id":2,"result":{"supportedVersions":[]}}"#
            ),
            Some("a DiscoverResult in a legacy session"),
        ),
        (
            legacy,
            format!(
                "{initialized}\n{}",
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"x"}}"#
            ),
            None,
        ),
        // Without the handshake's result the session is not legacy.
        (
            legacy,
            format!(
                "{}\n{}",
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                r#"{"jsonrpc":"2.0","id":2,"result":{"supportedVersions":[]}}"#
            ),
            None,
        ),
        // `Value`'s recursion limit: 128 levels.
        (PING_1, deep_result, None),
        (PING_1, deeper_result, Some("recursion limit exceeded")),
    ];
    for (input, output, violation) in cases {
        // The judge reads a line as JSON exactly when a `Value` parses it.
        let parses = output
            .lines()
            .all(|line| serde_json::from_str::<Value>(line).is_ok());
        assert_eq!(
            parses,
            !violation.is_some_and(|v| v.contains("JSON") || v.contains("recursion")),
            "{output}"
        );
        let judged = fuzz_targets::check_output(&Config::default(), input, output.as_bytes());
        match violation {
            None => assert_eq!(judged, Ok(()), "{output}"),
            Some(named) => {
                let error = judged.expect_err(&output);
                assert!(error.contains(named), "{output}: {error}");
            }
        }
    }
}

#[test]
fn the_judge_catches_the_server_faults_it_is_about() {
    let tool_call = b"{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
    let with = |fault| Config {
        faults: Faults::none().with(fault),
        ..Config::default()
    };
    let cases: [(Fault, &[u8], &str); 6] = [
        (Fault::ParseErrorSilent, b"{oops\n", "0 replies"),
        (Fault::PrettyPrint, DISCOVER, "not JSON"),
        (Fault::WrongJsonrpcVersionOut, DISCOVER, "without `jsonrpc"),
        (
            Fault::ResultAndError,
            b"{oops\n",
            "exactly one of result/error",
        ),
        (
            Fault::IdAsNumber,
            tool_call,
            "id \"7\": 0 replies, expected 1",
        ),
        (Fault::ReplyTwice, tool_call, "2 replies, expected 1"),
    ];
    for (fault, input, named) in cases {
        assert_eq!(
            fuzz_targets::check_in_memory(Config::default(), input),
            Ok(()),
            "{fault:?}"
        );
        let error = fuzz_targets::check_in_memory(with(fault), input).unwrap_err();
        assert!(error.contains(named), "{fault:?}: {error}");
    }
}

/// The seed corpus, every entry as one input.
fn seeds() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/fuzz/seeds");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| std::fs::read(path).unwrap())
        .collect()
}

#[test]
fn an_input_is_served_the_same_whatever_was_served_before() {
    // The runtime (and anything else kept per process) must not carry state from one input to
    // the next: an input served after another writes what it writes served alone. The seeds
    // as raw bytes (`dispatch`) and read as sessions (`structured`: other eras and profiles).
    let mut inputs: Vec<(Config, Vec<u8>)> = seeds()
        .into_iter()
        .map(|seed| (Config::default(), seed))
        .collect();
    let sessions: Vec<_> = inputs
        .iter()
        .filter_map(|(_, seed)| fuzz_targets::Session::from_bytes(seed))
        .map(|session| session.render(Faults::none()))
        .collect();
    assert!(sessions.len() > 5, "{} sessions", sessions.len());
    inputs.extend(sessions);
    let alone: Vec<_> = inputs
        .iter()
        .map(|(config, input)| fuzz_targets::serve_in_memory(config.clone(), input).unwrap())
        .collect();
    for (before, (earlier_config, earlier)) in inputs.iter().enumerate() {
        for (index, (config, input)) in inputs.iter().enumerate() {
            let _ = fuzz_targets::serve_in_memory(earlier_config.clone(), earlier).unwrap();
            let after = fuzz_targets::serve_in_memory(config.clone(), input).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&after.output),
                String::from_utf8_lossy(&alone[index].output),
                "seed {index} after seed {before}"
            );
            assert_eq!(after.panicked, alone[index].panicked);
            assert_eq!(after.stalled, alone[index].stalled);
        }
    }
}
