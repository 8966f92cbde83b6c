//! The harness wire codec (`mcpspec_core::fuzz_targets::codec_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_core::fuzz_targets::fuzz_codec(data));
