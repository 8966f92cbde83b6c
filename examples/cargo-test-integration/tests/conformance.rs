//! The whole mcpspec catalogue against this crate's server binary, one test per check:
//! `cargo test -p cargo-test-integration -- --list`, `... -- jsonrpc/`, `cargo nextest run`.

fn main() -> std::process::ExitCode {
    mcpspec::testing::main(mcpspec::Target::command(env!(
        "CARGO_BIN_EXE_example-server"
    )))
}
