//! The generator of hostile peer scripts: one to four steps, each on one of the client's first
//! requests, each an [`Action`] drawn from the kinds CLI-10 names (wrong, missing and duplicate
//! ids, replies no request asked for, huge and deeply nested values, bytes that are not JSON or
//! not UTF-8, unknown notifications, bursts of server requests; over HTTP odd statuses and odd
//! SSE framing). Values come from the server fuzzer's generators (`mcpspec_harness::fuzz::strategy`).

use proptest::collection::vec;
use proptest::prelude::*;

use super::case::{Action, Case, Framing, Step};
use crate::scenario::Transport;

/// The client requests a step may act on: the tools_call operation sends a handful (discover or
/// initialize, tools/list, tools/call, a retry).
const REQUESTS: usize = 6;
/// The most steps in one script.
const MAX_STEPS: usize = 4;

/// Scripts for a peer on `transport`.
pub fn case(transport: Transport) -> BoxedStrategy<Case> {
    vec(step(transport), 1..=MAX_STEPS)
        .prop_map(|steps| Case { steps })
        .boxed()
}

fn step(transport: Transport) -> BoxedStrategy<Step> {
    (0..REQUESTS, action(transport))
        .prop_map(|(at, action)| Step { at, action })
        .boxed()
}

fn action(transport: Transport) -> BoxedStrategy<Action> {
    let common = prop_oneof![
        mcpspec_harness::fuzz::strategy::id().prop_map(|id| Action::ReplyWrongId { id }),
        Just(Action::ReplyMissingId),
        Just(Action::ReplyNullId),
        Just(Action::Duplicate),
        (
            unknown_notification(),
            mcpspec_harness::fuzz::strategy::value()
        )
            .prop_map(|(method, params)| Action::UnknownNotification { method, params }),
        (1u16..=64).prop_map(|count| Action::ServerRequests { count }),
        garbage().prop_map(|bytes| Action::Garbage { bytes }),
        size().prop_map(|bytes| Action::Huge { bytes }),
        size().prop_map(|depth| Action::Deep {
            depth: depth.min(MAX_DEPTH)
        }),
        (error_code(), mcpspec_harness::fuzz::strategy::string())
            .prop_map(|(code, message)| Action::ErrorReply { code, message }),
        (
            mcpspec_harness::fuzz::strategy::key(),
            mcpspec_harness::fuzz::strategy::value()
        )
            .prop_map(|(key, value)| Action::ResultExtra { key, value }),
    ];
    match transport {
        Transport::Stdio => common.boxed(),
        Transport::Http => prop_oneof![
            10 => common,
            1 => status(),
            1 => framing().prop_map(|framing| Action::Framing { framing }),
        ]
        .boxed(),
    }
}

/// The deepest nesting generated (the peer builds it as text, so this bounds its memory).
const MAX_DEPTH: usize = 100_000;

/// Sizes from tiny to a few MiB, small ones more often.
fn size() -> BoxedStrategy<usize> {
    prop_oneof![
        4 => 0usize..128,
        3 => 128usize..4096,
        2 => 4096usize..(256 * 1024),
        1 => (256usize * 1024)..(4 * 1024 * 1024),
    ]
    .boxed()
}

fn unknown_notification() -> BoxedStrategy<String> {
    prop_oneof![
        Just("notifications/mcpspec/unknown".to_owned()),
        mcpspec_harness::fuzz::strategy::method_name().prop_map(|m| format!("notifications/{m}")),
        mcpspec_harness::fuzz::strategy::method_name(),
    ]
    .boxed()
}

/// Bytes that are not a JSON-RPC message: broken JSON, invalid UTF-8, control bytes.
fn garbage() -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        Just(b"{".to_vec()),
        Just(b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec()),
        Just(vec![0xff, 0xfe, b'{', 0x80]),
        Just(b"\"jsonrpc\": \"2.0\"".to_vec()),
        Just(b"[]".to_vec()),
        Just(b"null".to_vec()),
        vec(any::<u8>(), 0..64),
    ]
    .boxed()
}

fn error_code() -> BoxedStrategy<i64> {
    prop_oneof![
        Just(-32603),
        Just(-32600),
        Just(-32601),
        Just(-32022),
        Just(0),
        any::<i64>(),
    ]
    .boxed()
}

fn status() -> BoxedStrategy<Action> {
    let statuses = prop_oneof![
        Just(202u16),
        Just(204),
        Just(301),
        Just(400),
        Just(404),
        Just(409),
        Just(500),
        Just(503),
        Just(599),
    ];
    let bodies = prop_oneof![
        Just((String::new(), String::new())),
        Just(("text/plain".to_owned(), "mcpspec: no".to_owned())),
        Just(("application/json".to_owned(), "{".to_owned())),
        Just((
            "application/json".to_owned(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}"#.to_owned(),
        )),
        Just(("text/event-stream".to_owned(), "data: {\n\n".to_owned())),
    ];
    (statuses, bodies)
        .prop_map(|(status, (content_type, body))| Action::Status {
            status,
            content_type,
            body,
        })
        .boxed()
}

fn framing() -> BoxedStrategy<Framing> {
    prop_oneof![
        Just(Framing::Crlf),
        Just(Framing::Cr),
        Just(Framing::Comments),
        Just(Framing::SplitData),
        Just(Framing::EmptyEvent),
        Just(Framing::Bom),
        Just(Framing::Trickle),
    ]
    .boxed()
}
