//! The client checks: each judges what a client did in one scenario, from its [`Observation`],
//! and cites the client requirements (CLI-n) it verifies. Grouped by area in `checks/`, each
//! area a `group()`; [`all`] lists them in report order.
//!
//! A check is proven as the server checks are: it names the reference client's faults under
//! which it must not pass (`reference_client`, `--fault NAME`), and `tests/testsuite/client_mutation.rs`
//! runs it under each.
//!
//! Only what the client did is judged (POL-34): each check says what the client must have done
//! for it to apply (called the tool the scenario offers, made a request after the event the
//! check waits for, …) and is Skipped, saying what was missing, when the client did not.
//!
//! How the client ended is judged once, for every check of the scenario, in `run.rs`: a client
//! that hangs past the timeout, is killed by a signal, writes nothing, or exits non-zero where
//! the scenario expects success makes the check a Fail naming that, unless the check was
//! Skipped (it stays a Skip, the reason naming the end) and the client sent something.

mod authorization;
mod envelope;
mod hygiene;
mod lifecycle;
mod mrtr;
mod negotiation;
mod robustness;
mod server_requests;
mod sessions;

use crate::observation::Observation;
use crate::scenario::Transport;
use mcpspec_harness::outcome::{Level, Outcome};

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
    /// (`tests/testsuite/client_mutation.rs`), which the product itself never reads.
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
        authorization::group(),
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
    pub use crate::judge::{self, Kind, code, meta, method, version};
    pub use crate::observation::{ClientMessage, Observation, PeerMessage};
    pub use crate::scenario::Transport;
    pub use mcpspec_harness::outcome::{Level, Outcome, Problems};

    /// A Fail quoting `message` as its evidence.
    pub fn fail_at(m: &ClientMessage, text: impl Into<String>) -> Outcome {
        Outcome::fail(text).with_evidence(Some(m.evidence()))
    }
}

/// Observations written by hand for the checks' unit tests, recorded through the same [`Log`]
/// the peer writes (`crate::observation::Log`).
#[cfg(test)]
pub(crate) mod script {
    use std::time::Duration;

    use serde_json::Value;

    use crate::observation::{ClientEnd, HttpHead, Log, Observation};
    use crate::scenario::{self, Transport};
    use mcpspec_harness::outcome::Outcome;

    /// A scenario's conversation, message by message.
    pub struct Script {
        log: Log,
        transport: Transport,
        exchange: u64,
    }

    impl Script {
        pub fn new(transport: Transport) -> Self {
            Self {
                log: Log::default(),
                transport,
                exchange: 0,
            }
        }

        /// The client sends `message` (over HTTP a POST without a session, answered 200).
        pub fn client(self, message: Value) -> Self {
            match self.transport {
                Transport::Stdio => {
                    self.log
                        .client_message(1, message.to_string().as_bytes(), None);
                    self
                }
                Transport::Http => self.post(message, None, 200, None),
            }
        }

        /// The peer sends `message`.
        pub fn peer(self, message: Value) -> Self {
            self.log.peer_message(1, message.to_string().as_bytes());
            self
        }

        /// HTTP: the client POSTs `message` naming `session`; the peer answers `status`,
        /// minting `minted`.
        pub fn post(
            mut self,
            message: Value,
            session: Option<&str>,
            status: u16,
            minted: Option<&str>,
        ) -> Self {
            let head = self.head("POST", session);
            self.log.http_request(head.clone());
            self.log
                .client_message(1, message.to_string().as_bytes(), Some(head));
            self.answer(status, minted)
        }

        /// HTTP: a request without a body (`GET`, `DELETE`) naming `session`, answered `status`.
        pub fn bare(mut self, method: &str, session: Option<&str>, status: u16) -> Self {
            let head = self.head(method, session);
            self.log.http_request(head);
            self.answer(status, None)
        }

        fn head(&mut self, method: &str, session: Option<&str>) -> HttpHead {
            self.exchange += 1;
            HttpHead {
                exchange: self.exchange,
                method: method.to_owned(),
                target: "/mcp".to_owned(),
                headers: session
                    .map(|s| ("mcp-session-id".to_owned(), s.to_owned()))
                    .into_iter()
                    .collect(),
                status: None,
                minted_session: None,
            }
        }

        fn answer(self, status: u16, minted: Option<&str>) -> Self {
            let headers: Vec<(String, String)> = minted
                .map(|s| ("mcp-session-id".to_owned(), s.to_owned()))
                .into_iter()
                .collect();
            self.log.http_response(self.exchange, status, &headers);
            self
        }

        /// The finished observation of scenario `name`, the client having ended so.
        pub fn finish(self, name: &str, end: ClientEnd) -> Observation {
            let scenario = scenario::named(name).expect("a known scenario");
            self.log
                .finish(scenario, self.transport, end, Vec::new(), Duration::ZERO)
        }
    }

    /// The verdict of check `id` on `obs` (its judgement alone, not how the client ended).
    pub fn judge(id: &str, obs: &Observation) -> Outcome {
        let check = super::all()
            .into_iter()
            .find(|c| c.id == id)
            .expect("a known check");
        (check.judge)(obs)
    }

    /// A request with `id`, `method` and `params`.
    pub fn request(id: u64, method: &str, params: Value) -> Value {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    /// A result reply to `id`.
    pub fn result(id: Value, result: Value) -> Value {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    /// An error reply to `id`.
    pub fn error(id: Value, code: i64) -> Value {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "x"}})
    }

    /// Asserts `outcome` is of `kind` and its message holds `words`.
    pub fn assert_verdict(outcome: &Outcome, kind: mcpspec_harness::outcome::Kind, words: &str) {
        assert_eq!(outcome.kind, kind, "{}", outcome.message);
        assert!(
            outcome.message.contains(words),
            "`{words}` not in: {}",
            outcome.message
        );
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
            let scenario = crate::scenario::named(c.scenario)
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
                    mcpspec_harness::requirements::client_catalogue().contains_key(*r),
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
        for id in mcpspec_harness::requirements::client_catalogue().keys() {
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
