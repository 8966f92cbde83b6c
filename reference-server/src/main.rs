//! `mcp-reference-server [--fault NAME]... [--eras modern|legacy|both] [--probe-profile]
//! [--list-faults]`: serves MCP over stdio. Nothing but MCP messages on stdout; logs on stderr
//! (`RUST_LOG`, default `warn`). Bad arguments: one line on stderr, exit 2. A crash fault:
//! exit 1.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use mcp_reference_server::{Config, Eras, Fault, Faults, serve_stream};

/// A dual-era MCP reference server with fault switches (stdio).
#[derive(Debug, Parser)]
#[command(name = "mcp-reference-server", version)]
struct Cli {
    /// Turn on a fault (repeatable); see --list-faults.
    #[arg(long = "fault", value_name = "NAME")]
    faults: Vec<Fault>,
    /// The protocol eras served.
    #[arg(long, value_name = "modern|legacy|both", default_value = "both")]
    eras: Eras,
    /// Install the mcpspec probe-profile middleware and its `mcpspec_probe_log` tool.
    #[arg(long)]
    probe_profile: bool,
    /// Print `name<TAB>description` for every fault and exit.
    #[arg(long)]
    list_faults: bool,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            eprintln!(
                "mcp-reference-server: {}",
                first.strip_prefix("error: ").unwrap_or(first)
            );
            return ExitCode::from(2);
        }
    };
    if cli.list_faults {
        for fault in Fault::ALL {
            println!("{}\t{}", fault.name(), fault.description());
        }
        return ExitCode::SUCCESS;
    }

    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();

    let config = Config {
        faults: cli.faults.into_iter().collect::<Faults>(),
        eras: cli.eras,
        probe_profile: cli.probe_profile,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-reference-server: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(serve_stream(
        config,
        tokio::io::stdin(),
        tokio::io::stdout(),
    ));
    // Exit without waiting for the blocking stdin reader thread (STDIO-6: exit promptly).
    let code = match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("mcp-reference-server: {e}");
            1
        }
    };
    std::process::exit(code);
}
