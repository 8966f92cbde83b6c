//! `mcpspec run`: its flags, and the three jobs of running the checks once.
//!
//! 1. [`plan`] turns the parsed flags into a [`Plan`]: the target, the selected checks, the
//!    runner's options and where the report goes, or a usage error before anything starts.
//! 2. [`execute`] runs the plan (with progress on stderr) and returns the report, or
//!    why the target could not be tested.
//! 3. [`write_outputs`] judges the report against the baseline, writes every output (transcripts,
//!    the console or JSON on stdout, the JSON, JUnit and Markdown files) and decides the exit
//!    code.
//!
//! A step that cannot go on returns a [`Stop`]; [`run`] prints it and exits with its code.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use mcpspec_harness::baseline::Baseline;
use mcpspec_harness::catalogue;
use mcpspec_harness::check::Check;
use mcpspec_harness::check::CheckOptions;
use mcpspec_harness::cli_values::{self, DEFAULT_TIMEOUT, parse_duration};
use mcpspec_harness::driver::Settings;
use mcpspec_harness::output::{errln, out};
use mcpspec_harness::report::Format;
use mcpspec_harness::report::RunReport;
use mcpspec_harness::runner::RunOptions;
use mcpspec_harness::target::Target;
use mcpspec_harness::target::{TargetArgs, TransportKind};

use super::shared::{exit, usage_error, write_rendered};

#[derive(Args, Debug)]
pub struct RunArgs {
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
    shard: Option<mcpspec_harness::select::Shard>,
    /// Treat NonStrict outcomes as Fail.
    #[arg(long)]
    strict: bool,
    /// Print the run's plan and start nothing (POL-30.3): which shared checks share processes
    /// (the groups) and in what order, and which run on a process of their own. The selection,
    /// the target's kind, --isolation, --probe-profile, --allow-tool, --replicas and --baseline
    /// decide it; --jobs only decides how many groups run at once.
    #[arg(long)]
    plan: bool,
    /// Seconds to wait for each expected message.
    #[arg(
        long,
        value_name = "SECS",
        default_value = DEFAULT_TIMEOUT,
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
        default_value_t = mcpspec_core::transport::DEFAULT_MAX_MESSAGE,
        value_parser = cli_values::max_message(),
        allow_negative_numbers = true
    )]
    max_message: usize,
    /// Checks run at the same time (1 to 1024). Against a command this bounds the server
    /// processes alive at once: the default is the number of cores, so mcpspec's own load does
    /// not make the server late (POL-24). Against a URL or the embedded server the default is 8.
    #[arg(long, value_name = "N", value_parser = cli_values::jobs(), allow_negative_numbers = true)]
    jobs: Option<usize>,
    /// Where checks run (POL-21). `shared`: checks that send only well-formed modern requests
    /// share a few long-lived server processes (one per job; each answers a liveness request
    /// between checks, and one that dies or goes silent is charged to the check that ran on
    /// it), and the other checks get fresh processes started ahead as warm spares. `fresh`:
    /// every check starts its own.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = mcpspec_harness::pool::Mode::Shared)]
    isolation: mcpspec_harness::pool::Mode,
    #[command(flatten)]
    files: super::shared::ReportFiles,
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
    /// The most items of one list (resources, templates, prompts) the feature-surface checks
    /// read, get or complete, 1 to 10000 (POL-31); listings are followed until they end, within
    /// a bound of pages.
    #[arg(
        long,
        value_name = "N",
        default_value_t = CheckOptions::DEFAULT_MAX_ITEMS,
        value_parser = cli_values::max_items(),
        allow_negative_numbers = true
    )]
    max_items: usize,
    /// Judge one revision: `2026-07-28` runs the modern checks (and those of either era) and
    /// skips the handshake-era ones; a handshake revision (`2025-06-18`) runs the handshake-era
    /// checks with `initialize` asking for it, and skips the 2026-07-28 ones. A server that
    /// does not serve it has those checks skipped with the reason. Default: every era, the
    /// handshake asking for the newest revision.
    #[arg(long, value_name = "REV", value_parser = cli_values::revision)]
    revision: Option<&'static str>,
    /// Validate every received message against this schema.json (`#/$defs/<Type>`, or
    /// `#/definitions/<Type>` in a draft-07 document) instead of mcpspec's built-in types of
    /// each revision (SCHEMA-1).
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// Run N instances of the server (1 to 16) for the `stateless/*` checks (POL-22): of the
    /// command after `--` (each connection its own process), of the embedded reference server
    /// (each connection its own in-memory instance), or, with --spawn-http, N HTTP servers.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=16))]
    replicas: Option<u16>,
    /// With --replicas N: start N streamable-HTTP instances of this shell command, each with
    /// `{port}` replaced by a free loopback port, served at http://127.0.0.1:PORT/mcp; they are
    /// ended with the run.
    #[arg(
        long,
        value_name = "CMD",
        requires = "replicas",
        conflicts_with = "url"
    )]
    spawn_http: Option<String>,
    #[command(flatten)]
    target: TargetArgs,
}

/// `mcpspec run`: the exit code of running the checks as `args` say.
pub fn run(args: RunArgs) -> u8 {
    let only_plan = args.plan;
    plan(args)
        .and_then(|plan| {
            if only_plan {
                let runs = |c: &Check| {
                    mcpspec_harness::runner::runs_by_flags(c, &plan.target, &plan.options)
                };
                let groups =
                    mcpspec_harness::runner::plan(&plan.target, &plan.checks, &plan.options);
                out!("{}", groups.to_text(&plan.checks, runs));
                return Ok(exit::OK);
            }
            let with_matrix = plan.outputs.files.html.is_some();
            let tokenless = match plan.target.kind() {
                TransportKind::Http => plan.target.credentials().is_none(),
                TransportKind::Stdio => false,
            };
            let report = execute(
                plan.target,
                &plan.checks,
                plan.options,
                (plan.both_transports, with_matrix),
            )?;
            if tokenless {
                protected_hint(&report);
            }
            write_outputs(report, &plan.outputs)
        })
        .unwrap_or_else(Stop::exit_code)
}

/// A run without credentials on a server that turned out to be protected: say how to give a
/// token (most of the catalogue could only see 401s).
fn protected_hint(report: &RunReport) {
    let protected = report
        .results
        .iter()
        .any(|r| r.id.starts_with("auth/") && r.outcome.kind != crate::Kind::Skipped);
    if protected {
        errln!(
            "mcpspec: the server answers 401 without a token, and this run sent none: give one \
             with --bearer-env VAR (or --bearer, --bearer-command, --auth-issuer) to run the \
             catalogue as the server serves it (docs/protected-servers.md)"
        );
    }
}

/// The report of running the checks as `args` say, nothing written (`mcpspec baseline
/// --write`); the exit code when the run could not be made or the target failed.
/// The flags given that write something besides a report's verdicts (report files,
/// transcripts) or read a baseline: `mcpspec baseline` honours none of them.
pub(super) fn outputs_asked(args: &RunArgs) -> Vec<&'static str> {
    let mut asked: Vec<&'static str> = args
        .files
        .flags()
        .iter()
        .filter(|(_, d)| d.is_some())
        .map(|(flag, _)| *flag)
        .collect();
    if args.transcripts.is_some() {
        asked.push("--transcripts");
    }
    if args.baseline.is_some() {
        asked.push("--baseline");
    }
    asked
}

pub fn report_only(args: RunArgs) -> Result<RunReport, u8> {
    let plan = plan(args).map_err(Stop::exit_code)?;
    let report = execute(
        plan.target,
        &plan.checks,
        plan.options,
        (plan.both_transports, false),
    )
    .map_err(Stop::exit_code)?;
    match &report.target_failure {
        Some(reason) => Err(Stop::Target(reason.clone()).exit_code()),
        None => Ok(report),
    }
}

/// Why `mcpspec run` ends before the report's verdict decides the exit code.
pub(super) enum Stop {
    /// A flag, a file or the machine is wrong (exit 2).
    Usage(String),
    /// The target cannot be tested (exit 3).
    Target(String),
    /// Ctrl-C (SIGINT): every server the run started has been ended (exit 130).
    Interrupted,
}

impl Stop {
    /// Prints `mcpspec: <message>` to stderr; the exit code.
    pub(super) fn exit_code(self) -> u8 {
        match self {
            Stop::Usage(message) => usage_error(message),
            Stop::Target(message) => {
                errln!("mcpspec: {message}");
                exit::TARGET
            }
            Stop::Interrupted => {
                errln!("mcpspec: interrupted; every server process it started was ended");
                exit::INTERRUPTED
            }
        }
    }
}

/// What one `mcpspec run` does, decided from its flags before anything starts.
struct Plan {
    target: Target,
    /// The selected checks, in catalogue order.
    checks: Vec<Check>,
    options: RunOptions,
    outputs: Outputs,
    /// No target named: the embedded server over stdio and HTTP (`default_run`).
    both_transports: bool,
}

/// Where the report goes, and the known failures it is judged against (`mcpspec client`
/// writes its report the same way).
pub(super) struct Outputs {
    pub(super) baseline: Option<Baseline>,
    /// Each a file, or stdout in place of the console report (one at most).
    pub(super) files: super::shared::ReportFiles,
    /// A directory for each check's transcript as YAML.
    pub(super) transcripts: Option<PathBuf>,
    /// What a transcript file says the check ran with (for `mcpspec replay`).
    pub(super) replay: mcpspec_harness::report::ReplayHints,
}

/// The run's options from its flags; a usage error if the target, the baseline or the selection
/// is wrong.
fn plan(mut args: RunArgs) -> Result<Plan, Stop> {
    // No target, no fault, no eras mode, no spawned instances: the whole catalogue on the
    // embedded server, over both transports and with the probe profile it implements, so every
    // check that can run does (`--replicas N` only sets how many instances the `stateless/*`
    // checks get). The flags that leave this default are listed in docs/cli.md.
    let t = &args.target;
    let both_transports = t.url.is_empty()
        && t.command.is_empty()
        && t.fault.is_empty()
        && t.eras.is_none()
        && args.spawn_http.is_none();
    args.probe_profile |= both_transports;
    let (target, urls) = args
        .target
        .target_and_urls(args.probe_profile)
        .map_err(Stop::Usage)?;
    cli_values::one_on_stdout(&args.files.flags()).map_err(Stop::Usage)?;
    let replicas = replica_spec(&args, urls)?;
    let baseline = match &args.baseline {
        Some(path) => Some(Baseline::load(path).map_err(|e| Stop::Usage(e.to_string()))?),
        None => None,
    };
    let checks = mcpspec_harness::select::Selection {
        select: args.select,
        skip: args.skip,
        shard: args.shard,
    }
    .apply(&catalogue::all());
    if checks.is_empty() && args.shard.is_none() {
        return Err(Stop::Usage(
            "--select/--skip leave no check to run (see `mcpspec list`)".into(),
        ));
    }
    let schema = match &args.schema {
        Some(path) => mcpspec_harness::schema::Validator::Document(std::sync::Arc::new(
            mcpspec_harness::schema::document::Document::load(path).map_err(Stop::Usage)?,
        )),
        None => mcpspec_harness::schema::Validator::default(),
    };
    // Processes compete with mcpspec for the cores: no more of them than cores (POL-24).
    // In-memory and HTTP checks cost the target no process each, so more run at a time.
    let jobs = args.jobs.unwrap_or(match target {
        Target::Command { .. } => mcpspec_harness::runner::default_jobs(),
        Target::Embedded(_) | Target::Url(_) => 8,
    });
    let replay = mcpspec_harness::report::ReplayHints {
        allow_tool: args.allow_tool.clone(),
        probe_profile: args.probe_profile,
        max_items: (args.max_items != mcpspec_harness::check::CheckOptions::DEFAULT_MAX_ITEMS)
            .then_some(args.max_items),
        revision: args.revision.map(str::to_owned),
    };
    let options = RunOptions {
        settings: Settings {
            expect_timeout: args.timeout,
            scenario_timeout: args.scenario_timeout,
            ready_timeout: args.ready_timeout,
            max_message: args.max_message,
            schema,
            ..Settings::default()
        },
        checks: CheckOptions {
            allowed_tools: args.allow_tool,
            probe_profile: args.probe_profile,
            max_items: args.max_items,
            revision: args.revision,
        },
        strict: args.strict,
        jobs,
        isolation: args.isolation,
        replicas,
        running: Default::default(),
        lease: Default::default(),
        // Each runs first on a process of its own (POL-30.1, the plan).
        expected_to_fail: baseline
            .iter()
            .flat_map(|b| b.entries.iter().map(|e| e.check.clone()))
            .collect(),
    };
    let outputs = Outputs {
        baseline,
        files: args.files,
        transcripts: args.transcripts,
        replay,
    };
    Ok(Plan {
        target,
        checks,
        options,
        outputs,
        both_transports,
    })
}

/// The instances `--replicas`, `--spawn-http` and several `--url` ask for (POL-22).
fn replica_spec(
    args: &RunArgs,
    urls: Vec<String>,
) -> Result<Option<mcpspec_harness::replicas::ReplicaSpec>, Stop> {
    use mcpspec_harness::replicas::ReplicaSpec;
    let count = args.replicas.map(usize::from);
    match (&args.spawn_http, count) {
        (Some(command), Some(count)) => {
            if !args.target.command.is_empty()
                || !args.target.fault.is_empty()
                || args.target.eras.is_some()
            {
                return Err(Stop::Usage(
                    "--spawn-http starts the instances itself: no command after --, no --fault \
                     or --eras"
                        .into(),
                ));
            }
            if !command.contains("{port}") {
                return Err(Stop::Usage(
                    "--spawn-http needs `{port}` in the command (where the free port goes)".into(),
                ));
            }
            Ok(Some(ReplicaSpec::SpawnHttp {
                command: command.clone(),
                count,
            }))
        }
        (None, Some(_)) if !args.target.url.is_empty() => Err(Stop::Usage(
            "--replicas starts instances of a command or of the embedded server; with --url give \
             one --url per instance"
                .into(),
        )),
        (None, Some(count)) => Ok(Some(ReplicaSpec::Copies(count))),
        _ if urls.len() > mcpspec_harness::replicas::MAX_INSTANCES => Err(Stop::Usage(format!(
            "at most {} --url instances",
            mcpspec_harness::replicas::MAX_INSTANCES
        ))),
        _ if urls.len() > 1 => Ok(Some(ReplicaSpec::Urls(urls))),
        _ => Ok(None),
    }
}

/// Runs `checks` against `target`, with the status line on a terminal; the report, or why the
/// target could not be tested.
fn execute(
    target: Target,
    checks: &[Check],
    options: RunOptions,
    (both_transports, with_matrix): (bool, bool),
) -> Result<RunReport, Stop> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Stop::Usage(format!("cannot start the async runtime: {e}")))?;
    // Progress on stderr: a bar on a terminal, a plain line every 10 s elsewhere.
    let progress = mcpspec_harness::report::Progress::new(
        "mcpspec run",
        checks.len() as u64,
        mcpspec_harness::report::progress_mode(),
    )
    .watching(options.running.clone());
    let observe = |r: &mcpspec_harness::report::CheckResult| {
        progress.check_done(checks.len(), &r.id, r.outcome.kind)
    };
    let settings = std::sync::Arc::new(options.settings.clone());
    let run = async {
        let mut report = match target.clone() {
            Target::Embedded(config) if both_transports => {
                mcpspec_harness::default_run::run_both(config, checks, options, &observe).await
            }
            target => {
                mcpspec_harness::runner::run_observed(target, checks, options, &observe).await
            }
        }?;
        // The HTML report shows the version matrix: asked after the checks, each cell on a
        // fresh connection, as `mcpspec negotiate` does.
        if with_matrix && report.target_failure.is_none() {
            report.negotiation_matrix = mcpspec_harness::negotiation::matrix(&target, &settings)
                .await
                .ok();
        }
        Ok::<_, mcpspec_harness::target::StartError>(report)
    };
    // Ctrl-C ends the run: the servers live in their own process groups, so the terminal's
    // SIGINT does not reach them; dropping the run and then the runtime (below) drops every
    // check's task and the pool, and so kills every server (and its group).
    let finished = std::sync::atomic::AtomicBool::new(false);
    let report = std::thread::scope(|scope| {
        // A plain line is due every 10 s even while one long check runs; the ticker ends with
        // the run.
        scope.spawn(|| {
            while !finished.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                progress.tick_run(checks.len());
            }
        });
        let report = runtime.block_on(async {
            tokio::select! {
                report = run => Some(report),
                _ = tokio::signal::ctrl_c() => None,
            }
        });
        finished.store(true, std::sync::atomic::Ordering::Relaxed);
        report
    });
    progress.finish();
    // Drop the runtime now: every spawned server has been dropped (and killed) by then.
    drop(runtime);
    match report {
        Some(report) => report.map_err(|e| Stop::Target(e.to_string())),
        None => Err(Stop::Interrupted),
    }
}

/// Applies the baseline, writes every output `outputs` asks for, and decides the exit code: 3 if
/// the target failed during the run, else 0 if the report passed and 1 if not.
pub(super) fn write_outputs(mut report: RunReport, outputs: &Outputs) -> Result<u8, Stop> {
    if let Some(b) = &outputs.baseline {
        b.apply(&mut report);
    }
    if let Some(dir) = &outputs.transcripts {
        write_transcripts(dir, &mut report, &outputs.replay).map_err(|e| {
            Stop::Usage(format!(
                "cannot write transcripts to {}: {e}",
                dir.display()
            ))
        })?;
    }
    // The console report, unless a report flag took stdout; then the reports, each rendered
    // only if asked for.
    let files = &outputs.files;
    if !files.any_on_stdout() {
        out!(
            "{}",
            report.to_console(mcpspec_harness::output::color_stdout())
        );
    }
    for format in Format::ALL {
        let Some(destination) = files.destination(format) else {
            continue;
        };
        if format == Format::Json {
            // The JSON report carries every transcript: streamed, never held whole as text (a
            // flood of a server's output must not grow mcpspec's memory, docs/outcomes.md "Odd
            // and hostile targets").
            destination
                .stream(|w| report.write_json(w))
                .map_err(Stop::Usage)?;
        } else {
            write_rendered(destination, format.render(&report)).map_err(Stop::Usage)?;
        }
    }
    if let Some(reason) = &report.target_failure {
        return Err(Stop::Target(reason.clone()));
    }
    Ok(if report.passed() {
        exit::OK
    } else {
        exit::FAILED
    })
}

/// Writes each result's transcript to `dir` as `<id with / as __>.yaml` (redacted, as every
/// report) and records the file in the result.
fn write_transcripts(
    dir: &Path,
    report: &mut RunReport,
    replay: &mcpspec_harness::report::ReplayHints,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for r in &mut report.results {
        let file = dir.join(format!("{}.yaml", r.id.replace('/', "__")));
        let yaml = mcpspec_harness::yaml::to_string(&r.transcript_file(Some(replay)))
            .map_err(std::io::Error::other)?;
        cli_values::Destination::File(file.clone())
            .write(&yaml)
            .map_err(std::io::Error::other)?;
        r.transcript_path = Some(file.display().to_string());
    }
    Ok(())
}
