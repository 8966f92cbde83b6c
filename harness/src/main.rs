//! The `mcpspec` command line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use mcpspec::baseline::Baseline;
use mcpspec::check::CheckOptions;
use mcpspec::cli_values::{self, parse_duration};
use mcpspec::driver::Settings;
use mcpspec::target::TargetArgs;
use mcpspec::{RunOptions, Target, checks, errln, out, outln};

#[derive(Clone, Copy)]
enum TargetKind {
    Command,
    Other,
}

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

#[derive(Args, Debug)]
struct RunArgs {
    /// Run only checks whose id starts with PREFIX (whole segments) or that cite this
    /// requirement id. Repeatable.
    #[arg(long, value_name = "PREFIX")]
    select: Vec<String>,
    /// Leave out checks matching PREFIX (as for --select). Repeatable.
    #[arg(long, value_name = "PREFIX")]
    skip: Vec<String>,
    /// Run only shard I of N (1-based) of the selected checks; N jobs with the same selection
    /// together run every check exactly once.
    #[arg(long, value_name = "I/N")]
    shard: Option<mcpspec::select::Shard>,
    /// Treat NonStrict outcomes as Fail.
    #[arg(long)]
    strict: bool,
    /// Seconds to wait for each expected message.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "2",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    timeout: Duration,
    /// Seconds a fresh server may at least take to answer its first ping where readiness is
    /// judged (deadlock detection's "not ready" verdict); the window is the larger of this and
    /// 3 × the start-up time the run's probe measured (POL-24).
    #[arg(
        long,
        value_name = "SECS",
        default_value = "3",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    ready_timeout: Duration,
    /// Seconds one scenario may take in all.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "15",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    scenario_timeout: Duration,
    /// The largest message accepted from the server, in bytes.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = mcpspec::transport::DEFAULT_MAX_MESSAGE,
        value_parser = cli_values::max_message(),
        allow_negative_numbers = true
    )]
    max_message: usize,
    /// Checks run at the same time (1 to 1024). Against a command this bounds the server
    /// processes alive at once: the default is the number of cores, so mcpspec's own load does
    /// not make the server late (POL-24). Against a URL or the embedded server the default is 8.
    #[arg(long, value_name = "N", value_parser = cli_values::jobs(), allow_negative_numbers = true)]
    jobs: Option<usize>,
    /// Write the report as JSON to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the report as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a Markdown summary (for a CI step summary) to FILE.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
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
        Command::Run(args) => ExitCode::from(run(*args)),
        Command::Negotiate(args) => ExitCode::from(negotiate(*args)),
        Command::Fuzz(args) => ExitCode::from(mcpspec::fuzz::cli::fuzz_main(*args)),
        Command::Replay(args) => ExitCode::from(mcpspec::fuzz::cli::replay_main(args)),
        Command::Coverage { json, markdown } => {
            let coverage = mcpspec::coverage::Coverage::of(&checks::catalogue());
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

fn usage_error(message: impl std::fmt::Display) -> u8 {
    errln!("mcpspec: {message}");
    exit::USAGE
}

fn run(args: RunArgs) -> u8 {
    let target = match args.target.target(args.probe_profile) {
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
    let selected = mcpspec::select::Selection {
        select: args.select.clone(),
        skip: args.skip.clone(),
        shard: args.shard,
    }
    .apply(&checks::catalogue());
    if selected.is_empty() && args.shard.is_none() {
        return usage_error("--select/--skip leave no check to run (see `mcpspec list`)");
    }
    let target_kind = if matches!(target, Target::Command { .. }) {
        TargetKind::Command
    } else {
        TargetKind::Other
    };
    let options = RunOptions {
        settings: Settings {
            expect_timeout: args.timeout,
            scenario_timeout: args.scenario_timeout,
            ready_timeout: args.ready_timeout,
            max_message: args.max_message,
            ..Settings::default()
        },
        checks: CheckOptions {
            allowed_tools: args.allow_tool.clone(),
            probe_profile: args.probe_profile,
        },
        strict: args.strict,
        // Processes compete with mcpspec for the cores: no more of them than cores (POL-24).
        // In-memory and HTTP checks cost the target no process each, so more run at a time.
        jobs: args
            .jobs
            .unwrap_or(if matches!(target_kind, TargetKind::Command) {
                mcpspec::runner::default_jobs()
            } else {
                8
            }),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return usage_error(format!("cannot start the async runtime: {e}")),
    };
    // The status line: stderr on a terminal only (it appears once a run takes over 1 s).
    let progress = std::io::stderr()
        .is_terminal()
        .then(|| mcpspec::report::StatusLine::new(selected.len()));
    let report = runtime.block_on(mcpspec::runner::run_observed(
        target,
        &selected,
        options,
        &|r| {
            if let Some(p) = &progress {
                p.draw(r);
            }
        },
    ));
    if let Some(p) = &progress {
        p.finish();
    }
    // Drop the runtime now: every spawned server has been dropped (and killed) by then.
    drop(runtime);
    let mut report = match report {
        Ok(r) => r,
        Err(e) => {
            errln!("mcpspec: {e}");
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
        outln!("{}", report.to_json());
    } else {
        out!("{}", report.to_console(color));
    }
    if let Some(path) = args.json.as_ref().filter(|_| !to_stdout_json) {
        if let Err(e) = std::fs::write(path, report.to_json()) {
            return usage_error(format!("cannot write {}: {e}", path.display()));
        }
    }
    let files = [
        (args.junit.as_ref(), report.to_junit()),
        (args.markdown.as_ref(), report.to_markdown()),
    ];
    for (path, text) in files.iter().filter_map(|(p, t)| Some((p.as_ref()?, t))) {
        if let Err(e) = std::fs::write(path, text) {
            return usage_error(format!("cannot write {}: {e}", path.display()));
        }
    }
    if let Some(reason) = &report.target_failure {
        errln!("mcpspec: {reason}");
        return exit::TARGET;
    }
    if report.passed() {
        exit::OK
    } else {
        exit::FAILED
    }
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
