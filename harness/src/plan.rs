//! The plan of a run (POL-30.3): before the first process starts, the selection and the flags
//! decide which shared checks share processes, and in what order. The shared checks are put in
//! groups: the legacy ones in runs of consecutive checks (a group keeps a session per version,
//! so they stay together), the others dealt out in turn in catalogue order (so slow areas
//! spread over the groups). A group runs its checks one after another, in catalogue order, on
//! processes that serve that group alone, so what came before a check on its process is the
//! same in every run. `--jobs` only
//! decides how many groups (and fresh checks) run at once; timing decides nothing.
//!
//! A check whose traffic leaves its process unfit for the next ([`ends_its_process`]) runs
//! last in its group, so the group does not start another process after it; those checks are
//! dealt out in turn too, one to a group where there are enough groups.
//!
//! A check the baseline expects not to pass gets a group of its own: it is the first traffic on
//! its process after the admission, so its verdict is final without a re-run on a fresh process
//! (POL-30.1), and no later check inherits what it did.

use std::collections::BTreeSet;

use crate::check::{Check, Isolation};
use crate::outcome::Era;

/// Shared checks per group, at most. A group costs a start of its own (an interpreter's CPU,
/// for a Python or Node server); more groups let more of them run at once. With the whole
/// catalogue this gives four or five groups, so two to four jobs all have a group to run.
pub const GROUP_CHECKS: usize = 24;

/// The checks that open a listen stream: its request is answered only when the stream ends,
/// so the process is unfit for a later check.
pub const LISTENING: &[&str] = &[
    "subscriptions/listen/acknowledged-first",
    "subscriptions/listen/ack-carries-listen-id",
    "subscriptions/stream/tagged-with-listen-id",
    "subscriptions/filter/only-requested-types",
    "subscriptions/stream/no-log-messages",
    "subscriptions/list-changed/delivered",
    "subscriptions/cancel/stream-stops",
];

/// The other shared checks whose traffic leaves the process unfit for a later check, whatever
/// the server does right: a request cancelled in flight (its answer may still come),
/// `initialize` on a modern process (the connection becomes a legacy session), a request many
/// servers never answer (`jsonrpc` "1.0").
const ALSO_ENDS_ITS_PROCESS: &[&str] = &[
    "cancellation/in-flight/no-reply",
    "modern/removed-methods/initialize-with-envelope",
    "jsonrpc/invalid-request/wrong-jsonrpc-version",
];

/// Whether `check` leaves its process unfit for the next ([`LISTENING`] and the few others):
/// the pool retires such a process after the check (POL-21), so each runs last in its group.
pub fn ends_its_process(check: &str) -> bool {
    LISTENING.contains(&check) || ALSO_ENDS_ITS_PROCESS.contains(&check)
}

/// Which shared checks share processes, and in what order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Each group's checks, in the order they run on the group's processes.
    pub groups: Vec<Group>,
}

/// Checks that run one after another on the same processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub checks: Vec<&'static str>,
    /// Why the group has one check: the baseline expects it not to pass.
    pub alone: bool,
}

impl Plan {
    /// The plan for `checks` (the selection, in catalogue order): with `pools` (shared
    /// processes: `--isolation shared` against a command or the embedded server), every shared
    /// check that `runs` (its flag-given needs are met) is placed; `expected_to_fail` (the
    /// baseline's ids) each get a group of their own, first.
    pub fn new(
        checks: &[Check],
        pools: bool,
        runs: impl Fn(&Check) -> bool,
        expected_to_fail: &BTreeSet<String>,
    ) -> Plan {
        if !pools {
            return Plan::default();
        }
        let shared = checks
            .iter()
            .filter(|c| c.isolation == Isolation::Shared && runs(c));
        let (alone, together): (Vec<&Check>, Vec<&Check>) =
            shared.partition(|c| expected_to_fail.contains(c.id));
        let mut groups: Vec<Group> = alone
            .iter()
            .map(|c| Group {
                checks: vec![c.id],
                alone: true,
            })
            .collect();
        // The legacy checks run in sessions, which a group keeps per version: they stay
        // together, in order. The others are dealt out in turn, so the checks of one area
        // (the JSON-RPC ones that wait out a silence, say) spread over the groups and no one
        // group carries them all.
        let (legacy, other): (Vec<&Check>, Vec<&Check>) =
            together.into_iter().partition(|c| c.era == Era::Legacy);
        let dealt = other.len().div_ceil(GROUP_CHECKS);
        let chunked = legacy.len().div_ceil(GROUP_CHECKS);
        let first = groups.len();
        groups.extend((0..dealt + chunked).map(|_| Group {
            checks: Vec::new(),
            alone: false,
        }));
        let (enders, other): (Vec<&Check>, Vec<&Check>) =
            other.into_iter().partition(|c| ends_its_process(c.id));
        for (i, c) in other.iter().enumerate() {
            groups[first + i % dealt].checks.push(c.id);
        }
        // The round goes on where it stopped, so the groups stay even.
        for (i, c) in enders.iter().enumerate() {
            groups[first + (other.len() + i) % dealt].checks.push(c.id);
        }
        for (i, c) in legacy.iter().enumerate() {
            groups[first + dealt + i * chunked / legacy.len()]
                .checks
                .push(c.id);
        }
        Plan { groups }
    }

    /// The group `check` runs in, if it is planned.
    pub fn group_of(&self, check: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.checks.contains(&check))
    }

    /// Every planned check's group, in plan order.
    pub fn assignments(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        self.groups
            .iter()
            .enumerate()
            .flat_map(|(g, group)| group.checks.iter().map(move |c| (*c, g)))
    }

    /// The plan as text (`mcpspec run --plan`): each group and its checks in order, then the
    /// checks on processes of their own.
    pub fn to_text(&self, checks: &[Check], runs: impl Fn(&Check) -> bool) -> String {
        let mut text = String::new();
        for (g, group) in self.groups.iter().enumerate() {
            let why = if group.alone {
                " (alone: the baseline expects it not to pass, POL-30.1)"
            } else {
                ""
            };
            text += &format!("group {g}: {} check(s){why}\n", group.checks.len());
            for id in &group.checks {
                text += &format!("  {id}\n");
            }
        }
        let planned: BTreeSet<&str> = self.assignments().map(|(c, _)| c).collect();
        let own: Vec<&Check> = checks
            .iter()
            .filter(|c| !planned.contains(c.id) && runs(c))
            .collect();
        if !own.is_empty() {
            text += &format!(
                "each on a fresh process (over HTTP, a connection of its own): {} check(s)\n",
                own.len()
            );
            for c in &own {
                text += &format!("  {}  ({})\n", c.id, c.isolation.label());
            }
        }
        let unrun = checks.iter().filter(|c| !runs(c)).count();
        text += &format!(
            "\n{} group(s) of shared checks, {} check(s) on fresh processes or connections, {unrun} \
             skipped by the flags; --jobs decides only how many run at once\n",
            self.groups.len(),
            own.len()
        );
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared_ids(checks: &[Check]) -> Vec<&'static str> {
        checks
            .iter()
            .filter(|c| c.isolation.is_shared())
            .map(|c| c.id)
            .collect()
    }

    #[test]
    fn every_shared_check_is_in_one_group_legacy_ones_together_in_catalogue_order() {
        let checks = crate::catalogue::all();
        let plan = Plan::new(&checks, true, |_| true, &BTreeSet::new());
        let shared = shared_ids(&checks);
        let mut flat: Vec<&str> = plan.groups.iter().flat_map(|g| g.checks.clone()).collect();
        flat.sort_unstable();
        let mut want = shared.clone();
        want.sort_unstable();
        assert_eq!(flat, want, "every shared check once");
        let position = |id: &str| shared.iter().position(|s| *s == id);
        for group in &plan.groups {
            assert!(group.checks.len() <= GROUP_CHECKS, "{group:?}");
            // Catalogue order, the checks that end their process last (in catalogue order too).
            let order: Vec<_> = group
                .checks
                .iter()
                .map(|c| (ends_its_process(c), position(c)))
                .collect();
            assert!(
                order.is_sorted(),
                "a group runs in catalogue order, enders last: {group:?}"
            );
            let legacy =
                |id: &&str| crate::catalogue::by_id(id).is_some_and(|c| c.era == Era::Legacy);
            assert!(
                group.checks.iter().all(legacy) || !group.checks.iter().any(legacy),
                "legacy checks have groups of their own: {group:?}"
            );
        }
        // The JSON-RPC checks (the ones that wait out silences) are spread over the groups.
        let jsonrpc = |g: &Group| {
            g.checks
                .iter()
                .filter(|c| c.starts_with("jsonrpc/"))
                .count()
        };
        let counts: Vec<usize> = plan.groups.iter().map(jsonrpc).filter(|&n| n > 0).collect();
        assert!(counts.len() >= 4, "{counts:?}");
        // Dealt in turn, one apart at most, and one more where a check that ends its process
        // (jsonrpc "1.0") went to the end of a group.
        assert!(
            counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 2,
            "{counts:?}"
        );
    }

    #[test]
    fn checks_that_end_their_process_are_shared_checks_spread_one_to_a_group() {
        let checks = crate::catalogue::all();
        for id in LISTENING.iter().chain(ALSO_ENDS_ITS_PROCESS) {
            let check =
                crate::catalogue::by_id(id).unwrap_or_else(|| panic!("{id}: no such check"));
            assert!(check.isolation.is_shared(), "{id} is not a shared check");
        }
        let plan = Plan::new(&checks, true, |_| true, &BTreeSet::new());
        let modern = plan.groups.iter().filter(|g| {
            g.checks
                .iter()
                .all(|c| crate::catalogue::by_id(c).is_some_and(|c| c.era != Era::Legacy))
        });
        let most = (LISTENING.len() + ALSO_ENDS_ITS_PROCESS.len()).div_ceil(modern.clone().count());
        for group in modern {
            let enders = group.checks.iter().filter(|c| ends_its_process(c)).count();
            assert!(enders <= most, "{enders} enders in {group:?}");
        }
    }

    #[test]
    fn a_check_the_baseline_expects_to_fail_runs_alone_and_first() {
        let checks = crate::catalogue::all();
        let shared = shared_ids(&checks);
        let expected: BTreeSet<String> = [shared[3], shared[40]].map(String::from).into();
        let plan = Plan::new(&checks, true, |_| true, &expected);
        assert_eq!(plan.groups[0].checks, vec![shared[3]]);
        assert_eq!(plan.groups[1].checks, vec![shared[40]]);
        assert!(plan.groups[0].alone && plan.groups[1].alone && !plan.groups[2].alone);
        assert_eq!(plan.group_of(shared[40]), Some(1));
        assert!(
            plan.groups[2..]
                .iter()
                .all(|g| !g.checks.contains(&shared[3]))
        );
    }

    #[test]
    fn without_shared_processes_nothing_is_planned_and_unrun_checks_are_left_out() {
        let checks = crate::catalogue::all();
        assert_eq!(
            Plan::new(&checks, false, |_| true, &BTreeSet::new()),
            Plan::default()
        );
        let plan = Plan::new(
            &checks,
            true,
            |c| c.id.starts_with("jsonrpc/"),
            &BTreeSet::new(),
        );
        assert!(plan.assignments().all(|(c, _)| c.starts_with("jsonrpc/")));
        assert!(plan.assignments().count() > 0);
    }
}
