//! The reference server's decode + dispatch over raw bytes
//! (`mcp_reference_server::fuzz_targets::dispatch_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_reference_server::fuzz_targets::fuzz_dispatch(data));
