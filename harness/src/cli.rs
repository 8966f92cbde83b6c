//! The `mcpspec` command line: the clap tree, which handler each subcommand goes to, the exit
//! codes and the usage-error line every handler shares.
//!
//! It lives in the library so that the compiler sees every caller of every module (the library
//! is `pub(crate)` behind a small façade, and dead code cannot hide); the binary's `main.rs`
//! only calls [`main`]. Each handler turns flags into library calls and results into output and
//! an exit code: `run.rs` owns `mcpspec run`, `negotiate.rs` the matrix, `listing.rs` `list`
//! and `coverage`, `report.rs` `report`, `explain.rs` `explain` and `baseline`, `fuzz.rs`
//! `fuzz` and the replay of a fuzz reproducer, `replay.rs` the replay of a transcript,
//! `auth.rs` `auth`, `client.rs` `mcpspec client`.

mod auth;
mod client;
mod explain;
mod fuzz;
mod listing;
mod negotiate;
mod replay;
mod report;
mod run;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::cli_values::Destination;
use crate::output::errln;
use crate::report::Format;

/// Exit codes (docs/outcomes.md "Exit codes").
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const TARGET: u8 = 3;
    /// Interrupted (Ctrl-C): 128 + SIGINT, as a shell reports it.
    pub const INTERRUPTED: u8 = 130;
}

/// Writes a rendered report to `destination`: a file holds it as rendered; on stdout it ends
/// its line.
pub fn write_rendered(destination: &Destination, mut text: String) -> Result<(), String> {
    if destination.is_stdout() && !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    destination.write(&text)
}

/// Prints `mcpspec: <message>` to stderr; the exit code of a usage error.
pub fn usage_error(message: impl std::fmt::Display) -> u8 {
    errln!("mcpspec: {message}");
    exit::USAGE
}

/// The report files `run` writes and `report` writes again from a JSON report: the same flags
/// with the same meaning in both.
#[derive(clap::Args, Debug, Default)]
pub struct ReportFiles {
    /// Write the report as JSON to FILE (`-` for stdout, in place of the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub json: Option<Destination>,
    /// Write the report as JUnit XML to FILE (`-` for stdout, in place of the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub junit: Option<Destination>,
    /// Write a Markdown summary (for a CI step summary) to FILE (`-` for stdout, in place of
    /// the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub markdown: Option<Destination>,
    /// Write a self-contained HTML report (summary, negotiation matrix, every check with its
    /// requirement and its transcript as a conversation) to FILE (`-` for stdout, in place of
    /// the console report).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub html: Option<Destination>,
}

impl ReportFiles {
    /// Where `format` goes, if it was asked for.
    pub fn destination(&self, format: Format) -> Option<&Destination> {
        match format {
            Format::Json => self.json.as_ref(),
            Format::Junit => self.junit.as_ref(),
            Format::Markdown => self.markdown.as_ref(),
            Format::Html => self.html.as_ref(),
        }
    }

    /// Each flag with its destination, as [`crate::cli_values::one_on_stdout`] reads them.
    pub fn flags(&self) -> [(&'static str, Option<&Destination>); 4] {
        Format::ALL.map(|f| (f.flag(), self.destination(f)))
    }

    /// Whether one of them writes to stdout (in place of the console report).
    pub fn any_on_stdout(&self) -> bool {
        self.flags()
            .iter()
            .any(|(_, d)| d.is_some_and(Destination::is_stdout))
    }
}

#[derive(Parser, Debug)]
#[command(
    name = "mcpspec",
    version,
    about = "Conformance test harness and fuzzer for MCP servers"
)]
struct Cli {
    /// Colour: `auto` on a terminal unless NO_COLOR is set; `always` and `never` win over both.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: crate::output::ColorChoice,
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
}

/// `mcpspec`: parses the command line and runs the subcommand; what the binary's `main` calls.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    crate::output::set_color(cli.color);
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
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "mcpspec", &mut out);
            crate::output::out!("{}", String::from_utf8_lossy(&out));
            ExitCode::from(exit::OK)
        }
    }
}
