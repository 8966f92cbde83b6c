//! Reports: serde data first ([`RunReport`]), renderers second (console, JSON, JUnit in
//! `report/junit.rs`, Markdown in `report/markdown.rs`), and the progress of long runs
//! (`progress.rs`: a bar on a terminal, a plain line every 10 s elsewhere).
//!
//! Owns `report/`. May import the outcome model, the check definitions (ids, levels), the requirement
//! catalogue, the target's description and the transcript it renders; never the runner or a check's script: a report is data in, text out.

mod annotations;
pub mod html;
mod junit;
mod markdown;
pub mod merge;

pub use crate::progress::{Progress, mode_here as progress_mode};

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::check::{Check, Facts};
use crate::outcome::{Kind, Level, Outcome};
use crate::requirements;
use crate::target::Target;
use mcpspec_core::transcript::Entry;

/// The policy every check of the feature surface cites (what is read and called).
pub const FEATURE_POLICY: &str = "POL-31";

/// The result of one check.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckResult {
    pub id: String,
    pub requirements: Vec<String>,
    pub level: Level,
    pub outcome: Outcome,
    pub duration_ms: u64,
    /// Where the transcript was written, if it was (`--transcripts DIR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// Set when a baseline lists this check (the reason it gives).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_reason: Option<String>,
    /// The transport the check ran on, when a run used more than one (the no-target run:
    /// `stdio` or `http`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// Every event of the check (the JSON report carries it, so `mcpspec report RUN.json
    /// --html` draws the conversation again from the JSON itself).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transcript: Vec<Entry>,
    /// The earlier traffic on the same connection the verdict depends on (POL-30): replayed at
    /// the start of the transcript, and again by `mcpspec replay TRANSCRIPT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<mcpspec_core::transcript::Prefix>,
    /// How a non-pass verdict from a shared process was confirmed on a fresh one (POL-30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<Confirmation>,
    /// The group of the run's plan the check ran in (POL-30.3), when it ran on shared processes:
    /// the checks of one group share processes, one after another in the plan's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<usize>,
}

/// How a verdict obtained on a process earlier checks had used was confirmed (POL-30).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "by")]
pub enum Confirmation {
    /// A fresh process gave the same verdict: the transcript is the fresh run's.
    SameOnFresh,
    /// A fresh process passed; `messages` of the earlier traffic reproduce the verdict, and
    /// the transcript starts with them.
    EarlierTraffic { messages: usize },
    /// Nothing reproduced the shared process's verdict on a fresh one (Info, never Fail).
    DidNotRecur { shared: Kind },
    /// A fresh process gave another non-pass verdict, which stands (its transcript is
    /// self-contained); the shared process's verdict did not recur.
    FreshDiffers { shared: Kind },
    /// Not re-run: the check was its process's first traffic after the pool's admission
    /// exchange, at the check's own era and version, so that process was as good as fresh
    /// (POL-30.1).
    FirstAfterAdmission,
}

impl Confirmation {
    /// Whether a fresh process ran the check again.
    pub fn re_ran(self) -> bool {
        self != Confirmation::FirstAfterAdmission
    }
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
            transport: None,
            transcript,
            prefix: None,
            confirmed: None,
            group: None,
        }
    }

    /// Whether the check belongs to the feature surface (it cites POL-31): the reports group
    /// these under "Features", item by item.
    pub fn is_feature(&self) -> bool {
        self.requirements.iter().any(|r| r == FEATURE_POLICY)
    }

    /// The area for grouping: the id without its last segment.
    pub fn area(&self) -> &str {
        self.id
            .rsplit_once('/')
            .map_or(self.id.as_str(), |(a, _)| a)
    }

    /// The check's transcript file (`--transcripts DIR`): a header that says which check it
    /// is, how it ended and why, then the events; a skipped check has only the header, its
    /// message saying why it was skipped. `replay` is what `mcpspec replay` needs besides the
    /// target to run the check again.
    pub fn transcript_file<'a>(&'a self, replay: Option<&'a ReplayHints>) -> TranscriptFile<'a> {
        TranscriptFile {
            check: &self.id,
            outcome: self.outcome.kind.label(),
            message: &self.outcome.message,
            requirements: &self.requirements,
            judged: self.outcome.evidence.as_ref().map(ToString::to_string),
            baseline: self.baseline_reason.as_deref(),
            replay: replay.filter(|r| !r.is_empty()),
            prefix: self.prefix.as_ref(),
            transcript: &self.transcript,
        }
    }
}

/// The run options a check's verdict may depend on, written into its transcript file so that
/// `mcpspec replay TRANSCRIPT` runs it as it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayHints {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_tool: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub probe_profile: bool,
    /// `--max-items`, when not the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<usize>,
    /// `--revision`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

impl ReplayHints {
    pub fn is_empty(&self) -> bool {
        self.allow_tool.is_empty()
            && !self.probe_profile
            && self.max_items.is_none()
            && self.revision.is_none()
    }
}

/// One check's transcript as written by `--transcripts DIR` (see [`CheckResult::transcript_file`]).
#[derive(Debug, Serialize)]
pub struct TranscriptFile<'a> {
    pub check: &'a str,
    pub outcome: &'static str,
    pub message: &'a str,
    pub requirements: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<&'a ReplayHints>,
    /// The earlier traffic the transcript starts with (POL-30): what `mcpspec replay` writes
    /// before it runs the check again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<&'a mcpspec_core::transcript::Prefix>,
    #[serde(skip_serializing_if = "<[Entry]>::is_empty")]
    pub transcript: &'a [Entry],
}

/// What the harness learned about the target's eras before the checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    /// The skipped checks counted by why they were skipped ([`skip_group`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_by_reason: BTreeMap<String, usize>,
}

impl Summary {
    /// How many checks ended with `kind`.
    pub fn count(&self, kind: Kind) -> usize {
        match kind {
            Kind::Pass => self.pass,
            Kind::NonStrict => self.non_strict,
            Kind::Fail => self.fail,
            Kind::Info => self.info,
            Kind::Skipped => self.skipped,
            Kind::Error => self.error,
        }
    }
}

/// Why a check was skipped, as a short phrase shared by every check skipped for that reason:
/// the runner's reasons (docs/outcomes.md) by their fixed opening words; a reason a check
/// gave itself stands as it is.
pub fn skip_group(reason: &str) -> String {
    const GROUPS: &[(&str, &str)] = &[
        ("not a stdio target", "stdio only (this target is a URL)"),
        ("not an HTTP target", "HTTP only (use --url)"),
        ("needs --probe-profile", "needs --probe-profile"),
        ("needs --allow-tool", "needs --allow-tool"),
        (
            "needs two or more instances",
            "needs several instances (--replicas N)",
        ),
        ("applies to modern-only servers", "modern-only server"),
        (
            "the server does not serve 2026-07-28",
            "2026-07-28 not served",
        ),
        (
            "the server serves no legacy revision",
            "no legacy revision served",
        ),
        ("the server serves neither", "neither era served"),
        (
            "the server does not advertise the `",
            "capability not advertised",
        ),
        (
            "the probe-profile tool `",
            "a probe-profile tool not listed",
        ),
    ];
    GROUPS
        .iter()
        .find(|(opening, _)| reason.starts_with(opening))
        .map_or_else(|| reason.to_owned(), |(_, group)| (*group).to_owned())
}

/// The version of the JSON report's shape, written as its `schema_version` and described by
/// `docs/report.schema.json`. A reader refuses a report of another version
/// ([`RunReport::from_json`]) instead of misreading it.
pub const SCHEMA_VERSION: u32 = 2;

/// Why a JSON document is not a report this mcpspec reads (each reads after the file's name).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("is not an mcpspec JSON report: {0}")]
    NotAReport(String),
    #[error(
        "is an mcpspec JSON report of schema_version {found}, and this mcpspec reads \
         {SCHEMA_VERSION} (a report without the field reads as 0): write it again with this \
         mcpspec"
    )]
    Version { found: u64 },
}

/// A whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    /// [`SCHEMA_VERSION`] when written; a report written before the field existed reads as 0.
    #[serde(default)]
    pub schema_version: u32,
    pub mcpspec_version: String,
    pub target: String,
    pub transport: String,
    pub negotiated: Negotiated,
    pub results: Vec<CheckResult>,
    pub summary: Summary,
    pub duration_ms: u64,
    /// Set when the target never produced a JSON-RPC message: every check is an Error with
    /// this reason and the run exits 3 (the target, not a check, failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_failure: Option<String>,
    /// How many server processes the run started, and how checks were isolated (POL-21).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<Processes>,
    /// The version-negotiation matrix (`mcpspec negotiate`), when the run asked the target for
    /// it (`run --html`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negotiation_matrix: Option<crate::negotiation::Matrix>,
    /// How many instances of the server the `stateless/*` checks used (POL-22), when several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instances: Option<usize>,
    /// Set for a run of `mcpspec client`: the subject is a client (`target` is its command),
    /// and each scenario it ran is listed with how the client ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientRun>,
    /// The one revision the run judged (`--revision`), when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// Why the server does not serve that revision, when the probe found it does not (the
    /// checks that speak it were skipped with this reason; only revision-independent ones ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_served: Option<String>,
}

/// The scenarios of an `mcpspec client` run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRun {
    pub scenarios: Vec<ScenarioRun>,
}

/// One scenario of an `mcpspec client` run: how the client ended and how long it took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioRun {
    pub name: String,
    /// `exit status 0`, `killed by signal 11`, …
    pub end: String,
    pub duration_ms: u64,
}

/// The run's server processes: how many were started (probes, pooled, fresh and spares), under
/// which `--isolation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Processes {
    pub started: usize,
    pub isolation: String,
    /// Why `--isolation shared` shared no process in this run (the server failed the pool's
    /// qualification), if it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpooled: Option<String>,
    /// Non-pass verdicts of shared processes run again on a fresh one (POL-30).
    #[serde(default)]
    pub confirmations: usize,
    /// The processes started, by why: `probe` (first contact and the era probes), `pool`
    /// (shared modern processes), `legacy session`, `fresh: CLASS` (a fresh-class check, by
    /// its class), `confirmation` (POL-30), `fresh mode` (`--isolation fresh`), `other`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_reason: BTreeMap<String, usize>,
    /// Shared processes that stopped answering after a check, charged to it and replaced.
    #[serde(default)]
    pub replaced: usize,
}

impl Processes {
    /// Adds another run's counts (a shard's, or the other transport's).
    pub fn add(&mut self, other: Processes) {
        self.started += other.started;
        self.confirmations += other.confirmations;
        self.replaced += other.replaced;
        for (why, n) in other.by_reason {
            *self.by_reason.entry(why).or_default() += n;
        }
        self.unpooled = self.unpooled.take().or(other.unpooled);
    }

    /// `3 probe, 2 pool, …` in a fixed order: what the run started, then the rest by name.
    pub fn reasons(&self) -> String {
        let first = ["probe", "pool", "legacy session"];
        let mut parts: Vec<String> = first
            .iter()
            .filter_map(|r| self.by_reason.get(*r).map(|n| format!("{n} {r}")))
            .collect();
        parts.extend(
            self.by_reason
                .iter()
                .filter(|(r, _)| !first.contains(&r.as_str()))
                .map(|(r, n)| format!("{n} {r}")),
        );
        parts.join(", ")
    }
}

impl RunReport {
    pub fn new(
        target: &Target,
        negotiated: Negotiated,
        results: Vec<CheckResult>,
        took: Duration,
    ) -> Self {
        let mut report = RunReport {
            schema_version: SCHEMA_VERSION,
            mcpspec_version: env!("CARGO_PKG_VERSION").into(),
            target: target.describe(),
            transport: target.transport_name().into(),
            negotiated,
            results,
            summary: Summary::default(),
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            target_failure: None,
            processes: None,
            negotiation_matrix: None,
            instances: None,
            client: None,
            revision: None,
            not_served: None,
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
            if r.outcome.kind == Kind::Skipped {
                *s.skipped_by_reason
                    .entry(skip_group(&r.outcome.message))
                    .or_default() += 1;
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

    /// "56 skipped: 28 HTTP only (use --url), 27 needs --probe-profile, 1 modern-only server":
    /// the skipped checks grouped by reason, the largest group first; `None` if none was.
    pub fn skip_line(&self) -> Option<String> {
        let mut groups: Vec<(&String, &usize)> = self.summary.skipped_by_reason.iter().collect();
        if groups.is_empty() {
            return None;
        }
        groups.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let parts: Vec<String> = groups.iter().map(|(why, n)| format!("{n} {why}")).collect();
        Some(format!(
            "{} skipped: {}",
            self.summary.skipped,
            parts.join(", ")
        ))
    }

    pub fn result(&self, id: &str) -> Option<&CheckResult> {
        self.results.iter().find(|r| r.id == id)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The same JSON as [`RunReport::to_json`], streamed into `w` (a report with every
    /// transcript runs to megabytes: it is not built as one string first).
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(w, self).map_err(|e| match e.io_error_kind() {
            // Keep the kind (a closed stdout is BrokenPipe, which is not an error to report).
            Some(kind) => std::io::Error::new(kind, e),
            None => std::io::Error::other(e),
        })
    }

    /// The self-contained HTML page (`report/html.rs`).
    pub fn to_html(&self) -> String {
        html::render(self)
    }

    /// A report from its JSON (`mcpspec run --json`), refused unless it is of this mcpspec's
    /// [`SCHEMA_VERSION`].
    pub fn from_json(json: serde_json::Value) -> Result<RunReport, ReadError> {
        if !json["results"].is_array() {
            return Err(ReadError::NotAReport(
                "no `results` list: not a report of `mcpspec run --json`".into(),
            ));
        }
        let found = json["schema_version"].as_u64().unwrap_or(0);
        if found != u64::from(SCHEMA_VERSION) {
            return Err(ReadError::Version { found });
        }
        serde_json::from_value(json).map_err(|e| ReadError::NotAReport(e.to_string()))
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
        match &self.client {
            Some(run) => {
                let ok = run
                    .scenarios
                    .iter()
                    .filter(|s| s.end == "exit status 0")
                    .count();
                let _ = writeln!(
                    out,
                    "client under test: {} scenario(s), {ok} ended with exit status 0",
                    run.scenarios.len()
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "negotiated: {} {} — {}",
                    n.era,
                    n.version.as_deref().unwrap_or("-"),
                    n.path
                );
            }
        }
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
        if let Some(line) = self.skip_line() {
            let _ = writeln!(out, "{line}");
        }
        if let Some(p) = &self.processes {
            let what = if self.transport == "stdio" {
                "server processes"
            } else {
                "servers"
            };
            let reasons = p.reasons();
            let _ = writeln!(
                out,
                "{} {what} started (--isolation {}){}{}",
                p.started,
                p.isolation,
                if reasons.is_empty() {
                    String::new()
                } else {
                    format!(": {reasons}")
                },
                match (p.confirmations, p.replaced) {
                    (0, 0) => String::new(),
                    (c, r) =>
                        format!("; {c} verdict(s) confirmed on a fresh process, {r} replaced"),
                }
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

/// A report format a run writes to a file or stdout (`--json`, `--junit`, `--markdown`,
/// `--html`): adding one is a variant here, its renderer beside the others in `report/`, and its
/// flag in the CLI's `ReportFiles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Junit,
    Markdown,
    Html,
}

impl Format {
    /// Every format, in the order a run writes them.
    pub const ALL: [Format; 4] = [Format::Json, Format::Junit, Format::Markdown, Format::Html];

    /// The flag that asks for it.
    pub fn flag(self) -> &'static str {
        match self {
            Format::Json => "--json",
            Format::Junit => "--junit",
            Format::Markdown => "--markdown",
            Format::Html => "--html",
        }
    }

    /// The report rendered in this format. (A run streams its JSON instead, with
    /// [`RunReport::write_json`]: a report with every transcript runs to megabytes.)
    pub fn render(self, report: &RunReport) -> String {
        match self {
            Format::Json => report.to_json(),
            Format::Junit => report.to_junit(),
            Format::Markdown => report.to_markdown(),
            Format::Html => report.to_html(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_are_grouped_by_the_runners_reasons_and_others_stand() {
        assert_eq!(
            skip_group("not an HTTP target (use --url)"),
            "HTTP only (use --url)"
        );
        assert_eq!(
            skip_group("the server does not advertise the `logging` capability (POL-11)"),
            "capability not advertised"
        );
        assert_eq!(
            skip_group("resources/list lists no resource to read"),
            "resources/list lists no resource to read"
        );
    }

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
