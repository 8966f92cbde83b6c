//! `mcpspec client`: test an MCP client. `mcpspec client [OPTIONS] -- CLIENT…` runs the
//! scenarios against the client command and writes the report as `mcpspec run` does (the same
//! report flags, baselines and exit codes); `client peer` is the stdio peer a client starts;
//! `client list` lists the client checks and scenarios; `client fuzz` and `client replay`
//! fuzz a client with hostile peers and replay what they found.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use mcpspec_client::{self as client, ClientOptions, Transport};
use mcpspec_harness::baseline::Baseline;
use mcpspec_harness::cli_values::{self, parse_duration};
use mcpspec_harness::output::{errln, outln};

use super::run::{Outputs, Stop, write_outputs};
use super::shared::{exit, usage_error};

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ClientArgs {
    #[command(subcommand)]
    command: Option<ClientCommand>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum ClientCommand {
    /// The stdio peer a client under test starts (its last argument names this command):
    /// relays its stdin and stdout to the running `mcpspec client` at ADDR.
    Peer {
        /// The running mcpspec's loopback address.
        addr: std::net::SocketAddr,
        /// The scenario's token.
        token: String,
    },
    /// List the client checks (id, level, requirements, scenario) and the scenarios.
    List,
    /// Fuzz a client: a peer that answers with generated hostile messages; shrink and save
    /// what makes it crash or hang (CLI-10).
    Fuzz(Box<mcpspec_client::fuzz::FuzzArgs>),
    /// Replay a reproducer written by `mcpspec client fuzz`.
    Replay(mcpspec_client::fuzz::ReplayArgs),
}

#[derive(Args, Debug)]
struct RunArgs {
    /// How the client reaches the peer: `http` (the URL is its last argument) or `stdio` (its
    /// last argument is a command that starts the peer).
    #[arg(long, value_enum, value_name = "KIND", default_value = "http")]
    transport: Transport,
    /// Run only checks whose id starts with PREFIX (whole segments), that cite this
    /// requirement id, or that judge this scenario. Repeatable.
    #[arg(long, value_name = "PREFIX")]
    select: Vec<String>,
    /// Leave out checks matching PREFIX (as for --select). Repeatable.
    #[arg(long, value_name = "PREFIX")]
    skip: Vec<String>,
    /// Seconds one scenario's client may run before it is killed (and fails).
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_duration)]
    timeout: Duration,
    /// Scenarios (client processes) at a time (1 to 1024; default: the number of cores).
    #[arg(long, value_name = "N", value_parser = cli_values::jobs())]
    jobs: Option<usize>,
    /// Treat NonStrict outcomes as Fail.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    files: super::shared::ReportFiles,
    /// Write each check's transcript as YAML into DIR.
    #[arg(long, value_name = "DIR")]
    transcripts: Option<PathBuf>,
    /// Known failures (YAML: entries of {check, reason}).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// The largest message accepted from the client, in bytes.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = mcpspec_core::transport::DEFAULT_MAX_MESSAGE,
        value_parser = cli_values::max_message()
    )]
    max_message: usize,
    /// The client command and its arguments, after `--`; the URL (or the peer command) is
    /// appended as its last argument.
    #[arg(last = true, value_name = "CLIENT")]
    command: Vec<String>,
}

/// `mcpspec client …`: the exit code.
pub fn run(args: ClientArgs) -> u8 {
    match args.command {
        Some(ClientCommand::Peer { addr, token }) => peer(addr, &token),
        Some(ClientCommand::List) => list(),
        Some(ClientCommand::Fuzz(args)) => mcpspec_client::fuzz::fuzz_main(*args),
        Some(ClientCommand::Replay(args)) => mcpspec_client::fuzz::replay_main(args),
        None => conformance(args.run).unwrap_or_else(Stop::exit_code),
    }
}

fn conformance(args: RunArgs) -> Result<u8, Stop> {
    if args.command.is_empty() {
        return Err(Stop::Usage(
            "give the client command after `--` (mcpspec client -- ./my-client)".into(),
        ));
    }
    cli_values::one_on_stdout(&args.files.flags()).map_err(Stop::Usage)?;
    let checks = client::checks::selected(&args.select, &args.skip);
    if checks.is_empty() {
        return Err(Stop::Usage(
            "--select/--skip leave no client check to run (see `mcpspec client list`)".into(),
        ));
    }
    let baseline = match &args.baseline {
        Some(path) => {
            let known: Vec<&str> = client::checks::all().iter().map(|c| c.id).collect();
            Some(Baseline::load_for(path, &known).map_err(|e| Stop::Usage(e.to_string()))?)
        }
        None => None,
    };
    let mut options = ClientOptions::new(args.command, args.transport);
    options.timeout = args.timeout;
    options.strict = args.strict;
    options.max_message = args.max_message;
    if let Some(jobs) = args.jobs {
        options.jobs = jobs;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Stop::Usage(format!("cannot start the async runtime: {e}")))?;
    let progress = mcpspec_harness::report::Progress::new(
        "mcpspec client",
        checks.len() as u64,
        mcpspec_harness::report::progress_mode(),
    );
    let observe = |r: &mcpspec_harness::report::CheckResult| {
        progress.check_done(checks.len(), &r.id, r.outcome.kind)
    };
    // Ctrl-C ends the run: dropping it (and the runtime) drops every client process, whose
    // process group is killed then.
    let report = runtime.block_on(async {
        tokio::select! {
            report = client::run(&checks, &options, &observe) => Some(report),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    progress.finish();
    drop(runtime);
    let Some(report) = report else {
        errln!("mcpspec: interrupted; every client process it started was ended");
        return Ok(exit::INTERRUPTED);
    };
    let outputs = Outputs {
        baseline,
        files: args.files,
        transcripts: args.transcripts,
        // A client check's transcript is not replayed with `mcpspec replay` (that is
        // `mcpspec client replay`, for fuzz findings).
        replay: Default::default(),
    };
    write_outputs(report, &outputs)
}

/// `mcpspec client peer ADDR TOKEN`.
fn peer(addr: std::net::SocketAddr, token: &str) -> u8 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return usage_error(format!("cannot start the async runtime: {e}")),
    };
    match runtime.block_on(client::relay::relay(addr, token)) {
        Ok(()) => exit::OK,
        Err(e) => {
            errln!("mcpspec client peer: {e}");
            exit::TARGET
        }
    }
}

/// `mcpspec client list`.
fn list() -> u8 {
    for c in client::checks::all() {
        let only = c
            .only
            .map_or(String::new(), |t| format!(" ({} only)", t.name()));
        outln!(
            "{:<56} {:<6} {:<6} {}{only}",
            c.id,
            c.level.to_string(),
            c.requirements.join(","),
            c.scenario
        );
    }
    outln!("\nscenarios:");
    for s in client::scenario::all() {
        let transports: Vec<&str> = s.transports.iter().map(|t| t.name()).collect();
        outln!(
            "{:<32} {:<11} {}",
            s.name,
            transports.join(","),
            s.description
        );
    }
    exit::OK
}
