//! The harness SSE parser (`mcpspec_core::fuzz_targets::sse_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_core::fuzz_targets::fuzz_sse(data));
