//! The `mcpspec` command line: the clap tree and which handler each subcommand goes to. What
//! every handler shares (the exit codes, the usage-error line, the report flags) is below them
//! all, in `shared.rs`.
//!
//! It lives in the `mcpspec` crate's library, on top of the harness, the client tester and the
//! core; the binary's `main.rs` only calls [`main`]. Each handler turns flags into library
//! calls and results into output and an exit code: `run.rs` owns `mcpspec run`, `negotiate.rs` the matrix, `listing.rs` `list`
//! and `coverage`, `report.rs` `report`, `explain.rs` `explain` and `baseline`, `fuzz.rs`
//! `fuzz` and the replay of a fuzz reproducer, `replay.rs` the replay of a transcript,
//! `auth.rs` `auth`, `client.rs` `mcpspec client`, `matrix.rs` `mcpspec matrix`.

mod auth;
mod client;
mod explain;
mod fuzz;
mod listing;
pub mod matrix;
mod negotiate;
mod replay;
mod report;
mod run;
mod shared;

pub use shared::exit;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "mcpspec",
    version,
    about = "Conformance test harness and fuzzer for MCP servers"
)]
struct Cli {
    /// Colour: `auto` on a terminal unless NO_COLOR is set; `always` and `never` win over both.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: mcpspec_harness::output::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the conformance checks against a server (default: the embedded reference server).
    Run(Box<self::run::RunArgs>),
    /// Fuzz a server with generated JSON-RPC sequences; shrink and save what breaks it.
    Fuzz(Box<self::fuzz::FuzzArgs>),
    /// The version-negotiation matrix: what the server answers, per revision, to modern and
    /// legacy clients.
    Negotiate(Box<self::negotiate::NegotiateArgs>),
    /// Replay a reproducer written by `mcpspec fuzz`, or a check's transcript file (`run
    /// --transcripts DIR`): its earlier traffic first, then the check, on a fresh process.
    Replay(self::fuzz::ReplayArgs),
    /// One check in full: what it sends and expects, its requirements with their sources, the
    /// policies it applies, and what a fix usually is.
    Explain {
        /// The check's id (see `mcpspec list`).
        #[arg(value_name = "CHECK-ID")]
        id: String,
    },
    /// Write a first baseline: one entry per Fail of a run (or of a JSON report, --from), each
    /// reason pre-filled with the verdict's message.
    Baseline(Box<self::explain::BaselineArgs>),
    /// List the check catalogue: ids, levels, requirement ids.
    List(self::listing::ListArgs),
    /// Requirement coverage: for each requirement id, the checks that cite it.
    Coverage(self::listing::CoverageArgs),
    /// Print a shell completion script: `source <(mcpspec completions bash)`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Render a JSON report of `mcpspec run --json` again (`--html`, `--junit`, …), or merge
    /// the reports of a run's shards (`--merge`).
    Report(self::report::ReportArgs),
    /// Protected servers: `mcpspec auth issuer` serves the built-in test issuer.
    Auth(self::auth::AuthCommand),
    /// Test an MCP client: run it against scripted peers (`-- CLIENT…`), fuzz it, replay.
    Client(Box<self::client::ClientArgs>),
    /// Many servers and clients, each at several revisions, on one comparison page with the
    /// tier each earns (POL-35); `merge` builds the page from the records of several machines.
    Matrix(Box<self::matrix::MatrixArgs>),
}

/// `mcpspec`: parses the command line and runs the subcommand; what the binary's `main` calls.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    mcpspec_harness::output::set_color(cli.color);
    match cli.command {
        Command::List(args) => ExitCode::from(self::listing::list(args)),
        Command::Run(args) => ExitCode::from(self::run::run(*args)),
        Command::Negotiate(args) => ExitCode::from(self::negotiate::run(*args)),
        Command::Fuzz(args) => ExitCode::from(self::fuzz::fuzz_main(*args)),
        Command::Replay(args) if self::replay::is_transcript(&args.file) => {
            ExitCode::from(self::replay::run(&args))
        }
        Command::Replay(args) => ExitCode::from(self::fuzz::replay_main(args)),
        Command::Explain { id } => ExitCode::from(self::explain::explain(&id)),
        Command::Baseline(args) => ExitCode::from(self::explain::baseline(*args)),
        Command::Report(args) => ExitCode::from(self::report::run(args)),
        Command::Auth(args) => ExitCode::from(self::auth::main(args)),
        Command::Coverage(args) => ExitCode::from(self::listing::coverage(args)),
        Command::Client(args) => ExitCode::from(self::client::run(*args)),
        Command::Matrix(args) => ExitCode::from(self::matrix::main(*args)),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "mcpspec", &mut out);
            mcpspec_harness::output::out!("{}", String::from_utf8_lossy(&out));
            ExitCode::from(exit::OK)
        }
    }
}
