//! Verdicts carry their evidence (POL-30): a non-pass verdict obtained on a process earlier
//! checks had used is run again before it is reported.
//!
//! ```text
//!  shared verdict V (Fail, NonStrict or Error)
//!    ├─ the check was its process's first traffic after the admission, at its own era and
//!    │  version ──> V as it is, "first-after-admission" (POL-30.1: as good as fresh)
//!    └─ the check again on a fresh process ── same kind ──> the fresh run, as it is
//!         │ another kind
//!         ├─ one standard request (server/discover, then a served method) first on a fresh
//!         │  process, then the check ── V again ──> that request is the prefix
//!         └─ the earlier traffic H replayed first on a fresh process, then the check
//!              ├─ V again ──> shrink H: delta debugging over the writers' chunks, then the
//!              │              single writes, bounded by 16 trials (work, so the same H
//!              │              shrinks alike in every run; 4 scenario caps at the very most)
//!              │              ──> the shortest prefix found that gives V; the transcript
//!              │              starts with it
//!              └─ not V ──> fresh passed: Info "did not recur", both transcripts
//!                           fresh another non-pass: the fresh verdict (self-contained)
//! ```
//!
//! Every trial is a whole run of the check (its liveness request after it included), so a
//! prefix that "reproduces" a verdict reproduces it as the check reports it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use tokio::time::Instant;

use super::{Attempt, Run, attempt};
use crate::check::{Check, Lease};
use crate::driver::request;
use crate::outcome::{Kind, Outcome};
use crate::report::Confirmation;
use mcpspec_core::protocol::method;
use mcpspec_core::transcript::{Entry, Event, Prefix};

/// What is reported for a check after confirmation.
#[derive(Debug)]
pub(super) struct Confirmed {
    pub outcome: Outcome,
    pub transcript: Vec<Entry>,
    pub prefix: Option<Prefix>,
    pub confirmed: Option<Confirmation>,
}

impl Confirmed {
    /// An attempt reported as it is (a pass, a fresh-process verdict, a replay).
    pub fn as_is(attempt: Attempt) -> Confirmed {
        Confirmed {
            outcome: attempt.outcome,
            transcript: attempt.transcript,
            prefix: None,
            confirmed: None,
        }
    }
}

/// Whether an attempt's verdict needs confirming: a non-pass obtained on a pooled process.
/// A non-pass that was the first traffic its process received after the pool's admission
/// exchange of the same era and version is final as it is (POL-30.1): that process was as good
/// as fresh.
pub(super) fn wanted(attempt: &Attempt) -> bool {
    shared_non_pass(attempt) == Some(false)
}

/// Whether an attempt's non-pass is final without a re-run: its shared process was as good as
/// fresh (POL-30.1).
pub(super) fn final_after_admission(attempt: &Attempt) -> bool {
    shared_non_pass(attempt) == Some(true)
}

/// For a non-pass on a shared process: whether the check was its process's first traffic after
/// the admission.
fn shared_non_pass(attempt: &Attempt) -> Option<bool> {
    let non_pass = matches!(
        attempt.outcome.kind,
        Kind::Fail | Kind::NonStrict | Kind::Error
    );
    let prior = attempt.prior.as_ref().filter(|_| non_pass)?;
    Some(first_after_admission(
        prior,
        attempt.shared_era,
        attempt.own_first.as_deref(),
    ))
}

/// Whether the check whose first write was `own_first` came right after its process's
/// admission: a legacy session whose only earlier traffic is its handshake (made at the
/// check's version: sessions are kept per version), or a modern process whose only earlier
/// write is the pool's one admission request (a liveness request, or the qualification) at the
/// protocol version of the check's own first request.
fn first_after_admission(
    prior: &mcpspec_core::transport::SentLog,
    era: Option<crate::outcome::Era>,
    own_first: Option<&[u8]>,
) -> bool {
    let writes: Vec<(&str, &Vec<u8>)> = prior
        .chunks()
        .flat_map(|c| c.writes.iter().map(move |w| (c.by.as_str(), w)))
        .collect();
    match era {
        Some(crate::outcome::Era::Legacy) => writes.is_empty() && prior.complete(),
        Some(crate::outcome::Era::Modern) => {
            let [(by, admission)] = writes.as_slice() else {
                return false;
            };
            let pool_request = [crate::pool::LIVENESS, crate::pool::QUALIFICATION].contains(by);
            let version = |bytes: &[u8]| {
                serde_json::from_slice::<serde_json::Value>(bytes)
                    .ok()?
                    .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")?
                    .as_str()
                    .map(str::to_owned)
            };
            pool_request
                && prior.complete()
                && own_first
                    .and_then(version)
                    .is_some_and(|v| Some(v) == version(admission))
        }
        Some(crate::outcome::Era::Any) | None => false,
    }
}

pub(super) async fn confirm(check: Check, run: &Run, shared: Attempt) -> Confirmed {
    let fresh = attempt(check, run, Lease::Fresh).await;
    let wanted = shared.outcome.kind;
    if fresh.outcome.kind == wanted {
        return Confirmed {
            confirmed: Some(Confirmation::SameOnFresh),
            ..Confirmed::as_is(fresh)
        };
    }
    let history = shared
        .prior
        .as_ref()
        .map(|p| p.chunks().map(|c| c.writes.clone()).collect());
    let history: Vec<Vec<Vec<u8>>> = history.unwrap_or_default();
    let era = shared.shared_era.unwrap_or(crate::outcome::Era::Modern);
    if let Some(found) = reproduce(check, run, wanted, era, history).await {
        let prefix = Prefix::from_writes(&found.writes);
        let messages = prefix.messages();
        let outcome = Outcome {
            message: format!(
                "{} (depends on earlier traffic on the same connection ({messages} {}): a fresh \
                 process without it gave {}; the transcript starts with that traffic, POL-30)",
                found.attempt.outcome.message,
                if messages == 1 { "message" } else { "messages" },
                fresh.outcome.kind
            ),
            ..found.attempt.outcome
        };
        return Confirmed {
            outcome,
            transcript: found.attempt.transcript,
            prefix: Some(prefix),
            confirmed: Some(Confirmation::EarlierTraffic { messages }),
        };
    }
    if fresh.outcome.kind != Kind::Pass {
        let outcome = Outcome {
            message: format!(
                "{}; on a process earlier checks had used it was {}, which did not recur on a \
                 fresh process (POL-30)",
                fresh.outcome.message, wanted
            ),
            ..fresh.outcome
        };
        return Confirmed {
            outcome,
            transcript: fresh.transcript,
            prefix: None,
            confirmed: Some(Confirmation::FreshDiffers { shared: wanted }),
        };
    }
    let outcome = Outcome::info(format!(
        "did not recur on a fresh process: on a process earlier checks had used it was {wanted}: \
         {}; on a fresh process, with or without the earlier traffic, it passed (POL-30: both \
         transcripts follow)",
        shared.outcome.message
    ));
    Confirmed {
        outcome,
        transcript: both(shared.transcript, fresh.transcript),
        prefix: None,
        confirmed: Some(Confirmation::DidNotRecur { shared: wanted }),
    }
}

/// Trials the shrinking of a prefix may spend past the one that proved the verdict
/// reproducible.
const SHRINK_TRIALS: usize = 16;

/// The last-resort wall-clock cap on that shrinking, in scenario caps.
const SHRINK_WALL_CAPS: u32 = 4;

/// What the shrinking may still spend.
struct Budget {
    trials: AtomicUsize,
    deadline: Instant,
}

impl Budget {
    /// Takes one trial; `false` when none is left.
    fn take(&self) -> bool {
        Instant::now() < self.deadline
            && self
                .trials
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
    }
}

/// A prefix that reproduced the verdict, and the run that did.
struct Found {
    writes: Vec<Vec<u8>>,
    attempt: Attempt,
}

/// The shortest prefix of `history` (chunks of writes, oldest first) found within the bound
/// that makes the check give `wanted` on a fresh process; `None` when even all of it does not.
async fn reproduce(
    check: Check,
    run: &Run,
    wanted: Kind,
    era: crate::outcome::Era,
    history: Vec<Vec<Vec<u8>>>,
) -> Option<Found> {
    let all: Vec<Vec<u8>> = history.iter().flatten().cloned().collect();
    if all.is_empty() {
        return None;
    }
    let trial = |writes: Vec<Vec<u8>>| async move {
        let got = attempt(check, run, Lease::Prefixed(Arc::new(writes.clone()))).await;
        (got.outcome.kind == wanted).then_some(Found {
            writes,
            attempt: got,
        })
    };
    // One standard request first, so that a verdict any served request brings about gets the
    // same prefix whatever ran before it on the shared process (and costs no trial of the
    // whole history).
    for standard in standard_requests(run, era) {
        if let Some(found) = trial(vec![standard]).await {
            return Some(found);
        }
    }
    let mut best = trial(all).await?;
    // The bound on shrinking is work, a number of trials, so the same history shrinks to the
    // same prefix in every run however busy the machine is (POL-30.3); the wall-clock cap only
    // stops a server so slow that the trials would take many scenario caps.
    let budget = Budget {
        trials: AtomicUsize::new(SHRINK_TRIALS),
        deadline: Instant::now() + run.settings.scenario_timeout * SHRINK_WALL_CAPS,
    };
    // Delta debugging over the chunks each writer left, then over single writes.
    let chunks = ddmin(history, &budget, |units: Vec<Vec<Vec<u8>>>| {
        let writes: Vec<Vec<u8>> = units.into_iter().flatten().collect();
        trial(writes)
    })
    .await;
    if let Some((_, found)) = chunks {
        best = found;
    }
    let writes: Vec<Vec<Vec<u8>>> = best.writes.iter().map(|w| vec![w.clone()]).collect();
    if let Some((_, found)) = ddmin(writes, &budget, |units: Vec<Vec<Vec<u8>>>| {
        trial(units.into_iter().flatten().collect())
    })
    .await
    {
        best = found;
    }
    Some(best)
}

/// The standard requests a shrunk prefix may be, under a fixed id: on a modern process a
/// `server/discover` and a request for a method the server serves, each in the full modern
/// envelope; in a legacy session a `ping` and a served method.
fn standard_requests(run: &Run, era: crate::outcome::Era) -> Vec<Vec<u8>> {
    let modern = era == crate::outcome::Era::Modern;
    let (first, served) = if modern {
        (
            method::DISCOVER,
            crate::catalogue::served_method(&run.facts),
        )
    } else {
        (
            method::PING,
            crate::catalogue::served_method_in(&run.facts, era),
        )
    };
    let mut methods = vec![first];
    if served != first {
        methods.push(served);
    }
    methods
        .into_iter()
        .map(|m| request(m).id(json!("mcpspec-prefix-1")).render(1, modern).0)
        .collect()
}

/// Delta debugging (Zeller's ddmin) over `units`, which as a whole are known to pass `test`:
/// the smallest subset found within `budget` that still passes, with what `test` returned
/// for it; `None` when no proper subset passed.
async fn ddmin<U, T, F, Fut>(mut units: Vec<U>, budget: &Budget, test: F) -> Option<(Vec<U>, T)>
where
    U: Clone,
    F: Fn(Vec<U>) -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let mut found = None;
    let mut n = 2usize;
    'outer: while units.len() >= 2 {
        let size = units.len().div_ceil(n);
        let parts: Vec<Vec<U>> = units.chunks(size).map(<[U]>::to_vec).collect();
        // Each part alone, then each part's complement (with two parts, the other part).
        for part in &parts {
            if !budget.take() {
                break 'outer;
            }
            if let Some(t) = test(part.clone()).await {
                units = part.clone();
                found = Some(t);
                n = 2;
                continue 'outer;
            }
        }
        if parts.len() > 2 {
            for i in 0..parts.len() {
                if !budget.take() {
                    break 'outer;
                }
                let rest: Vec<U> = parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, p)| p.iter().cloned())
                    .collect();
                if let Some(t) = test(rest.clone()).await {
                    units = rest;
                    found = Some(t);
                    n = (n - 1).max(2);
                    continue 'outer;
                }
            }
        }
        if n >= units.len() {
            break;
        }
        n = (n * 2).min(units.len());
    }
    found.map(|t| (units, t))
}

/// The shared run's transcript, then the fresh run's, its connections numbered after the
/// shared run's and its entries after the shared run's last, with a note between.
fn both(shared: Vec<Entry>, fresh: Vec<Entry>) -> Vec<Entry> {
    let conns = shared.iter().map(|e| e.conn).max().unwrap_or(0);
    let mut seq = shared.iter().map(|e| e.seq).max().unwrap_or(0);
    let mut all = shared;
    seq += 1;
    all.push(Entry {
        seq,
        conn: conns + 1,
        at_ms: None,
        instance: None,
        event: Event::Note {
            text: "the same check on a fresh process (POL-30):".into(),
        },
    });
    for mut entry in fresh {
        seq += 1;
        entry.seq = seq;
        entry.conn += conns;
        all.push(entry);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test that passes for every subset holding all of `needed`.
    fn holds(needed: &'static [u32]) -> impl Fn(Vec<u32>) -> std::future::Ready<Option<usize>> {
        move |units: Vec<u32>| {
            std::future::ready(
                needed
                    .iter()
                    .all(|n| units.contains(n))
                    .then_some(units.len()),
            )
        }
    }

    fn budget(trials: usize) -> Budget {
        Budget {
            trials: AtomicUsize::new(trials),
            deadline: Instant::now() + std::time::Duration::from_secs(60),
        }
    }

    #[tokio::test]
    async fn ddmin_finds_the_one_unit_that_matters() {
        let found = ddmin((0..40).collect(), &budget(100), holds(&[17])).await;
        assert_eq!(found.map(|(u, _)| u), Some(vec![17]));
    }

    #[tokio::test]
    async fn ddmin_keeps_two_units_that_matter_together() {
        let found = ddmin((0..40).collect(), &budget(100), holds(&[3, 31])).await;
        assert_eq!(found.map(|(u, _)| u), Some(vec![3, 31]));
    }

    #[tokio::test]
    async fn ddmin_says_none_when_every_unit_is_needed() {
        assert!(
            ddmin(vec![1, 2], &budget(100), holds(&[1, 2]))
                .await
                .is_none()
        );
    }

    #[tokio::test]
    async fn ddmin_spends_no_more_trials_than_its_budget_and_always_the_same() {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let counted = |units: Vec<u32>| {
            calls.fetch_add(1, Ordering::Relaxed);
            holds(&[17])(units)
        };
        let first = ddmin((0..40).collect(), &budget(3), counted).await;
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        // Work, not time, bounds it: the same budget gives the same subset again.
        let again = ddmin((0..40).collect(), &budget(3), holds(&[17])).await;
        assert_eq!(first.map(|(u, _)| u), again.map(|(u, _)| u));
    }

    #[tokio::test]
    async fn ddmin_stops_at_its_last_resort_deadline() {
        let past = Budget {
            trials: AtomicUsize::new(100),
            deadline: Instant::now(),
        };
        assert!(
            ddmin((0..40).collect(), &past, holds(&[17]))
                .await
                .is_none()
        );
    }
}
