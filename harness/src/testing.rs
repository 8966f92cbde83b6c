//! `cargo test` integration: every check of the catalogue becomes its own test, through
//! [libtest-mimic](https://docs.rs/libtest-mimic), so `cargo test` and `cargo nextest` list,
//! filter and report checks like ordinary tests.
//!
//! In a server crate, add `mcpspec` as a dev-dependency and a test target without the default
//! harness:
//!
//! ```toml
//! [[test]]
//! name = "conformance"
//! harness = false
//! ```
//!
//! ```no_run
//! // tests/conformance.rs (examples/cargo-test-integration is this, tested by
//! // cli/tests/testsuite/cargo_test.rs)
//! use std::time::Duration;
//!
//! use mcpspec::{RunOptions, Target};
//!
//! fn main() -> std::process::ExitCode {
//!     let options = RunOptions::builder()
//!         .allow_tool("echo")
//!         .timeout(Duration::from_secs(5))
//!         .build();
//!     mcpspec::testing::Suite::new(Target::command("target/debug/my-server"))
//!         .options(options)
//!         // Known failures, each with its reason: shown as ignored; a stale one fails.
//!         .baseline(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance-baseline.yaml"))
//!         .main()
//! }
//! ```
//!
//! In a real crate the command is `env!("CARGO_BIN_EXE_my-server")`. Then
//! `cargo test --test conformance -- --list` lists one test per check id, and
//! `cargo test --test conformance -- jsonrpc/ modern/discover/` runs those two areas: like
//! libtest, any number of filters (a test runs if its id contains one of them, or equals one
//! with `--exact`), beside `--skip`, `--ignored`, `--include-ignored`.
//!
//! | outcome          | test                                                           |
//! |------------------|----------------------------------------------------------------|
//! | Pass, Info       | passed                                                         |
//! | NonStrict        | passed; a note with the requirement text goes to stderr        |
//! | Fail, Error      | failed, with the message, the requirement texts, the expectation |
//! | Fail, Error listed in the baseline | ignored: `expected failure (baseline): <reason> — <message>` |
//! | listed in the baseline, but not failing | failed: a stale entry (remove it)          |
//! | Skipped          | ignored, with the reason                                       |
//!
//! The baseline is the file `mcpspec run --baseline` reads (`{target?, entries: [{check,
//! reason}]}`); an entry naming no check fails the run before any check starts.
//!
//! Every test starts its own server (the runner's discover probe, then the check), as
//! `mcpspec run` does for each check.
//!
//! A protected HTTP server gets the credentials `mcpspec run` takes as flags:
//!
//! ```no_run
//! # use mcpspec::Target;
//! # fn main() -> Result<(), String> {
//! mcpspec::testing::Suite::new(Target::url("http://127.0.0.1:8000/mcp")?)
//!     .bearer_env("MCP_TOKEN") // or .bearer(..), .bearer_command(..), .header(..)
//!     .auth_issuer("http://127.0.0.1:9000") // the `auth/*` checks' tokens
//!     .main();
//! # Ok(())
//! # }
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Conclusion, Failed, Trial};

use crate::baseline::Baseline;
use crate::check::Check;
use crate::outcome::Kind;
use crate::report::CheckResult;
use crate::requirements;
use crate::runner::RunOptions;
use crate::target::Target;

/// Runs the catalogue against `target` with default options, taking libtest's command line
/// (`--list`, filters, `--exact`, `--ignored`, ...) from the process arguments. Return it from
/// the test target's `main`.
pub fn main(target: Target) -> ExitCode {
    Suite::new(target).main()
}

/// As [`main`], with options (allowed tools, the probe profile, timeouts, `strict`).
pub fn main_with(target: Target, options: RunOptions) -> ExitCode {
    Suite::new(target).options(options).main()
}

/// Runs the catalogue as libtest trials with the given libtest arguments.
pub fn run(target: Target, options: RunOptions, args: &Arguments) -> Conclusion {
    libtest_mimic::run(args, trials(&crate::catalogue::all(), target, options))
}

/// The catalogue as one test per check against a target: options, a baseline of known
/// failures, and libtest's command line with any number of filters.
#[derive(Debug, Clone)]
pub struct Suite {
    target: Target,
    options: RunOptions,
    baseline: Option<PathBuf>,
    auth: crate::auth::AuthArgs,
}

impl Suite {
    pub fn new(target: Target) -> Self {
        Suite {
            target,
            options: RunOptions::default(),
            baseline: None,
            auth: crate::auth::AuthArgs::default(),
        }
    }

    /// `--header 'NAME: VALUE'`: sent with every request to an HTTP target. Repeatable.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.auth.header.push(format!("{name}: {value}"));
        self
    }

    /// `--bearer TOKEN`: `Authorization: Bearer TOKEN` on every request to an HTTP target.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.auth.bearer = Some(token.into());
        self
    }

    /// `--bearer-env VAR`: the token is the value of an environment variable.
    pub fn bearer_env(mut self, var: impl Into<String>) -> Self {
        self.auth.bearer_env = Some(var.into());
        self
    }

    /// `--bearer-command CMD`: the token is what a shell command prints (run again after a 401
    /// `invalid_token`).
    pub fn bearer_command(mut self, command: impl Into<String>) -> Self {
        self.auth.bearer_command = Some(command.into());
        self
    }

    /// `--auth-issuer URL|DIR`: the built-in test issuer, for the `auth/*` checks' tokens.
    pub fn auth_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.auth.auth_issuer = Some(issuer.into());
        self
    }

    /// How to run (see [`RunOptions::builder`]).
    pub fn options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// Known failures (the YAML `mcpspec run --baseline` reads): a listed check that fails is
    /// ignored with its reason; a listed check that does not fail is stale and fails.
    pub fn baseline(mut self, path: impl Into<PathBuf>) -> Self {
        self.baseline = Some(path.into());
        self
    }

    /// Runs with the process's command line; return it from the test target's `main`.
    pub fn main(self) -> ExitCode {
        self.run_with_args(std::env::args()).exit_code()
    }

    /// Runs with `args` as the command line (the first is the program name).
    pub fn run_with_args(self, args: impl IntoIterator<Item = String>) -> Conclusion {
        let (rest, filters) = split_filters(args);
        let mut arguments = Arguments::from_iter(rest);
        // Nothing runs with credentials that cannot be had: one failing test says why.
        let target = match crate::target::TargetArgs::default_with_auth(self.auth.clone())
            .authorize(self.target.clone())
        {
            Ok(target) => target,
            Err(e) => {
                let trial = Trial::test("mcpspec/credentials", move || Err(e.into()));
                arguments.skip.clear();
                arguments.ignored = false;
                return libtest_mimic::run(&arguments, vec![trial]);
            }
        };
        let baseline = match &self.baseline {
            None => None,
            Some(path) => match Baseline::load(path) {
                Ok(b) => Some(Arc::new(b)),
                // Nothing runs against a baseline that is wrong: one failing test says why.
                Err(e) => {
                    let trial = Trial::test("mcpspec/baseline", move || Err(e.to_string().into()));
                    arguments.skip.clear();
                    arguments.ignored = false;
                    return libtest_mimic::run(&arguments, vec![trial]);
                }
            },
        };
        let trials = trials_judged(&crate::catalogue::all(), target, self.options, baseline);
        apply_filters(&mut arguments, &filters, &trials);
        libtest_mimic::run(&arguments, trials)
    }
}

/// libtest's options that take a value as the next argument.
const VALUE_OPTIONS: &[&str] = &[
    "--skip",
    "--test-threads",
    "--logfile",
    "--color",
    "--format",
    "-Z",
];

/// Splits a libtest command line into its options and its filters (the free arguments, and
/// everything after `--`), since libtest-mimic takes one filter and libtest any number.
fn split_filters(args: impl IntoIterator<Item = String>) -> (Vec<String>, Vec<String>) {
    let mut args = args.into_iter();
    let mut rest: Vec<String> = args.next().into_iter().collect();
    let mut filters = Vec::new();
    while let Some(arg) = args.next() {
        if arg == "--" {
            filters.extend(args.by_ref());
        } else if VALUE_OPTIONS.contains(&arg.as_str()) {
            rest.push(arg);
            rest.extend(args.next());
        } else if arg.starts_with('-') {
            rest.push(arg);
        } else {
            filters.push(arg);
        }
    }
    (rest, filters)
}

/// Applies libtest's filter rules with several filters: a trial runs if its name contains any
/// filter (equals one, with `--exact`) and matches no `--skip`. libtest-mimic then leaves out
/// the others as exact skips, so its "filtered out" count stays right.
fn apply_filters(arguments: &mut Arguments, filters: &[String], trials: &[Trial]) {
    if filters.is_empty() {
        return;
    }
    let matches = |name: &str, pattern: &str| {
        if arguments.exact {
            name == pattern
        } else {
            name.contains(pattern)
        }
    };
    let left_out: Vec<String> = trials
        .iter()
        .map(Trial::name)
        .filter(|name| {
            !filters.iter().any(|f| matches(name, f))
                || arguments.skip.iter().any(|s| matches(name, s))
        })
        .map(str::to_owned)
        .collect();
    arguments.filter = None;
    arguments.exact = true;
    arguments.skip = left_out;
}

/// One trial per check, named by the check id.
pub fn trials(checks: &[Check], target: Target, options: RunOptions) -> Vec<Trial> {
    trials_judged(checks, target, options, None)
}

/// One trial per check, judged against `baseline` as `mcpspec run --baseline` judges.
fn trials_judged(
    checks: &[Check],
    target: Target,
    options: RunOptions,
    baseline: Option<Arc<Baseline>>,
) -> Vec<Trial> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map(Arc::new)
        .map_err(|e| e.to_string());
    checks
        .iter()
        .map(|check| {
            let check = *check;
            let (runtime, target, options) = (runtime.clone(), target.clone(), options.clone());
            let baseline = baseline.clone();
            Trial::ignorable_test(check.id, move || {
                let runtime =
                    runtime.map_err(|e| Failed::from(format!("cannot start a runtime: {e}")))?;
                let mut report = runtime
                    .block_on(crate::runner::run(target, &[check], options))
                    .map_err(|e| Failed::from(format!("the target did not start: {e}")))?;
                if let Some(baseline) = &baseline {
                    baseline.apply(&mut report);
                }
                if report.summary.stale.iter().any(|id| id == check.id) {
                    return Err(Failed::from(stale(&check, &report, baseline.as_deref())));
                }
                match report.results.first() {
                    Some(result) => verdict(&check, result),
                    None => Err(Failed::from("the runner returned no result")),
                }
            })
        })
        .collect()
}

/// Why a baseline entry is stale: its check did not fail.
fn stale(check: &Check, report: &crate::report::RunReport, baseline: Option<&Baseline>) -> String {
    let reason = baseline
        .and_then(|b| b.entries.iter().find(|e| e.check == check.id))
        .map_or("", |e| e.reason.as_str());
    let outcome = report
        .results
        .first()
        .map(|r| format!("{}: {}", r.outcome.kind, r.outcome.full_message()))
        .unwrap_or_default();
    format!(
        "stale baseline entry: {} is listed as a known failure ({reason}) but did not fail \
         ({outcome}); remove it from the baseline",
        check.id
    )
}

/// A check result as a libtest outcome, its texts redacted ([`mcpspec_core::redact`]).
fn verdict(check: &Check, r: &CheckResult) -> Result<Completion, Failed> {
    let redact = |text: String| mcpspec_core::redact::text(&text).into_owned();
    match verdict_texts(check, r) {
        Ok(Completion::Ignored { reason }) => Ok(Completion::Ignored {
            reason: reason.map(redact),
        }),
        Ok(done) => Ok(done),
        Err(failed) => Err(Failed::from(redact(
            failed.message().unwrap_or_default().to_owned(),
        ))),
    }
}

fn verdict_texts(check: &Check, r: &CheckResult) -> Result<Completion, Failed> {
    if let Some(reason) = &r.baseline_reason {
        return Ok(Completion::ignored_with(format!(
            "expected failure (baseline): {reason} — {}: {}",
            r.outcome.kind,
            r.outcome.full_message()
        )));
    }
    match r.outcome.kind {
        Kind::Pass | Kind::Info => Ok(Completion::Completed),
        Kind::NonStrict => {
            crate::output::errln!(
                "{}: NON-STRICT (passes): {}\n{}",
                r.id,
                r.outcome.full_message(),
                requirement_texts(r)
            );
            Ok(Completion::Completed)
        }
        Kind::Skipped => Ok(Completion::ignored_with(&r.outcome.message)),
        Kind::Fail | Kind::Error => Err(Failed::from(format!(
            "{}: {}\n{}\nexpected: {}",
            r.outcome.kind,
            r.outcome.full_message(),
            requirement_texts(r),
            check.expectation
        ))),
    }
}

fn requirement_texts(r: &CheckResult) -> String {
    r.requirements
        .iter()
        .filter_map(|id| requirements::requirement(id))
        .map(|q| format!("  {} [{}] {}", q.id, q.level, q.text))
        .collect::<Vec<_>>()
        .join("\n")
}

impl RunOptions {
    /// A builder that starts from the defaults (those of `mcpspec run`).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcpspec::RunOptions;
    ///
    /// let options = RunOptions::builder()
    ///     .allow_tool("echo")
    ///     .allow_tool("add")
    ///     .probe_profile(true)
    ///     .max_items(10)
    ///     .timeout(Duration::from_secs(5))
    ///     .strict(true)
    ///     .jobs(2)
    ///     .build();
    /// assert_eq!(options.checks.allowed_tools, ["echo", "add"]);
    /// assert!(options.checks.probe_profile && options.strict);
    /// assert_eq!(options.checks.max_items, 10);
    /// assert_eq!(options.settings.expect_timeout, Duration::from_secs(5));
    /// assert_eq!(options.jobs, 2);
    /// ```
    pub fn builder() -> RunOptionsBuilder {
        RunOptionsBuilder {
            options: RunOptions::default(),
        }
    }
}

/// Builds [`RunOptions`]; each method is the `mcpspec run` flag of the same name.
#[derive(Debug, Clone)]
pub struct RunOptionsBuilder {
    options: RunOptions,
}

impl RunOptionsBuilder {
    /// `--allow-tool`: a tool the checks may call (they call no other, POL-12). Repeatable.
    pub fn allow_tool(mut self, name: impl Into<String>) -> Self {
        self.options.checks.allowed_tools.push(name.into());
        self
    }

    /// `--probe-profile`: the server implements the mcpspec probe profile.
    pub fn probe_profile(mut self, on: bool) -> Self {
        self.options.checks.probe_profile = on;
        self
    }

    /// `--max-items`: the most items of one list the feature-surface checks read, get or
    /// complete (default 50, POL-31).
    pub fn max_items(mut self, n: usize) -> Self {
        self.options.checks.max_items = n.max(1);
        self
    }

    /// `--timeout`: the wait for each expected message (default 2 s).
    pub fn timeout(mut self, wait: Duration) -> Self {
        self.options.settings.expect_timeout = wait;
        self
    }

    /// `--ready-timeout`: the least readiness window of the deadlock check (default 3 s).
    pub fn ready_timeout(mut self, wait: Duration) -> Self {
        self.options.settings.ready_timeout = wait;
        self
    }

    /// `--scenario-timeout`: the cap on one check (default 15 s).
    pub fn scenario_timeout(mut self, cap: Duration) -> Self {
        self.options.settings.scenario_timeout = cap;
        self
    }

    /// `--max-message`: the bound on one received message, in bytes (default 4 MiB).
    pub fn max_message(mut self, bytes: usize) -> Self {
        self.options.settings.max_message = bytes;
        self
    }

    /// `--strict`: NonStrict counts as Fail.
    pub fn strict(mut self, on: bool) -> Self {
        self.options.strict = on;
        self
    }

    /// `--jobs`: checks at the same time (at least 1).
    pub fn jobs(mut self, n: usize) -> Self {
        self.options.jobs = n.max(1);
        self
    }

    /// `--isolation`: shared processes for the checks that may share, or fresh ones for all.
    pub fn isolation(mut self, mode: crate::pool::Mode) -> Self {
        self.options.isolation = mode;
        self
    }

    pub fn build(self) -> RunOptions {
        self.options
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn filters_are_the_free_arguments() {
        let (rest, filters) = split_filters(strings(&[
            "conformance",
            "jsonrpc/",
            "--skip",
            "jsonrpc/batch",
            "--exact",
            "modern/discover/",
            "--test-threads",
            "1",
            "--",
            "--odd",
        ]));
        assert_eq!(
            rest,
            [
                "conformance",
                "--skip",
                "jsonrpc/batch",
                "--exact",
                "--test-threads",
                "1"
            ]
        );
        assert_eq!(filters, ["jsonrpc/", "modern/discover/", "--odd"]);
    }

    #[test]
    fn several_filters_select_like_libtest() {
        let trial = |name: &'static str| Trial::test(name, || Ok(()));
        let trials = [trial("a/x"), trial("a/y"), trial("b/x"), trial("c/z")];
        let mut args = Arguments::from_iter(strings(&["t", "--skip", "y"]));
        apply_filters(&mut args, &strings(&["a/", "c/"]), &trials);
        assert_eq!(args.skip, ["a/y", "b/x"]);
        assert!(args.exact && args.filter.is_none());

        let mut exact = Arguments::from_iter(strings(&["t", "--exact"]));
        apply_filters(&mut exact, &strings(&["a/", "b/x"]), &trials);
        assert_eq!(exact.skip, ["a/x", "a/y", "c/z"]);
    }
}
