//! The `fuzz` subcommand and `replay` of a fuzz reproducer: arguments, progress, summaries; the
//! exit codes are the binary's (`cli::shared::exit`).
//!
//! Exit codes: 0 nothing found; 1 a finding (fuzz) or the reproducer still trips an oracle
//! (replay); 2 usage; 3 the target could not be started.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use tokio::time::Instant;

use mcpspec_harness::cli_values::{Destination, at_least_one, parse_duration};
use mcpspec_harness::fuzz::reproducer::{Record, RecordedTarget, record_path};
use mcpspec_harness::fuzz::{ExecOptions, FuzzOptions, Stats};
use mcpspec_harness::output::{errln, outln};
use mcpspec_harness::target::{Target, TransportKind};

use super::shared::exit::{FAILED as FOUND, INTERRUPTED, OK, TARGET, USAGE};

/// `mcpspec fuzz`.
#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// The generator seed (the same seed generates the same cases). Default: from the clock,
    /// printed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Stop after N generated cases (shrinking and confirming a finding not counted). With
    /// --cases and no --time only the count bounds the run, so the same seed does the same work
    /// on a fast machine and a slow one.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..),
        allow_negative_numbers = true
    )]
    pub cases: Option<u64>,
    /// Stop generating after SECS seconds (shrinking and confirming not counted). Default: 60,
    /// or no time bound when --cases is given.
    #[arg(
        long,
        value_name = "SECS",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    pub time: Option<Duration>,
    /// Where reproducers are written.
    #[arg(long, value_name = "DIR", default_value = "mcpspec-out/fuzz")]
    pub out: PathBuf,
    /// How long a reply may take, in seconds (the bounded-reply-time oracle).
    #[arg(
        long,
        value_name = "SECS",
        default_value = mcpspec_harness::cli_values::DEFAULT_TIMEOUT,
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
    /// More seed messages, beside the corpus built into mcpspec: `*.json` / `*.jsonl` files or
    /// directories of them. Repeatable.
    #[arg(long, value_name = "PATH")]
    pub seeds: Vec<PathBuf>,
    /// Write the findings and counters as JSON to FILE (`-` for stdout, in place of the
    /// summary).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    pub json: Option<Destination>,
    /// A tool the fuzzer may call by name (POL-12: no other tool the server lists is called;
    /// calls go to a name no server has instead). Repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_tool: Vec<String>,
    /// The largest line accepted from the server, in bytes.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = mcpspec_core::transport::DEFAULT_MAX_MESSAGE,
        value_parser = mcpspec_harness::cli_values::max_message(),
        allow_negative_numbers = true
    )]
    pub max_message: usize,
    #[command(flatten)]
    pub target: mcpspec_harness::target::TargetArgs,
}

/// `mcpspec replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A reproducer written by `mcpspec fuzz` (one line per message sent). It replays on the
    /// target recorded next to it (`.target.json`) unless a target is given here.
    pub file: PathBuf,
    /// How long a reply may take, in seconds (default: the timeout the finding was made with,
    /// else 2).
    #[arg(
        long,
        value_name = "SECS",
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    pub timeout: Option<Duration>,
    /// Replay on the target given here even though the finding was made on another.
    #[arg(long)]
    pub target_mismatch_ok: bool,
    #[command(flatten)]
    pub target: mcpspec_harness::target::TargetArgs,
}

fn usage(message: impl std::fmt::Display) -> u8 {
    errln!("mcpspec: {message}");
    USAGE
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(mcpspec_harness::fuzz::WORKER_THREAD)
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
    let built_in = mcpspec_harness::fuzz::corpus::lines();
    let given = mcpspec_harness::fuzz::load_seeds(&args.seeds);
    let seed_counts = (built_in.len(), given.len());
    let seeds: Vec<Vec<u8>> = built_in.into_iter().chain(given).collect();
    let time = match (args.time, args.cases) {
        (Some(t), _) => Some(t),
        (None, Some(_)) => None,
        (None, None) => Some(mcpspec_harness::fuzz::DEFAULT_TIME),
    };
    let mut options = FuzzOptions {
        seed,
        cases: args.cases.unwrap_or(u64::MAX),
        time,
        shrink_time: args.shrink_time,
        max_findings: args.max_findings,
        exec: ExecOptions {
            reply_timeout: args.timeout,
            max_message: args.max_message,
            ..ExecOptions::default()
        },
        material: mcpspec_harness::fuzz::strategy::Material {
            seeds,
            http: match target.kind() {
                TransportKind::Http => true,
                TransportKind::Stdio => false,
            },
            ..Default::default()
        },
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return usage(format!("cannot start the async runtime: {e}")),
    };
    mcpspec_harness::fuzz::quiet_panics();
    let bound = match (time, args.cases) {
        (Some(t), Some(n)) => format!("up to {:.0} s or {n} cases", t.as_secs_f64()),
        (Some(t), None) => format!("up to {:.0} s", t.as_secs_f64()),
        (None, Some(n)) => format!("{n} cases"),
        (None, None) => String::new(),
    };
    errln!(
        "mcpspec fuzz: {} — seed {seed}, {} seed message(s) ({} built in, {} from --seeds), \
         {bound}",
        target.describe(),
        seed_counts.0 + seed_counts.1,
        seed_counts.0,
        seed_counts.1,
    );
    // The bar shows time when time bounds the run, else cases.
    let (length, budget) = match time {
        Some(t) => (t.as_millis() as u64, Budget::Time(t)),
        None => (options.cases, Budget::Cases(options.cases)),
    };
    let progress = mcpspec_harness::report::Progress::new(
        "mcpspec fuzz",
        length,
        mcpspec_harness::report::progress_mode(),
    );
    let work = async {
        options.exec.startup_allowance = calibrate(&target, args.max_message).await?;
        let how = mcpspec_harness::fuzz::material::gather(
            &target,
            &mut options.material,
            &args.allow_tool,
            args.timeout + options.exec.startup_allowance,
            args.max_message,
        )
        .await?;
        let m = &options.material;
        errln!(
            "mcpspec fuzz: material ({how}): {} tool(s) callable{}, {} listed tool(s) never \
             called, {} resource URI(s), {} prompt(s)",
            m.tools.len(),
            if m.tools.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    m.tools
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            m.forbidden_tools.len(),
            m.resource_uris.len(),
            m.prompt_names.len()
        );
        let valid_calls = m.seeds.len().saturating_sub(seed_counts.0 + seed_counts.1);
        if valid_calls > 0 {
            errln!(
                "mcpspec fuzz: {valid_calls} valid call(s) of the callable tools among the seeds \
                 (arguments built from each tool's inputSchema)"
            );
        }
        mcpspec_harness::fuzz::fuzz(
            &target,
            &options,
            Some(&args.out),
            |stats, found| match budget {
                Budget::Time(t) => {
                    progress.fuzzed(stats.elapsed, t, stats.cases, stats.messages, found);
                }
                Budget::Cases(n) => {
                    progress.fuzzed_cases(stats.elapsed, stats.cases, n, stats.messages, found);
                }
            },
        )
        .await
    };
    // Ctrl-C ends the run; dropping the unfinished work kills every server process it
    // started (each connection's process group).
    let result = runtime.block_on(async {
        tokio::select! {
            r = work => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    drop(runtime);
    progress.finish();
    let report = match result {
        None => {
            errln!("mcpspec fuzz: interrupted; every server process it started is stopped");
            return INTERRUPTED;
        }
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            errln!("mcpspec: {e}");
            return TARGET;
        }
    };
    if let Some(json) = &args.json {
        let text = report_json(&report, &target, seed) + "\n";
        if let Err(e) = json.write(&text) {
            return usage(e);
        }
    }
    if !args.json.as_ref().is_some_and(Destination::is_stdout) {
        for finding in &report.findings {
            outln!("{}\n", finding.summary());
        }
        outln!(
            "{} finding(s); {}",
            report.findings.len(),
            progress_line(&report.stats, report.findings.len())
        );
        if let Some(first) = &report.stats.first_unreproduced {
            outln!(
                "{} violation(s) did not recur on a fresh connection (not findings); the first: \
                 {first}",
                report.stats.unreproduced
            );
        }
    }
    if report.findings.is_empty() {
        OK
    } else {
        FOUND
    }
}

/// What bounds a run's progress bar.
#[derive(Debug, Clone, Copy)]
enum Budget {
    Time(Duration),
    Cases(u64),
}

/// `fuzz --json`: each finding (oracle, rule, what was seen, the shrunk case, the reproducer
/// and its replay command) and the run's counters.
fn report_json(report: &mcpspec_harness::fuzz::FuzzReport, target: &Target, seed: u64) -> String {
    let findings: Vec<serde_json::Value> = report
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "oracle": f.violation.oracle.id(),
                "rule": f.violation.oracle.rule(f.transport),
                "detail": f.violation.detail,
                "case": f.case.iter().map(|l| String::from_utf8_lossy(l)).collect::<Vec<_>>(),
                "original_messages": f.original_len,
                "shrink_steps": f.shrink_steps,
                "time_to_find_ms": f.time_to_find.as_millis() as u64,
                "stderr_tail": f.stderr_tail,
                "reproducer": f.reproducer.as_ref().map(|p| p.display().to_string()),
                "replay": f.replay,
            })
        })
        .collect();
    let s = &report.stats;
    serde_json::to_string_pretty(&serde_json::json!({
        "target": target.describe(),
        "seed": seed,
        "findings": findings,
        "stats": {
            "cases": s.cases,
            "messages": s.messages,
            "elapsed_ms": s.elapsed.as_millis() as u64,
            "shrinking_ms": s.shrinking.as_millis() as u64,
            "connections": s.connections,
            "confirming": s.confirming,
            "unreproduced": s.unreproduced,
            "first_unreproduced": s.first_unreproduced,
        },
    }))
    .unwrap_or_default()
}

/// Runs `mcpspec replay`; returns the exit code.
pub fn replay_main(args: ReplayArgs) -> u8 {
    let case = match mcpspec_harness::fuzz::reproducer::read(&args.file) {
        Ok(c) => c,
        Err(e) => return usage(format!("cannot read {}: {e}", args.file.display())),
    };
    let record = match mcpspec_harness::fuzz::reproducer::read_record(&args.file) {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    let target = match replay_target(&args, record.as_ref()) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let timeout = match (args.timeout, &record) {
        (Some(t), _) => t,
        (None, Some(r)) => match r.timeout() {
            Ok(t) => t,
            Err(e) => return usage(format!("{}: {e}", record_path(&args.file).display())),
        },
        (None, None) => mcpspec_harness::fuzz::reproducer::DEFAULT_REPLAY_TIMEOUT,
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return usage(format!("cannot start the async runtime: {e}")),
    };
    mcpspec_harness::fuzz::quiet_panics();
    let defaults = ExecOptions::default();
    let mut exec = ExecOptions {
        reply_timeout: timeout,
        max_message: record
            .as_ref()
            .map_or(defaults.max_message, |r| r.max_message.max(1)),
        ..defaults
    };
    let outcome = runtime.block_on(async {
        exec.startup_allowance = calibrate(&target, exec.max_message).await?;
        mcpspec_harness::fuzz::replay(&target, &case, &exec).await
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
                    "reproduced [{}] {}. Rule: {}. ({} message(s) from {} on {})",
                    v.oracle.id(),
                    v.detail,
                    v.oracle.rule(target.kind()),
                    case.len(),
                    args.file.display(),
                    target.describe()
                );
                if let Some(last) = outcome.stderr_tail.last() {
                    outln!("last stderr line: {last}");
                }
                FOUND
            }
            None => {
                outln!(
                    "not reproduced: {} message(s) from {} tripped no oracle on {}",
                    case.len(),
                    args.file.display(),
                    target.describe()
                );
                OK
            }
        },
    }
}

/// The target a replay runs on: the recorded one unless the command line names one, which
/// must then be the same server unless `--target-mismatch-ok` is given. A reproducer without a
/// record (an older mcpspec's) runs on the target given, or the embedded default, with a note.
fn replay_target(args: &ReplayArgs, record: Option<&Record>) -> Result<Target, String> {
    let file = args.file.display();
    let given = &args.target;
    let names_a_target = !given.url.is_empty()
        || !given.command.is_empty()
        || !given.fault.is_empty()
        || given.eras.is_some();
    let Some(record) = record else {
        let target = given.target(false)?;
        errln!(
            "mcpspec replay: no target was recorded for {file} ({} is missing); replaying on {}",
            record_path(&args.file).display(),
            target.describe()
        );
        return Ok(target);
    };
    let version = env!("CARGO_PKG_VERSION");
    if record.mcpspec_version != version {
        errln!(
            "mcpspec replay: {file} was written by mcpspec {}; this is mcpspec {version}",
            record.mcpspec_version
        );
    }
    let recorded = record
        .target
        .target()
        .and_then(|t| given.authorize(t))
        .map_err(|e| {
            format!(
                "the target recorded in {} cannot be used: {e}",
                record_path(&args.file).display()
            )
        })?;
    if !names_a_target {
        errln!(
            "mcpspec replay: replaying on the recorded target: {}",
            recorded.describe()
        );
        return Ok(recorded);
    }
    let target = given.target(false)?;
    if RecordedTarget::of(&target).same_server(&record.target) {
        return Ok(target);
    }
    if args.target_mismatch_ok {
        errln!(
            "mcpspec replay: replaying on {}, not on {}, where the finding was made \
             (--target-mismatch-ok)",
            target.describe(),
            recorded.describe()
        );
        return Ok(target);
    }
    Err(format!(
        "{file} was found on {}, not on {}: replaying it elsewhere says nothing about whether \
         it is fixed. Leave the target out to replay on the recorded one, or add \
         --target-mismatch-ok",
        recorded.describe(),
        target.describe()
    ))
}

/// The least start-up allowance of a command: a fresh process on a loaded machine can take
/// seconds longer to start than it did when measured, and a slow start is not a hang. Only
/// fresh connections wait for it (confirming and shrinking), so it costs little.
const MIN_STARTUP_ALLOWANCE: Duration = Duration::from_secs(2);

/// How long a fresh server takes to answer its first `ping`, doubled, and at least
/// [`MIN_STARTUP_ALLOWANCE`] (zero in memory). This is the start-up allowance every case gets;
/// a target that cannot be spawned is an error.
async fn calibrate(
    target: &Target,
    max_message: usize,
) -> Result<Duration, mcpspec_harness::target::StartError> {
    mcpspec_harness::preflight::preflight(target, max_message).await?;
    let mut transport = target.connect(max_message)?;
    match target {
        // In memory: nothing to calibrate against.
        Target::Embedded(_) => return Ok(Duration::ZERO),
        Target::Command { .. } | Target::Url(_) => {}
    }
    let started = Instant::now();
    let limit = started + Duration::from_secs(10);
    let ping = br#"{"jsonrpc":"2.0","id":"mcpspec-fuzz-calibrate","method":"ping"}"#;
    let mut line = ping.to_vec();
    line.push(b'\n');
    if transport.send(&line, limit).await.is_ok() {
        use mcpspec_core::transport::Recv;
        if let Recv::Line(_) | Recv::Exchange(_) = transport.recv(limit).await {
            return Ok((started.elapsed() * 2).max(MIN_STARTUP_ALLOWANCE));
        }
    }
    errln!("mcpspec fuzz: the server did not answer a first `ping` within 10 s");
    Ok(Duration::from_secs(10))
}

fn progress_line(stats: &Stats, found: usize) -> String {
    let secs = stats.elapsed.as_secs_f64().max(1e-3);
    format!(
        "{} cases, {} messages in {:.1} s of fuzzing ({:.0} msg/s), {:.1} s shrinking and \
         confirming, {} connection(s), {found} finding(s)",
        stats.cases,
        stats.messages,
        secs,
        stats.messages as f64 / secs,
        stats.shrinking.as_secs_f64(),
        stats.connections,
    )
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
