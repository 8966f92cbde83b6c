//! `mcpspec negotiate`: the version-negotiation matrix, in the same three steps as `run`:
//! [`plan`] reads the flags (target, expectation file), [`execute`] asks the server every cell
//! and walks a dual-era client's path, [`write_outputs`] prints the matrix and compares it with
//! the expectation, which decides the exit code.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::Target;
use mcpspec_core::transcript::Recorder;
use mcpspec_harness::cli_values::{
    DEFAULT_TIMEOUT, Destination, destination_or_stdout, parse_duration,
};
use mcpspec_harness::driver::Settings;
use mcpspec_harness::negotiation::{self, Matrix, Negotiation};
use mcpspec_harness::output::{errln, out, outln};
use mcpspec_harness::target::{StartError, TargetArgs};

use super::shared::{exit, usage_error};

#[derive(Args, Debug)]
pub struct NegotiateArgs {
    /// Write the matrix as JSON (the format `--expect` reads) to FILE (`-` for stdout, in place
    /// of the table).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    json: Option<Option<Destination>>,
    /// Compare with a committed matrix (JSON); exit 1 and print the differences if it differs.
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
    /// Seconds to wait for each reply.
    #[arg(
        long,
        value_name = "SECS",
        default_value = DEFAULT_TIMEOUT,
        value_parser = parse_duration,
        allow_negative_numbers = true
    )]
    timeout: Duration,
    #[command(flatten)]
    target: TargetArgs,
}

/// What one `negotiate` invocation will do, decided before anything is started.
struct Plan {
    target: Target,
    expected: Option<Matrix>,
    settings: Arc<Settings>,
    json: Option<Destination>,
}

/// `mcpspec negotiate`: the exit code.
pub fn run(args: NegotiateArgs) -> u8 {
    let plan = match plan(args) {
        Ok(plan) => plan,
        Err(message) => return usage_error(message),
    };
    match execute(&plan) {
        Ok((matrix, path)) => write_outputs(&plan, &matrix, &path),
        Err(e) => {
            errln!("mcpspec: {e}");
            exit::TARGET
        }
    }
}

fn plan(args: NegotiateArgs) -> Result<Plan, String> {
    let target = args.target.target(false)?;
    let expected = match &args.expect {
        None => None,
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<Matrix>(&t).map_err(|e| e.to_string()))
                .map_err(|e| format!("cannot read the expectation {}: {e}", path.display()))?,
        ),
    };
    let settings = Arc::new(Settings {
        expect_timeout: args.timeout,
        ..Settings::default()
    });
    Ok(Plan {
        target,
        expected,
        settings,
        json: destination_or_stdout("--json", args.json),
    })
}

/// Every cell of the matrix, then the path a dual-era client takes.
fn execute(plan: &Plan) -> Result<(Matrix, Negotiation), StartError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| StartError::new(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async {
        let matrix = negotiation::matrix(&plan.target, &plan.settings).await?;
        if matrix.answered_nothing() {
            return Err(StartError::new(
                "the target never produced a JSON-RPC message: no cell of the matrix got a reply",
            ));
        }
        let client = negotiation::Client::default();
        let path =
            negotiation::negotiate(&plan.target, &plan.settings, &client, &Recorder::default())
                .await?;
        Ok((matrix, path))
    })
}

fn write_outputs(plan: &Plan, matrix: &Matrix, path: &Negotiation) -> u8 {
    if let Some(json) = &plan.json {
        let text = serde_json::to_string_pretty(matrix).unwrap_or_default() + "\n";
        if let Err(e) = json.write(&text) {
            return usage_error(e);
        }
    }
    if !plan.json.as_ref().is_some_and(Destination::is_stdout) {
        outln!("mcpspec negotiate — {}", plan.target.describe());
        out!("{}", matrix.to_table());
        outln!(
            "a dual-era client ends {} {}: {}",
            path.era,
            path.version.as_deref().unwrap_or("-"),
            path.path
        );
    }
    let Some(want) = &plan.expected else {
        return exit::OK;
    };
    let diff = matrix.diff(want);
    if diff.is_empty() {
        errln!("the matrix matches the expectation");
        return exit::OK;
    }
    errln!("the matrix differs from the expectation:");
    for line in diff {
        errln!("  {line}");
    }
    exit::FAILED
}
