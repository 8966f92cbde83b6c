//! The harness SSE parser (`mcpspec::fuzzing::sse_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec::fuzzing::fuzz_sse(data));
