//! The subcommands' handlers that have grown past a few lines, and what every handler shares:
//! the exit codes and the usage-error line.
//!
//! This is part of the `mcpspec` binary (`main.rs`), not of the library: it turns flags into
//! library calls and results into output and an exit code. `run.rs` owns `mcpspec run`,
//! `negotiate.rs` the matrix, `listing.rs` `list` and `coverage`; `fuzz`/`replay` live in the
//! library's `fuzz::cli`.

pub mod listing;
pub mod negotiate;
pub mod report;
pub mod run;

use mcpspec::errln;

/// Exit codes (README "Exit codes").
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const TARGET: u8 = 3;
    /// Interrupted (Ctrl-C): 128 + SIGINT, as a shell reports it.
    pub const INTERRUPTED: u8 = 130;
}

/// Prints `mcpspec: <message>` to stderr; the exit code of a usage error.
pub fn usage_error(message: impl std::fmt::Display) -> u8 {
    errln!("mcpspec: {message}");
    exit::USAGE
}
