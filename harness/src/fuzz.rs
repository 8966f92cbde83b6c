//! `mcpspec fuzz` and `mcpspec replay`: black-box fuzzing of any stdio MCP server. (The
//! in-process cargo-fuzz targets are the top-level `fuzz/` crate, over
//! `mcpspec_core::fuzz_targets` and the reference server's.)
//!
//! ```text
//! material::gather (the server's tools, resources, prompts; --allow-tool) + corpus (built in)
//!   |
//! seed --> TestRunner (ChaCha) --> strategy::case --> ValueTree --+
//!                                                                  v
//!   exec::Session::run: the shared connection, the case's lines, a `ping` probe, replies
//!                       read (bounded) --> oracle::Violation?
//!   violation --> the case again on a fresh connection (the warm spare): not reproduced, it
//!                 is counted and dropped; reproduced --> shrink on fresh connections:
//!                 ValueTree::simplify/complicate, keeping only cases that trip the same
//!                 oracle --> minimal case, confirmed once more on a fresh connection (else
//!                 the case as found; neither recurs: counted, not a finding)
//!                 --> reproducer::write (JSONL + summary + the record of the target, seed
//!                 and timeout that `replay` uses)
//! ```
//!
//! Owns `fuzz/`: strategies, execution of one case (`exec.rs`), the oracles, shrinking and
//! reproducers, and its two subcommands (`cli.rs`). May import the transports, the wire codec,
//! the target, `cli_values` and the leaves; it shares nothing with the check catalogue.
//!
//! The oracles ([`oracle`]) read what was sent the way the server may have read it
//! ([`reading`]: lenient decoders, lone surrogates, any size of number) and blame the server
//! only for what no reading of the case allows.
//!
//! Generated cases share one connection while the server stays healthy (its probe answered,
//! no violation); a crash, a hang or a violation ends it (its process group killed) and the
//! next case starts a fresh one. Every violation is reproduced, shrunk and confirmed on fresh
//! connections, so a reproducer does not depend on what ran before it. Memory stays bounded:
//! one case and its replies at a time, lines capped by the message bound. The same seed
//! generates the same cases; `cases` bounds the work by count, so a run bounded by it does the
//! same work on a fast machine and a slow one.

pub mod corpus;
pub mod exec;
pub mod headers;
pub mod material;
pub mod oracle;
pub mod reading;
pub mod reproducer;
pub mod strategy;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use tokio::time::Instant;

use crate::target::{StartError, Target};
pub use exec::{CaseResult, ExecOptions, run_case};
pub use oracle::{Oracle, TransportKind, Violation};

/// What a fuzz run does.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    pub seed: u64,
    /// At most this many generated cases (shrinking steps not counted).
    pub cases: u64,
    /// Generation stops after this long (shrinking the last finding may add `shrink_time`);
    /// `None`: only `cases` bounds it.
    pub time: Option<Duration>,
    /// The bound on shrinking one finding.
    pub shrink_time: Duration,
    /// Stop after this many distinct findings (one per oracle).
    pub max_findings: usize,
    pub exec: ExecOptions,
    /// What the generator draws from: seed lines, the server's own tools, resources and
    /// prompts, and the tools it may call.
    pub material: strategy::Material,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            seed: 0,
            cases: u64::MAX,
            time: Some(DEFAULT_TIME),
            shrink_time: Duration::from_secs(30),
            max_findings: 3,
            exec: ExecOptions::default(),
            material: strategy::Material::default(),
        }
    }
}

/// How long `fuzz` generates cases when neither a time nor a number of cases is given.
pub const DEFAULT_TIME: Duration = Duration::from_secs(60);

/// How many times a violation may be seen, reproduced and then lost while confirming before
/// its oracle is no longer pursued in the run.
const CONFIRM_ATTEMPTS: usize = 3;

/// One shrunk finding, confirmed on a fresh connection.
#[derive(Debug, Clone)]
pub struct Finding {
    pub violation: Violation,
    /// The minimal case (the lines sent).
    pub case: Vec<Vec<u8>>,
    /// The case as first generated, before shrinking.
    pub original_len: usize,
    /// From the start of the run to the first failing case.
    pub time_to_find: Duration,
    pub shrink_steps: usize,
    pub stderr_tail: Vec<String>,
    pub seed: u64,
    /// Where the reproducer was written.
    pub reproducer: Option<PathBuf>,
    /// The command that replays the reproducer on the target it was found on.
    pub replay: Option<String>,
    /// The transport of the target, which the rule is stated for.
    pub transport: TransportKind,
}

impl Finding {
    /// One paragraph: what broke, the rule, how it was found, how to replay it.
    pub fn summary(&self) -> String {
        let o = self.violation.oracle;
        let mut s = format!(
            "[{}] {}. Rule: {}. Found after {:.1} s (seed {}); shrunk from {} to {} message(s) \
             in {} step(s).",
            o.id(),
            self.violation.detail,
            o.rule(self.transport),
            self.time_to_find.as_secs_f64(),
            self.seed,
            self.original_len,
            self.case.len(),
            self.shrink_steps,
        );
        if let Some(last) = self.stderr_tail.last() {
            s.push_str(&format!(" Last stderr line: {last:?}."));
        }
        let lines: Vec<String> = self
            .case
            .iter()
            .map(|l| mcpspec_core::text::shorten(&String::from_utf8_lossy(l), 200))
            .collect();
        s.push_str(&format!(" Sent: {}.", lines.join(" | ")));
        if let Some(path) = &self.reproducer {
            let replay = self.replay.clone().unwrap_or_else(|| {
                format!(
                    "mcpspec replay {}",
                    reproducer::shell_quote(&path.display().to_string())
                )
            });
            s.push_str(&format!(" Reproducer: {} (`{replay}`).", path.display()));
        }
        s
    }
}

/// Counters for progress and the closing line.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub cases: u64,
    pub messages: u64,
    /// Wall time spent generating and running cases (the `--time` budget).
    pub elapsed: Duration,
    /// Wall time spent shrinking and confirming findings, outside the `--time` budget.
    pub shrinking: Duration,
    /// Connections opened (server processes started, for a command), all told.
    pub connections: u64,
    /// Of those, the fresh ones opened to confirm and shrink findings.
    pub confirming: u64,
    /// Violations seen on a shared connection that a fresh connection did not reproduce (an
    /// earlier case's doing, or timing), or that did not recur when confirmed after shrinking;
    /// not findings. The first one's text is kept.
    pub unreproduced: u64,
    pub first_unreproduced: Option<String>,
}

/// The result of a run.
#[derive(Debug, Clone, Default)]
pub struct FuzzReport {
    pub findings: Vec<Finding>,
    pub stats: Stats,
}

/// Fuzzes `target`; `progress` is called now and then with the running counters.
///
/// Cases run on a connection kept while the server stays healthy ([`exec::Session`]); a
/// violation seen there is run again on a fresh connection, and only one that recurs there
/// is shrunk (on fresh connections) and reported, so every reproducer stands on its own.
pub async fn fuzz(
    target: &Target,
    options: &FuzzOptions,
    out: Option<&Path>,
    mut progress: impl FnMut(&Stats, usize),
) -> Result<FuzzReport, StartError> {
    crate::preflight::preflight(target, options.exec.max_message).await?;
    let started = Instant::now();
    let strategy = strategy::case(Arc::new(options.material.clone()));
    let mut runner = runner(options.seed);
    let mut report = FuzzReport::default();
    let mut found: BTreeSet<Oracle> = BTreeSet::new();
    let mut lost: BTreeMap<Oracle, usize> = BTreeMap::new();
    let mut last_progress = Instant::now();
    let mut session = exec::Session::default();
    let generating = |stats: &Stats| started.elapsed().saturating_sub(stats.shrinking);
    let in_time = |stats: &Stats| options.time.is_none_or(|t| generating(stats) < t);
    while report.stats.cases < options.cases
        && in_time(&report.stats)
        && report.findings.len() < options.max_findings
    {
        let Ok(mut tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let case = tree.current();
        let outcome = session.run(target, &case, &options.exec).await?;
        report.stats.cases += 1;
        report.stats.messages += outcome.sent as u64;
        if last_progress.elapsed() > Duration::from_millis(250) {
            report.stats.elapsed = generating(&report.stats);
            report.stats.connections = session.connections;
            progress(&report.stats, report.findings.len());
            last_progress = Instant::now();
        }
        let Some(violation) = outcome.violation.clone() else {
            continue;
        };
        if found.contains(&violation.oracle) {
            continue;
        }
        // Seen on a shared connection: it counts only if a fresh connection reproduces it.
        let shrink_started = Instant::now();
        let fresh = session.run_fresh(target, &case, &options.exec).await?;
        report.stats.confirming += 1;
        report.stats.messages += fresh.sent as u64;
        if fresh.violation.as_ref().map(|v| v.oracle) != Some(violation.oracle) {
            report.stats.not_reproduced(&violation);
            report.stats.shrinking += shrink_started.elapsed();
            continue;
        }
        let outcome = fresh;
        found.insert(violation.oracle);
        let time_to_find = started.elapsed();
        session.restart().await;
        let shrunk = shrink(
            target,
            &mut session,
            &mut tree,
            case,
            outcome,
            options,
            &mut report.stats,
        )
        .await?;
        let Some(mut finding) = shrunk else {
            // Neither the shrunk case nor the case as found tripped the oracle once more.
            report.stats.not_reproduced(&violation);
            report.stats.shrinking += shrink_started.elapsed();
            let attempts = lost.entry(violation.oracle).or_default();
            *attempts += 1;
            if *attempts < CONFIRM_ATTEMPTS {
                found.remove(&violation.oracle);
            }
            continue;
        };
        finding.time_to_find = time_to_find;
        if let Some(dir) = out {
            let n = report.findings.len() + 1;
            let record = reproducer::Record::new(target, options, finding.violation.oracle);
            // A reproducer that cannot be written leaves the finding without one.
            let _ = reproducer::write(dir, n, &mut finding, &record);
        }
        report.findings.push(finding);
        report.stats.shrinking += shrink_started.elapsed();
    }
    session.close().await;
    report.stats.elapsed = generating(&report.stats);
    report.stats.connections = session.connections;
    Ok(report)
}

impl Stats {
    /// Counts a violation that did not recur on a fresh connection.
    fn not_reproduced(&mut self, violation: &Violation) {
        self.unreproduced += 1;
        self.first_unreproduced
            .get_or_insert_with(|| format!("[{}] {}", violation.oracle.id(), violation.detail));
    }
}

fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&seed.to_le_bytes());
    }
    let config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// proptest's shrinking loop, accepting a simpler case only if it trips the same oracle; then
/// the confirmation: the shrunk case must trip it once more on a fresh connection, else the
/// case as found must. `None` when neither does: no finding.
async fn shrink<T: ValueTree<Value = Vec<Vec<u8>>>>(
    target: &Target,
    session: &mut exec::Session,
    tree: &mut T,
    case: Vec<Vec<u8>>,
    outcome: CaseResult,
    options: &FuzzOptions,
    stats: &mut Stats,
) -> Result<Option<Finding>, StartError> {
    let started = Instant::now();
    let oracle = outcome.violation.as_ref().map(|v| v.oracle);
    let original_len = case.len();
    let original = case.clone();
    let mut best = (case, outcome);
    let mut steps = 0;
    let mut more = tree.simplify();
    while more && started.elapsed() < options.shrink_time {
        let candidate = tree.current();
        let outcome = session.run_fresh(target, &candidate, &options.exec).await?;
        stats.confirming += 1;
        stats.messages += outcome.sent as u64;
        if outcome.violation.as_ref().map(|v| v.oracle) == oracle {
            best = (candidate, outcome);
            steps += 1;
            more = tree.simplify();
        } else {
            more = tree.complicate();
        }
    }
    let mut tries = vec![best.0];
    if steps > 0 {
        tries.push(original);
    }
    for (i, case) in tries.into_iter().enumerate() {
        let again = session.run_fresh(target, &case, &options.exec).await?;
        stats.confirming += 1;
        stats.messages += again.sent as u64;
        let Some(violation) = again.violation.filter(|v| Some(v.oracle) == oracle) else {
            continue;
        };
        return Ok(Some(Finding {
            violation,
            case,
            original_len,
            time_to_find: Duration::ZERO,
            shrink_steps: if i == 0 { steps } else { 0 },
            stderr_tail: again.stderr_tail,
            seed: options.seed,
            reproducer: None,
            replay: None,
            transport: target.kind(),
        }));
    }
    Ok(None)
}

/// Replays a reproducer once; the violation it trips, if any.
pub async fn replay(
    target: &Target,
    case: &[Vec<u8>],
    exec: &ExecOptions,
) -> Result<CaseResult, StartError> {
    crate::preflight::preflight(target, exec.max_message).await?;
    run_case(target, case, exec).await
}

/// Seed lines from files: `*.jsonl` (one message per line) and `*.json` (one message, possibly
/// pretty-printed), found recursively under each path. Unreadable files are skipped.
pub fn load_seeds(paths: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for p in paths {
        collect_files(p, &mut files);
    }
    files.sort();
    let mut seeds = Vec::new();
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        match file.extension().and_then(|e| e.to_str()) {
            Some("jsonl") => seeds.extend(
                reproducer::split_lines(&bytes)
                    .into_iter()
                    .filter(|l| !l.is_empty()),
            ),
            Some("json") => {
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) {
                    seeds.push(v.to_string().into_bytes());
                }
            }
            _ => {}
        }
    }
    seeds
}

fn collect_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_owned());
    } else if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            collect_files(&entry.path(), out);
        }
    }
}

/// The message of the last panic caught by [`quiet_panics`], taken.
pub fn take_panic_message() -> Option<String> {
    PANIC.lock().ok().and_then(|mut p| p.take())
}

static PANIC: Mutex<Option<String>> = Mutex::new(None);

/// The name of the fuzz runtime's worker threads, where an embedded server runs.
pub const WORKER_THREAD: &str = "mcpspec-fuzz-worker";

/// Replaces the panic hook for a fuzz run: an embedded server that panics (a finding) is
/// recorded instead of printing a backtrace per shrinking step. Panics of mcpspec itself are
/// still printed.
pub fn quiet_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let on_worker = std::thread::current()
            .name()
            .is_some_and(|n| n == WORKER_THREAD);
        if on_worker {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| {
                    info.payload()
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                })
                .unwrap_or_else(|| "panic".into());
            if let Ok(mut p) = PANIC.lock() {
                *p = Some(format!("panicked: {message}"));
            }
        } else {
            previous(info);
        }
    }));
}
