//! The `mcpspec` command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use mcpspec::cli_values::parse_duration;
use mcpspec::driver::Settings;
use mcpspec::target::TargetArgs;
use mcpspec::{catalogue, errln, out, outln};

use cli::{exit, usage_error};

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
    Negotiate(Box<NegotiateArgs>),
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
}

#[derive(Args, Debug)]
struct NegotiateArgs {
    /// Print the matrix as JSON (the format `--expect` reads).
    #[arg(long)]
    json: bool,
    /// Compare with a committed matrix (JSON); exit 1 and print the differences if it differs.
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
    /// Seconds to wait for each reply.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "2",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    timeout: Duration,
    #[command(flatten)]
    target: TargetArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::List { json } => {
            list(json);
            ExitCode::from(exit::OK)
        }
        Command::Run(args) => ExitCode::from(cli::run::run(*args)),
        Command::Negotiate(args) => ExitCode::from(negotiate(*args)),
        Command::Fuzz(args) => ExitCode::from(mcpspec::fuzz::cli::fuzz_main(*args)),
        Command::Replay(args) => ExitCode::from(mcpspec::fuzz::cli::replay_main(args)),
        Command::Coverage { json, markdown } => {
            let coverage = mcpspec::coverage::Coverage::of(&catalogue::all());
            if json {
                outln!("{}", coverage.to_json());
            } else if markdown {
                out!("{}", coverage.to_markdown());
            } else {
                out!("{}", coverage.to_text());
            }
            ExitCode::from(exit::OK)
        }
    }
}

fn list(json: bool) {
    let catalogue = catalogue::all();
    if json {
        let rows: Vec<_> = catalogue
            .iter()
            .map(|c| {
                serde_json::json!({
                    "id": c.id, "level": c.level, "era": c.era, "requirements": c.requirements,
                    "description": c.description, "expectation": c.expectation,
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
        return;
    }
    let width = catalogue.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for c in &catalogue {
        outln!(
            "{:<width$}  {:<6}  {}",
            c.id,
            c.level.to_string(),
            c.requirements.join(", ")
        );
    }
    outln!("\n{} checks", catalogue.len());
}

fn negotiate(args: NegotiateArgs) -> u8 {
    let target = match args.target.target(false) {
        Ok(t) => t,
        Err(message) => return usage_error(message),
    };
    let expected = match &args.expect {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| {
                serde_json::from_str::<mcpspec::negotiation::Matrix>(&t).map_err(|e| e.to_string())
            }) {
            Ok(m) => Some(m),
            Err(e) => {
                return usage_error(format!(
                    "cannot read the expectation {}: {e}",
                    path.display()
                ));
            }
        },
    };
    let settings = std::sync::Arc::new(Settings {
        expect_timeout: args.timeout,
        ..Settings::default()
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return usage_error(format!("cannot start the async runtime: {e}")),
    };
    let outcome = runtime.block_on(async {
        let matrix = mcpspec::negotiation::matrix(&target, &settings).await?;
        if matrix.answered_nothing() {
            return Err(mcpspec::target::StartError::new(
                "the target never produced a JSON-RPC message: no cell of the matrix got a reply",
            ));
        }
        let rec = mcpspec::transcript::Recorder::default();
        let client = mcpspec::negotiation::Client::default();
        let path = mcpspec::negotiation::negotiate(&target, &settings, &client, &rec).await?;
        Ok::<_, mcpspec::target::StartError>((matrix, path))
    });
    drop(runtime);
    let (matrix, path) = match outcome {
        Ok(m) => m,
        Err(e) => {
            errln!("mcpspec: {e}");
            return exit::TARGET;
        }
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&matrix).unwrap_or_default()
        );
    } else {
        outln!("mcpspec negotiate — {}", target.describe());
        out!("{}", matrix.to_table());
        outln!(
            "a dual-era client ends {} {}: {}",
            path.era,
            path.version.as_deref().unwrap_or("-"),
            path.path
        );
    }
    match expected {
        Some(want) => {
            let diff = matrix.diff(&want);
            if diff.is_empty() {
                errln!("the matrix matches the expectation");
                exit::OK
            } else {
                errln!("the matrix differs from the expectation:");
                for line in diff {
                    errln!("  {line}");
                }
                exit::FAILED
            }
        }
        None => exit::OK,
    }
}
