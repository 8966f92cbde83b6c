//! The `mcpspec` binary. The command line lives in the library ([`mcpspec::cli`]), where the
//! compiler sees every caller of every module.

fn main() -> std::process::ExitCode {
    mcpspec::cli::main()
}
