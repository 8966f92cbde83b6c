//! The check catalogue, grouped by spec area. Each area registers its checks in one place
//! (`group()`); [`catalogue`] is their concatenation, in report order.

pub mod deadlock;
mod http;
mod jsonrpc;
mod legacy;
mod middleware;
mod modern;
mod negotiation;
mod stdio;
mod tools;
// The rest of the 2026-07-28 surface (issue 8).
mod features;
mod lists;
mod logging;
mod mrtr;
mod progress;
mod subscriptions;
mod surface;

use serde_json::Value;

use crate::check::{Check, Facts};
use crate::driver::{Peer, Reply, request};
use crate::outcome::{Era, Outcome};
use crate::protocol::{code, method};

/// Every check, in report order.
pub fn catalogue() -> Vec<Check> {
    [
        jsonrpc::group(),
        modern::group(),
        stdio::group(),
        tools::group(),
        features::group(),
        lists::group(),
        subscriptions::group(),
        logging::group(),
        progress::group(),
        mrtr::group(),
        negotiation::group(),
        legacy::group(),
        deadlock::group(),
        middleware::group(),
        http::group(),
    ]
    .concat()
}

/// Looks a check up by id.
pub fn by_id(id: &str) -> Option<Check> {
    catalogue().into_iter().find(|c| c.id == id)
}

/// A read-only method the server serves, for negative tests that must reach envelope and
/// version validation (POL-1: the method itself must not be what is wrong).
pub(crate) fn served_method(facts: &Facts) -> &'static str {
    if facts.has_capability("tools") {
        method::TOOLS_LIST
    } else if facts.has_capability("resources") {
        method::RESOURCES_LIST
    } else if facts.has_capability("prompts") {
        "prompts/list"
    } else {
        method::DISCOVER
    }
}

/// A list request `era` serves on this server: as [`served_method`] on the modern era; on the
/// legacy era, from the capabilities the `initialize` probe announced (`ping` without any).
pub(crate) fn served_method_in(facts: &Facts, era: Era) -> &'static str {
    if era != Era::Legacy {
        return served_method(facts);
    }
    let caps = facts
        .initialize
        .as_ref()
        .and_then(|r| r.get("capabilities"));
    let has = |c: &str| {
        caps.and_then(|caps| caps.get(c))
            .is_some_and(Value::is_object)
    };
    if has("tools") {
        method::TOOLS_LIST
    } else if has("resources") {
        method::RESOURCES_LIST
    } else if has("prompts") {
        "prompts/list"
    } else {
        method::PING
    }
}

/// A harmless request every server of `era` answers: `server/discover` (modern) or `ping`
/// (legacy, after the handshake). Era-independent checks (POL-28) use it as their sentinel.
pub(crate) fn harmless_method(era: Era) -> &'static str {
    match era {
        Era::Legacy => method::PING,
        _ => method::DISCOVER,
    }
}

/// The liveness probe: a harmless request of the peer's era (`server/discover`, or `ping` on a
/// legacy connection) must be answered (with anything valid).
pub(crate) async fn expect_alive(peer: &mut Peer, after: &str) -> Result<(), Outcome> {
    let probe = harmless_method(peer.era);
    let reply = peer.call(request(probe)).await;
    match reply.message() {
        Some(_) => Ok(()),
        None => Err(Outcome::fail(format!(
            "after {after}, the liveness probe ({probe}) got {}",
            reply.describe()
        ))),
    }
}

/// Grades one error code against RPC-2, RPC-7 and POL-15. `None` means acceptable.
pub(crate) fn grade_error_code(code: i64) -> Option<Outcome> {
    if code == 0 {
        return Some(Outcome::fail("error code 0 (RPC-2, POL-15)"));
    }
    if code::DRAFT_CODES.contains(&code) {
        return Some(Outcome::fail(format!(
            "error code {code} is a pre-release draft code (use -32020/-32021/-32022)"
        )));
    }
    if code == code::LEGACY_RESOURCE_NOT_FOUND || code == code::LEGACY_URL_ELICITATION {
        return Some(Outcome::fail(format!(
            "error code {code} is removed in 2026-07-28 (RPC-7)"
        )));
    }
    if (-32099..=-32020).contains(&code) && !code::MODERN_DEFINED_RESERVED.contains(&code) {
        return Some(Outcome::fail(format!(
            "error code {code} is undefined in -32020..-32099 (RPC-7)"
        )));
    }
    if (-32019..=-32000).contains(&code) {
        return Some(Outcome::non_strict(format!(
            "error code {code} is in -32000..-32019, which 2026-07-28 says SHOULD NOT be used (RPC-7)"
        )));
    }
    None
}

/// Expects the error `code`; a different error code is `other`'s outcome (Fail unless the
/// caller chose NonStrict), a result or silence is Fail.
pub(crate) fn expect_code_or(
    reply: &Reply,
    what: &str,
    code: i64,
    other: fn(String) -> Outcome,
) -> Outcome {
    match reply.error() {
        Some(e) if e.code == code => Outcome::pass(format!("{what}: error {code}")),
        Some(_) => other(format!(
            "{what}: expected error {code}, got {}",
            reply.describe()
        )),
        None => Outcome::fail(format!(
            "{what}: expected error {code}, got {}",
            reply.describe()
        )),
    }
}

/// A string array member, if it is one.
pub fn string_array(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::requirements;

    #[test]
    fn ids_are_unique_and_hierarchical() {
        let mut seen = BTreeSet::new();
        for c in catalogue() {
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
        for c in catalogue() {
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

    #[test]
    fn error_code_grades() {
        assert!(grade_error_code(-32601).is_none());
        assert!(grade_error_code(-32022).is_none());
        assert_eq!(
            grade_error_code(0).map(|o| o.kind),
            Some(crate::outcome::Kind::Fail)
        );
        assert_eq!(
            grade_error_code(-32050).map(|o| o.kind),
            Some(crate::outcome::Kind::Fail)
        );
        assert_eq!(
            grade_error_code(-32004).map(|o| o.kind),
            Some(crate::outcome::Kind::Fail)
        );
        assert_eq!(
            grade_error_code(-32010).map(|o| o.kind),
            Some(crate::outcome::Kind::NonStrict)
        );
        assert!(grade_error_code(-1).is_none());
    }
}
