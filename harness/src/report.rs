//! Reports: serde data first ([`RunReport`]), renderers second (console, JSON, JUnit in
//! `report/junit.rs`, Markdown in `report/markdown.rs`), and the status line of long runs.
//!
//! Owns `report/`. May import the outcome model, the check definitions (ids, levels), the requirement
//! catalogue, the target's description and the transcript it renders; never the runner or a check's script: a report is data in, text out.

mod junit;
mod markdown;
mod status_line;

pub use status_line::StatusLine;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use crate::check::{Check, Facts};
use crate::outcome::{Kind, Level, Outcome};
use crate::requirements;
use crate::target::Target;
use crate::transcript::Entry;

/// The result of one check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    pub id: String,
    pub requirements: Vec<String>,
    pub level: Level,
    pub outcome: Outcome,
    pub duration_ms: u64,
    /// Where the transcript was written, if it was (`--transcripts DIR`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// Set when a baseline lists this check (the reason it gives).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_reason: Option<String>,
    #[serde(skip)]
    pub transcript: Vec<Entry>,
}

impl CheckResult {
    pub fn new(
        check: &Check,
        outcome: Outcome,
        duration: Duration,
        transcript: Vec<Entry>,
    ) -> Self {
        CheckResult {
            id: check.id.to_owned(),
            requirements: check.requirements.iter().map(|r| (*r).to_owned()).collect(),
            level: check.level,
            outcome,
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            transcript_path: None,
            baseline_reason: None,
            transcript,
        }
    }

    /// The area for grouping: the id without its last segment.
    pub fn area(&self) -> &str {
        self.id
            .rsplit_once('/')
            .map_or(self.id.as_str(), |(a, _)| a)
    }
}

/// What the harness learned about the target's eras before the checks.
#[derive(Debug, Clone, Serialize)]
pub struct Negotiated {
    /// "modern", "legacy" or "none": where a dual-era client ends up.
    pub era: String,
    /// The version that client agrees on.
    pub version: Option<String>,
    /// Versions seen served: discover's `supportedVersions`, then the legacy handshake's, each
    /// once (a server may list a version twice, or answer `initialize` with one it also
    /// lists in discover).
    pub versions: Vec<String>,
    /// The path negotiation took.
    pub path: String,
}

impl Negotiated {
    pub fn from_facts(facts: &Facts) -> Self {
        let (era, version, path) = match &facts.negotiation {
            Some(n) => (n.era.clone(), n.version.clone(), n.path.to_string()),
            None => ("none".into(), None, "not negotiated".into()),
        };
        let mut versions: Vec<String> = Vec::new();
        let seen = facts
            .supported_versions()
            .into_iter()
            .chain(facts.legacy_version().map(str::to_owned));
        for v in seen {
            if !versions.contains(&v) {
                versions.push(v);
            }
        }
        Negotiated {
            era,
            version,
            versions,
            path,
        }
    }
}

/// Counts per outcome kind.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub total: usize,
    pub pass: usize,
    pub non_strict: usize,
    pub fail: usize,
    pub info: usize,
    pub skipped: usize,
    pub error: usize,
    /// Fail or Error outcomes not listed in the baseline.
    pub unexpected: usize,
    /// Baseline entries whose check did not fail.
    pub stale: Vec<String>,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub mcpspec_version: String,
    pub target: String,
    pub transport: String,
    pub negotiated: Negotiated,
    pub results: Vec<CheckResult>,
    pub summary: Summary,
    pub duration_ms: u64,
    /// Set when the target never produced a JSON-RPC message: every check is an Error with
    /// this reason and the run exits 3 (the target, not a check, failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_failure: Option<String>,
    /// How many server processes the run started, and how checks were isolated (POL-21).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processes: Option<Processes>,
    /// How many instances of the server the `stateless/*` checks used (POL-22), when several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instances: Option<usize>,
}

/// The run's server processes: how many were started (probes, pooled, fresh and spares), under
/// which `--isolation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Processes {
    pub started: usize,
    pub isolation: String,
    /// Why `--isolation shared` shared no process in this run (the server failed the pool's
    /// qualification), if it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpooled: Option<String>,
}

impl RunReport {
    pub fn new(
        target: &Target,
        negotiated: Negotiated,
        results: Vec<CheckResult>,
        took: Duration,
    ) -> Self {
        let mut report = RunReport {
            mcpspec_version: env!("CARGO_PKG_VERSION").into(),
            target: target.describe(),
            transport: target.transport_name().into(),
            negotiated,
            results,
            summary: Summary::default(),
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            target_failure: None,
            processes: None,
            instances: None,
        };
        report.summarize();
        report
    }

    /// Recounts the summary (after a baseline was applied).
    pub fn summarize(&mut self) {
        let stale = std::mem::take(&mut self.summary.stale);
        let mut s = Summary {
            total: self.results.len(),
            stale,
            ..Summary::default()
        };
        for r in &self.results {
            match r.outcome.kind {
                Kind::Pass => s.pass += 1,
                Kind::NonStrict => s.non_strict += 1,
                Kind::Fail => s.fail += 1,
                Kind::Info => s.info += 1,
                Kind::Skipped => s.skipped += 1,
                Kind::Error => s.error += 1,
            }
            if matches!(r.outcome.kind, Kind::Fail | Kind::Error) && r.baseline_reason.is_none() {
                s.unexpected += 1;
            }
        }
        self.summary = s;
    }

    /// Whether the run is green: no unexpected Fail/Error and no stale baseline entry.
    pub fn passed(&self) -> bool {
        self.summary.unexpected == 0 && self.summary.stale.is_empty()
    }

    pub fn result(&self, id: &str) -> Option<&CheckResult> {
        self.results.iter().find(|r| r.id == id)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The console rendering: grouped by area, one line per check, the requirement text under
    /// every failure, a summary line.
    pub fn to_console(&self, color: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "mcpspec {} — {} ({})",
            self.mcpspec_version, self.target, self.transport
        );
        let n = &self.negotiated;
        let _ = writeln!(
            out,
            "negotiated: {} {} — {}",
            n.era,
            n.version.as_deref().unwrap_or("-"),
            n.path
        );
        let mut areas: BTreeMap<usize, (&str, Vec<&CheckResult>)> = BTreeMap::new();
        let mut order: Vec<&str> = Vec::new();
        for r in &self.results {
            let area = r.area();
            let pos = order.iter().position(|a| *a == area).unwrap_or_else(|| {
                order.push(area);
                order.len() - 1
            });
            areas.entry(pos).or_insert((area, Vec::new())).1.push(r);
        }
        let mut stateless_said = false;
        for (area, results) in areas.values() {
            if area.starts_with(STATELESS) && !stateless_said {
                stateless_said = true;
                let _ = write!(out, "\n{}", self.stateless_heading());
            }
            let _ = writeln!(out, "\n{area}");
            for r in results {
                let label = paint(r.outcome.kind, color);
                let name = r.id.rsplit_once('/').map_or(r.id.as_str(), |(_, n)| n);
                let _ = writeln!(out, "  {label} {name} — {}", r.outcome.message);
                if let Some(evidence) = &r.outcome.evidence {
                    let _ = writeln!(out, "         judged: {evidence}");
                }
                if let Some(reason) = &r.baseline_reason {
                    let _ = writeln!(out, "         (baseline: {reason})");
                }
                if matches!(r.outcome.kind, Kind::Fail | Kind::NonStrict) {
                    for req in &r.requirements {
                        if let Some(q) = requirements::requirement(req) {
                            let _ = writeln!(out, "         {} [{}] {}", q.id, q.level, q.text);
                        }
                    }
                }
            }
        }
        let s = &self.summary;
        let _ = writeln!(
            out,
            "\n{} checks: {} pass, {} non-strict, {} fail, {} info, {} skipped, {} error in {:.2} s",
            s.total,
            s.pass,
            s.non_strict,
            s.fail,
            s.info,
            s.skipped,
            s.error,
            self.duration_ms as f64 / 1000.0
        );
        if let Some(p) = &self.processes {
            let what = if self.transport == "stdio" {
                "server processes"
            } else {
                "servers"
            };
            let _ = writeln!(
                out,
                "{} {what} started (--isolation {})",
                p.started, p.isolation
            );
            if let Some(why) = &p.unpooled {
                let _ = writeln!(out, "no process shared: {why}");
            }
        }
        if s.unexpected > 0 {
            let _ = writeln!(out, "{} unexpected failure(s)", s.unexpected);
        }
        for id in &s.stale {
            let _ = writeln!(out, "stale baseline entry: {id} no longer fails");
        }
        out
    }
}

/// The id prefix of the checks that run across instances (POL-22).
const STATELESS: &str = "stateless/";

impl RunReport {
    /// The `stateless/*` results (SCALE-1..3).
    fn stateless(&self) -> Vec<&CheckResult> {
        self.results
            .iter()
            .filter(|r| r.id.starts_with(STATELESS))
            .collect()
    }

    /// The line that opens the `stateless/*` group: across how many instances, and its counts.
    fn stateless_heading(&self) -> String {
        let results = self.stateless();
        let mut counts: Vec<String> = Vec::new();
        for (kind, name) in [
            (Kind::Pass, "pass"),
            (Kind::NonStrict, "non-strict"),
            (Kind::Fail, "fail"),
            (Kind::Info, "info"),
            (Kind::Skipped, "skipped"),
            (Kind::Error, "error"),
        ] {
            let n = results.iter().filter(|r| r.outcome.kind == kind).count();
            if n > 0 {
                counts.push(format!("{n} {name}"));
            }
        }
        let across = match self.instances {
            Some(n) => format!("across {n} instances"),
            None => "one instance (--replicas N or several --url for more)".into(),
        };
        format!("stateless/* {across} (POL-22): {}\n", counts.join(", "))
    }
}

fn paint(kind: Kind, color: bool) -> String {
    let label = format!("{:<10}", kind.label());
    if !color {
        return label;
    }
    let code = match kind {
        Kind::Pass => "32",
        Kind::NonStrict => "33",
        Kind::Fail | Kind::Error => "31",
        Kind::Info => "36",
        Kind::Skipped => "90",
    };
    format!("\x1b[{code}m{label}\x1b[0m")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiated_versions_are_listed_once() {
        let facts = Facts {
            discover: Some(serde_json::json!({
                "supportedVersions": ["2026-07-28", "2025-11-25", "2026-07-28"]
            })),
            initialize: Some(serde_json::json!({"protocolVersion": "2025-11-25"})),
            ..Facts::default()
        };
        assert_eq!(
            Negotiated::from_facts(&facts).versions,
            ["2026-07-28", "2025-11-25"]
        );
    }
}
