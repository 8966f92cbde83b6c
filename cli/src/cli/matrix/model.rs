//! What a matrix is, as data: the columns (a target at each revision), the rows (requirements
//! and the checks that cite them) and each target's score. `matrix.json` is this, serialized;
//! the HTML and Markdown pages are rendered from it alone, so a page built from the per-target
//! records of many machines (`mcpspec matrix merge`) equals the page of one machine's run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use mcpspec_harness::outcome::{Kind, Level};

/// The version of `matrix.json` and of a target record (`docs/matrix.schema.json`).
pub const SCHEMA_VERSION: u32 = 1;

/// A target's role: what kind of MCP peer it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Server,
    Client,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }
}

/// The whole comparison: `DIR/matrix.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    pub schema_version: u32,
    /// The revisions compared, newest first (the columns under each target).
    pub revisions: Vec<String>,
    /// One entry per target, in the matrix file's order.
    pub targets: Vec<Column>,
    /// The rows: every requirement some target's checks cite, by role then id.
    pub requirements: Vec<RequirementRow>,
}

/// One target, scored per revision (POL-35).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub role: Role,
    /// 1, 2 or 3; `null` when the target could not be run or judged at all.
    pub tier: Option<u8>,
    /// What kept the target out of the next tier up, one sentence per revision that did
    /// (empty for Tier 1).
    #[serde(default)]
    pub kept_from_next: Vec<String>,
    /// Why the target could not be run, when it could not: every one of its cells is an Error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Each revision's score, keyed by revision.
    pub revisions: BTreeMap<String, RevisionScore>,
    /// Each check's outcome, keyed by check id, then by revision.
    pub checks: BTreeMap<String, BTreeMap<String, Kind>>,
}

/// A target at one revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevisionScore {
    /// Checks that passed ÷ checks that ran (every outcome but Skipped), 0 to 1, four places.
    pub pass_rate: f64,
    /// Requirements with a passing check and no failing or erring one.
    pub met: Vec<String>,
    /// Requirements with a failing or erring check.
    pub not_met: Vec<String>,
    /// Requirements of this revision whose every check was skipped, NonStrict or Info.
    pub not_verified: Vec<String>,
    /// Why the target does not serve this revision, when the runner found it does not: only
    /// the checks that do not depend on the revision ran there, and the pages say "not served"
    /// in place of the pass rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_served: Option<String>,
    /// Where the run at this revision is: its HTML report, relative to the matrix page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// Its transcripts' folder, relative to the matrix page (a check's file is
    /// `<id with / as __>.yaml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcripts: Option<String>,
}

/// A row of the page: one requirement, with the checks that cite it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequirementRow {
    pub id: String,
    /// The id's prefix (`RPC`, `HTTP`, `CLI`): rows are grouped by it.
    pub area: String,
    pub role: Role,
    /// As the catalogue words it: `MUST`, `SHOULD`, `MUST / SHOULD`, …
    pub level: String,
    /// `modern`, `legacy` or `all`: which revisions it applies to.
    pub era: String,
    pub text: String,
    /// The checks citing it that some target ran, with their own level.
    pub checks: Vec<CheckRow>,
}

/// A check under a requirement row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRow {
    pub id: String,
    pub level: Level,
}

impl RevisionScore {
    /// The pass rate as the pages print it, or "not served" where the target does not serve
    /// the revision (what ran there does not depend on it, so its rate says nothing of it).
    pub fn rate_text(&self) -> String {
        match self.not_served {
            Some(_) => "not served".to_owned(),
            None => percent(self.pass_rate),
        }
    }
}

/// A rate (0 to 1) as a percentage truncated to one place, never rounded up: 0.9996 is 99.9%,
/// not 100%.
pub fn percent(rate: f64) -> String {
    if !rate.is_finite() {
        return "—".into();
    }
    // The small tolerance keeps a rate read back from JSON on the same side of a tenth.
    let tenths = (rate * 1000.0 + 1e-6).floor().clamp(0.0, 1000.0) as u32;
    if tenths % 10 == 0 {
        format!("{}%", tenths / 10)
    } else {
        format!("{}.{}%", tenths / 10, tenths % 10)
    }
}
