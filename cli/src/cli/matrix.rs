//! `mcpspec matrix`: many targets (servers and clients), each at several revisions, on one
//! comparison page with the tier each earns (POL-35).
//!
//! ```text
//!  file.rs ── the matrix file (YAML), read and checked: errors name file, line and key
//!     │
//!  execute.rs ── each target run as it would be alone (`mcpspec run --revision REV`, or
//!     │          `mcpspec client`), the binary in a child process, `--jobs` targets at once
//!     ▼
//!  record.rs ── a target's record (`DIR/<name>/report.json`): its verdicts per revision;
//!     │          `build` makes the matrix from records alone (one machine, or `merge`)
//!  score.rs ── POL-35: met / not met / not verified per revision, the tier and what kept it
//!     ▼
//!  model.rs ── the matrix as data (`matrix.json`) ── html.rs, markdown.rs: the pages
//!  github.rs ── `--plan github`: a job per target, for `merge` to put together
//! ```

pub mod execute;
pub mod file;
pub mod github;
pub mod html;
pub mod markdown;
pub mod model;
pub mod record;
pub mod score;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use mcpspec_harness::cli_values;
use mcpspec_harness::output::errln;

use super::shared::{exit, usage_error};
use model::Matrix;
use record::TargetRecord;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MatrixArgs {
    #[command(subcommand)]
    command: Option<MatrixCommand>,
    /// The matrix file (YAML; docs/matrix-file.md).
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// Where the pages (matrix.html, matrix.md, matrix.json) and each target's reports
    /// (`DIR/<name>/`) are written.
    #[arg(long, value_name = "DIR", default_value = "matrix-out")]
    out: PathBuf,
    /// Targets run at the same time (each run already uses the cores: see `mcpspec run --jobs`).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = cli_values::jobs())]
    jobs: usize,
    /// Run only this target of the file (repeatable): what one job of `--plan github` runs.
    #[arg(long, value_name = "NAME")]
    only: Vec<String>,
    /// Print a CI plan instead of running: `github`, a GitHub Actions job matrix of one job per
    /// target (`strategy.matrix: ${{ fromJSON(...) }}`).
    #[arg(long, value_enum, value_name = "CI")]
    plan: Option<PlanFormat>,
}

#[derive(Subcommand, Debug)]
enum MatrixCommand {
    /// Build the pages from target records (`DIR/<name>/report.json`, one per job of `--plan
    /// github`): the same page as one machine's run of the file.
    Merge {
        /// The target records.
        #[arg(value_name = "RECORD", required = true)]
        records: Vec<PathBuf>,
        /// Where the pages are written; each record's folder is copied into it as
        /// `DIR/<name>/` when it is not there already.
        #[arg(long, value_name = "DIR", default_value = "matrix-out")]
        out: PathBuf,
    },
    /// Render the pages (matrix.html, matrix.md) again from a `matrix.json`.
    Render {
        /// A `matrix.json` written by `mcpspec matrix`.
        #[arg(value_name = "MATRIX_JSON")]
        matrix: PathBuf,
        /// Where the pages are written.
        #[arg(long, value_name = "DIR", default_value = "matrix-out")]
        out: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PlanFormat {
    Github,
}

/// `mcpspec matrix`: exit 0 when every target ran, 1 when one could not be run or judged, 2
/// for a bad file or flag.
pub fn main(args: MatrixArgs) -> u8 {
    match args.command {
        Some(MatrixCommand::Merge { records, out }) => return merge(&records, &out),
        Some(MatrixCommand::Render { matrix, out }) => return render(&matrix, &out),
        None => {}
    }
    let Some(path) = args.file else {
        return usage_error("matrix: a matrix file is required (mcpspec matrix FILE)");
    };
    let matrix_file = match file::load(&path) {
        Ok(f) => f,
        Err(e) => return usage_error(e),
    };
    if let Some(PlanFormat::Github) = args.plan {
        mcpspec_harness::output::out!(
            "{}",
            github::plan(&matrix_file, &path.display().to_string())
        );
        return exit::OK;
    }
    if let Some(unknown) = args
        .only
        .iter()
        .find(|n| !matrix_file.targets.iter().any(|t| &t.name == *n))
    {
        return usage_error(format!(
            "{}: --only {unknown}: no target has that name",
            path.display()
        ));
    }
    let selected: Vec<(usize, &file::TargetSpec)> = matrix_file
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| args.only.is_empty() || args.only.contains(&t.name))
        .collect();
    let out = match absolute_dir(&args.out) {
        Ok(out) => out,
        Err(e) => return usage_error(e),
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return usage_error(format!("cannot find the mcpspec binary: {e}")),
    };
    let execution = execute::Execution {
        exe,
        out: out.clone(),
        revisions: matrix_file.revisions.clone(),
        jobs: args.jobs,
    };
    let records = execute::run_all(&execution, &selected, &|record| {
        errln!("mcpspec matrix: {}", one_line(record));
    });
    let matrix = record::build(&matrix_file.revisions, &records);
    finish(&out, &matrix)
}

/// A target's outcome in one line, for the progress on stderr.
fn one_line(record: &TargetRecord) -> String {
    match &record.error {
        Some(e) => format!("{}: not run: {e}", record.name),
        None => {
            let tier = record::column(record).tier;
            format!(
                "{}: Tier {}",
                record.name,
                tier.map_or("-".to_owned(), |t| t.to_string())
            )
        }
    }
}

/// Writes the pages; the exit code.
fn finish(out: &Path, matrix: &Matrix) -> u8 {
    if let Err(e) = write_pages(out, matrix) {
        return usage_error(e);
    }
    errln!(
        "mcpspec matrix: wrote {} (and matrix.md, matrix.json)",
        out.join("matrix.html").display()
    );
    if matrix.targets.iter().any(|t| t.error.is_some()) {
        exit::FAILED
    } else {
        exit::OK
    }
}

/// `mcpspec matrix render MATRIX_JSON --out DIR`.
fn render(path: &Path, out: &Path) -> u8 {
    let matrix = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<Matrix>(&t).map_err(|e| e.to_string()));
    let matrix = match matrix {
        Ok(m) => m,
        Err(e) => return usage_error(format!("{}: not a matrix.json: {e}", path.display())),
    };
    match absolute_dir(out).and_then(|out| write_pages(&out, &matrix)) {
        Ok(()) => exit::OK,
        Err(e) => usage_error(e),
    }
}

/// `DIR/matrix.html`, `DIR/matrix.md`, `DIR/matrix.json`.
pub fn write_pages(out: &Path, matrix: &Matrix) -> Result<(), String> {
    let json = serde_json::to_string_pretty(matrix).map_err(|e| e.to_string())? + "\n";
    for (name, text) in [
        ("matrix.html", html::render(matrix)),
        ("matrix.md", markdown::render(matrix)),
        ("matrix.json", json),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn absolute_dir(dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::path::absolute(dir).map_err(|e| format!("{}: {e}", dir.display()))
}

/// `mcpspec matrix merge RECORD… --out DIR`.
fn merge(paths: &[PathBuf], out: &Path) -> u8 {
    let out = match absolute_dir(out) {
        Ok(out) => out,
        Err(e) => return usage_error(e),
    };
    let mut records: Vec<TargetRecord> = Vec::new();
    for path in paths {
        let record = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<TargetRecord>(&t).map_err(|e| e.to_string()))
            .and_then(|r| match r.kind == record::KIND {
                true => Ok(r),
                false => Err(format!("not a target record (kind {:?})", r.kind)),
            });
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                return usage_error(format!(
                    "{}: not a matrix target record (DIR/<name>/report.json): {e}",
                    path.display()
                ));
            }
        };
        if let Some(first) = records.first()
            && first.matrix_revisions != record.matrix_revisions
        {
            return usage_error(format!(
                "{}: its matrix's revisions {:?} differ from {:?} ({}): records of one matrix \
                 file only",
                path.display(),
                record.matrix_revisions,
                first.matrix_revisions,
                first.name
            ));
        }
        if records.iter().any(|r| r.name == record.name) {
            return usage_error(format!(
                "{}: a second record of target {}",
                path.display(),
                record.name
            ));
        }
        // The record's folder (its reports and transcripts) goes beside the page.
        if let Some(from) = path.parent() {
            let to = out.join(&record.name);
            let same = match (std::fs::canonicalize(from), std::fs::canonicalize(&to)) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            };
            if !same && let Err(e) = copy_dir(from, &to) {
                return usage_error(format!(
                    "cannot copy {} to {}: {e}",
                    from.display(),
                    to.display()
                ));
            }
        }
        records.push(record);
    }
    let revisions = records
        .first()
        .map(|r| r.matrix_revisions.clone())
        .unwrap_or_default();
    let matrix = record::build(&revisions, &records);
    finish(&out, &matrix)
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}
