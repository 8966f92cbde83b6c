//! Discovery (CLI-11): Protected Resource Metadata from the challenge's URL, else the
//! well-known URLs in order; its `resource` checked; the AS metadata URLs in the spec's order;
//! its `issuer` checked.

use super::super::prelude::*;
use super::{Flow, fail_on, flow};
use crate::observation::authorization::{AuthRequest, Origin};

const PRM: &str = "/.well-known/oauth-protected-resource";

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/auth/prm-from-challenge",
            requirements: &["CLI-11"],
            level: Level::Must,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "On a 401 whose challenge names `resource_metadata`, the client reads its Protected Resource Metadata from that URL.",
            expectation: "The first metadata request after the 401 is a GET of the challenge's `resource_metadata` URL.",
            faults: &["prm-root-only"],
            judge: prm_from_challenge,
        },
        ClientCheck {
            id: "client/auth/prm-well-known-order",
            requirements: &["CLI-11"],
            level: Level::Must,
            scenario: "auth/prm-at-root",
            only: Some(Transport::Http),
            description: "Without `resource_metadata` in the challenge, the client tries the path-inserted well-known URL, then the root one.",
            expectation: "GET `/.well-known/oauth-protected-resource/mcp` (404), then `/.well-known/oauth-protected-resource`.",
            faults: &["prm-root-only"],
            judge: prm_well_known_order,
        },
        ClientCheck {
            id: "client/auth/prm-resource-checked",
            requirements: &["CLI-11"],
            level: Level::Must,
            scenario: "auth/prm-wrong-resource",
            only: Some(Transport::Http),
            description: "Protected Resource Metadata whose `resource` is another server is not used.",
            expectation: "No request to the authorization server it names.",
            faults: &["accept-any-prm-resource"],
            judge: prm_resource_checked,
        },
        ClientCheck {
            id: "client/auth/as-metadata-order",
            requirements: &["CLI-11"],
            level: Level::Must,
            scenario: "auth/as-path-issuer",
            only: Some(Transport::Http),
            description: "For an issuer with a path, the client tries the AS metadata URLs in the spec's order: OAuth path-inserted, OIDC path-inserted, OIDC path-appended.",
            expectation: "`/.well-known/oauth-authorization-server/tenant`, `/.well-known/openid-configuration/tenant`, `/tenant/.well-known/openid-configuration`, in that order, until one answers.",
            faults: &["as-metadata-oidc-first"],
            judge: as_metadata_order,
        },
        ClientCheck {
            id: "client/auth/as-issuer-checked",
            requirements: &["CLI-11"],
            level: Level::Must,
            scenario: "auth/as-wrong-issuer",
            only: Some(Transport::Http),
            description: "AS metadata whose `issuer` differs from the issuer it was fetched for is not used (2026-07-28; RFC 8414 §3.3).",
            expectation: "No registration, authorization or token request to that server.",
            faults: &["accept-any-issuer"],
            judge: as_issuer_checked,
        },
    ]
}

/// The requests for Protected Resource Metadata (either well-known URL, the MCP origin).
fn prm_requests<'a>(f: &Flow<'a>) -> Vec<&'a AuthRequest> {
    f.trail
        .to(Origin::Mcp)
        .filter(|r| r.path().starts_with(PRM))
        .collect()
}

/// The requests for AS metadata (a well-known URL of the AS origin).
fn as_metadata_requests<'a>(f: &Flow<'a>) -> Vec<&'a AuthRequest> {
    f.trail
        .to(Origin::AuthServer)
        .filter(|r| r.is_well_known())
        .collect()
}

fn prm_from_challenge(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let wanted = f
        .facts
        .metadata_url
        .strip_prefix(&f.facts.mcp_origin)
        .unwrap_or_default()
        .to_owned();
    let first_metadata = f.requests().find(|r| r.is_well_known());
    match first_metadata {
        Some(r) if r.origin == Origin::Mcp && r.path() == wanted => Outcome::pass(format!(
            "the client read its Protected Resource Metadata from the challenge's URL ({wanted}) first"
        )),
        Some(r) => fail_on(
            r,
            format!(
                "the challenge named resource_metadata=\"{}\", but the client's first metadata request was {}",
                f.facts.metadata_url,
                r.describe()
            ),
        ),
        None => {
            let first = f
                .requests()
                .find(|r| r.origin == Origin::AuthServer)
                .expect("attempted without metadata: an AS request");
            fail_on(
                first,
                format!(
                    "the client never read the Protected Resource Metadata the challenge named; it went to {} instead",
                    first.describe()
                ),
            )
        }
    }
}

fn prm_well_known_order(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let inserted = format!("{PRM}/mcp");
    let prm = prm_requests(&f);
    let Some(first) = prm.first() else {
        let first = f
            .requests()
            .find(|r| r.is_well_known() || r.origin == Origin::AuthServer);
        return match first {
            Some(r) => fail_on(
                r,
                format!(
                    "the client never asked for Protected Resource Metadata; its first authorization request was {}",
                    r.describe()
                ),
            ),
            None => Outcome::skipped(super::NOT_ATTEMPTED),
        };
    };
    if first.path() != inserted {
        return fail_on(
            first,
            format!(
                "without resource_metadata in the challenge, the first URL to try is the path-inserted {inserted}; the client asked for {} first",
                first.path()
            ),
        );
    }
    match prm.iter().find(|r| r.path() == PRM) {
        Some(_) => Outcome::pass(format!(
            "the client asked for {inserted} (404), then the root {PRM}"
        )),
        None => fail_on(
            first,
            format!(
                "{inserted} answered 404 and the client never tried the root {PRM}, where the metadata is"
            ),
        ),
    }
}

fn prm_resource_checked(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    if !prm_requests(&f).iter().any(|r| r.status == Some(200)) {
        return Outcome::skipped(
            "the client never got the Protected Resource Metadata (it asked for none it was given)",
        );
    }
    match f.trail.to(Origin::AuthServer).next() {
        Some(r) => fail_on(
            r,
            format!(
                "the metadata's resource names {}{}, not {} (the server the client asked about), yet the client went on to the authorization server it names: {}",
                f.facts.mcp_origin,
                crate::scenario::protection::ANOTHER,
                f.facts.resource,
                r.describe()
            ),
        ),
        None => Outcome::pass(
            "the client did not use Protected Resource Metadata naming another resource",
        ),
    }
}

fn as_metadata_order(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let issuer_path = f
        .facts
        .issuer
        .strip_prefix(&f.facts.auth_origin)
        .unwrap_or_default()
        .to_owned();
    let order = [
        format!("/.well-known/oauth-authorization-server{issuer_path}"),
        format!("/.well-known/openid-configuration{issuer_path}"),
        format!("{issuer_path}/.well-known/openid-configuration"),
    ];
    let asked = as_metadata_requests(&f);
    if asked.is_empty() {
        return match f.authorizations().first() {
            Some(r) => fail_on(
                r,
                "the client authorized without reading the authorization server's metadata",
            ),
            None => {
                Outcome::skipped("the client never asked for the authorization server's metadata")
            }
        };
    }
    // The distinct URLs asked for up to the first that answered, in order.
    let mut tried: Vec<&AuthRequest> = Vec::new();
    for r in &asked {
        if !tried.iter().any(|t| t.path() == r.path()) {
            tried.push(r);
        }
        if r.status == Some(200) {
            break;
        }
    }
    for (i, r) in tried.iter().enumerate() {
        if order.get(i).map(String::as_str) != Some(r.path()) {
            let expected = order.get(i).map_or("nothing more", String::as_str);
            return fail_on(
                r,
                format!(
                    "metadata request #{} of the client was {}; the spec's order for issuer {} asks for {expected} there (order: {})",
                    i + 1,
                    r.path(),
                    f.facts.issuer,
                    order.join(", ")
                ),
            );
        }
    }
    if tried.last().and_then(|r| r.status) == Some(200) {
        Outcome::pass(format!(
            "the client tried {} in the spec's order",
            tried
                .iter()
                .map(|r| r.path())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else {
        fail_on(
            tried.last().expect("not empty"),
            format!(
                "the client stopped after {} without trying the rest of the spec's order ({})",
                tried
                    .iter()
                    .map(|r| r.path())
                    .collect::<Vec<_>>()
                    .join(", "),
                order.join(", ")
            ),
        )
    }
}

fn as_issuer_checked(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    if !as_metadata_requests(&f)
        .iter()
        .any(|r| r.status == Some(200))
    {
        return Outcome::skipped("the client never got the authorization server's metadata");
    }
    let used = f.trail.to(Origin::AuthServer).find(|r| !r.is_well_known());
    match used {
        Some(r) => fail_on(
            r,
            format!(
                "the metadata fetched for issuer {} says issuer {}{}, yet the client used it: {}",
                f.facts.issuer,
                f.facts.issuer,
                crate::scenario::protection::ANOTHER,
                r.describe()
            ),
        ),
        None => Outcome::pass(
            "the client did not use metadata whose issuer is not the one it asked for",
        ),
    }
}
