//! `mcpspec list` and `mcpspec coverage`: the catalogue (and the book's check reference) and the
//! requirement coverage, read from the library, printed as a table, JSON or Markdown. Nothing is
//! started.

use clap::Args;

use crate::check_reference;
use mcpspec_harness::catalogue;
use mcpspec_harness::cli_values::{Destination, destination_or_stdout, one_on_stdout};
use mcpspec_harness::coverage::Coverage;
use mcpspec_harness::output::{out, outln};

use super::shared::{exit, usage_error};

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Write the catalogue as JSON to FILE (`-` for stdout, in place of the table).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    json: Option<Option<Destination>>,
    /// Write the check reference (every server and client check and the text of every
    /// requirement id, as the book's `docs/reference.md`) as Markdown to FILE (`-` for stdout,
    /// in place of the table).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    markdown: Option<Destination>,
    /// Show where each check runs (POL-21): `shared`, or `fresh: CLASS` with why the check
    /// needs a process of its own.
    #[arg(long)]
    isolation: bool,
}

#[derive(Args, Debug)]
pub struct CoverageArgs {
    /// Write the coverage as JSON to FILE (`-` for stdout, in place of the text).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    json: Option<Option<Destination>>,
    /// Write the coverage as a Markdown table to FILE (`-` for stdout, in place of the text).
    #[arg(long, value_name = "FILE", value_parser = Destination::parse)]
    markdown: Option<Option<Destination>>,
}

/// `mcpspec list`: every check's id, level and cited requirements.
pub fn list(args: ListArgs) -> u8 {
    let checks = catalogue::all();
    let json = destination_or_stdout("--json", args.json);
    if let Err(e) = one_on_stdout(&[
        ("--json", json.as_ref()),
        ("--markdown", args.markdown.as_ref()),
    ]) {
        return usage_error(e);
    }
    if let Some(markdown) = &args.markdown {
        let page = check_reference::markdown(&checks, &mcpspec_client::checks::all());
        if let Err(e) = markdown.write(&page) {
            return usage_error(e);
        }
        if markdown.is_stdout() {
            return exit::OK;
        }
    }
    if let Some(json) = &json {
        let rows: Vec<_> = checks
            .iter()
            .map(|c| {
                let why = match c.isolation {
                    mcpspec_harness::check::Isolation::Fresh(why) => Some(why.reason()),
                    mcpspec_harness::check::Isolation::Shared => None,
                };
                serde_json::json!({
                    "id": c.id, "level": c.level, "era": c.era, "requirements": c.requirements,
                    "description": c.description, "expectation": c.expectation,
                    "isolation": c.isolation.label(), "fresh_because": why,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n";
        if let Err(e) = json.write(&text) {
            return usage_error(e);
        }
        if json.is_stdout() {
            return exit::OK;
        }
    }
    let width = checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    if args.isolation {
        for c in &checks {
            let why = match c.isolation {
                mcpspec_harness::check::Isolation::Fresh(why) => format!("  ({})", why.reason()),
                mcpspec_harness::check::Isolation::Shared => String::new(),
            };
            outln!("{:<width$}  {}{why}", c.id, c.isolation.label());
        }
        let fresh = checks.iter().filter(|c| !c.isolation.is_shared()).count();
        outln!(
            "\n{} checks: {} shared, {fresh} on a process of their own",
            checks.len(),
            checks.len() - fresh
        );
        return exit::OK;
    }
    for c in &checks {
        outln!(
            "{:<width$}  {:<6}  {}",
            c.id,
            c.level.to_string(),
            c.requirements.join(", ")
        );
    }
    outln!("\n{} checks", checks.len());
    exit::OK
}

/// `mcpspec coverage`: for each requirement id, the checks that cite it.
pub fn coverage(args: CoverageArgs) -> u8 {
    let coverage = Coverage::of(&catalogue::all());
    let json = destination_or_stdout("--json", args.json);
    let markdown = destination_or_stdout("--markdown", args.markdown);
    let stdout_taken =
        match one_on_stdout(&[("--json", json.as_ref()), ("--markdown", markdown.as_ref())]) {
            Ok(taken) => taken.is_some(),
            Err(e) => return usage_error(e),
        };
    for (destination, text) in [
        (&json, coverage.to_json() + "\n"),
        (&markdown, coverage.to_markdown()),
    ] {
        if let Some(destination) = destination {
            if let Err(e) = destination.write(&text) {
                return usage_error(e);
            }
        }
    }
    if !stdout_taken {
        out!("{}", coverage.to_text());
    }
    exit::OK
}
