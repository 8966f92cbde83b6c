//! The `fuzz` and `replay` subcommands: arguments, progress, summaries, exit codes.
//!
//! Exit codes: 0 nothing found; 1 a finding (fuzz) or the reproducer still trips an oracle
//! (replay); 2 usage; 3 the target could not be started.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use tokio::time::Instant;

use super::{ExecOptions, FuzzOptions, Stats};
use crate::cli_values::{at_least_one, parse_duration};
use crate::target::Target;
use crate::{err, errln, outln};

const OK: u8 = 0;
const FOUND: u8 = 1;
const USAGE: u8 = 2;
const TARGET: u8 = 3;

/// Seed directories used when `--seeds` is not given (skipped when absent).
const DEFAULT_SEEDS: &[&str] = &[
    "fixtures/fuzz/seeds",
    "../shared/mcp-spec/schema/2026-07-28/examples",
];

/// `mcpspec fuzz`.
#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// The generator seed (the same seed generates the same cases). Default: from the clock,
    /// printed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Stop after N generated cases.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..),
        allow_negative_numbers = true
    )]
    pub cases: Option<u64>,
    /// Stop generating after SECS seconds.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "60",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    pub time: Duration,
    /// Where reproducers are written.
    #[arg(long, value_name = "DIR", default_value = "mcpspec-out/fuzz")]
    pub out: PathBuf,
    /// How long a reply may take, in seconds (the bounded-reply-time oracle).
    #[arg(
        long,
        value_name = "SECS",
        default_value = "1",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    pub timeout: Duration,
    /// The bound on shrinking one finding, in seconds.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "30",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    pub shrink_time: Duration,
    /// Stop after N distinct findings (one per oracle).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 3,
        value_parser = at_least_one(),
        allow_negative_numbers = true
    )]
    pub max_findings: usize,
    /// Seed messages: `*.json` / `*.jsonl` files or directories of them. Repeatable. Default:
    /// fixtures/fuzz/seeds and ../shared/mcp-spec/schema/2026-07-28/examples, when present.
    #[arg(long, value_name = "PATH")]
    pub seeds: Vec<PathBuf>,
    /// The largest line accepted from the server, in bytes.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = 4 * 1024 * 1024,
        value_parser = at_least_one(),
        allow_negative_numbers = true
    )]
    pub max_message: usize,
    #[command(flatten)]
    pub target: crate::target::TargetArgs,
}

/// `mcpspec replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A reproducer written by `mcpspec fuzz` (one line per message sent).
    pub file: PathBuf,
    /// How long a reply may take, in seconds.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "1",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    pub timeout: Duration,
    #[command(flatten)]
    pub target: crate::target::TargetArgs,
}

fn usage(message: impl std::fmt::Display) -> u8 {
    errln!("mcpspec: {message}");
    USAGE
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(super::WORKER_THREAD)
        .enable_all()
        .build()
}

/// Runs `mcpspec fuzz`; returns the exit code.
pub fn fuzz_main(args: FuzzArgs) -> u8 {
    let target = match args.target.target(false) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let seed = args.seed.unwrap_or_else(clock_seed);
    let seed_paths: Vec<PathBuf> = if args.seeds.is_empty() {
        DEFAULT_SEEDS
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.exists())
            .collect()
    } else {
        args.seeds.clone()
    };
    let seeds = super::load_seeds(&seed_paths);
    let mut options = FuzzOptions {
        seed,
        cases: args.cases.unwrap_or(u64::MAX),
        time: args.time,
        shrink_time: args.shrink_time,
        max_findings: args.max_findings,
        exec: ExecOptions {
            reply_timeout: args.timeout,
            max_message: args.max_message,
            ..ExecOptions::default()
        },
        seeds,
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return usage(format!("cannot start the async runtime: {e}")),
    };
    super::quiet_panics();
    errln!(
        "mcpspec fuzz: {} — seed {seed}, {} seed message(s), up to {:.0} s",
        target.describe(),
        options.seeds.len(),
        args.time.as_secs_f64()
    );
    let tty = std::io::stderr().is_terminal();
    let result = runtime.block_on(async {
        options.exec.startup_allowance = calibrate(&target, args.max_message).await?;
        super::fuzz(&target, &options, Some(&args.out), |stats, found| {
            if tty {
                err!("\r{}", progress_line(stats, found));
            }
        })
        .await
    });
    drop(runtime);
    if tty {
        errln!();
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            errln!("mcpspec: {e}");
            return TARGET;
        }
    };
    for finding in &report.findings {
        outln!("{}\n", finding.summary());
    }
    outln!(
        "{} finding(s); {}",
        report.findings.len(),
        progress_line(&report.stats, report.findings.len())
    );
    if report.findings.iter().any(|f| f.confirmed) {
        FOUND
    } else {
        OK
    }
}

/// Runs `mcpspec replay`; returns the exit code.
pub fn replay_main(args: ReplayArgs) -> u8 {
    let target = match args.target.target(false) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let case = match super::reproducer::read(&args.file) {
        Ok(c) => c,
        Err(e) => return usage(format!("cannot read {}: {e}", args.file.display())),
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return usage(format!("cannot start the async runtime: {e}")),
    };
    super::quiet_panics();
    let mut exec = ExecOptions {
        reply_timeout: args.timeout,
        ..ExecOptions::default()
    };
    let outcome = runtime.block_on(async {
        exec.startup_allowance = calibrate(&target, exec.max_message).await?;
        super::replay(&target, &case, &exec).await
    });
    drop(runtime);
    match outcome {
        Err(e) => {
            errln!("mcpspec: {e}");
            TARGET
        }
        Ok(outcome) => match outcome.violation {
            Some(v) => {
                outln!(
                    "reproduced [{}] {}. Rule: {}. ({} message(s) from {})",
                    v.oracle.id(),
                    v.detail,
                    v.oracle.rule(),
                    case.len(),
                    args.file.display()
                );
                if let Some(last) = outcome.stderr_tail.last() {
                    outln!("last stderr line: {last}");
                }
                FOUND
            }
            None => {
                outln!(
                    "not reproduced: {} message(s) from {} tripped no oracle",
                    case.len(),
                    args.file.display()
                );
                OK
            }
        },
    }
}

/// How long a fresh server takes to answer its first `ping`, doubled (zero in memory). This is
/// the start-up allowance every case gets; a target that cannot be spawned is an error.
async fn calibrate(
    target: &Target,
    max_message: usize,
) -> Result<Duration, crate::target::StartError> {
    let mut transport = target.connect(max_message)?;
    if matches!(target, Target::Embedded(_)) {
        return Ok(Duration::ZERO);
    }
    let started = Instant::now();
    let limit = started + Duration::from_secs(10);
    let ping = br#"{"jsonrpc":"2.0","id":"mcpspec-fuzz-calibrate","method":"ping"}"#;
    let mut line = ping.to_vec();
    line.push(b'\n');
    if transport.send(&line, limit).await.is_ok() {
        if let crate::transport::Recv::Line(_) = transport.recv(limit).await {
            return Ok(started.elapsed() * 2);
        }
    }
    errln!("mcpspec fuzz: the server did not answer a first `ping` within 10 s");
    Ok(Duration::from_secs(10))
}

fn progress_line(stats: &Stats, found: usize) -> String {
    let secs = stats.elapsed.as_secs_f64().max(1e-3);
    format!(
        "{} cases, {} messages in {:.1} s ({:.0} msg/s), {found} finding(s)",
        stats.cases,
        stats.messages,
        secs,
        stats.messages as f64 / secs
    )
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The reproducer path a summary names, for tests and scripts.
pub fn reproducer_in(summary: &str) -> Option<&Path> {
    let start = summary.find("Reproducer: ")? + "Reproducer: ".len();
    let rest = &summary[start..];
    let end = rest.find(" (`mcpspec replay")?;
    Some(Path::new(&rest[..end]))
}
