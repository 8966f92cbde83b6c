//! Scopes (CLI-14), the token on the wire (CLI-18) and refresh (CLI-13, CLI-19).

use super::super::prelude::*;
use super::{Flow, fail_on, flow, scope_set};
use crate::observation::authorization::{AuthRequest, Origin};
use crate::scenario::protection::{OFFLINE_ACCESS, SCOPE_READ, SCOPE_TOOLS, SCOPES};

/// Re-authorizations after a 403 beyond which a step-up is a loop.
const MAX_STEP_UPS: usize = 3;

pub fn group() -> Vec<ClientCheck> {
    vec![
        ClientCheck {
            id: "client/auth/scope-from-challenge",
            requirements: &["CLI-14"],
            level: Level::Should,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "The first authorization request asks for the scope the 401 challenge names.",
            expectation: "`scope=mcp:read mcp:tools` (the challenge's) on the first /authorize.",
            faults: &["ignore-challenge-scope"],
            judge: scope_from_challenge,
        },
        ClientCheck {
            id: "client/auth/scope-from-prm",
            requirements: &["CLI-14"],
            level: Level::Should,
            scenario: "auth/prm-at-root",
            only: Some(Transport::Http),
            description: "When the challenge names no scope, the first authorization request asks for the Protected Resource Metadata's `scopes_supported`.",
            expectation: "`scope=mcp:read mcp:tools` (the PRM's scopes_supported) on the first /authorize.",
            faults: &["ignore-challenge-scope"],
            judge: scope_from_prm,
        },
        ClientCheck {
            id: "client/auth/scope-step-up",
            requirements: &["CLI-14"],
            level: Level::Should,
            scenario: "auth/scope-step-up",
            only: Some(Transport::Http),
            description: "On 403 `insufficient_scope`, the client re-authorizes for the challenged scope (with what it had) and retries, a bounded number of times.",
            expectation: "After the 403 to tools/call, an authorization request with `mcp:read mcp:tools`, then tools/call again with the new token.",
            faults: &["no-step-up"],
            judge: scope_step_up,
        },
        ClientCheck {
            id: "client/auth/offline-access",
            requirements: &["CLI-19"],
            level: Level::Should,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "The client asks for `offline_access` only when the AS lists it in `scopes_supported`.",
            expectation: "No `offline_access` in the scope asked of an AS that does not list it.",
            faults: &["always-offline-access"],
            judge: offline_access,
        },
        ClientCheck {
            id: "client/auth/token-in-header",
            requirements: &["CLI-18"],
            level: Level::Must,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "Once it has a token, the client sends it in `Authorization: Bearer` on every request to the MCP server, never in a query string.",
            expectation: "`Authorization: Bearer <the issued token>` on every request to /mcp after the token; no `access_token` in any URL.",
            faults: &["token-in-query"],
            judge: token_in_header,
        },
        ClientCheck {
            id: "client/auth/token-audience",
            requirements: &["CLI-18"],
            level: Level::Must,
            scenario: "auth/refresh",
            only: Some(Transport::Http),
            description: "The access token goes only to the MCP server it was issued for: never to the authorization server's endpoints or another origin.",
            expectation: "No request other than to /mcp carries an issued access token.",
            faults: &["token-to-auth-server"],
            judge: token_audience,
        },
        ClientCheck {
            id: "client/auth/resource-on-refresh",
            requirements: &["CLI-13", "CLI-19"],
            level: Level::Must,
            scenario: "auth/refresh",
            only: Some(Transport::Http),
            description: "A refresh grant carries `resource` naming the MCP server's canonical URI.",
            expectation: "`resource=http://127.0.0.1:PORT/mcp` on every `grant_type=refresh_token` request.",
            faults: &["refresh-without-resource"],
            judge: resource_on_refresh,
        },
        ClientCheck {
            id: "client/auth/refresh-same-as",
            requirements: &["CLI-19"],
            level: Level::Should,
            scenario: "auth/refresh",
            only: Some(Transport::Http),
            description: "A refresh grant goes to the token endpoint of the authorization server that issued the token.",
            expectation: "`grant_type=refresh_token` POSTed to the AS's token_endpoint only.",
            faults: &["refresh-elsewhere"],
            judge: refresh_same_as,
        },
    ]
}

/// The first authorization request's scopes against `want` (a space-separated list).
fn first_scope(f: &Flow<'_>, want: &str, from: &str) -> Outcome {
    let auths = f.authorizations();
    let Some(a) = auths.first() else {
        return Outcome::skipped("the client made no authorization request");
    };
    let asked = a.query_param("scope");
    if scope_set(asked.as_deref()) == scope_set(Some(want)) {
        return Outcome::pass(format!(
            "the first authorization request asked for {from}: `{want}`"
        ));
    }
    fail_on(
        a,
        format!(
            "the first authorization request asked for {}; {from} is `{want}`",
            asked.map_or("no scope".to_owned(), |s| format!("`{s}`"))
        ),
    )
}

fn scope_from_challenge(obs: &Observation) -> Outcome {
    match flow(obs) {
        Ok(f) => first_scope(&f, SCOPES, "the challenge's scope"),
        Err(skip) => skip,
    }
}

fn scope_from_prm(obs: &Observation) -> Outcome {
    match flow(obs) {
        Ok(f) => first_scope(
            &f,
            SCOPES,
            "the Protected Resource Metadata's scopes_supported (the challenge named none)",
        ),
        Err(skip) => skip,
    }
}

fn scope_step_up(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let requests: Vec<&AuthRequest> = f.requests().collect();
    let Some(at) = requests.iter().position(|r| {
        r.status == Some(403)
            && r.challenge
                .as_deref()
                .is_some_and(|c| c.contains("insufficient_scope"))
    }) else {
        return Outcome::skipped(
            "the client never met the 403 insufficient_scope (it did not call the tool with its first token)",
        );
    };
    let refused = requests[at];
    let path = f.facts.authorize_path.as_str();
    let after: Vec<&AuthRequest> = requests[at + 1..]
        .iter()
        .copied()
        .filter(|r| r.origin == Origin::AuthServer && r.path() == path)
        .collect();
    let Some(again) = after.first() else {
        return fail_on(
            refused,
            "tools/call was answered 403 insufficient_scope (scope=\"mcp:read mcp:tools\") and the client never re-authorized",
        );
    };
    let asked = scope_set(again.query_param("scope").as_deref());
    for needed in [SCOPE_READ, SCOPE_TOOLS] {
        if !asked.iter().any(|s| s == needed) {
            return fail_on(
                again,
                format!(
                    "the step-up authorization asked for `{}`, without `{needed}` (the challenge's scope is `{SCOPES}`, and the client had `{SCOPE_READ}`)",
                    asked.join(" ")
                ),
            );
        }
    }
    if after.len() > MAX_STEP_UPS {
        return fail_on(
            after[MAX_STEP_UPS],
            format!(
                "the client re-authorized {} times after the 403: a step-up loop",
                after.len()
            ),
        );
    }
    let retried = requests[at + 1..].iter().any(|r| {
        r.origin == Origin::Mcp
            && r.path() == "/mcp"
            && r.status == Some(200)
            && String::from_utf8_lossy(&r.body).contains(judge::method::TOOLS_CALL)
    });
    if retried {
        Outcome::pass(
            "after the 403 the client re-authorized for `mcp:read mcp:tools` and the retried tools/call was served",
        )
    } else {
        fail_on(
            again,
            "the client re-authorized after the 403 but never retried tools/call with the new token",
        )
    }
}

fn offline_access(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let auths = f.authorizations();
    if auths.is_empty() {
        return Outcome::skipped("the client made no authorization request");
    }
    let listed = f.facts.offline_access_listed;
    for a in &auths {
        let asked = a.query_param("scope").unwrap_or_default();
        if !listed && asked.split_whitespace().any(|s| s == OFFLINE_ACCESS) {
            return fail_on(
                a,
                format!(
                    "the client asked for `{OFFLINE_ACCESS}` (scope `{asked}`), which the AS does not list in scopes_supported"
                ),
            );
        }
    }
    Outcome::pass("the client did not ask for offline_access, which the AS does not list")
}

fn token_in_header(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let Some(first) = f.first_token_at() else {
        return Outcome::skipped("the client never obtained an access token");
    };
    for r in f.requests() {
        let in_query = r
            .query()
            .iter()
            .any(|(k, v)| k == "access_token" || f.is_access_token(v));
        if in_query {
            return fail_on(
                r,
                format!(
                    "{} carries the access token in its query string",
                    r.describe()
                ),
            );
        }
    }
    let mut n = 0;
    let after_token = f.trail.requests[first + 1..]
        .iter()
        .filter(|r| r.origin == Origin::Mcp && r.path() == "/mcp");
    for r in after_token {
        n += 1;
        match r.bearer() {
            Some(t) if f.is_access_token(t) => {}
            Some(_) => {
                return fail_on(
                    r,
                    format!(
                        "{} carries a bearer token the AS never issued",
                        r.describe()
                    ),
                );
            }
            None => {
                return fail_on(
                    r,
                    format!(
                        "{} after the client had its token carries no `Authorization: Bearer`",
                        r.describe()
                    ),
                );
            }
        }
    }
    if n == 0 {
        return Outcome::skipped("the client made no request to the MCP server after its token");
    }
    Outcome::pass(format!(
        "{n} request(s) to the MCP server after the token, each with it in `Authorization: Bearer` and none in a URL"
    ))
}

fn token_audience(obs: &Observation) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    if f.facts.access_tokens.is_empty() {
        return Outcome::skipped("the client never obtained an access token");
    }
    let leaked = f.requests().find(|r| {
        r.path() != "/mcp"
            && (r.headers.iter().any(|(_, v)| carries_token(&f, v))
                || carries_token(&f, &r.target)
                || carries_token(&f, &String::from_utf8_lossy(&r.body)))
    });
    match leaked {
        Some(r) => fail_on(
            r,
            format!(
                "{} carries the access token issued for the MCP server",
                r.describe()
            ),
        ),
        None => Outcome::pass("the access token went to the MCP server only"),
    }
}

/// Whether `text` holds an access token the peer issued.
fn carries_token(f: &Flow<'_>, text: &str) -> bool {
    f.facts
        .access_tokens
        .iter()
        .any(|t| text.contains(t.as_str()))
}

/// Every refresh grant the client sent, to whichever origin and path; or the Skip of a client
/// that did not refresh.
fn refreshed<'a>(obs: &'a Observation) -> Result<(Flow<'a>, Vec<&'a AuthRequest>), Outcome> {
    let f = flow(obs)?;
    let grants: Vec<&AuthRequest> = f
        .requests()
        .filter(|r| {
            r.method == "POST" && r.form_param("grant_type").as_deref() == Some("refresh_token")
        })
        .collect();
    if grants.is_empty() {
        return Err(Outcome::skipped(
            "the client did not refresh (it authorized again, or never needed a new token)",
        ));
    }
    Ok((f, grants))
}

fn resource_on_refresh(obs: &Observation) -> Outcome {
    let (f, grants) = match refreshed(obs) {
        Ok(x) => x,
        Err(skip) => return skip,
    };
    let want = f.facts.resource.as_str();
    for g in &grants {
        match g.form_param("resource") {
            Some(v) if v == want => {}
            Some(v) => {
                return fail_on(
                    g,
                    format!("the refresh grant's resource is `{v}`, not {want}"),
                );
            }
            None => return fail_on(g, "the refresh grant has no `resource` parameter"),
        }
    }
    Outcome::pass(format!(
        "{} refresh grant(s), each with resource={want}",
        grants.len()
    ))
}

fn refresh_same_as(obs: &Observation) -> Outcome {
    let (f, grants) = match refreshed(obs) {
        Ok(x) => x,
        Err(skip) => return skip,
    };
    let token_path = f.facts.token_path.as_str();
    for g in &grants {
        if g.origin != Origin::AuthServer || g.path() != token_path {
            return fail_on(
                g,
                format!(
                    "the refresh grant went to {}, not to the token endpoint {}{token_path} of the AS that issued the token",
                    g.describe(),
                    f.facts.auth_origin
                ),
            );
        }
    }
    Outcome::pass("every refresh grant went to the issuing AS's token endpoint")
}
