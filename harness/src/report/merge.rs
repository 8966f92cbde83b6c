//! `mcpspec report --merge`: the JSON reports of the shards of one run (`--shard I/N` in N CI
//! jobs) made into the report of the whole run, as one unsharded run would have written it.
//!
//! The shards must be of the same mcpspec version, target, transport and negotiation (else they
//! are not parts of one run), and no check may appear twice (overlapping shards, or one file
//! given twice). The merged report lists the results in catalogue order, counts its summary
//! again, keeps every shard's stale baseline entries, and takes as its duration the longest
//! shard's (the shards ran side by side) and as its process count the sum. In the merged JSON
//! each result is the shard's own object, verbatim, so fields this module does not read (a
//! transcript, say) are carried over.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::{Processes, RunReport};

/// Why the reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("--merge needs at least one report")]
    Empty,
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not an mcpspec JSON report: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path} {source}")]
    Report {
        path: PathBuf,
        source: super::ReadError,
    },
    #[error(
        "{path} is not a shard of the same run as {first}: its {what} is {theirs:?}, not {ours:?}"
    )]
    Mismatch {
        path: PathBuf,
        first: PathBuf,
        what: &'static str,
        ours: String,
        theirs: String,
    },
    #[error("check {id} is in both {first} and {second} (overlapping shards?)")]
    Duplicate {
        id: String,
        first: PathBuf,
        second: PathBuf,
    },
}

/// A merged report: typed (for the summary, the console, JUnit, Markdown and annotations) and
/// as JSON, where every result is the shard's own object, verbatim (fields this module does not
/// read, such as transcripts, are kept).
#[derive(Debug)]
pub struct Merged {
    pub report: RunReport,
    pub json: serde_json::Value,
}

/// Reads each JSON report in `paths` and merges them (see the module doc).
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut typed = Vec::with_capacity(paths.len());
    let mut raw_results: HashMap<String, serde_json::Value> = HashMap::new();
    let mut first_json = None;
    for path in paths {
        let parse_error = |source| MergeError::Parse {
            path: path.clone(),
            source,
        };
        let text = std::fs::read_to_string(path).map_err(|source| MergeError::Read {
            path: path.clone(),
            source,
        })?;
        let json: serde_json::Value = serde_json::from_str(&text).map_err(parse_error)?;
        let report = RunReport::from_json(json.clone()).map_err(|source| MergeError::Report {
            path: path.clone(),
            source,
        })?;
        for result in json["results"].as_array().into_iter().flatten() {
            if let Some(id) = result["id"].as_str() {
                // A duplicate id is refused by `merge` below, which names both files.
                raw_results
                    .entry(id.to_owned())
                    .or_insert_with(|| result.clone());
            }
        }
        first_json.get_or_insert(json);
        typed.push((path.clone(), report));
    }
    let report = merge(typed)?;
    let mut json = first_json.ok_or(MergeError::Empty)?;
    json["results"] = report
        .results
        .iter()
        .filter_map(|r| raw_results.remove(&r.id))
        .collect();
    json["summary"] = serde_json::to_value(&report.summary).unwrap_or_default();
    json["duration_ms"] = report.duration_ms.into();
    if let Some(object) = json.as_object_mut() {
        for (key, value) in [
            ("processes", serde_json::to_value(&report.processes)),
            (
                "target_failure",
                serde_json::to_value(&report.target_failure),
            ),
            ("instances", serde_json::to_value(report.instances)),
        ] {
            match value {
                Ok(serde_json::Value::Null) | Err(_) => object.remove(key),
                Ok(value) => object.insert(key.to_owned(), value),
            };
        }
    }
    Ok(Merged { report, json })
}

/// Merges reports, each named by the file it came from (for the error messages).
pub fn merge(reports: Vec<(PathBuf, RunReport)>) -> Result<RunReport, MergeError> {
    let mut reports = reports.into_iter();
    let (first_path, mut merged) = reports.next().ok_or(MergeError::Empty)?;
    let mut origin: HashMap<String, PathBuf> = merged
        .results
        .iter()
        .map(|r| (r.id.clone(), first_path.clone()))
        .collect();
    let mut stale: BTreeSet<String> = merged.summary.stale.iter().cloned().collect();
    for (path, report) in reports {
        same_run(&first_path, &merged, &path, &report)?;
        for r in &report.results {
            if let Some(first) = origin.insert(r.id.clone(), path.clone()) {
                return Err(MergeError::Duplicate {
                    id: r.id.clone(),
                    first,
                    second: path,
                });
            }
        }
        stale.extend(report.summary.stale.iter().cloned());
        merged.duration_ms = merged.duration_ms.max(report.duration_ms);
        merged.processes = add_processes(merged.processes.take(), report.processes);
        if merged.target_failure.is_none() {
            merged.target_failure = report.target_failure;
        }
        // The shard that ran the stateless/* checks says how many instances they had.
        merged.instances = merged.instances.max(report.instances);
        merged.results.extend(report.results);
    }
    sort_in_catalogue_order(&mut merged);
    merged.summary.stale = stale.into_iter().collect();
    merged.summarize();
    Ok(merged)
}

/// An error unless `report` describes the same run as `first` (version, target, transport,
/// revision, negotiation).
fn same_run(
    first_path: &Path,
    first: &RunReport,
    path: &Path,
    report: &RunReport,
) -> Result<(), MergeError> {
    let negotiated = |r: &RunReport| serde_json::to_string(&r.negotiated).unwrap_or_default();
    let revision = |r: &RunReport| r.revision.clone().unwrap_or_else(|| "every era".into());
    let fields: [(&'static str, String, String); 5] = [
        (
            "mcpspec version",
            first.mcpspec_version.clone(),
            report.mcpspec_version.clone(),
        ),
        ("target", first.target.clone(), report.target.clone()),
        (
            "transport",
            first.transport.clone(),
            report.transport.clone(),
        ),
        ("revision", revision(first), revision(report)),
        ("negotiation", negotiated(first), negotiated(report)),
    ];
    for (what, ours, theirs) in fields {
        if ours != theirs {
            return Err(MergeError::Mismatch {
                path: path.to_owned(),
                first: first_path.to_owned(),
                what,
                ours,
                theirs,
            });
        }
    }
    Ok(())
}

/// Process counts add up; the isolation mode is the shards' (they were given the same flags).
fn add_processes(a: Option<Processes>, b: Option<Processes>) -> Option<Processes> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.add(b);
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

/// Results in the order of the catalogue, as an unsharded run lists them; ids this mcpspec
/// does not know (a report of another version cannot get here) would go last, by id.
fn sort_in_catalogue_order(report: &mut RunReport) {
    let position: HashMap<&str, usize> = crate::catalogue::all()
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id, i))
        .collect();
    report.results.sort_by(|a, b| {
        let key = |id: &str| position.get(id).copied().unwrap_or(usize::MAX);
        key(&a.id).cmp(&key(&b.id)).then_with(|| a.id.cmp(&b.id))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Kind, Outcome};
    use crate::report::{CheckResult, Negotiated, Summary};

    fn result(id: &str, kind: Kind) -> CheckResult {
        CheckResult {
            id: id.into(),
            requirements: vec![],
            level: crate::outcome::Level::Must,
            outcome: Outcome {
                kind,
                message: String::new(),
                evidence: None,
                mismatch: None,
                items: Vec::new(),
            },
            duration_ms: 1,
            transcript_path: None,
            baseline_reason: None,
            transport: None,
            transcript: vec![],
            prefix: None,
            confirmed: None,
            group: None,
        }
    }

    fn report(results: Vec<CheckResult>, duration_ms: u64, stale: &[&str]) -> RunReport {
        let mut r = RunReport {
            schema_version: crate::report::SCHEMA_VERSION,
            mcpspec_version: "0.1.0".into(),
            target: "t".into(),
            transport: "stdio".into(),
            negotiated: Negotiated {
                era: "modern".into(),
                version: Some("2026-07-28".into()),
                versions: vec!["2026-07-28".into()],
                path: "p".into(),
            },
            results,
            summary: Summary {
                stale: stale.iter().map(|s| (*s).to_owned()).collect(),
                ..Summary::default()
            },
            duration_ms,
            target_failure: None,
            processes: Some(Processes {
                started: 3,
                isolation: "shared".into(),
                unpooled: None,
                confirmations: 0,
                by_reason: Default::default(),
                replaced: 0,
            }),
            client: None,
            negotiation_matrix: None,
            instances: None,
            revision: None,
            not_served: None,
        };
        r.summarize();
        r
    }

    fn ids(r: &RunReport) -> Vec<&str> {
        r.results.iter().map(|r| r.id.as_str()).collect()
    }

    #[test]
    fn shards_merge_in_catalogue_order_with_summary_recounted() {
        let all = crate::catalogue::all();
        let (a, b, c) = (all[0].id, all[1].id, all[2].id);
        let merged = merge(vec![
            (
                "1.json".into(),
                report(vec![result(c, Kind::Fail)], 10, &["x"]),
            ),
            (
                "2.json".into(),
                report(
                    vec![result(b, Kind::Pass), result(a, Kind::Skipped)],
                    30,
                    &[],
                ),
            ),
        ])
        .unwrap();
        assert_eq!(ids(&merged), [a, b, c]);
        let s = &merged.summary;
        assert_eq!((s.total, s.pass, s.fail, s.skipped), (3, 1, 1, 1));
        assert_eq!((s.unexpected, s.stale.clone()), (1, vec!["x".to_owned()]));
        assert_eq!(merged.duration_ms, 30, "the longest shard");
        assert_eq!(merged.processes.as_ref().unwrap().started, 6);
        assert!(!merged.passed());
    }

    #[test]
    fn a_check_in_two_reports_or_another_target_is_refused() {
        let id = crate::catalogue::all()[0].id;
        let dup = merge(vec![
            (
                "1.json".into(),
                report(vec![result(id, Kind::Pass)], 1, &[]),
            ),
            (
                "2.json".into(),
                report(vec![result(id, Kind::Pass)], 1, &[]),
            ),
        ]);
        assert!(matches!(dup, Err(MergeError::Duplicate { .. })), "{dup:?}");
        let mut other = report(vec![], 1, &[]);
        other.target = "u".into();
        let err = merge(vec![
            ("1.json".into(), report(vec![], 1, &[])),
            ("2.json".into(), other),
        ])
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"2.json is not a shard of the same run as 1.json: its target is "u", not "t""#
        );
        // Shards of runs at two revisions are two runs.
        let mut other = report(vec![], 1, &[]);
        other.revision = Some("2025-06-18".into());
        let err = merge(vec![
            ("1.json".into(), report(vec![], 1, &[])),
            ("2.json".into(), other),
        ])
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"2.json is not a shard of the same run as 1.json: its revision is "2025-06-18", not "every era""#
        );
    }
}
