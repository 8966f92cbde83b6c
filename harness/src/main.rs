//! The `mcpspec` command line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use mcp_reference_server::faults::Fault;
use mcpspec::baseline::Baseline;
use mcpspec::check::CheckOptions;
use mcpspec::driver::Settings;
use mcpspec::{RunOptions, Target, checks};

/// Exit codes (README "Exit codes").
mod exit {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const TARGET: u8 = 3;
}

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
    Run(Box<RunArgs>),
    /// List the check catalogue: ids, levels, requirement ids.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Run only checks whose id starts with PREFIX (whole segments) or that cite this
    /// requirement id. Repeatable.
    #[arg(long, value_name = "PREFIX")]
    select: Vec<String>,
    /// Leave out checks matching PREFIX (as for --select). Repeatable.
    #[arg(long, value_name = "PREFIX")]
    skip: Vec<String>,
    /// Treat NonStrict outcomes as Fail.
    #[arg(long)]
    strict: bool,
    /// Seconds to wait for each expected message.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    timeout: f64,
    /// Seconds one scenario may take in all.
    #[arg(long, value_name = "SECS", default_value_t = 15.0)]
    scenario_timeout: f64,
    /// The largest message accepted from the server, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = mcpspec::transport::DEFAULT_MAX_MESSAGE)]
    max_message: usize,
    /// Checks run at the same time.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Write the report as JSON to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write each check's transcript as YAML into DIR.
    #[arg(long, value_name = "DIR")]
    transcripts: Option<PathBuf>,
    /// Known failures (YAML: entries of {check, reason}).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// A tool mcpspec may call (it calls no other). Repeatable.
    #[arg(long, value_name = "NAME")]
    allow_tool: Vec<String>,
    /// The server implements the mcpspec probe profile.
    #[arg(long)]
    probe_profile: bool,
    /// Embedded reference server only: switch on a fault. Repeatable.
    #[arg(long, value_name = "NAME")]
    fault: Vec<String>,
    /// The server command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::List { json } => {
            list(json);
            ExitCode::from(exit::OK)
        }
        Command::Run(args) => ExitCode::from(run(*args)),
    }
}

fn list(json: bool) {
    let catalogue = checks::catalogue();
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
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
        return;
    }
    let width = catalogue.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for c in &catalogue {
        println!(
            "{:<width$}  {:<6}  {}",
            c.id,
            c.level.to_string(),
            c.requirements.join(", ")
        );
    }
    println!("\n{} checks", catalogue.len());
}

fn usage_error(message: impl std::fmt::Display) -> u8 {
    eprintln!("mcpspec: {message}");
    exit::USAGE
}

fn run(args: RunArgs) -> u8 {
    let target = match target_of(&args) {
        Ok(t) => t,
        Err(message) => return usage_error(message),
    };
    let baseline = match &args.baseline {
        Some(path) => match Baseline::load(path) {
            Ok(b) => Some(b),
            Err(e) => return usage_error(e),
        },
        None => None,
    };
    if !(args.timeout > 0.0 && args.scenario_timeout > 0.0) {
        return usage_error("--timeout and --scenario-timeout must be positive");
    }
    let selected: Vec<_> = checks::catalogue()
        .into_iter()
        .filter(|c| args.select.is_empty() || args.select.iter().any(|p| c.matches(p)))
        .filter(|c| !args.skip.iter().any(|p| c.matches(p)))
        .collect();
    if selected.is_empty() {
        return usage_error("--select/--skip leave no check to run (see `mcpspec list`)");
    }
    let embedded = matches!(target, Target::Embedded(_));
    let options = RunOptions {
        settings: Settings {
            expect_timeout: Duration::from_secs_f64(args.timeout),
            scenario_timeout: Duration::from_secs_f64(args.scenario_timeout),
            max_message: args.max_message,
            ..Settings::default()
        },
        checks: CheckOptions {
            allowed_tools: args.allow_tool.clone(),
            probe_profile: args.probe_profile,
        },
        strict: args.strict,
        jobs: args.jobs.unwrap_or(if embedded { 8 } else { 4 }),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return usage_error(format!("cannot start the async runtime: {e}")),
    };
    let report = runtime.block_on(mcpspec::run(target, &selected, options));
    // Drop the runtime now: every spawned server has been dropped (and killed) by then.
    drop(runtime);
    let mut report = match report {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpspec: {e}");
            return exit::TARGET;
        }
    };
    if let Some(b) = &baseline {
        b.apply(&mut report);
    }
    if let Some(dir) = &args.transcripts {
        if let Err(e) = write_transcripts(dir, &mut report) {
            return usage_error(format!(
                "cannot write transcripts to {}: {e}",
                dir.display()
            ));
        }
    }
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let to_stdout_json = args.json.as_deref() == Some(std::path::Path::new("-"));
    if to_stdout_json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_console(color));
    }
    if let Some(path) = args.json.as_ref().filter(|_| !to_stdout_json) {
        if let Err(e) = std::fs::write(path, report.to_json()) {
            return usage_error(format!("cannot write {}: {e}", path.display()));
        }
    }
    if report.passed() {
        exit::OK
    } else {
        exit::FAILED
    }
}

fn target_of(args: &RunArgs) -> Result<Target, String> {
    if let Some((program, rest)) = args.command.split_first() {
        if !args.fault.is_empty() {
            return Err("--fault applies to the embedded reference server only".into());
        }
        return Ok(Target::command(program.clone()).args(rest.iter().cloned()));
    }
    let mut config = mcp_reference_server::Config::default();
    for name in &args.fault {
        let fault: Fault = name.parse().map_err(|e| format!("{e}"))?;
        config.faults = std::mem::take(&mut config.faults).with(fault);
    }
    Ok(Target::Embedded(config))
}

fn write_transcripts(
    dir: &std::path::Path,
    report: &mut mcpspec::RunReport,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for r in &mut report.results {
        let file = dir.join(format!("{}.yaml", r.id.replace('/', "__")));
        let yaml = serde_yaml::to_string(&r.transcript).map_err(std::io::Error::other)?;
        std::fs::write(&file, yaml)?;
        r.transcript_path = Some(file.display().to_string());
    }
    Ok(())
}
