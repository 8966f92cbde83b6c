//! The harness SSE parser (`mcpspec::fuzz_targets::sse_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec::fuzz_targets::fuzz_sse(data));
