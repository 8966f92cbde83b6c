//! The client checks: each judges what a client did in one scenario, from its [`Observation`],
//! and cites the client requirements (CLI-n) it verifies. Grouped by area in `checks/`, each
//! area a `group()`; [`all`] lists them in report order.
//!
//! A check is proven as the server checks are: it names the reference client's faults under
//! which it must not pass (`reference_client`, `--fault NAME`), and `tests/client_mutation.rs`
//! runs it under each.
//!
//! How the client ended is judged once, for every check of the scenario, in `run.rs`: a client
//! that hangs past the timeout, is killed by a signal, writes nothing, or exits non-zero where
//! the scenario expects success makes the check a Fail naming that.

mod envelope;
mod hygiene;
mod lifecycle;
mod mrtr;
mod negotiation;
mod robustness;
mod server_requests;
mod sessions;

use crate::client::observation::Observation;
use crate::client::scenario::Transport;
use crate::outcome::{Level, Outcome};

/// One client check.
#[derive(Debug, Clone, Copy)]
pub struct ClientCheck {
    /// Stable hierarchical id: `client/area/behaviour`.
    pub id: &'static str,
    /// Client requirement ids (CLI-n).
    pub requirements: &'static [&'static str],
    pub level: Level,
    /// The scenario whose observation it judges.
    pub scenario: &'static str,
    /// The one transport it applies to (`None`: either).
    pub only: Option<Transport>,
    /// What is checked, one line.
    pub description: &'static str,
    /// What a conforming client does, one line.
    pub expectation: &'static str,
    /// Reference-client faults under which the check must not pass: data for the mutation test
    /// (`tests/client_mutation.rs`), which the product itself never reads.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub faults: &'static [&'static str],
    pub judge: fn(&Observation) -> Outcome,
}

impl ClientCheck {
    /// Whether `--select`/`--skip` pattern `p` names this check: an id prefix of whole segments,
    /// a cited requirement id, or its scenario's name (the rule of [`crate::Check::matches`],
    /// plus scenarios).
    pub fn matches(&self, p: &str) -> bool {
        let p = p.trim_end_matches('/');
        self.id == p
            || self
                .id
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
            || self.requirements.contains(&p)
            || self.scenario == p
    }

    /// Whether it applies on transport `t`.
    pub fn applies_to(&self, t: Transport) -> bool {
        self.only.is_none_or(|only| only == t)
    }
}

/// Every client check, in report order.
pub fn all() -> Vec<ClientCheck> {
    [
        negotiation::group(),
        envelope::group(),
        lifecycle::group(),
        hygiene::group(),
        server_requests::group(),
        mrtr::group(),
        sessions::group(),
        robustness::group(),
    ]
    .concat()
}

/// The checks `select` keeps and `skip` leaves out (see [`ClientCheck::matches`]), in order.
pub fn selected(select: &[String], skip: &[String]) -> Vec<ClientCheck> {
    all()
        .into_iter()
        .filter(|c| select.is_empty() || select.iter().any(|p| c.matches(p)))
        .filter(|c| !skip.iter().any(|p| c.matches(p)))
        .collect()
}

/// What the checks share.
mod prelude {
    pub use serde_json::Value;

    pub use super::ClientCheck;
    pub use crate::client::judge::{self, Kind, code, meta, method, version};
    pub use crate::client::observation::{ClientMessage, Observation, PeerMessage};
    pub use crate::client::scenario::Transport;
    pub use crate::outcome::{Level, Outcome, Problems};

    /// A Fail quoting `message` as its evidence.
    pub fn fail_at(m: &ClientMessage, text: impl Into<String>) -> Outcome {
        Outcome::fail(text).with_evidence(Some(m.evidence()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_scenarios_exist_and_requirements_are_client_ones() {
        let checks = all();
        let mut ids: Vec<&str> = checks.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), checks.len(), "duplicate check ids");
        for c in &checks {
            assert!(c.id.starts_with("client/"), "{}", c.id);
            let scenario = crate::client::scenario::named(c.scenario)
                .unwrap_or_else(|| panic!("{}: unknown scenario {}", c.id, c.scenario));
            if let Some(t) = c.only {
                assert!(
                    scenario.runs_on(t),
                    "{}: {} never runs on {t:?}",
                    c.id,
                    c.scenario
                );
            }
            assert!(!c.requirements.is_empty(), "{}", c.id);
            for r in c.requirements {
                assert!(
                    crate::requirements::client_catalogue().contains_key(*r),
                    "{}: {r} is not a client requirement",
                    c.id
                );
            }
            assert!(!c.faults.is_empty(), "{} names no fault", c.id);
        }
    }

    #[test]
    fn every_client_requirement_has_a_check() {
        let checks = all();
        for id in crate::requirements::client_catalogue().keys() {
            assert!(
                checks.iter().any(|c| c.requirements.contains(&id.as_str())),
                "{id} has no check"
            );
        }
    }

    #[test]
    fn selection_matches_like_the_server_catalogue() {
        let c = all()
            .into_iter()
            .find(|c| c.id == "client/hygiene/unique-ids")
            .expect("check");
        assert!(c.matches("client"));
        assert!(c.matches("client/hygiene/"));
        assert!(c.matches("CLI-5"));
        assert!(c.matches("tools_call"));
        assert!(!c.matches("client/hyg"));
        assert_eq!(
            selected(&[], &["client/hygiene".into()]).len() + 3,
            all().len()
        );
    }
}
