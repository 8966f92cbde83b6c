//! Typed message sequences through the reference server
//! (`mcp_reference_server::fuzzing::structured_invariants`). Faults named in
//! `MCP_REFERENCE_FAULTS` are switched on (e.g. `panic-on-dunder-argument`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_reference_server::fuzzing::fuzz_structured(data));
