//! POL-35: a target's score at each revision and the tier it earns, from its verdicts alone.
//!
//! - A requirement is *met* at a revision when at least one check citing it passed there and
//!   none failed or erred; *not met* when one failed or erred (an Error is never a pass: a
//!   target that could not be judged earns nothing); *not verified* when every check citing it
//!   was Skipped, NonStrict or Info (they count neither way).
//! - A requirement applies at a revision by its era (`modern` at 2026-07-28, `legacy` at the
//!   handshake revisions, `all` at each), narrowed by the revisions the catalogue names for it
//!   (`Requirement::applies_at`); policies (POL-n) are not requirements.
//! - Tier 1: every MUST requirement that applies is met at each of the three newest revisions
//!   the spec lists, and each of them was verified (at least one requirement met); Tier 2: the
//!   two newest; Tier 3: the rest. What kept a target from the next tier is said per revision.

use std::collections::BTreeMap;

use mcpspec_core::protocol::version;
use mcpspec_harness::outcome::{Kind, Level};
use mcpspec_harness::requirements::{self, Requirement};
use serde::{Deserialize, Serialize};

use super::model::{RevisionScore, Role};

/// One check's verdict at one revision, as a target record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub id: String,
    pub requirements: Vec<String>,
    pub level: Level,
    pub kind: Kind,
    /// The verdict's message (a skip's reason says why a revision was not verified).
    pub message: String,
}

/// The revisions a tier is judged on, newest first: the spec's three newest.
pub fn tier_revisions() -> Vec<&'static str> {
    version::ALL.iter().rev().take(3).copied().collect()
}

/// The requirements of `role` by id.
fn catalogue(role: Role) -> &'static BTreeMap<String, Requirement> {
    match role {
        Role::Server => requirements::catalogue(),
        Role::Client => requirements::client_catalogue(),
    }
}

/// Requirement ids in reading order: by prefix, then by number (`RPC-2` before `RPC-10`).
pub fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(id: &str) -> (&str, u64, &str) {
        match id.rsplit_once('-') {
            Some((prefix, n)) => match n.parse() {
                Ok(n) => (prefix, n, ""),
                Err(_) => (prefix, 0, n),
            },
            None => (id, 0, ""),
        }
    }
    key(a).cmp(&key(b))
}

/// The score of a target of `role` at `revision` from its verdicts there.
pub fn score(role: Role, revision: &str, verdicts: &[Verdict]) -> RevisionScore {
    #[derive(Default)]
    struct Tally {
        passed: bool,
        failed: bool,
    }
    let known = catalogue(role);
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    for v in verdicts {
        for id in &v.requirements {
            let Some(req) = known.get(id) else { continue };
            if !req.applies_at(revision) {
                continue;
            }
            let t = tallies.entry(id.as_str()).or_default();
            match v.kind {
                Kind::Pass => t.passed = true,
                Kind::Fail | Kind::Error => t.failed = true,
                Kind::NonStrict | Kind::Info | Kind::Skipped => {}
            }
        }
    }
    let (mut met, mut not_met, mut not_verified) = (vec![], vec![], vec![]);
    for (id, t) in tallies {
        let list = match (t.failed, t.passed) {
            (true, _) => &mut not_met,
            (false, true) => &mut met,
            (false, false) => &mut not_verified,
        };
        list.push(id.to_owned());
    }
    for list in [&mut met, &mut not_met, &mut not_verified] {
        list.sort_by(|a, b| natural_order(a, b));
    }
    let ran = verdicts.iter().filter(|v| v.kind != Kind::Skipped).count();
    let passed = verdicts.iter().filter(|v| v.kind == Kind::Pass).count();
    let pass_rate = if ran == 0 {
        0.0
    } else {
        (passed as f64 / ran as f64 * 10_000.0).round() / 10_000.0
    };
    RevisionScore {
        pass_rate,
        met,
        not_met,
        not_verified,
        not_served: None,
        report: None,
        transcripts: None,
    }
}

/// What the runs said of a revision beyond the verdicts' kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RevisionNote {
    /// The run's reason when the target does not serve the revision (its report's
    /// `not_served`): only checks that do not depend on the revision ran there, so it is not
    /// verified, whatever they found.
    pub not_served: Option<String>,
    /// Why its checks were skipped, when nothing was verified there.
    pub skipped: Option<String>,
}

impl RevisionNote {
    /// The note of a revision's run.
    pub fn of(run: &super::record::RevisionRun) -> Self {
        RevisionNote {
            not_served: run.not_served.clone(),
            skipped: skip_reason(&run.verdicts),
        }
    }
}

/// The tier a target of `role` earns from its scores (by revision) and what kept it from the
/// next one, a sentence per revision that did. `notes` say, per revision, whether it was
/// served and why its checks were skipped.
pub fn tier(
    role: Role,
    scores: &BTreeMap<String, RevisionScore>,
    notes: &BTreeMap<String, RevisionNote>,
) -> (u8, Vec<String>) {
    let known = catalogue(role);
    let blocker = |revision: &str| -> Option<String> {
        let Some(score) = scores.get(revision) else {
            return Some(format!(
                "{revision}: not judged (not among the matrix's revisions)"
            ));
        };
        let note = notes.get(revision).cloned().unwrap_or_default();
        if let Some(why) = note.not_served {
            return Some(format!("{revision}: not served ({why})"));
        }
        let musts: Vec<&str> = score
            .not_met
            .iter()
            .filter(|id| known.get(*id).is_some_and(|r| r.is_must_at(revision)))
            .map(String::as_str)
            .collect();
        if !musts.is_empty() {
            return Some(format!("{revision}: MUST not met: {}", musts.join(", ")));
        }
        if score.met.is_empty() {
            let why = note.skipped.map(|w| format!(" ({w})")).unwrap_or_default();
            return Some(format!("{revision}: no requirement verified{why}"));
        }
        None
    };
    let newest = tier_revisions();
    let two: Vec<String> = newest[..2].iter().filter_map(|r| blocker(r)).collect();
    if !two.is_empty() {
        return (3, two);
    }
    match blocker(newest[2]) {
        Some(why) => (2, vec![why]),
        None => (1, vec![]),
    }
}

/// Why a revision's checks were skipped, in one phrase: the most common reason.
fn skip_reason(verdicts: &[Verdict]) -> Option<String> {
    let skipped = verdicts.iter().filter(|v| v.kind == Kind::Skipped);
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in skipped {
        *counts.entry(v.message.as_str()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map(|(m, _)| m.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(id: &str, reqs: &[&str], kind: Kind) -> Verdict {
        Verdict {
            id: id.into(),
            requirements: reqs.iter().map(|r| (*r).to_owned()).collect(),
            level: Level::Must,
            kind,
            message: String::new(),
        }
    }

    #[test]
    fn met_needs_a_pass_and_no_fail_and_nonstrict_counts_neither_way() {
        let verdicts = [
            v("a", &["RPC-1"], Kind::Pass),
            v("b", &["RPC-1"], Kind::NonStrict),
            v("c", &["RPC-2"], Kind::Pass),
            v("d", &["RPC-2"], Kind::Fail),
            v("e", &["RPC-3"], Kind::Info),
            v("f", &["RPC-4"], Kind::Skipped),
            v("g", &["RPC-5"], Kind::Error),
            v("h", &["POL-3"], Kind::Fail),
        ];
        let s = score(Role::Server, version::MODERN, &verdicts);
        assert_eq!(s.met, ["RPC-1"]);
        assert_eq!(s.not_met, ["RPC-2", "RPC-5"]);
        assert_eq!(s.not_verified, ["RPC-3", "RPC-4"]);
        // 2 passes of the 7 that ran (the skip did not).
        assert_eq!(s.pass_rate, 0.2857);
    }

    #[test]
    fn a_requirement_applies_at_the_revisions_of_its_era() {
        let era = |id: &str| requirements::catalogue()[id].era.clone();
        assert_eq!(era("DISC-3"), "modern");
        assert_eq!(era("LEG-1"), "legacy");
        let verdicts = [
            v("m", &["DISC-3"], Kind::Pass),
            v("l", &["LEG-1"], Kind::Pass),
        ];
        assert_eq!(score(Role::Server, "2026-07-28", &verdicts).met, ["DISC-3"]);
        assert_eq!(score(Role::Server, "2025-06-18", &verdicts).met, ["LEG-1"]);
        // A client requirement is not a server's.
        assert!(
            score(
                Role::Server,
                "2026-07-28",
                &[v("c", &["CLI-1"], Kind::Pass)]
            )
            .met
            .is_empty()
        );
        assert_eq!(
            score(
                Role::Client,
                "2026-07-28",
                &[v("c", &["CLI-1"], Kind::Pass)]
            )
            .met,
            ["CLI-1"]
        );
    }

    fn scores(entries: &[(&str, &[&str], &[&str])]) -> BTreeMap<String, RevisionScore> {
        entries
            .iter()
            .map(|(rev, met, not_met)| {
                let mut s = score(Role::Server, rev, &[]);
                s.met = met.iter().map(|m| (*m).to_owned()).collect();
                s.not_met = not_met.iter().map(|m| (*m).to_owned()).collect();
                ((*rev).to_owned(), s)
            })
            .collect()
    }

    #[test]
    fn tiers_follow_the_newest_revisions() {
        let none = BTreeMap::new();
        let all_met = scores(&[
            ("2026-07-28", &["RPC-1"], &[]),
            ("2025-11-25", &["RPC-1"], &[]),
            ("2025-06-18", &["RPC-1"], &[]),
        ]);
        assert_eq!(tier(Role::Server, &all_met, &none), (1, vec![]));
        // A MUST not met at the third newest: Tier 2, and it says which.
        let third = scores(&[
            ("2026-07-28", &["RPC-1"], &[]),
            ("2025-11-25", &["RPC-1"], &[]),
            ("2025-06-18", &["RPC-2"], &["RPC-1"]),
        ]);
        assert_eq!(
            tier(Role::Server, &third, &none),
            (2, vec!["2025-06-18: MUST not met: RPC-1".to_owned()])
        );
        // A SHOULD not met keeps no tier (META-5 is a SHOULD).
        assert!(!requirements::catalogue()["META-5"].is_must_at("2026-07-28"));
        let should = scores(&[
            ("2026-07-28", &["RPC-1"], &["META-5"]),
            ("2025-11-25", &["RPC-1"], &[]),
            ("2025-06-18", &["RPC-1"], &[]),
        ]);
        assert_eq!(tier(Role::Server, &should, &none).0, 1);
        // A revision not judged, not served, or with nothing verified keeps the tier too.
        let two = scores(&[("2026-07-28", &["RPC-1"], &[]), ("2025-11-25", &[], &[])]);
        let note = |not_served: Option<&str>, skipped: &str| {
            BTreeMap::from([(
                "2025-11-25".to_owned(),
                RevisionNote {
                    not_served: not_served.map(str::to_owned),
                    skipped: Some(skipped.to_owned()),
                },
            )])
        };
        assert_eq!(
            tier(Role::Server, &two, &note(None, "it is skipped")),
            (
                3,
                vec!["2025-11-25: no requirement verified (it is skipped)".to_owned()]
            )
        );
        // Not served: whatever the checks that do not depend on the revision found there.
        let served_by_none = scores(&[
            ("2026-07-28", &["RPC-1"], &[]),
            ("2025-11-25", &["STDIO-1"], &[]),
            ("2025-06-18", &["RPC-1"], &[]),
        ]);
        assert_eq!(
            tier(
                Role::Server,
                &served_by_none,
                &note(Some("it says so"), "x")
            ),
            (3, vec!["2025-11-25: not served (it says so)".to_owned()])
        );
        let only_newest_two = scores(&[
            ("2026-07-28", &["RPC-1"], &[]),
            ("2025-11-25", &["RPC-1"], &[]),
        ]);
        assert_eq!(
            tier(Role::Server, &only_newest_two, &none),
            (
                2,
                vec!["2025-06-18: not judged (not among the matrix's revisions)".to_owned()]
            )
        );
    }

    #[test]
    fn a_note_says_what_the_run_found_of_the_revision() {
        let mut a = v("a", &[], Kind::Skipped);
        a.message = "needs --allow-tool".into();
        let run =
            |verdicts: Vec<Verdict>, not_served: Option<&str>| super::super::record::RevisionRun {
                report: None,
                transcripts: None,
                not_served: not_served.map(str::to_owned),
                verdicts,
            };
        let why = "the server does not serve 2025-06-18: it serves no legacy revision";
        let note = RevisionNote::of(&run(vec![a.clone(), a.clone()], Some(why)));
        assert_eq!(note.not_served.as_deref(), Some(why));
        assert_eq!(note.skipped.as_deref(), Some("needs --allow-tool"));
        // A skip that reads like it is not the run's finding.
        let mut b = a.clone();
        b.message = why.into();
        assert_eq!(RevisionNote::of(&run(vec![b], None)).not_served, None);
        assert_eq!(
            RevisionNote::of(&run(vec![], None)),
            RevisionNote::default()
        );
    }

    #[test]
    fn requirement_ids_sort_by_number() {
        let mut ids = vec!["RPC-10", "RPC-2", "AUTH-1", "RPC-1"];
        ids.sort_by(|a, b| natural_order(a, b));
        assert_eq!(ids, ["AUTH-1", "RPC-1", "RPC-2", "RPC-10"]);
    }
}
