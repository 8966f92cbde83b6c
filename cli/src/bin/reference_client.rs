//! `mcpspec-reference-client`: the reference MCP client with fault switches
//! (`mcpspec_reference_client`), what `mcpspec client`'s checks are proven against.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(mcpspec_reference_client::main())
}
