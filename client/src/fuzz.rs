//! `mcpspec client fuzz` and `mcpspec client replay`: the server fuzzer turned around. The peer
//! (the `fuzz/hostile-peer` scenario) answers the client's operation with generated hostile
//! messages added to its replies; the oracle is CLI-10: the client ends its operation, with a
//! result or an error, within its timeout, without a crash signal.
//!
//! ```text
//! seed --> TestRunner (ChaCha) --> strategy::case --> ValueTree
//!   case --> run::run_scenario(FUZZ, the case as the peer's injector) --> Observation
//!   oracle: killed by a signal (or exit 128+N, a shell's report of one): crash
//!           still running at the timeout: hang
//!   broken --> shrink (ValueTree simplify/complicate, keeping only scripts that break the
//!              client the same way) --> confirmed by one more run --> reproducer (JSON:
//!              the script, the command, the transport, the timeout) for `client replay`
//! ```
//!
//! Bounded: one case at a time (one client process and one peer), each case bounded by the
//! timeout and the observation's own bounds; generation by `--cases` and `--time`, shrinking
//! by `--shrink-time`. The same seed generates the same scripts.

pub mod case;
pub mod strategy;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::{Deserialize, Serialize};

use crate::observation::{ClientEnd, Observation};
use crate::run::{ClientOptions, run_scenario};
use crate::scenario::{FUZZ, Transport};
pub use case::Case;
use mcpspec_harness::cli_values::parse_duration;
use mcpspec_harness::output::{errln, outln};

/// How the client broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    /// Killed by a signal.
    Crash,
    /// Still running at the timeout.
    Hang,
}

impl Oracle {
    pub fn id(self) -> &'static str {
        match self {
            Oracle::Crash => "crash",
            Oracle::Hang => "hang",
        }
    }
}

/// What the oracle saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakage {
    pub oracle: Oracle,
    pub detail: String,
}

/// The CLI-10 oracle on one run: a crash signal or a hang; any exit (0 or not) is the client
/// ending its operation with a result or an error.
pub fn oracle(obs: &Observation) -> Option<Breakage> {
    match &obs.end {
        ClientEnd::Signaled(sig) => Some(Breakage {
            oracle: Oracle::Crash,
            detail: format!("the client was killed by signal {sig}"),
        }),
        // A shell (or a wrapper) reports a child killed by signal N as exit status 128 + N.
        ClientEnd::Exited(code) if (SHELL_SIGNAL_MIN..=SHELL_SIGNAL_MAX).contains(code) => {
            Some(Breakage {
                oracle: Oracle::Crash,
                detail: format!(
                    "the client exited with status {code} (how a shell reports signal {})",
                    code - 128
                ),
            })
        }
        ClientEnd::TimedOut(after) => Some(Breakage {
            oracle: Oracle::Hang,
            detail: format!(
                "the client was still running after {}",
                mcpspec_core::text::seconds(*after)
            ),
        }),
        _ => None,
    }
}

/// Exit statuses a shell gives a child killed by a signal (128 + 1 ..= 128 + 31).
const SHELL_SIGNAL_MIN: i32 = 129;
const SHELL_SIGNAL_MAX: i32 = 159;

/// What a fuzz run does.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    pub client: ClientOptions,
    pub seed: u64,
    /// At most this many generated cases (shrinking runs not counted).
    pub cases: u64,
    /// Generation stops after this long.
    pub time: Duration,
    /// The bound on shrinking one finding.
    pub shrink_time: Duration,
    /// The most client runs shrinking one finding may take.
    pub shrink_runs: usize,
    /// Stop after this many findings (one per oracle).
    pub max_findings: usize,
}

/// One shrunk finding.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Finding {
    pub breakage: Breakage,
    /// The shortest script found that still breaks the client the same way.
    pub case: Case,
    /// Steps of the script as first generated.
    pub original_steps: usize,
    /// Generated cases run until the first that broke the client.
    pub cases_to_find: u64,
    pub seconds_to_find: f64,
    /// Client runs spent shrinking.
    pub shrink_runs: usize,
    /// Whether one more run of the final script broke the client the same way.
    pub confirmed: bool,
    /// The client's last output lines in the confirming run.
    pub output_tail: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproducer: Option<PathBuf>,
}

/// The outcome of a fuzz run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FuzzReport {
    pub seed: u64,
    pub transport: Transport,
    pub cases: u64,
    pub seconds: f64,
    pub findings: Vec<Finding>,
    /// Set when the client could not be started at all (exit code 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_started: Option<String>,
}

/// Runs one script against the client.
pub async fn run_case(options: &ClientOptions, case: &Case) -> Observation {
    run_scenario(&FUZZ, options, Some(Arc::new(case.clone()))).await
}

/// Fuzzes the client as `options` say; `written` is where reproducers go (none: not written).
pub async fn fuzz(options: &FuzzOptions, written: Option<&Path>) -> FuzzReport {
    let started = Instant::now();
    let mut report = FuzzReport {
        seed: options.seed,
        transport: options.client.transport,
        cases: 0,
        seconds: 0.0,
        findings: Vec::new(),
        not_started: None,
    };
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes(options.seed)),
    );
    let strategy = strategy::case(options.client.transport);
    while report.cases < options.cases && started.elapsed() < options.time {
        let Ok(mut tree) = strategy.new_tree(&mut runner) else {
            break;
        };
        report.cases += 1;
        let case = tree.current();
        let obs = run_case(&options.client, &case).await;
        if let ClientEnd::NotStarted(why) = &obs.end {
            report.not_started = Some(why.clone());
            break;
        }
        let Some(breakage) = oracle(&obs) else {
            continue;
        };
        if report
            .findings
            .iter()
            .any(|f| f.breakage.oracle == breakage.oracle)
        {
            continue;
        }
        let found_after = started.elapsed();
        let (best, shrink_runs) = shrink(&mut tree, &breakage, options).await;
        let confirm = run_case(&options.client, &best).await;
        let confirmed = oracle(&confirm).is_some_and(|b| b.oracle == breakage.oracle);
        let mut finding = Finding {
            breakage,
            original_steps: case.steps.len(),
            case: best,
            cases_to_find: report.cases,
            seconds_to_find: found_after.as_secs_f64(),
            shrink_runs,
            confirmed,
            output_tail: confirm.stderr_tail.clone(),
            reproducer: None,
        };
        if let Some(dir) = written {
            let n = report.findings.len() + 1;
            finding.reproducer = write_reproducer(dir, n, &finding, options).ok();
        }
        report.findings.push(finding);
        if report.findings.len() >= options.max_findings {
            break;
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// Shrinks a script that broke the client: simpler scripts are tried while they break it the
/// same way (proptest's simplify/complicate walk), within `options.shrink_time` and
/// `options.shrink_runs` client runs. The shortest
/// script that still breaks it, and the client runs spent.
async fn shrink(
    tree: &mut impl ValueTree<Value = Case>,
    breakage: &Breakage,
    options: &FuzzOptions,
) -> (Case, usize) {
    let deadline = Instant::now() + options.shrink_time;
    let mut best = tree.current();
    let mut runs = 0;
    if !tree.simplify() {
        return (best, runs);
    }
    while Instant::now() < deadline && runs < options.shrink_runs {
        let candidate = tree.current();
        runs += 1;
        let obs = run_case(&options.client, &candidate).await;
        let still = oracle(&obs).is_some_and(|b| b.oracle == breakage.oracle);
        if still {
            best = candidate;
            if !tree.simplify() {
                break;
            }
        } else if !tree.complicate() {
            break;
        }
    }
    (best, runs)
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(
            &(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes(),
        );
    }
    bytes
}

/// A reproducer: everything `mcpspec client replay` needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reproducer {
    /// The format's version.
    pub mcpspec_client_fuzz: u32,
    pub breakage: Breakage,
    pub transport: Transport,
    pub timeout_ms: u64,
    pub seed: u64,
    /// The client command the finding was made with.
    pub command: Vec<String>,
    pub case: Case,
}

const FORMAT: u32 = 1;

fn write_reproducer(
    dir: &Path,
    n: usize,
    finding: &Finding,
    options: &FuzzOptions,
) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("client-{}-{n}.json", finding.breakage.oracle.id()));
    let reproducer = Reproducer {
        mcpspec_client_fuzz: FORMAT,
        breakage: finding.breakage.clone(),
        transport: options.client.transport,
        timeout_ms: u64::try_from(options.client.timeout.as_millis()).unwrap_or(u64::MAX),
        seed: options.seed,
        command: options.client.command.clone(),
        case: finding.case.clone(),
    };
    let text = serde_json::to_string_pretty(&reproducer).map_err(std::io::Error::other)?;
    std::fs::write(&path, text + "\n")?;
    Ok(path)
}

/// Reads a reproducer.
pub fn read_reproducer(path: &Path) -> Result<Reproducer, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let r: Reproducer = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a client fuzz reproducer: {e}", path.display()))?;
    if r.mcpspec_client_fuzz != FORMAT {
        return Err(format!(
            "{}: reproducer format {} (this mcpspec reads {FORMAT})",
            path.display(),
            r.mcpspec_client_fuzz
        ));
    }
    Ok(r)
}

// --- the command line ------------------------------------------------------------------------

/// `mcpspec client fuzz`.
#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// How the client reaches the peer (as for `mcpspec client`).
    #[arg(long, value_enum, value_name = "KIND", default_value = "http")]
    pub transport: Transport,
    /// The generator seed (the same seed generates the same scripts). Default: from the clock,
    /// printed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Stop after N generated cases.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub cases: Option<u64>,
    /// Stop generating after SECS seconds.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = parse_duration)]
    pub time: Duration,
    /// Seconds one client run may take before it counts as a hang.
    // Long enough for a client's own request timeouts (10 s is common) to end its operation
    // with an error first.
    #[arg(long, value_name = "SECS", default_value = "20", value_parser = parse_duration)]
    pub timeout: Duration,
    /// The bound on shrinking one finding, in seconds.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = parse_duration)]
    pub shrink_time: Duration,
    /// Stop after N findings (at most one per oracle: crash, hang).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = mcpspec_harness::cli_values::at_least_one())]
    pub max_findings: usize,
    /// Where reproducers are written.
    #[arg(long, value_name = "DIR", default_value = "mcpspec-out/client-fuzz")]
    pub out: PathBuf,
    /// Write the findings and counters as JSON to FILE (`-` for stdout, in place of the
    /// summary).
    #[arg(long, value_name = "FILE", value_parser = mcpspec_harness::cli_values::Destination::parse)]
    pub json: Option<mcpspec_harness::cli_values::Destination>,
    /// The client command and its arguments, after `--`.
    #[arg(last = true, value_name = "CLIENT")]
    pub command: Vec<String>,
}

/// `mcpspec client replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A reproducer written by `mcpspec client fuzz`.
    pub file: PathBuf,
    /// Seconds the client may run (default: the timeout the finding was made with).
    #[arg(long, value_name = "SECS", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// The client command, after `--` (default: the one the finding was made with).
    #[arg(last = true, value_name = "CLIENT")]
    pub command: Vec<String>,
}

/// The most client runs `mcpspec client fuzz` spends shrinking one finding.
pub const SHRINK_RUNS: usize = 500;

const OK: u8 = 0;
const FOUND: u8 = 1;
const USAGE: u8 = 2;
const TARGET: u8 = 3;
/// Ctrl-C, as a shell reports a process ended by SIGINT.
const INTERRUPTED: u8 = 130;

fn runtime() -> Result<tokio::runtime::Runtime, u8> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            errln!("mcpspec: cannot start the async runtime: {e}");
            USAGE
        })
}

/// `mcpspec client fuzz`: the exit code (0 nothing found, 1 a confirmed finding, 2 usage, 3
/// the client could not be started).
pub fn fuzz_main(args: FuzzArgs) -> u8 {
    if args.command.is_empty() {
        errln!("mcpspec: give the client command after `--` (mcpspec client fuzz -- ./my-client)");
        return USAGE;
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    let mut client = ClientOptions::new(args.command, args.transport);
    client.timeout = args.timeout;
    let options = FuzzOptions {
        client,
        seed,
        cases: args.cases.unwrap_or(u64::MAX),
        time: args.time,
        shrink_time: args.shrink_time,
        shrink_runs: SHRINK_RUNS,
        max_findings: args.max_findings,
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    errln!(
        "mcpspec client fuzz: seed {seed}, over {}, up to {} s",
        options.client.transport.name(),
        options.time.as_secs()
    );
    // Ctrl-C ends the run: dropping it kills the client's process group (which the terminal's
    // SIGINT does not reach).
    let report = runtime.block_on(async {
        tokio::select! {
            report = fuzz(&options, Some(&args.out)) => Some(report),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    drop(runtime);
    let Some(report) = report else {
        errln!("mcpspec: interrupted; every client process it started was ended");
        return INTERRUPTED;
    };
    let on_stdout = args.json.as_ref().is_some_and(|d| d.is_stdout());
    if let Some(destination) = &args.json {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        if let Err(e) = destination.write(&(text + "\n")) {
            errln!("mcpspec: {e}");
            return USAGE;
        }
    }
    if !on_stdout {
        outln!("{}", summary(&report));
    }
    if let Some(why) = &report.not_started {
        errln!("mcpspec: the client could not be started: {why}");
        return TARGET;
    }
    if report.findings.iter().any(|f| f.confirmed) {
        FOUND
    } else {
        OK
    }
}

/// The fuzz run in words: the counters, then each finding with its script and how to replay it.
pub fn summary(report: &FuzzReport) -> String {
    let mut s = format!(
        "{} case(s) in {:.1} s over {} (seed {}): {} finding(s)",
        report.cases,
        report.seconds,
        report.transport.name(),
        report.seed,
        report.findings.len()
    );
    for f in &report.findings {
        s.push_str(&format!(
            "\n[{}] {}{}; found after {} case(s) ({:.1} s), shrunk from {} to {} step(s) in {} run(s)",
            f.breakage.oracle.id(),
            if f.confirmed { "" } else { "UNCONFIRMED (a re-run did not break it again): " },
            f.breakage.detail,
            f.cases_to_find,
            f.seconds_to_find,
            f.original_steps,
            f.case.steps.len(),
            f.shrink_runs
        ));
        for step in &f.case.steps {
            s.push_str(&format!(
                "\n    {}",
                serde_json::to_string(step).unwrap_or_default()
            ));
        }
        if let Some(path) = &f.reproducer {
            s.push_str(&format!(
                "\n  replay: mcpspec client replay {}",
                mcpspec_harness::fuzz::reproducer::shell_quote(&path.display().to_string())
            ));
        }
    }
    s
}

/// `mcpspec client replay`: runs the reproducer's script once; exit 1 when it breaks the
/// client the same way again, 0 when it does not, 2 for a bad file, 3 when the client could not
/// be started.
pub fn replay_main(args: ReplayArgs) -> u8 {
    let reproducer = match read_reproducer(&args.file) {
        Ok(r) => r,
        Err(e) => {
            errln!("mcpspec: {e}");
            return USAGE;
        }
    };
    let command = if args.command.is_empty() {
        reproducer.command.clone()
    } else {
        args.command
    };
    let mut client = ClientOptions::new(command, reproducer.transport);
    client.timeout = args
        .timeout
        .unwrap_or(Duration::from_millis(reproducer.timeout_ms));
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let obs = runtime.block_on(async {
        tokio::select! {
            obs = run_case(&client, &reproducer.case) => Some(obs),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    drop(runtime);
    let Some(obs) = obs else {
        errln!("mcpspec: interrupted; the client process was ended");
        return INTERRUPTED;
    };
    if let ClientEnd::NotStarted(why) = &obs.end {
        errln!("mcpspec: the client could not be started: {why}");
        return TARGET;
    }
    for line in &obs.stderr_tail {
        outln!("  client {line}");
    }
    match oracle(&obs) {
        Some(b) if b.oracle == reproducer.breakage.oracle => {
            outln!("reproduced [{}]: {}", b.oracle.id(), b.detail);
            FOUND
        }
        Some(b) => {
            outln!(
                "broke differently [{}]: {} (the finding was [{}]: {})",
                b.oracle.id(),
                b.detail,
                reproducer.breakage.oracle.id(),
                reproducer.breakage.detail
            );
            FOUND
        }
        None => {
            outln!(
                "not reproduced: the client ended ({}); the finding was [{}]: {}",
                obs.end.describe(),
                reproducer.breakage.oracle.id(),
                reproducer.breakage.detail
            );
            OK
        }
    }
}
