//! `mcpspec report`: a JSON report written by `mcpspec run --json`, read back and rendered again,
//! or (`--merge`) the reports of a run's shards merged into the report of the whole run
//! (`mcpspec::report::merge`). The exit code is the report's own, as `run` would have exited.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::Args;

use mcpspec::report::merge::{Merged, merge_files};
use mcpspec::{errln, out};

use super::{exit, usage_error};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// JSON reports written by `mcpspec run --json`.
    #[arg(value_name = "REPORT.json", required = true)]
    reports: Vec<PathBuf>,
    /// Merge the reports of the shards of one run (`--shard I/N`) into one report.
    #[arg(long)]
    merge: bool,
    /// Write the report as JSON to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the report as JUnit XML to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a Markdown summary to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write a GitHub Actions `::error` annotation for each unexpected Fail or Error and each
    /// stale baseline entry to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    annotations: Option<PathBuf>,
}

/// `mcpspec report`: 0 if the report passes, 1 if not, 2 on a usage error, 3 if the target
/// failed (as `mcpspec run` exits).
pub fn run(args: ReportArgs) -> u8 {
    if args.reports.len() > 1 && !args.merge {
        return usage_error("several reports: add --merge to merge the shards of one run");
    }
    let Merged { report, json } = match merge_files(&args.reports) {
        Ok(merged) => merged,
        Err(e) => return usage_error(e),
    };
    // The JSON is the shards' own result objects (transcripts and all), not a re-rendering.
    let json = serde_json::to_string_pretty(&json).unwrap_or_default();
    let outputs = [
        (&args.json, json),
        (&args.junit, report.to_junit()),
        (&args.markdown, report.to_markdown()),
        (&args.annotations, report.to_github_annotations()),
    ];
    let mut to_stdout = false;
    for (path, text) in outputs {
        let Some(path) = path else { continue };
        if path == Path::new("-") {
            to_stdout = true;
            out!("{}", with_newline(text));
        } else if let Err(e) = std::fs::write(path, text) {
            return usage_error(format!("cannot write {}: {e}", path.display()));
        }
    }
    if !to_stdout {
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        out!("{}", report.to_console(color));
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

fn with_newline(mut text: String) -> String {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}
