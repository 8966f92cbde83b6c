//! The harness wire codec (`mcpspec::fuzz_targets::codec_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec::fuzz_targets::fuzz_codec(data));
