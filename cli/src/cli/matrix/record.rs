//! A target's record (`DIR/<name>/report.json`): its verdicts at each revision, all that the
//! matrix needs of it. A single-machine run and `mcpspec matrix merge` both build the matrix
//! from records alone ([`build`]), so their pages are the same.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use mcpspec_harness::outcome::Kind;
use mcpspec_harness::report::RunReport;
use mcpspec_harness::requirements;

use super::model::{CheckRow, Column, Matrix, RequirementRow, Role, SCHEMA_VERSION};
use super::score::{self, Verdict};

/// What a target record says it is, so `merge` refuses other JSON files.
pub const KIND: &str = "mcpspec-matrix-target";

/// One target's verdicts at each revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetRecord {
    pub schema_version: u32,
    /// Always [`KIND`].
    pub kind: String,
    /// Its place in the matrix file (columns keep the file's order when merged).
    pub index: usize,
    /// The matrix's revisions, newest first (every record of one matrix names the same).
    pub matrix_revisions: Vec<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub role: Role,
    /// Why the target could not be run, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// By revision.
    pub runs: BTreeMap<String, RevisionRun>,
}

/// The target at one revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevisionRun {
    /// Its HTML report, relative to the matrix's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// Its transcripts' folder, relative to the matrix's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcripts: Option<String>,
    /// Why the target does not serve the revision, when its run found it does not
    /// (`RunReport::not_served`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_served: Option<String>,
    pub verdicts: Vec<Verdict>,
}

impl RevisionRun {
    /// The verdicts of a run report, with where its files are.
    pub fn from_report(
        report: &RunReport,
        html: Option<String>,
        transcripts: Option<String>,
    ) -> Self {
        RevisionRun {
            report: html,
            transcripts,
            not_served: report.not_served.clone(),
            verdicts: report
                .results
                .iter()
                .map(|r| Verdict {
                    id: r.id.clone(),
                    requirements: r.requirements.clone(),
                    level: r.level,
                    kind: r.outcome.kind,
                    message: r.outcome.message.clone(),
                })
                .collect(),
        }
    }

    /// A run that could not be made: every check an Error with `reason`.
    pub fn errors(
        checks: &[(String, Vec<String>, mcpspec_harness::outcome::Level)],
        reason: &str,
    ) -> Self {
        RevisionRun {
            report: None,
            transcripts: None,
            not_served: None,
            verdicts: checks
                .iter()
                .map(|(id, requirements, level)| Verdict {
                    id: id.clone(),
                    requirements: requirements.clone(),
                    level: *level,
                    kind: Kind::Error,
                    message: reason.to_owned(),
                })
                .collect(),
        }
    }
}

/// The matrix of `records` at `revisions` (newest first): each target scored (POL-35), the
/// rows every requirement some target's checks cite.
pub fn build(revisions: &[String], records: &[TargetRecord]) -> Matrix {
    let mut records: Vec<&TargetRecord> = records.iter().collect();
    records.sort_by_key(|r| r.index);
    let targets = records.iter().map(|r| column(r)).collect();
    Matrix {
        schema_version: SCHEMA_VERSION,
        revisions: revisions.to_vec(),
        targets,
        requirements: rows(&records),
    }
}

/// The target's column: its scores by revision and its tier.
pub fn column(record: &TargetRecord) -> Column {
    let mut revisions = BTreeMap::new();
    let mut checks: BTreeMap<String, BTreeMap<String, Kind>> = BTreeMap::new();
    let mut notes = BTreeMap::new();
    for (rev, run) in &record.runs {
        let note = score::RevisionNote::of(run);
        let mut s = score::score(record.role, rev, &run.verdicts);
        s.report = run.report.clone();
        s.transcripts = run.transcripts.clone();
        s.not_served = note.not_served.clone();
        revisions.insert(rev.clone(), s);
        notes.insert(rev.clone(), note);
        for v in &run.verdicts {
            checks
                .entry(v.id.clone())
                .or_default()
                .insert(rev.clone(), v.kind);
        }
    }
    let (tier, kept_from_next) = match &record.error {
        // The column head says why it was not run.
        Some(_) => (None, vec![]),
        None => {
            let (tier, why) = score::tier(record.role, &revisions, &notes);
            (Some(tier), why)
        }
    };
    Column {
        name: record.name.clone(),
        label: record.label.clone(),
        role: record.role,
        tier,
        kept_from_next,
        error: record.error.clone(),
        revisions,
        checks,
    }
}

/// Every requirement some target's checks cite, server rows before client rows, in reading
/// order; under each, the checks citing it in the order the reports list them.
fn rows(records: &[&TargetRecord]) -> Vec<RequirementRow> {
    let mut cited: BTreeMap<(Role, String), Vec<CheckRow>> = BTreeMap::new();
    let mut seen: BTreeSet<(Role, String, String)> = BTreeSet::new();
    for record in records {
        let catalogue = match record.role {
            Role::Server => requirements::catalogue(),
            Role::Client => requirements::client_catalogue(),
        };
        for run in record.runs.values() {
            for v in &run.verdicts {
                for req in v.requirements.iter().filter(|r| catalogue.contains_key(*r)) {
                    if seen.insert((record.role, req.clone(), v.id.clone())) {
                        cited
                            .entry((record.role, req.clone()))
                            .or_default()
                            .push(CheckRow {
                                id: v.id.clone(),
                                level: v.level,
                            });
                    }
                }
            }
        }
    }
    let mut keys: Vec<(Role, String)> = cited.keys().cloned().collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(score::natural_order(&a.1, &b.1)));
    keys.into_iter()
        .filter_map(|key| {
            let req = requirements::requirement(&key.1)?;
            let checks = cited.remove(&key)?;
            Some(RequirementRow {
                area: req
                    .id
                    .rsplit_once('-')
                    .map_or(&*req.id, |(a, _)| a)
                    .to_owned(),
                id: req.id.clone(),
                role: key.0,
                level: req.level.clone(),
                era: req.era.clone(),
                text: req.text.clone(),
                checks,
            })
        })
        .collect()
}
