//! Raw bytes through the reference server's stdio transport end to end: duplex pipes, async
//! framing, the output stream (`mcp_reference_server::fuzz_targets::transport_invariants`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_reference_server::fuzz_targets::fuzz_transport(data));
