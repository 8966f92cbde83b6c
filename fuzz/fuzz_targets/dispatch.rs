//! The reference server's decode + dispatch over raw bytes
//! (`mcp_reference_server::fuzzing::dispatch_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_reference_server::fuzzing::fuzz_dispatch(data));
