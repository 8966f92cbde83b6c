//! `mcpspec report RUN.json`: renders a JSON report written by `mcpspec run --json` again, in
//! another form (`--html FILE`). The rendering lives in the library (`report/html.rs`); this
//! handler reads, checks and writes.

use std::path::{Path, PathBuf};

use clap::Args;

use mcpspec::outln;

use super::{exit, usage_error};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A JSON report written by `mcpspec run --json FILE` (it carries the transcripts).
    #[arg(value_name = "RUN.json")]
    input: PathBuf,
    /// Write the self-contained HTML report to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// `mcpspec report`: the exit code.
pub fn run(args: ReportArgs) -> u8 {
    let report = match read_report(&args.input) {
        Ok(report) => report,
        Err(message) => return usage_error(message),
    };
    let Some(html) = &args.html else {
        return usage_error("report: say what to write (--html FILE)");
    };
    let page = mcpspec::report::html::render(&report);
    if html.as_path() == Path::new("-") {
        outln!("{page}");
    } else if let Err(e) = std::fs::write(html, page) {
        return usage_error(format!("cannot write {}: {e}", html.display()));
    }
    exit::OK
}

/// The JSON report at `path`, or why it is not one.
fn read_report(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let report: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    if !report["results"].is_array() || !report["summary"].is_object() {
        return Err(format!(
            "{} is not a report of `mcpspec run --json` (no `results` and `summary`)",
            path.display()
        ));
    }
    Ok(report)
}
