//! Typed message sequences through the reference server
//! (`mcp_reference_server::fuzz_targets::structured_invariants`). Faults named in
//! `MCP_REFERENCE_FAULTS` are switched on (e.g. `panic-on-dunder-argument`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_reference_server::fuzz_targets::fuzz_structured(data));
