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
//! ```ignore
//! // tests/conformance.rs (examples/cargo-test-integration is this, tested by tests/ci.rs)
//! fn main() -> std::process::ExitCode {
//!     mcpspec::testing::main(mcpspec::Target::command(env!("CARGO_BIN_EXE_my-server")))
//! }
//! ```
//!
//! Then `cargo test --test conformance -- --list` lists one test per check id, and
//! `cargo test --test conformance -- jsonrpc/` runs the `jsonrpc` area only.
//!
//! | outcome          | test                                                           |
//! |------------------|----------------------------------------------------------------|
//! | Pass, Info       | passed                                                         |
//! | NonStrict        | passed; a note with the requirement text goes to stderr        |
//! | Fail, Error      | failed, with the message, the requirement texts, the expectation |
//! | Skipped          | ignored, with the reason                                       |
//!
//! Every test starts its own server (the runner's discover probe, then the check), as
//! `mcpspec run` does for each check.

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Completion, Conclusion, Failed, Trial};

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
    main_with(target, RunOptions::default())
}

/// As [`main`], with options (allowed tools, the probe profile, timeouts, `strict`).
pub fn main_with(target: Target, options: RunOptions) -> ExitCode {
    run(target, options, &Arguments::from_args()).exit_code()
}

/// Runs the catalogue as libtest trials with the given libtest arguments.
pub fn run(target: Target, options: RunOptions, args: &Arguments) -> Conclusion {
    libtest_mimic::run(args, trials(&crate::catalogue::all(), target, options))
}

/// One trial per check, named by the check id.
pub fn trials(checks: &[Check], target: Target, options: RunOptions) -> Vec<Trial> {
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
            Trial::ignorable_test(check.id, move || {
                let runtime =
                    runtime.map_err(|e| Failed::from(format!("cannot start a runtime: {e}")))?;
                let report = runtime
                    .block_on(crate::runner::run(target, &[check], options))
                    .map_err(|e| Failed::from(format!("the target did not start: {e}")))?;
                match report.results.first() {
                    Some(result) => verdict(&check, result),
                    None => Err(Failed::from("the runner returned no result")),
                }
            })
        })
        .collect()
}

/// A check result as a libtest outcome.
fn verdict(check: &Check, r: &CheckResult) -> Result<Completion, Failed> {
    match r.outcome.kind {
        Kind::Pass | Kind::Info => Ok(Completion::Completed),
        Kind::NonStrict => {
            eprintln!(
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
