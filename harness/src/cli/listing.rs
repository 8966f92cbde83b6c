//! `mcpspec list` and `mcpspec coverage`: the catalogue and the requirement coverage, read from
//! the library, printed as a table, JSON or Markdown. Nothing is started.

use mcpspec::coverage::Coverage;
use mcpspec::{catalogue, out, outln};

/// `mcpspec list`: every check's id, level and cited requirements.
pub fn list(json: bool) {
    let checks = catalogue::all();
    if json {
        let rows: Vec<_> = checks
            .iter()
            .map(|c| {
                serde_json::json!({
                    "id": c.id, "level": c.level, "era": c.era, "requirements": c.requirements,
                    "description": c.description, "expectation": c.expectation,
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
        return;
    }
    let width = checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for c in &checks {
        outln!(
            "{:<width$}  {:<6}  {}",
            c.id,
            c.level.to_string(),
            c.requirements.join(", ")
        );
    }
    outln!("\n{} checks", checks.len());
}

/// `mcpspec coverage`: for each requirement id, the checks that cite it.
pub fn coverage(json: bool, markdown: bool) {
    let coverage = Coverage::of(&catalogue::all());
    if json {
        outln!("{}", coverage.to_json());
    } else if markdown {
        out!("{}", coverage.to_markdown());
    } else {
        out!("{}", coverage.to_text());
    }
}
