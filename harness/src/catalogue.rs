//! The check catalogue, grouped by spec area. Each area registers its checks in one place
//! (`group()`); [`all`] is their concatenation, in report order. What one check is (`Check`,
//! `Scenario`) lives in [`crate::check`]; the areas import what they need from `prelude` and share
//! judgements through `support` (both below every area file, never importing one).

mod auth;
pub mod deadlock;
mod http;
mod http_support;
mod jsonrpc;
mod legacy;
mod legacy_http;
mod middleware;
mod modern;
mod negotiation;
mod stdio;
mod tools;
// The rest of the 2026-07-28 surface (issue 8).
mod caching;
mod cancellation;
mod capabilities;
mod lists;
mod logging;
mod mrtr;
mod prelude;
mod progress;
mod schema;
mod stateless;
mod subscriptions;
mod support;
// The feature surface, on its success paths (POL-31, issue 28).
mod completion;
mod pagination;
mod prompts;
mod resources;
mod surface;
mod tool_calls;
mod uri_template;

pub(crate) use support::{served_method, served_method_in};

use crate::check::Check;

/// Every check, in report order.
pub fn all() -> Vec<Check> {
    [
        jsonrpc::group(),
        modern::group(),
        stdio::group(),
        tools::group(),
        resources::error_paths(),
        prompts::error_paths(),
        capabilities::group(),
        caching::group(),
        lists::group(),
        tool_calls::group(),
        resources::group(),
        prompts::group(),
        completion::group(),
        pagination::group(),
        subscriptions::group(),
        logging::group(),
        progress::group(),
        cancellation::group(),
        mrtr::group(),
        negotiation::group(),
        legacy::group(),
        deadlock::group(),
        middleware::group(),
        http::group(),
        legacy_http::group(),
        schema::group(),
        stateless::group(),
        auth::group(),
    ]
    .concat()
}

/// Looks a check up by id.
pub fn by_id(id: &str) -> Option<Check> {
    all().into_iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::requirements;

    #[test]
    fn ids_are_unique_and_hierarchical() {
        let mut seen = BTreeSet::new();
        for c in all() {
            assert!(seen.insert(c.id), "duplicate check id {}", c.id);
            assert!(c.id.split('/').count() >= 2, "{} is not hierarchical", c.id);
            assert!(
                c.id.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || "/-".contains(ch)),
                "{} has characters outside [a-z0-9/-]",
                c.id
            );
        }
    }

    #[test]
    fn every_check_cites_known_requirements() {
        for c in all() {
            assert!(
                c.requirements
                    .iter()
                    .any(|r| requirements::requirement(r).is_some()),
                "{} cites no requirement from requirements.yaml",
                c.id
            );
            for r in c.requirements {
                assert!(requirements::is_known(r), "{} cites unknown id {r}", c.id);
            }
            assert!(
                !c.description.is_empty() && !c.expectation.is_empty(),
                "{}",
                c.id
            );
        }
    }
}
