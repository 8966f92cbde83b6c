//! `mcpspec report`: a JSON report written by `mcpspec run --json`, read back and rendered again
//! (`--html`, `--junit`, `--markdown`, `--annotations`), or (`--merge`) the reports of a run's
//! shards merged into the report of the whole run (`mcpspec_harness::report::merge`). The rendering and
//! the merging live in the library; this handler reads, checks and writes. The exit code is the
//! report's own, as `run` would have exited.

use std::path::PathBuf;

use clap::Args;

use mcpspec_harness::cli_values::{Destination, one_on_stdout};
use mcpspec_harness::output::errln;
use mcpspec_harness::report::Format;
use mcpspec_harness::report::merge::{Merged, merge_files};

use super::shared::{exit, usage_error, write_rendered};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// JSON reports written by `mcpspec run --json` (they carry the transcripts).
    #[arg(value_name = "REPORT.json", required = true)]
    reports: Vec<PathBuf>,
    /// Merge the reports of the shards of one run (`--shard I/N`) into one report.
    #[arg(long)]
    merge: bool,
    #[command(flatten)]
    files: super::shared::ReportFiles,
    /// Write a GitHub Actions `::error` annotation for each unexpected Fail or Error and each
    /// stale baseline entry to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    annotations: Option<Destination>,
}

/// `mcpspec report`: 0 if the report passes, 1 if not, 2 on a usage error, 3 if the target
/// failed (as `mcpspec run` exits).
pub fn run(args: ReportArgs) -> u8 {
    if args.reports.len() > 1 && !args.merge {
        return usage_error("several reports: add --merge to merge the shards of one run");
    }
    let [json, junit, markdown, html] = args.files.flags();
    let stdout = one_on_stdout(&[
        json,
        junit,
        markdown,
        html,
        ("--annotations", args.annotations.as_ref()),
    ]);
    let to_stdout = match stdout {
        Ok(flag) => flag.is_some(),
        Err(e) => return usage_error(e),
    };
    let Merged { report, json } = match merge_files(&args.reports) {
        Ok(merged) => merged,
        Err(e) => return usage_error(e),
    };
    // The JSON is the shards' own result objects, transcripts and all, not a re-rendering; the
    // other formats render the typed report.
    for format in Format::ALL {
        let Some(destination) = args.files.destination(format) else {
            continue;
        };
        let text = match format {
            Format::Json => serde_json::to_string_pretty(&json).unwrap_or_default(),
            _ => format.render(&report),
        };
        if let Err(e) = write_rendered(destination, text) {
            return usage_error(e);
        }
    }
    if let Some(destination) = &args.annotations
        && let Err(e) = write_rendered(destination, report.to_github_annotations())
    {
        return usage_error(e);
    }
    if !to_stdout {
        mcpspec_harness::output::out!(
            "{}",
            report.to_console(mcpspec_harness::output::color_stdout())
        );
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
