//! Property tests: the harness codec (encode∘decode identity on valid messages, decoding total
//! on any bytes) and the reference server's invariants on generated message sequences (one
//! reply per request with its id, none for notifications, valid error codes, era rules).

use std::sync::Arc;

use mcpspec_core::wire::{Frame, Message};
use mcpspec_harness::fuzz::strategy;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn sse_parsing_is_chunking_independent(
        pieces in proptest::collection::vec(
            prop_oneof![
                Just(&b"data: "[..]), Just(&b"data:"[..]), Just(&b"id: 7"[..]), Just(&b"event: message"[..]),
                Just(&b": comment"[..]), Just(&b"{\"a\":1}"[..]), Just(&b"\n"[..]), Just(&b"\r\n"[..]),
                Just(&b"\r"[..]), Just(&b"retry: 5"[..]), Just(&b"x\xff"[..]),
            ],
            0..60,
        ),
        split in 1u8..=255,
    ) {
        let mut data = vec![split];
        for p in pieces {
            data.extend_from_slice(p);
        }
        let checked = mcpspec_core::fuzz_targets::sse_invariants(&data);
        prop_assert!(checked.is_ok(), "{:?}", checked);
    }

    #[test]
    fn decode_is_total_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        prop_assert_eq!(mcpspec_core::fuzz_targets::codec_invariants(&bytes), Ok(()));
    }

    #[test]
    fn encode_decode_is_identity_on_valid_messages(
        value in prop_oneof![strategy::request(&Default::default()), strategy::notification(&Default::default()), strategy::client_response()]
    ) {
        let frame = Frame::decode(value.to_string().as_bytes());
        if let Ok(message) = &frame.parsed {
            prop_assert!(!matches!(message, Message::Batch(_)));
            prop_assert_eq!(mcpspec_core::fuzz_targets::round_trip(message), Ok(()));
        }
        prop_assert_eq!(mcpspec_core::fuzz_targets::codec_invariants(value.to_string().as_bytes()), Ok(()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn reference_server_invariants_hold_on_generated_sequences(
        case in strategy::case(Arc::new(strategy::Material::calling(&["echo", "add"])))
    ) {
        let mut input = Vec::new();
        for line in &case {
            input.extend_from_slice(line);
            input.push(b'\n');
        }
        let config = mcp_reference_server::Config::default();
        prop_assert_eq!(mcp_reference_server::fuzz_targets::serve_and_check(config.clone(), &input), Ok(()));
        prop_assert_eq!(mcp_reference_server::fuzz_targets::paths_agree(config, &input), Ok(()));
    }

    #[test]
    fn reference_server_invariants_hold_on_structured_sessions(
        bytes in proptest::collection::vec(any::<u8>(), 0..512)
    ) {
        prop_assert_eq!(mcp_reference_server::fuzz_targets::structured_invariants(&bytes), Ok(()));
        if let Some(session) = mcp_reference_server::fuzz_targets::Session::from_bytes(&bytes) {
            let (config, input) = session.render(mcp_reference_server::Faults::none());
            prop_assert_eq!(mcp_reference_server::fuzz_targets::paths_agree(config, &input), Ok(()));
        }
    }
}

#[test]
fn the_structured_model_expresses_the_planted_panic() {
    // libFuzzer searches this model (scripts/fuzz-smoke.sh --expect-crash structured); here:
    // the session it has to find exists and trips the invariant check.
    use mcp_reference_server::fuzz_targets::*;
    let session = Session {
        eras: ErasPick::Both,
        probe_profile: false,
        steps: vec![Step::Request {
            id: IdPick::Int(1),
            method: MethodPick::ToolsCall,
            envelope: EnvelopePick::Full {
                version: VersionPick::Modern,
                client_info: false,
            },
            params: ParamsPick::ToolCall {
                tool: ToolPick::Echo,
                arguments: vec![(KeyPick::Dunder(0), ValuePick::Array(vec![1]))],
                arguments_not_object: false,
            },
        }],
    };
    let faults = mcp_reference_server::Faults::none()
        .with(mcp_reference_server::Fault::PanicOnDunderArgument);
    let (config, input) = session.render(faults);
    let error = serve_and_check(config, &input).unwrap_err();
    assert!(error.contains("panicked"), "{error}");
    let (config, input) = session.render(mcp_reference_server::Faults::none());
    assert_eq!(serve_and_check(config, &input), Ok(()));
}
