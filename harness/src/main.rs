//! The `mcpspec` command line: the clap tree, and which handler in `cli/` each subcommand goes
//! to.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cli::exit;

mod cli;

#[derive(Parser, Debug)]
#[command(
    name = "mcpspec",
    version,
    about = "Conformance test harness and fuzzer for MCP servers"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the conformance checks against a server (default: the embedded reference server).
    Run(Box<cli::run::RunArgs>),
    /// Fuzz a server with generated JSON-RPC sequences; shrink and save what breaks it.
    Fuzz(Box<mcpspec::fuzz::cli::FuzzArgs>),
    /// The version-negotiation matrix: what the server answers, per revision, to modern and
    /// legacy clients.
    Negotiate(Box<cli::negotiate::NegotiateArgs>),
    /// Replay a reproducer written by `mcpspec fuzz`.
    Replay(mcpspec::fuzz::cli::ReplayArgs),
    /// List the check catalogue: ids, levels, requirement ids.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Requirement coverage: for each requirement id, the checks that cite it.
    Coverage {
        /// Print JSON.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print a Markdown table.
        #[arg(long)]
        markdown: bool,
    },
    /// Render a JSON report of `mcpspec run` again, or merge the reports of a run's shards
    /// (`--merge`).
    Report(cli::report::ReportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::List { json } => {
            cli::listing::list(json);
            ExitCode::from(exit::OK)
        }
        Command::Run(args) => ExitCode::from(cli::run::run(*args)),
        Command::Negotiate(args) => ExitCode::from(cli::negotiate::run(*args)),
        Command::Fuzz(args) => ExitCode::from(mcpspec::fuzz::cli::fuzz_main(*args)),
        Command::Replay(args) => ExitCode::from(mcpspec::fuzz::cli::replay_main(args)),
        Command::Coverage { json, markdown } => {
            cli::listing::coverage(json, markdown);
            ExitCode::from(exit::OK)
        }
        Command::Report(args) => ExitCode::from(cli::report::run(args)),
    }
}
