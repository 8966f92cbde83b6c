//! The authorization request and its response: PKCE (CLI-12), `resource` (CLI-13), the
//! client_id (CLI-15), `state` (CLI-16), `iss` (CLI-17).

use base64::Engine as _;
use sha2::Digest as _;

use super::super::prelude::*;
use super::{Flow, fail_on, flow, location_params};
use crate::observation::authorization::{AuthRequest, Origin};
use crate::scenario::protection::{CLIENT_METADATA_URL, PRE_REGISTERED_ID, Redirect};

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/auth/pkce-s256",
            requirements: &["CLI-12"],
            level: Level::Must,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "Every authorization request carries a PKCE `code_challenge` with `code_challenge_method=S256`, and the code is redeemed with its `code_verifier`.",
            expectation: "`code_challenge` and `code_challenge_method=S256` on /authorize; `code_verifier` whose SHA-256 is that challenge on /token.",
            faults: &["no-pkce"],
            judge: pkce_s256,
        },
        ClientCheck {
            id: "client/auth/pkce-required",
            requirements: &["CLI-12"],
            level: Level::Must,
            scenario: "auth/no-s256",
            only: Some(Transport::Http),
            description: "When the AS metadata has no `code_challenge_methods_supported`, the client refuses to authorize.",
            expectation: "No authorization request and no token request; the client stops with an error.",
            faults: &["proceed-without-s256"],
            judge: pkce_required,
        },
        ClientCheck {
            id: "client/auth/resource-parameter",
            requirements: &["CLI-13"],
            level: Level::Must,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "The authorization request and the token request carry `resource` (RFC 8707) naming the MCP server's canonical URI.",
            expectation: "`resource=http://127.0.0.1:PORT/mcp` on /authorize and on the code's /token request.",
            faults: &["no-resource"],
            judge: resource_parameter,
        },
        ClientCheck {
            id: "client/auth/client-id-before-authorize",
            requirements: &["CLI-15"],
            level: Level::Must,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "The client holds a client_id before it authorizes: one the AS registered (DCR), was pre-registered with, or a metadata document URL.",
            expectation: "The client_id of every authorization request is one the AS issued.",
            faults: &["no-registration"],
            judge: client_id_before_authorize,
        },
        ClientCheck {
            id: "client/auth/pre-registered-first",
            requirements: &["CLI-15"],
            level: Level::Should,
            scenario: "auth/pre-registered",
            only: Some(Transport::Http),
            description: "A client given pre-registered credentials uses them rather than registering.",
            expectation: "The context's client_id on the authorization request; no registration request.",
            faults: &["ignore-pre-registered"],
            judge: pre_registered_first,
        },
        ClientCheck {
            id: "client/auth/cimd-when-advertised",
            requirements: &["CLI-15"],
            level: Level::Should,
            scenario: "auth/cimd",
            only: Some(Transport::Http),
            description: "When the AS advertises Client ID Metadata Documents and the client has one, it uses its URL as client_id rather than Dynamic Client Registration.",
            expectation: "client_id = the context's client_metadata_url; no registration request.",
            faults: &["ignore-cimd"],
            judge: cimd_when_advertised,
        },
        ClientCheck {
            id: "client/auth/dcr-application-type",
            requirements: &["CLI-15"],
            level: Level::Should,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "A Dynamic Client Registration request names `application_type` (2026-07-28).",
            expectation: "`application_type` (`native` or `web`) in the registration body.",
            faults: &["dcr-no-application-type"],
            judge: dcr_application_type,
        },
        ClientCheck {
            id: "client/auth/state-sent",
            requirements: &["CLI-16"],
            level: Level::Should,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "The authorization request carries `state`.",
            expectation: "A non-empty `state` on every authorization request.",
            faults: &["no-state"],
            judge: state_sent,
        },
        ClientCheck {
            id: "client/auth/state-checked",
            requirements: &["CLI-16"],
            level: Level::Should,
            scenario: "auth/wrong-state",
            only: Some(Transport::Http),
            description: "An authorization response whose `state` differs from the request's is discarded: its code is never redeemed.",
            expectation: "No token request for a code that came back with another `state`.",
            faults: &["ignore-state"],
            judge: never_redeemed,
        },
        ClientCheck {
            id: "client/auth/iss-checked",
            requirements: &["CLI-17"],
            level: Level::Must,
            scenario: "auth/wrong-iss",
            only: Some(Transport::Http),
            description: "An authorization response whose `iss` is not the AS's issuer is rejected before its code is redeemed (RFC 9207).",
            expectation: "No token request for a code that came back with another `iss`.",
            faults: &["ignore-iss"],
            judge: never_redeemed,
        },
        ClientCheck {
            id: "client/auth/iss-required",
            requirements: &["CLI-17"],
            level: Level::Must,
            scenario: "auth/missing-iss",
            only: Some(Transport::Http),
            description: "An authorization response without `iss` is rejected when the AS metadata says `authorization_response_iss_parameter_supported: true`.",
            expectation: "No token request for a code that came back without `iss`.",
            faults: &["ignore-iss"],
            judge: never_redeemed,
        },
    ]
}

/// The flow and its authorization requests, or the Skip of a client that made none.
fn authorized<'a>(obs: &'a Observation) -> Result<(Flow<'a>, Vec<&'a AuthRequest>), Outcome> {
    let f = flow(obs)?;
    let auths = f.authorizations();
    if auths.is_empty() {
        return Err(Outcome::skipped(
            "the client made no authorization request (it stopped before /authorize)",
        ));
    }
    Ok((f, auths))
}

/// The authorization request whose redirect carried `code`.
fn authorization_of<'a>(auths: &[&'a AuthRequest], code: &str) -> Option<&'a AuthRequest> {
    auths.iter().copied().find(|a| {
        a.location.as_deref().is_some_and(|l| {
            location_params(l)
                .iter()
                .any(|(k, v)| k == "code" && v == code)
        })
    })
}

fn pkce_s256(obs: &Observation) -> Outcome {
    let (f, auths) = match authorized(obs) {
        Ok(x) => x,
        Err(skip) => return skip,
    };
    for a in &auths {
        let challenge = a.query_param("code_challenge");
        let method = a.query_param("code_challenge_method");
        if challenge.as_deref().is_none_or(str::is_empty) {
            return fail_on(a, "the authorization request has no code_challenge (PKCE)");
        }
        if method.as_deref() != Some("S256") {
            return fail_on(
                a,
                format!(
                    "the authorization request's code_challenge_method is {}, not S256",
                    method.map_or("absent (plain)".to_owned(), |m| format!("`{m}`"))
                ),
            );
        }
    }
    let redeemed = f.grants("authorization_code");
    let mut checked = 0;
    for t in &redeemed {
        let code = t.form_param("code").unwrap_or_default();
        let Some(a) = authorization_of(&auths, &code) else {
            continue;
        };
        let challenge = a.query_param("code_challenge").unwrap_or_default();
        let Some(verifier) = t.form_param("code_verifier") else {
            return fail_on(
                t,
                "the token request redeeming the code has no code_verifier",
            );
        };
        let derived = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(verifier.as_bytes()));
        if derived != challenge {
            return fail_on(
                t,
                "the code_verifier's SHA-256 is not the code_challenge of its authorization request",
            );
        }
        checked += 1;
    }
    if checked == 0 {
        return Outcome::pass(format!(
            "{} authorization request(s) with an S256 code_challenge (no code was redeemed)",
            auths.len()
        ));
    }
    Outcome::pass(format!(
        "{} authorization request(s) with an S256 code_challenge; {checked} code(s) redeemed with the matching code_verifier",
        auths.len()
    ))
}

fn pkce_required(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let got_metadata = f
        .trail
        .to(Origin::AuthServer)
        .any(|r| r.is_well_known() && r.status == Some(200));
    if !got_metadata {
        return Outcome::skipped("the client never got the authorization server's metadata");
    }
    if let Some(a) = f.authorizations().first() {
        return fail_on(
            a,
            "the AS metadata lists no code_challenge_methods_supported, yet the client went on to authorize",
        );
    }
    if let Some(t) = f.grants("authorization_code").first() {
        return fail_on(
            t,
            "the client requested a token although it cannot use PKCE here",
        );
    }
    Outcome::pass(
        "with no code_challenge_methods_supported in the AS metadata, the client did not authorize",
    )
}

fn resource_parameter(obs: &Observation) -> Outcome {
    let (f, auths) = match authorized(obs) {
        Ok(x) => x,
        Err(skip) => return skip,
    };
    let want = f.facts.resource.as_str();
    let requests = auths.iter().map(|a| (*a, a.query_param("resource"))).chain(
        f.grants("authorization_code")
            .into_iter()
            .map(|t| (t, t.form_param("resource"))),
    );
    let mut n = 0;
    for (r, resource) in requests {
        n += 1;
        match resource.as_deref() {
            Some(v) if v == want => {}
            Some(v) => {
                return fail_on(
                    r,
                    format!(
                        "{}: resource is `{v}`, not the MCP server's canonical URI {want}",
                        r.describe()
                    ),
                );
            }
            None => {
                return fail_on(r, format!("{}: no `resource` parameter", r.describe()));
            }
        }
    }
    Outcome::pass(format!("{n} request(s), each with resource={want}"))
}

fn client_id_before_authorize(obs: &Observation) -> Outcome {
    let (f, auths) = match authorized(obs) {
        Ok(x) => x,
        Err(skip) => return skip,
    };
    for a in &auths {
        let id = a.query_param("client_id").unwrap_or_default();
        if !f.facts.registered.contains(&id) {
            return fail_on(
                a,
                format!(
                    "the authorization request's client_id `{id}` is none the authorization server issued (registered: {})",
                    if f.facts.registered.is_empty() {
                        "none".to_owned()
                    } else {
                        f.facts.registered.join(", ")
                    }
                ),
            );
        }
    }
    Outcome::pass("every authorization request names a client_id the AS registered")
}

fn pre_registered_first(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    if let Some(r) = f.registrations().first() {
        return fail_on(
            r,
            "the client was given pre-registered credentials, yet it tried to register",
        );
    }
    let auths = f.authorizations();
    let Some(a) = auths.first() else {
        return Outcome::skipped("the client made no authorization request");
    };
    match a.query_param("client_id") {
        Some(id) if id == PRE_REGISTERED_ID => {
            Outcome::pass("the client authorized with its pre-registered client_id")
        }
        other => fail_on(
            a,
            format!(
                "the client authorized as `{}`, not with the pre-registered client_id {PRE_REGISTERED_ID}",
                other.unwrap_or_default()
            ),
        ),
    }
}

fn cimd_when_advertised(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    if let Some(r) = f.registrations().first() {
        return fail_on(
            r,
            format!(
                "the AS advertises client_id_metadata_document_supported and the client was given {CLIENT_METADATA_URL}, yet it used Dynamic Client Registration"
            ),
        );
    }
    let auths = f.authorizations();
    let Some(a) = auths.first() else {
        return Outcome::skipped("the client made no authorization request");
    };
    match a.query_param("client_id") {
        Some(id) if id.starts_with("https://") => Outcome::pass(format!(
            "the client used its metadata document URL as client_id ({id})"
        )),
        other => fail_on(
            a,
            format!(
                "the client authorized as `{}`, not with its Client ID Metadata Document URL",
                other.unwrap_or_default()
            ),
        ),
    }
}

fn dcr_application_type(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let registrations = f.registrations();
    if registrations.is_empty() {
        return Outcome::skipped("the client did not register (no Dynamic Client Registration)");
    }
    for r in &registrations {
        let body: Option<Value> = serde_json::from_slice(&r.body).ok();
        let kind = body
            .as_ref()
            .and_then(|b| b.get("application_type"))
            .and_then(Value::as_str);
        match kind {
            Some("native" | "web") => {}
            Some(other) => {
                return fail_on(
                    r,
                    format!("the registration's application_type is `{other}`, not native or web"),
                );
            }
            None => return fail_on(r, "the registration request names no application_type"),
        }
    }
    Outcome::pass(format!(
        "{} registration request(s), each naming application_type",
        registrations.len()
    ))
}

fn state_sent(obs: &Observation) -> Outcome {
    let (_, auths) = match authorized(obs) {
        Ok(x) => x,
        Err(skip) => return skip,
    };
    for a in &auths {
        if a.query_param("state").as_deref().is_none_or(str::is_empty) {
            return fail_on(a, "the authorization request carries no `state`");
        }
    }
    Outcome::pass(format!(
        "{} authorization request(s), each with a state",
        auths.len()
    ))
}

/// The code of a response the scenario spoiled (another `state`, another `iss`, no `iss`)
/// must never be redeemed: every redirect of these scenarios is spoiled.
fn never_redeemed(obs: &Observation) -> Outcome {
    let (f, auths) = match authorized(obs) {
        Ok(x) => x,
        Err(skip) => return skip,
    };
    let spoiled = match obs.scenario.protection().map(|p| p.redirect) {
        Some(Redirect::WrongState) => "another `state` than the request's",
        Some(Redirect::WrongIss) => "another issuer as `iss`",
        Some(Redirect::NoIss) => "no `iss` although the AS metadata says it sends one",
        _ => return Outcome::skipped("the scenario's authorization responses are not spoiled"),
    };
    let redeemed = f.grants("authorization_code").into_iter().find(|t| {
        let code = t.form_param("code").unwrap_or_default();
        authorization_of(&auths, &code).is_some()
    });
    match redeemed {
        Some(t) => fail_on(
            t,
            format!(
                "the authorization response carried {spoiled}, yet the client redeemed its code"
            ),
        ),
        None => Outcome::pass(format!(
            "the client did not redeem a code whose response carried {spoiled}"
        )),
    }
}
