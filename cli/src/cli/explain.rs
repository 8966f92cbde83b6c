//! `mcpspec explain CHECK-ID` and `mcpspec baseline --write FILE`: the two helpers for a
//! server author reading a failure. The words come from the library (`explain.rs`,
//! `baseline.rs`); these handlers find, run or read, and write.

use std::path::{Path, PathBuf};

use clap::Args;

use mcpspec_harness::baseline::Baseline;
use mcpspec_harness::catalogue;
use mcpspec_harness::output::{errln, out, outln};
use mcpspec_harness::report::RunReport;

use super::shared::{exit, usage_error};

/// `mcpspec explain`: the exit code.
pub fn explain(id: &str) -> u8 {
    let checks = catalogue::all();
    if let Some(check) = checks.iter().find(|c| c.id == id) {
        out!("{}", mcpspec_harness::explain::explain(check));
        return exit::OK;
    }
    // A prefix or a requirement id names several: list them instead of guessing.
    let named: Vec<&str> = checks
        .iter()
        .filter(|c| c.matches(id))
        .map(|c| c.id)
        .collect();
    if named.is_empty() {
        return usage_error(format!("no check `{id}` (see `mcpspec list`)"));
    }
    outln!("`{id}` names {} checks; explain one of them:", named.len());
    for id in named {
        outln!("  {id}");
    }
    exit::USAGE
}

#[derive(Args, Debug)]
pub struct BaselineArgs {
    /// Write a baseline with one entry per Fail (and Error) to FILE (`-` for stdout), each reason
    /// pre-filled with the verdict's message.
    #[arg(long, value_name = "FILE")]
    write: PathBuf,
    /// Take the verdicts from a JSON report of `mcpspec run --json` instead of running the
    /// checks.
    #[arg(long, value_name = "RUN.json")]
    from: Option<PathBuf>,
    /// Without --from: the run to take the verdicts from (the flags and target of `run`).
    #[command(flatten)]
    run: super::run::RunArgs,
}

/// `mcpspec baseline`: the exit code.
pub fn baseline(args: BaselineArgs) -> u8 {
    // It writes the baseline and nothing else: a report flag it would silently drop is refused.
    let asked = super::run::outputs_asked(&args.run);
    if !asked.is_empty() {
        return usage_error(format!(
            "`mcpspec baseline` writes only the baseline; {} belong{} to `mcpspec run` (write \
             the JSON report there, then `mcpspec baseline --from RUN.json`)",
            asked.join(", "),
            if asked.len() == 1 { "s" } else { "" }
        ));
    }
    let report = match &args.from {
        Some(path) => match read_json(path) {
            Ok(report) => report,
            Err(message) => return usage_error(message),
        },
        None => match super::run::report_only(args.run) {
            Ok(report) => report,
            Err(code) => return code,
        },
    };
    let baseline = Baseline::of_failures(&report);
    let yaml = match baseline.to_yaml() {
        Ok(yaml) => yaml,
        Err(e) => return usage_error(format!("cannot write the baseline: {e}")),
    };
    if args.write.as_path() == Path::new("-") {
        out!("{yaml}");
    } else if let Err(e) = std::fs::write(&args.write, yaml) {
        return usage_error(format!("cannot write {}: {e}", args.write.display()));
    } else {
        errln!(
            "wrote {} entr{} to {}",
            baseline.entries.len(),
            if baseline.entries.len() == 1 {
                "y"
            } else {
                "ies"
            },
            args.write.display()
        );
    }
    exit::OK
}

fn read_json(path: &Path) -> Result<RunReport, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    RunReport::from_json(json).map_err(|e| format!("{} {e}", path.display()))
}
