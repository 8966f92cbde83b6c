//! The whole mcpspec catalogue against this crate's server binary, one test per check:
//! `cargo test -p cargo-test-integration -- --list`, `... -- jsonrpc/ modern/discover/`,
//! `cargo nextest run`. The server's known deviation is in `conformance-baseline.yaml`.

use std::time::Duration;

use mcpspec::{RunOptions, Target};

fn main() -> std::process::ExitCode {
    let options = RunOptions::builder()
        .allow_tool("echo")
        .allow_tool("add")
        .timeout(Duration::from_secs(2))
        .build();
    mcpspec::testing::Suite::new(Target::command(env!("CARGO_BIN_EXE_example-server")))
        .options(options)
        .baseline(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/conformance-baseline.yaml"
        ))
        .main()
}
