//! The `mcpspec` command line: the clap tree, and which handler in `cli/` each subcommand goes
//! to.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use cli::exit;

mod cli;

#[derive(Parser, Debug)]
#[command(
    name = "mcpspec",
    version,
    about = "Conformance test harness and fuzzer for MCP servers"
)]
struct Cli {
    /// Colour: `auto` on a terminal unless NO_COLOR is set; `always` and `never` win over both.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: mcpspec::output::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the conformance checks against a server (default: the embedded reference server).
    Run(Box<cli::run::RunArgs>),
    /// Fuzz a server with generated JSON-RPC sequences; shrink and save what breaks it.
    Fuzz(Box<cli::fuzz::FuzzArgs>),
    /// The version-negotiation matrix: what the server answers, per revision, to modern and
    /// legacy clients.
    Negotiate(Box<cli::negotiate::NegotiateArgs>),
    /// Replay a reproducer written by `mcpspec fuzz`, or a check's transcript file (`run
    /// --transcripts DIR`): its earlier traffic first, then the check, on a fresh process.
    Replay(cli::fuzz::ReplayArgs),
    /// One check in full: what it sends and expects, its requirements with their sources, the
    /// policies it applies, and what a fix usually is.
    Explain {
        /// The check's id (see `mcpspec list`).
        #[arg(value_name = "CHECK-ID")]
        id: String,
    },
    /// Write a first baseline: one entry per Fail of a run (or of a JSON report, --from), each
    /// reason pre-filled with the verdict's message.
    Baseline(Box<cli::explain::BaselineArgs>),
    /// List the check catalogue: ids, levels, requirement ids.
    List(cli::listing::ListArgs),
    /// Requirement coverage: for each requirement id, the checks that cite it.
    Coverage(cli::listing::CoverageArgs),
    /// Print a shell completion script: `source <(mcpspec completions bash)`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Render a JSON report of `mcpspec run --json` again (`--html`, `--junit`, …), or merge
    /// the reports of a run's shards (`--merge`).
    Report(cli::report::ReportArgs),
    /// Protected servers: `mcpspec auth issuer` serves the built-in test issuer.
    Auth(cli::auth::AuthCommand),
    /// Test an MCP client: run it against scripted peers (`-- CLIENT…`), fuzz it, replay.
    Client(Box<cli::client::ClientArgs>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    mcpspec::output::set_color(cli.color);
    match cli.command {
        Command::List(args) => ExitCode::from(cli::listing::list(args)),
        Command::Run(args) => ExitCode::from(cli::run::run(*args)),
        Command::Negotiate(args) => ExitCode::from(cli::negotiate::run(*args)),
        Command::Fuzz(args) => ExitCode::from(cli::fuzz::fuzz_main(*args)),
        Command::Replay(args) if cli::replay::is_transcript(&args.file) => {
            ExitCode::from(cli::replay::run(&args))
        }
        Command::Replay(args) => ExitCode::from(cli::fuzz::replay_main(args)),
        Command::Explain { id } => ExitCode::from(cli::explain::explain(&id)),
        Command::Baseline(args) => ExitCode::from(cli::explain::baseline(*args)),
        Command::Report(args) => ExitCode::from(cli::report::run(args)),
        Command::Auth(args) => ExitCode::from(cli::auth::main(args)),
        Command::Coverage(args) => ExitCode::from(cli::listing::coverage(args)),
        Command::Client(args) => ExitCode::from(cli::client::run(*args)),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "mcpspec", &mut out);
            mcpspec::out!("{}", String::from_utf8_lossy(&out));
            ExitCode::from(exit::OK)
        }
    }
}
