//! Requirement coverage (`mcpspec coverage`): for each requirement id of the catalogue
//! (requirements.yaml), the checks that cite it, and the share of ids with at least one check,
//! overall, per era and per level.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::check::Check;
use crate::requirements;

/// Coverage of the requirement catalogue by a set of checks.
#[derive(Debug, Clone, Serialize)]
pub struct Coverage {
    /// Requirement ids with at least one check.
    pub covered: usize,
    /// All requirement ids.
    pub total: usize,
    /// Per era (`modern`, `legacy`, `all`).
    pub by_era: BTreeMap<String, Tally>,
    /// Per level, by its leading keyword (`MUST`, `MUST NOT`, `SHOULD`, `MAY`, `impl.`, other).
    pub by_level: BTreeMap<String, Tally>,
    /// One row per requirement, in catalogue order.
    pub requirements: Vec<Row>,
}

/// Covered out of total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub covered: usize,
    pub total: usize,
}

/// One requirement and the checks citing it.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub id: String,
    pub era: String,
    pub level: String,
    pub checks: Vec<String>,
}

impl Tally {
    fn add(&mut self, covered: bool) {
        self.total += 1;
        self.covered += usize::from(covered);
    }

    /// `covered/total (pct%)`.
    pub fn display(&self) -> String {
        format!(
            "{}/{} ({}%)",
            self.covered,
            self.total,
            percent(self.covered, self.total)
        )
    }
}

impl Coverage {
    /// Coverage of the requirement catalogue by `checks`.
    pub fn of(checks: &[Check]) -> Self {
        let mut by_era: BTreeMap<String, Tally> = BTreeMap::new();
        let mut by_level: BTreeMap<String, Tally> = BTreeMap::new();
        let mut rows: Vec<Row> = requirements::catalogue()
            .values()
            .map(|q| Row {
                id: q.id.clone(),
                era: q.era.clone(),
                level: q.level.clone(),
                checks: checks
                    .iter()
                    .filter(|c| c.requirements.contains(&q.id.as_str()))
                    .map(|c| c.id.to_owned())
                    .collect(),
            })
            .collect();
        // The catalogue map is keyed by id; report in the file's order (by prefix, then number).
        let order: Vec<&str> = requirements::CATALOGUE_YAML
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- id: "))
            .collect();
        rows.sort_by_key(|r| {
            order
                .iter()
                .position(|id| *id == r.id)
                .unwrap_or(usize::MAX)
        });
        let mut covered = 0;
        for r in &rows {
            let is_covered = !r.checks.is_empty();
            covered += usize::from(is_covered);
            by_era.entry(r.era.clone()).or_default().add(is_covered);
            by_level
                .entry(level_class(&r.level).to_owned())
                .or_default()
                .add(is_covered);
        }
        Coverage {
            covered,
            total: rows.len(),
            by_era,
            by_level,
            requirements: rows,
        }
    }

    /// `covered/total (pct%)` overall.
    pub fn figure(&self) -> String {
        Tally {
            covered: self.covered,
            total: self.total,
        }
        .display()
    }

    /// Plain text: the figures, then every requirement with its checks.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "requirement coverage: {}", self.figure());
        for (era, t) in &self.by_era {
            let _ = writeln!(out, "  era {era:<8} {}", t.display());
        }
        for (level, t) in &self.by_level {
            let _ = writeln!(out, "  level {level:<8} {}", t.display());
        }
        let width = self
            .requirements
            .iter()
            .map(|r| r.id.len())
            .max()
            .unwrap_or(0);
        let _ = writeln!(out);
        for r in &self.requirements {
            let checks = if r.checks.is_empty() {
                "-".to_owned()
            } else {
                r.checks.join(", ")
            };
            let _ = writeln!(out, "{:<width$}  {:<6}  {checks}", r.id, r.era);
        }
        out
    }

    /// Markdown: the figures and one table row per requirement.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "## Requirement coverage: {}\n", self.figure());
        let _ = writeln!(out, "| Era | Covered |\n|---|---:|");
        for (era, t) in &self.by_era {
            let _ = writeln!(out, "| {era} | {} |", t.display());
        }
        let _ = writeln!(out, "\n| Level | Covered |\n|---|---:|");
        for (level, t) in &self.by_level {
            let _ = writeln!(out, "| {level} | {} |", t.display());
        }
        let _ = writeln!(
            out,
            "\n| Requirement | Era | Level | Checks |\n|---|---|---|---|"
        );
        for r in &self.requirements {
            let checks = if r.checks.is_empty() {
                "—".to_owned()
            } else {
                r.checks
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join("<br>")
            };
            let _ = writeln!(out, "| {} | {} | {} | {checks} |", r.id, r.era, r.level);
        }
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// A catalogue level by its leading keyword (`MUST (JSON-RPC)` is MUST, `MUST NOT (derived)`
/// is MUST NOT, `impl. (conformance)` is impl.).
pub fn level_class(level: &str) -> &'static str {
    if level.starts_with("MUST NOT") {
        "MUST NOT"
    } else if level.starts_with("MUST") {
        "MUST"
    } else if level.starts_with("SHOULD") {
        "SHOULD"
    } else if level.starts_with("MAY") {
        "MAY"
    } else if level.starts_with("impl") {
        "impl."
    } else {
        "other"
    }
}

fn percent(part: usize, whole: usize) -> usize {
    (part * 100).checked_div(whole).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue;

    #[test]
    fn coverage_counts_every_requirement_once() {
        let c = Coverage::of(&catalogue::all());
        assert_eq!(c.total, 112);
        assert_eq!(c.requirements.len(), 112);
        assert_eq!(c.by_era.values().map(|t| t.total).sum::<usize>(), 112);
        assert_eq!(c.by_level.values().map(|t| t.total).sum::<usize>(), 112);
        assert_eq!(
            c.by_era.values().map(|t| t.covered).sum::<usize>(),
            c.covered
        );
        assert_eq!(c.requirements[0].id, "RPC-1", "catalogue order");
        let cited: usize = c
            .requirements
            .iter()
            .filter(|r| !r.checks.is_empty())
            .count();
        assert_eq!(cited, c.covered);
        assert!(c.covered > 0 && c.covered <= c.total);
    }

    #[test]
    fn a_requirement_lists_the_checks_that_cite_it() {
        let c = Coverage::of(&catalogue::all());
        let rpc6 = c.requirements.iter().find(|r| r.id == "RPC-6");
        assert!(rpc6.is_some_and(|r| {
            r.checks
                .iter()
                .any(|id| id == "jsonrpc/result-type/present")
        }));
        assert_eq!(Coverage::of(&[]).covered, 0);
    }

    #[test]
    fn levels_are_classed_by_their_keyword() {
        assert_eq!(level_class("MUST (JSON-RPC)"), "MUST");
        assert_eq!(level_class("MUST NOT (derived)"), "MUST NOT");
        assert_eq!(level_class("impl. (conformance)"), "impl.");
        assert_eq!(level_class("—"), "other");
    }
}
