//! The harness wire codec (`mcpspec::fuzzing::codec_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec::fuzzing::fuzz_codec(data));
