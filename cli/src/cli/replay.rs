//! `mcpspec replay TRANSCRIPT`: a check's transcript file (`run --transcripts DIR`) run again
//! on a fresh process: its prefix of earlier traffic first, when it has one (POL-30), then the
//! check, with the options it ran under. The verdict is compared with the recorded one.
//! (`mcpspec replay REPRODUCER`, a fuzz finding, is `cli::fuzz::replay_main`.)

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use super::fuzz::ReplayArgs;
use mcpspec_core::transcript::Prefix;
use mcpspec_harness::check::{CheckOptions, Lease};
use mcpspec_harness::output::{errln, outln};
use mcpspec_harness::report::ReplayHints;

use super::shared::exit;

/// What a transcript file says that a replay needs (the events themselves are not read).
#[derive(Debug, Deserialize)]
struct Stored {
    check: String,
    outcome: String,
    #[serde(default)]
    replay: ReplayHints,
    #[serde(default)]
    prefix: Option<Prefix>,
}

/// Whether `path` is a check's transcript file rather than a fuzz reproducer: YAML that names
/// its check.
pub fn is_transcript(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| mcpspec_harness::yaml::from_str::<Stored>(&text).ok())
        .is_some()
}

/// Replays the transcript; exit 1 when its non-pass verdict reproduces, 0 when the verdict
/// differs (or it recorded a pass that passes again), 2 for a usage error, 3 when the target
/// cannot be started.
pub fn run(args: &ReplayArgs) -> u8 {
    let file = args.file.display();
    let stored: Stored = match std::fs::read_to_string(&args.file)
        .map_err(|e| e.to_string())
        .and_then(|text| mcpspec_harness::yaml::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return super::shared::usage_error(format!("cannot read {file}: {e}")),
    };
    let Some(check) = mcpspec_harness::catalogue::by_id(&stored.check) else {
        return super::shared::usage_error(format!(
            "{file} is the transcript of `{}`, which this mcpspec does not have",
            stored.check
        ));
    };
    let target = match args.target.target(stored.replay.probe_profile) {
        Ok(t) => t,
        Err(e) => return super::shared::usage_error(e),
    };
    let lease = match stored.prefix.as_ref().map(Prefix::writes) {
        None => Lease::Fresh,
        Some(Some(writes)) => Lease::Prefixed(Arc::new(writes)),
        Some(None) => {
            return super::shared::usage_error(format!(
                "{file}: its prefix holds a write that is not hex"
            ));
        }
    };
    let mut settings = mcpspec_harness::driver::Settings::default();
    if let Some(t) = args.timeout {
        settings.expect_timeout = t;
    }
    let options = crate::RunOptions {
        settings,
        checks: CheckOptions {
            allowed_tools: stored.replay.allow_tool.clone(),
            probe_profile: stored.replay.probe_profile,
            max_items: stored
                .replay
                .max_items
                .unwrap_or(CheckOptions::DEFAULT_MAX_ITEMS),
            revision: stored
                .replay
                .revision
                .as_deref()
                .and_then(|r| mcpspec_harness::cli_values::revision(r).ok()),
        },
        jobs: 1,
        lease,
        ..crate::RunOptions::default()
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            return super::shared::usage_error(format!("cannot start the async runtime: {e}"));
        }
    };
    let described = target.describe();
    let report = runtime.block_on(mcpspec_harness::runner::run(target, &[check], options));
    drop(runtime);
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            errln!("mcpspec: {e}");
            return exit::TARGET;
        }
    };
    let Some(result) = report.results.first() else {
        return super::shared::usage_error("the replay ran no check");
    };
    let now = result.outcome.kind;
    let prefix = match &stored.prefix {
        Some(p) => format!(" after {} message(s) of earlier traffic", p.messages()),
        None => String::new(),
    };
    outln!(
        "replayed {}{prefix} on {described}: {now} {}",
        stored.check,
        result.outcome.message
    );
    if now.label() == stored.outcome {
        outln!("reproduced: the transcript recorded {}", stored.outcome);
        if now == crate::Kind::Pass {
            exit::OK
        } else {
            exit::FAILED
        }
    } else {
        outln!(
            "not reproduced: the transcript recorded {}, the replay gave {now}",
            stored.outcome
        );
        exit::OK
    }
}
