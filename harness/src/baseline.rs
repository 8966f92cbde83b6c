//! Baselines: known failures of a target, each with a reason.
//!
//! ```yaml
//! target: python-sdk mcp==2.3.0
//! entries:
//!   - check: jsonrpc/batch/rejected
//!     reason: the SDK answers a batch with ...
//! ```
//!
//! A listed check that fails (or errors) is expected; an unlisted one fails the run; a listed
//! check that no longer fails is stale and fails the run; an id that names no check is a
//! usage error.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::outcome::Kind;
use crate::report::RunReport;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Baseline {
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub check: String,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read baseline {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("baseline {path} is not valid: {source}")]
    Parse {
        path: String,
        source: crate::yaml::Error,
    },
    #[error("baseline {path} names unknown check(s): {ids}")]
    UnknownIds { path: String, ids: String },
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Self, BaselineError> {
        let known: Vec<&str> = crate::catalogue::all().iter().map(|c| c.id).collect();
        Self::load_for(path, &known)
    }

    /// As [`Baseline::load`], the entries checked against `known` (the ids of another check
    /// list: `mcpspec client`'s).
    pub fn load_for(path: &Path, known: &[&str]) -> Result<Self, BaselineError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
            path: p.clone(),
            source,
        })?;
        let baseline: Baseline =
            crate::yaml::from_str(&text).map_err(|source| BaselineError::Parse {
                path: p.clone(),
                source,
            })?;
        let unknown: Vec<&str> = baseline
            .entries
            .iter()
            .map(|e| e.check.as_str())
            .filter(|id| !known.contains(id))
            .collect();
        if !unknown.is_empty() {
            return Err(BaselineError::UnknownIds {
                path: p,
                ids: unknown.join(", "),
            });
        }
        Ok(baseline)
    }

    /// Marks the listed failures as expected and records stale entries. Entries for checks that
    /// were not run (deselected) are neither.
    pub fn apply(&self, report: &mut RunReport) {
        let mut stale = Vec::new();
        for entry in &self.entries {
            let Some(result) = report.results.iter_mut().find(|r| r.id == entry.check) else {
                continue;
            };
            if matches!(result.outcome.kind, Kind::Fail | Kind::Error) {
                result.baseline_reason = Some(entry.reason.clone());
            } else if result.outcome.kind != Kind::Skipped {
                stale.push(entry.check.clone());
            }
        }
        report.summary.stale = stale;
        report.summarize();
    }

    /// A first baseline for a server with known failures: one entry per Fail (and per Error,
    /// marked as such) of `report`, each reason the verdict's message, for the author to
    /// replace with why the server behaves so.
    pub fn of_failures(report: &RunReport) -> Baseline {
        let entries = report
            .results
            .iter()
            .filter_map(|r| {
                let message = &r.outcome.message;
                let reason = match r.outcome.kind {
                    Kind::Fail => message.clone(),
                    Kind::Error => format!("(ERROR: mcpspec could not judge the check) {message}"),
                    _ => return None,
                };
                Some(Entry {
                    check: r.id.clone(),
                    reason,
                })
            })
            .collect();
        Baseline {
            target: Some(report.target.clone()),
            entries,
        }
    }

    /// The baseline as a file, opened by a comment that says how it was made and what to edit.
    pub fn to_yaml(&self) -> Result<String, crate::yaml::Error> {
        let header = "# Known failures, written by `mcpspec baseline --write` from the run's verdicts.\n\
                      # Replace each reason with why the server behaves so (the verdict's words are\n\
                      # only a start); delete an entry once its check passes (it becomes stale).\n";
        Ok(format!("{header}{}", crate::yaml::to_string(self)?))
    }
}
