//! `mcpspec-reference-client`: the reference MCP client with fault switches
//! (`mcpspec::reference_client`), what `mcpspec client`'s checks are proven against.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(mcpspec::reference_client::main())
}
