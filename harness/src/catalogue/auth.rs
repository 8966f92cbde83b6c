//! `auth/*`: the authorization a protected server does (AUTH-1..9, HTTP only). Every check
//! starts the same way: one request without a token. A server that does not answer it with 401
//! is open, and the check is skipped ("the server is open (no 401 without a token)"); so is one
//! whose 401 carries no Bearer challenge when the run itself authenticates with `--header` only
//! (the server uses a scheme of its own, not MCP's OAuth authorization).
//!
//! ```text
//! no token ──> 401 + WWW-Authenticate: Bearer …        auth/challenge/*     (AUTH-1)
//!   resource_metadata / well-known URIs ──> metadata   auth/metadata/*      (AUTH-2, AUTH-3)
//!   authorization_servers ──> RFC 8414 / OpenID        (Info when the AS is at fault)
//! a garbage, forged, malformed, query-string token     auth/token/*         (AUTH-4, AUTH-6)
//! tokens of the test issuer (--auth-issuer): expired,  auth/token/*         (AUTH-4, AUTH-5)
//!   another issuer, an unknown key, another audience
//! a token without any scope ──> 403 insufficient_scope auth/scope/*         (AUTH-7)
//! offline_access nowhere advertised                    auth/offline-access/* (AUTH-8)
//! the run's token served                               auth/token/served    (AUTH-9)
//! ```
//!
//! A check that sends a token the server must refuse first makes sure a right token of the same
//! kind is served (the control): a server that refuses the test issuer's right token does not
//! trust that issuer, and its refusing a wrong one proves nothing (Skipped, never a Pass).
//! Every exchange is noted in the transcript with its credentials redacted; what mcpspec
//! fetches goes only where it was pointed (`auth::discovery`).

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::prelude::*;
use crate::auth::Credentials;
use crate::auth::discovery::{self, Fetched, Refusal, Source};
use crate::auth::issuer::{KeyChoice, Minter, TokenSpec};
use mcpspec_core::redact;
use mcpspec_core::transport::http::client::{Endpoint, Request};

/// The skip reason on a server that serves a request without a token.
pub const OPEN: &str = "the server is open (no 401 without a token)";
/// The skip reason of a check that needs the test issuer's tokens.
const NEEDS_ISSUER: &str = "needs --auth-issuer: tokens of known content (expired, another audience, …) come from the \
     built-in test issuer (`mcpspec auth issuer`)";
/// The issuer named in a token from "another issuer".
const OTHER_ISSUER: &str = "http://127.0.0.1:9/mcpspec-other-issuer";
/// The audience of a token "for another resource".
const OTHER_RESOURCE: &str = "http://127.0.0.1:9/mcpspec-other-resource";
/// The scope mcpspec never asks for and a modern server should not advertise (AUTH-8).
const OFFLINE_ACCESS: &str = "offline_access";
/// How long the check's fetches of metadata may take in all.
const FETCH_WAIT: Duration = Duration::from_secs(8);

macro_rules! auth_check {
    ($id:literal, [$($req:literal),*], $level:ident, $era:ident, $desc:literal, $expect:literal, [$($fault:literal),*], $f:ident) => {
        Check {
            id: $id,
            requirements: &[$($req),*],
            level: Level::$level,
            era: Era::$era,
            isolation: Isolation::Shared,
            needs: &[Need::Http],
            description: $desc,
            expectation: $expect,
            faults: &[$($fault),*],
            script: |s| Box::pin($f(s)),
        }
    };
}

pub fn group() -> Vec<Check> {
    vec![
        auth_check!(
            "auth/challenge/bearer",
            ["AUTH-1"],
            Must,
            Any,
            "A request without a token, to a server that answers it with 401.",
            "401 with a `WWW-Authenticate` header holding a `Bearer` challenge that parses \
             (RFC 9110 §11.6.1, RFC 6750 §3)",
            ["auth-no-challenge --auth"],
            challenge_bearer
        ),
        auth_check!(
            "auth/challenge/resource-metadata",
            ["AUTH-1", "AUTH-2"],
            Must,
            Any,
            "The `resource_metadata` parameter of the 401 challenge.",
            "present (2025-06-18 clients have no other way to the metadata); a server of \
             2025-11-25 or later only may instead serve the metadata at a well-known URI",
            ["auth-challenge-no-resource-metadata --auth"],
            challenge_resource_metadata
        ),
        auth_check!(
            "auth/challenge/scope",
            ["AUTH-1"],
            Should,
            Any,
            "The `scope` parameter of the 401 challenge.",
            "present: the scopes a client should ask for",
            ["auth-challenge-no-scope --auth"],
            challenge_scope
        ),
        auth_check!(
            "auth/metadata/discovery",
            ["AUTH-2"],
            Must,
            Any,
            "Protected resource metadata at the challenge's `resource_metadata` URL, else the \
             path-inserted well-known URI, else the root one (RFC 9728).",
            "a JSON object with `resource` and a non-empty `authorization_servers` array, where \
             the challenge says (or at a well-known URI when it says nothing)",
            ["auth-metadata-missing --auth"],
            metadata_discovery
        ),
        auth_check!(
            "auth/metadata/resource",
            ["AUTH-3"],
            Must,
            Any,
            "The metadata's `resource`.",
            "identical to the server's URL (scheme, host, port, path; a trailing slash counts)",
            ["auth-resource-mismatch --auth"],
            metadata_resource
        ),
        auth_check!(
            "auth/metadata/authorization-servers",
            ["AUTH-2"],
            Must,
            Any,
            "Each of the metadata's `authorization_servers`, and its metadata (RFC 8414, then \
             OpenID Connect discovery).",
            "issuer identifiers (absolute URLs, no query or fragment); their metadata reachable \
             with `issuer` equal to the URL advertised (Info when not: the authorization \
             server's defect, not this server's)",
            ["auth-bad-authorization-server --auth"],
            metadata_authorization_servers
        ),
        auth_check!(
            "auth/token/garbage-rejected",
            ["AUTH-4"],
            Must,
            Any,
            "`Authorization: Bearer` with an opaque garbage string, then with a JWT carrying \
             right claims (issuer, audience, expiry, scopes) under a forged signature.",
            "401 for both (`error=\"invalid_token\"` SHOULD be in the challenge)",
            ["auth-signature-unchecked --auth"],
            garbage_rejected
        ),
        auth_check!(
            "auth/token/malformed-header",
            ["AUTH-4"],
            Must,
            Any,
            "A valid token sent without its `Bearer` scheme, and `Authorization: Bearer` with no \
             token.",
            "refused: 400 (`invalid_request`) or 401, never served",
            ["auth-scheme-optional --auth"],
            malformed_header
        ),
        auth_check!(
            "auth/token/query-string-rejected",
            ["AUTH-6"],
            Must,
            Any,
            "A valid token in the query string (`?access_token=…`) and no `Authorization` \
             header.",
            "not served (401)",
            ["auth-query-token-accepted --auth"],
            query_string_rejected
        ),
        auth_check!(
            "auth/token/expired-rejected",
            ["AUTH-4"],
            Must,
            Any,
            "A token of the test issuer that expired an hour ago (all else right).",
            "401 (`error=\"invalid_token\"` SHOULD be in the challenge)",
            ["auth-expired-accepted --auth"],
            expired_rejected
        ),
        auth_check!(
            "auth/token/wrong-issuer-rejected",
            ["AUTH-4"],
            Must,
            Any,
            "A token signed with the test issuer's published key but naming another issuer \
             (`iss`).",
            "401",
            ["auth-issuer-unchecked --auth"],
            wrong_issuer_rejected
        ),
        auth_check!(
            "auth/token/unknown-key-rejected",
            ["AUTH-4"],
            Must,
            Any,
            "A token with right claims signed by a key the test issuer never published.",
            "401",
            ["auth-signature-unchecked --auth"],
            unknown_key_rejected
        ),
        auth_check!(
            "auth/token/wrong-audience-rejected",
            ["AUTH-5"],
            Must,
            Any,
            "A token of the test issuer issued for another resource (`aud`).",
            "401: never served (no token passthrough)",
            ["auth-wrong-audience-accepted --auth"],
            wrong_audience_rejected
        ),
        auth_check!(
            "auth/scope/insufficient-403",
            ["AUTH-7"],
            Should,
            Any,
            "A token of the test issuer without any scope.",
            "403 with `WWW-Authenticate: Bearer error=\"insufficient_scope\"`, the `scope` \
             needed and `resource_metadata`",
            ["auth-insufficient-scope-401 --auth"],
            insufficient_scope
        ),
        auth_check!(
            "auth/offline-access/not-advertised",
            ["AUTH-8"],
            Should,
            Modern,
            "The 401 challenge's `scope` and the metadata's `scopes_supported`.",
            "neither names `offline_access`",
            ["auth-offline-access --auth"],
            offline_access
        ),
        auth_check!(
            "auth/token/served",
            ["AUTH-9"],
            Must,
            Any,
            "The request without a token, sent again with the run's token (--bearer*, or the \
             test issuer's right token).",
            "served like on an open server: 200 with a JSON-RPC result",
            ["auth-rejects-valid-token --auth"],
            token_served
        ),
    ]
}

// --- what every check starts with -----------------------------------------------------------

/// A protected server, as the request without a token showed it.
struct Protected {
    /// The target, with the run's credentials.
    endpoint: Endpoint,
    /// What the request without a token got (401).
    refusal: Refusal,
}

impl Protected {
    /// The challenge's `resource_metadata`, when there is a Bearer challenge naming one.
    fn metadata_url(&self) -> Option<&str> {
        self.refusal.bearer()?.param("resource_metadata")
    }

    fn credentials(&self) -> Option<&Credentials> {
        Credentials::of(&self.endpoint)
    }

    fn issuer(&self) -> Option<&Minter> {
        self.credentials()?.issuer()
    }
}

/// The request every check sends: what a client's first request is, in the era the server
/// serves (a modern `server/discover`, or a legacy `initialize` on a legacy-only server), with
/// no credentials at all.
fn first_request(s: &Scenario) -> Request {
    if s.facts().legacy() && !s.facts().modern() {
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": method::INITIALIZE,
            "params": {
                "protocolVersion": s.options().legacy_revision(), "capabilities": {},
                "clientInfo": {"name": "mcpspec", "version": env!("CARGO_PKG_VERSION")},
            }
        });
        Request::new("POST")
            .anonymous()
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(body.to_string())
    } else {
        discovery::probe_request()
    }
}

/// [`first_request`] with `Authorization: Bearer token` (and the run's other headers).
fn with_token(s: &Scenario, token: &str) -> Request {
    let mut request = first_request(s).header("Authorization", format!("Bearer {token}"));
    request.credentials = true;
    request
}

fn deadline(s: &Scenario) -> Instant {
    Instant::now() + s.settings().expect_timeout + s.settings().startup_timeout
}

/// Sends `request` to `endpoint`, notes it in the transcript (credentials redacted) as what a
/// verdict judges, and returns what came back. `what` names the exchange.
async fn exchange(
    s: &Scenario,
    endpoint: &Endpoint,
    request: &Request,
    what: &str,
) -> Result<Refusal, Outcome> {
    let head = String::from_utf8_lossy(&request.to_bytes(endpoint))
        .split("\r\n\r\n")
        .next()
        .unwrap_or("")
        .replace("\r\n", " | ");
    let head = redact::text(&head).into_owned();
    match discovery::exchange(endpoint, request, deadline(s)).await {
        Ok(answer) => {
            s.note_judged(
                format!("{what}: {head} -> {}", answer.describe()),
                &answer.describe(),
            );
            Ok(answer)
        }
        Err(e) => {
            s.note_judged(format!("{what}: {head} -> {e}"), &e.to_string());
            Err(Outcome::error(format!(
                "{what}: {} could not be reached: {e}",
                endpoint.url()
            )))
        }
    }
}

/// The request without a token; `Err(skipped)` when the server is open (see the module doc).
async fn protected(s: &Scenario) -> Result<Protected, Outcome> {
    let endpoint = s
        .endpoint()
        .cloned()
        .ok_or_else(|| Outcome::skipped("not an HTTP target"))?;
    let bare = endpoint.clone().with_credentials(None);
    let refusal = exchange(s, &bare, &first_request(s), "without a token").await?;
    if refusal.status != 401 {
        return Err(Outcome::skipped(OPEN));
    }
    let header_only = Credentials::of(&endpoint).is_some_and(|c| !c.has_bearer());
    if header_only && refusal.bearer().is_none() {
        return Err(Outcome::skipped(
            "the server's 401 has no Bearer challenge and the run authenticates with --header \
             only: it uses a scheme of its own, not MCP's OAuth authorization",
        ));
    }
    Ok(Protected { endpoint, refusal })
}

/// Whether an answer served the request: a 2xx with a JSON-RPC result (a JSON body, or an SSE
/// event carrying one).
fn served(answer: &Refusal) -> bool {
    if !(200..300).contains(&answer.status) {
        return false;
    }
    let has_result =
        |text: &str| serde_json::from_str::<Value>(text).is_ok_and(|v| v.get("result").is_some());
    has_result(answer.body.trim())
        || answer
            .body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .any(|d| has_result(d.trim()))
}

/// Whether an answer refused the request (a 4xx).
fn refused(answer: &Refusal) -> bool {
    (400..500).contains(&answer.status)
}

/// The run's own token (the user's, or the test issuer's right one), if it has one.
async fn run_token(p: &Protected) -> Option<String> {
    p.credentials()?.token().await.ok().flatten()
}

/// A right token of the test issuer for this server: its audience and every scope the server
/// names. `Err(skip)` without an issuer.
async fn right_token(p: &Protected) -> Result<String, Outcome> {
    let issuer = p.issuer().ok_or_else(|| Outcome::skipped(NEEDS_ISSUER))?;
    let spec = TokenSpec::right(&p.endpoint.url(), &server_scopes(p).await.join(" "));
    issuer
        .mint(&spec)
        .await
        .map_err(|e| Outcome::error(format!("the test issuer did not mint a token: {e}")))
}

/// The scopes the server names: the challenge's and the metadata's.
async fn server_scopes(p: &Protected) -> Vec<String> {
    discovery::scopes_for(&p.endpoint, Instant::now() + FETCH_WAIT).await
}

/// The control of a rejection check: `token` (a right one) must be served, or the server does
/// not accept this kind of token at all and the check proves nothing.
async fn control(s: &Scenario, p: &Protected, token: &str, kind: &str) -> Result<(), Outcome> {
    let answer = exchange(s, &p.endpoint, &with_token(s, token), kind).await?;
    if served(&answer) {
        return Ok(());
    }
    Err(Outcome::skipped(format!(
        "{kind} was not served ({}): the server does not accept it, so its refusing a wrong \
         one would prove nothing (is the server configured to trust this issuer, for this URL?)",
        shorten(&answer.describe(), 200)
    )))
}

/// The verdict on a token the server must refuse with 401: a 2xx is a Fail (`failure` says
/// what was accepted); another refusal than 401 is NonStrict; 401 without
/// `error="invalid_token"` is NonStrict (RFC 6750 §3.1 SHOULD).
fn judge_rejection(answer: &Refusal, what: &str, failure: &str) -> Outcome {
    if (200..300).contains(&answer.status) {
        return Outcome::fail(format!("{failure}: {what} got {}", answer.describe()));
    }
    if answer.status != 401 {
        return if refused(answer) {
            Outcome::non_strict(format!(
                "{what} was refused with HTTP {}, not 401 (AUTH-4): {}",
                answer.status,
                answer.describe()
            ))
        } else {
            Outcome::fail(format!("{what} got {}", answer.describe()))
        };
    }
    match answer.bearer().and_then(|c| c.param("error")) {
        Some("invalid_token") => Outcome::pass(format!("{what}: 401 invalid_token")),
        other => Outcome::non_strict(format!(
            "{what}: 401, but the challenge says {} instead of `error=\"invalid_token\"` \
             (RFC 6750 §3.1 SHOULD): {}",
            other.map_or("no error".to_owned(), |e| format!("`error=\"{e}\"`")),
            answer.describe()
        )),
    }
}

// --- auth/challenge/* -------------------------------------------------------------------------

async fn challenge_bearer(s: &mut Scenario) -> Verdict {
    let endpoint = s
        .endpoint()
        .cloned()
        .ok_or_else(|| Outcome::skipped("not an HTTP target"))?;
    let bare = endpoint.clone().with_credentials(None);
    let refusal = exchange(s, &bare, &first_request(s), "without a token").await?;
    if refusal.status != 401 {
        // A server that refuses the request without a token with another status, and serves it
        // with the run's token, is protected and answers wrongly.
        let with = match Credentials::of(&endpoint) {
            Some(c) if c.has_bearer() && refused(&refusal) => {
                let mut request = first_request(s);
                request.credentials = true;
                Some(exchange(s, &endpoint, &request, "with the run's token").await?)
            }
            _ => None,
        };
        if with.as_ref().is_some_and(served) {
            return Ok(Outcome::fail(format!(
                "a request without a token got HTTP {}, not 401 (the same request with the \
                 token is served): {}",
                refusal.status,
                refusal.describe()
            )));
        }
        return Ok(Outcome::skipped(OPEN));
    }
    let p = Protected { endpoint, refusal };
    Ok(match &p.refusal.challenges {
        _ if p.refusal.raw.is_empty() => Outcome::fail(format!(
            "401 without a `WWW-Authenticate` header: a client cannot tell how to authenticate \
             ({})",
            p.refusal.describe()
        )),
        Err(e) => Outcome::fail(format!(
            "the `WWW-Authenticate` header cannot be read: {e} ({})",
            p.refusal.describe()
        )),
        Ok(challenges) => match p.refusal.bearer() {
            Some(_) => Outcome::pass(format!(
                "401 with a Bearer challenge{}",
                if challenges.len() > 1 {
                    format!(" (among {} challenges)", challenges.len())
                } else {
                    String::new()
                }
            )),
            None => Outcome::fail(format!(
                "the challenges name no Bearer scheme ({}): {}",
                challenges
                    .iter()
                    .map(|c| c.scheme.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                p.refusal.describe()
            )),
        },
    })
}

/// Whether the server serves 2025-06-18, asked with the run's token (`None`: no token, or the
/// answer does not tell).
async fn serves_2025_06_18(s: &Scenario, p: &Protected) -> Option<bool> {
    const REVISION: &str = "2025-06-18";
    let token = run_token(p).await?;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": method::INITIALIZE,
        "params": {
            "protocolVersion": REVISION, "capabilities": {},
            "clientInfo": {"name": "mcpspec", "version": env!("CARGO_PKG_VERSION")},
        }
    });
    let request = Request::new("POST")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {token}"))
        .body(body.to_string());
    let answer = discovery::exchange(&p.endpoint, &request, deadline(s))
        .await
        .ok()?;
    s.note(format!(
        "initialize at {REVISION} with the run's token -> {}",
        shorten(&answer.describe(), 300)
    ));
    let version = |text: &str| {
        serde_json::from_str::<Value>(text.trim())
            .ok()?
            .pointer("/result/protocolVersion")?
            .as_str()
            .map(str::to_owned)
    };
    let negotiated = version(&answer.body).or_else(|| {
        answer
            .body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .find_map(version)
    });
    match negotiated {
        Some(v) => Some(v == REVISION),
        // An error to a legacy initialize: no legacy era at all.
        None if refused(&answer) && answer.status != 401 && answer.status != 403 => Some(false),
        None => None,
    }
}

async fn challenge_resource_metadata(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    if p.refusal.bearer().is_none() {
        return Ok(Outcome::skipped(
            "no Bearer challenge to read (auth/challenge/bearer judges that)",
        ));
    }
    if let Some(url) = p.metadata_url() {
        return Ok(Outcome::pass(format!("the challenge names {url}")));
    }
    let serves_old = serves_2025_06_18(s, &p).await;
    let found = discovery::protected_resource_metadata(
        &p.endpoint.clone().with_credentials(None),
        None,
        Instant::now() + FETCH_WAIT,
    )
    .await;
    note_discovered(s, &found);
    let well_known = found
        .found()
        .map(|(source, url, _)| (source, url.to_owned()));
    let lacks = format!(
        "the 401 challenge has no `resource_metadata` ({})",
        p.refusal.describe()
    );
    Ok(match (serves_old, well_known) {
        (Some(true), _) => Outcome::fail(format!(
            "{lacks}: the server serves 2025-06-18 (it negotiated it), whose clients find the \
             metadata only there"
        )),
        (_, None) => Outcome::fail(format!(
            "{lacks}, and no well-known URI serves the metadata either: {}",
            found.describe()
        )),
        (Some(false), Some((source, url))) => Outcome::pass(format!(
            "no `resource_metadata` in the challenge, but the metadata is at {} ({url}), which \
             2025-11-25 and later allow (the server does not serve 2025-06-18)",
            source.name()
        )),
        (None, Some((source, url))) => Outcome::non_strict(format!(
            "{lacks}; the metadata is at {} ({url}), enough for 2025-11-25 clients, but \
             2025-06-18 clients need the parameter, and without a token mcpspec cannot tell \
             whether the server serves 2025-06-18",
            source.name()
        )),
    })
}

async fn challenge_scope(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let Some(challenge) = p.refusal.bearer() else {
        return Ok(Outcome::skipped(
            "no Bearer challenge to read (auth/challenge/bearer judges that)",
        ));
    };
    Ok(match challenge.param("scope") {
        Some(scope) if !scope.trim().is_empty() => {
            Outcome::pass(format!("the challenge names scope \"{scope}\""))
        }
        _ => Outcome::non_strict(format!(
            "the 401 challenge names no `scope` (a client cannot tell what to ask for): {}",
            p.refusal.describe()
        )),
    })
}

// --- auth/metadata/* --------------------------------------------------------------------------

/// Notes every URL tried and what it gave (the last one as what the verdict judges).
fn note_discovered(s: &Scenario, found: &discovery::Discovered) {
    for (source, fetched) in &found.tried {
        let text = format!("GET ({}) {}", source.name(), fetched.describe());
        s.note_judged(text, &fetched.describe());
    }
}

/// The protected resource metadata, found as a client finds it; `Err` is the verdict when it
/// cannot be found.
async fn metadata(s: &Scenario, p: &Protected) -> Result<(Source, String, Value), Outcome> {
    let found = discovery::protected_resource_metadata(
        &p.endpoint.clone().with_credentials(None),
        p.metadata_url(),
        Instant::now() + FETCH_WAIT,
    )
    .await;
    note_discovered(s, &found);
    match found.found() {
        Some((source, url, document)) => Ok((source, url.to_owned(), document.clone())),
        None => Err(
            if found
                .tried
                .iter()
                .any(|(_, f)| matches!(f, Fetched::NotFetched { .. }))
            {
                Outcome::info(format!(
                    "the metadata could not be checked: {}",
                    found.describe()
                ))
            } else {
                Outcome::fail(format!(
                    "no protected resource metadata found: {}",
                    found.describe()
                ))
            },
        ),
    }
}

async fn metadata_discovery(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let (source, url, document) = match metadata(s, &p).await {
        Ok(found) => found,
        Err(verdict) => return Ok(verdict),
    };
    if let Some(named) = p.metadata_url() {
        if let Err(why) = discovery::reachable(&p.endpoint, named) {
            return Ok(Outcome::info(format!(
                "the challenge names {named}, which mcpspec does not fetch ({why}); a well-known                  URI serves the metadata ({url})"
            )));
        }
        if source != Source::Challenge {
            return Ok(Outcome::fail(format!(
                "the challenge names {named}, which serves no metadata; it is at {} ({url}), \
                 where a client told by the challenge does not look",
                source.name()
            )));
        }
    }
    let problems = discovery::metadata_problems(&document);
    Ok(if problems.is_empty() {
        Outcome::pass(format!("the metadata is at {url} ({})", source.name()))
    } else {
        Outcome::fail(format!(
            "the metadata at {url} is not RFC 9728 metadata: {}",
            problems.join("; ")
        ))
    })
}

async fn metadata_resource(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let Ok((_, url, document)) = metadata(s, &p).await else {
        return Ok(Outcome::skipped(
            "no protected resource metadata to read (auth/metadata/discovery judges that)",
        ));
    };
    let target = p.endpoint.url();
    Ok(match document.get("resource").and_then(Value::as_str) {
        Some(resource) if resource == target => Outcome::pass(format!("`resource` is {target}")),
        Some(resource) => Outcome::fail(format!(
            "the metadata at {url} says `resource` is {resource}, not the server's URL {target} \
             (RFC 9728 §3.3: a client must refuse metadata for another resource)"
        ))
        .with_mismatch(crate::outcome::Mismatch::new(target, resource)),
        None => Outcome::fail(format!("the metadata at {url} has no `resource` string")),
    })
}

async fn metadata_authorization_servers(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let Ok((_, url, document)) = metadata(s, &p).await else {
        return Ok(Outcome::skipped(
            "no protected resource metadata to read (auth/metadata/discovery judges that)",
        ));
    };
    let servers = discovery::authorization_servers(&document);
    if servers.is_empty() {
        return Ok(Outcome::skipped(
            "the metadata names no authorization server (auth/metadata/discovery judges that)",
        ));
    }
    let bad: Vec<String> = servers
        .iter()
        .filter_map(|issuer| discovery::issuer_problem(issuer))
        .collect();
    if !bad.is_empty() {
        return Ok(Outcome::fail(format!(
            "the metadata at {url} names authorization servers that are not issuer identifiers \
             (RFC 8414 §2): {}",
            bad.join("; ")
        )));
    }
    let bare = p.endpoint.clone().with_credentials(None);
    let deadline = Instant::now() + FETCH_WAIT;
    let mut findings = Vec::new();
    for issuer in &servers {
        let mut tried = Vec::new();
        let mut found = None;
        for candidate in discovery::authorization_server_urls(issuer) {
            let fetched = discovery::fetch_json(&bare, &candidate, deadline).await;
            s.note_judged(
                format!("GET (authorization server metadata) {}", fetched.describe()),
                &fetched.describe(),
            );
            let hit = fetched.json().cloned();
            tried.push(fetched);
            if let Some(document) = hit {
                found = Some(document);
                break;
            }
        }
        match found {
            Some(document) => match document.get("issuer").and_then(Value::as_str) {
                Some(said) if said == issuer => {}
                said => findings.push(format!(
                    "{issuer}'s metadata says `issuer` is {} (RFC 8414 §3.3: it must be the URL \
                     the metadata was found for)",
                    said.map_or("missing".to_owned(), |s| format!("`{s}`"))
                )),
            },
            None => findings.push(format!(
                "no metadata for {issuer}: {}",
                tried
                    .iter()
                    .map(Fetched::describe)
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
        }
    }
    Ok(if findings.is_empty() {
        Outcome::pass(format!(
            "{} authorization server(s) with metadata whose issuer matches",
            servers.len()
        ))
    } else {
        // The authorization server's defect, not this server's (the issue's rule): recorded.
        Outcome::info(format!(
            "authorization server metadata (its defect, not this server's): {}",
            findings.join("; ")
        ))
    })
}

// --- auth/token/* -----------------------------------------------------------------------------

/// A JWT with right-looking claims (the test issuer's, or the server's first authorization
/// server, this server's audience, its scopes, an hour to live) and a signature of random
/// bytes: what a forger sends.
async fn forged_jwt(p: &Protected) -> Result<String, Outcome> {
    let issuer = match p.issuer() {
        Some(minter) => minter.url().to_owned(),
        None => {
            let found = discovery::protected_resource_metadata(
                &p.endpoint.clone().with_credentials(None),
                p.metadata_url(),
                Instant::now() + FETCH_WAIT,
            )
            .await;
            found
                .found()
                .and_then(|(_, _, d)| discovery::authorization_servers(d).into_iter().next())
                .unwrap_or_else(|| OTHER_ISSUER.to_owned())
        }
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let header = json!({"alg": "ES256", "typ": "at+jwt", "kid": "mcpspec-forged"});
    let claims = json!({
        "iss": issuer, "aud": p.endpoint.url(), "sub": "mcpspec", "client_id": "mcpspec",
        "iat": now, "exp": now + 3600, "scope": server_scopes(p).await.join(" "),
    });
    let mut signature = [0u8; 64];
    getrandom::fill(&mut signature).map_err(|e| Outcome::error(format!("no randomness: {e}")))?;
    let token = format!(
        "{}.{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        URL_SAFE_NO_PAD.encode(signature)
    );
    redact::register(&token);
    Ok(token)
}

async fn garbage_rejected(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let mut problems = Problems::new();
    let mut worst: Option<Outcome> = None;
    let cases = [
        (
            "an opaque garbage token",
            "mcpspec-garbage-token-0000".to_owned(),
        ),
        ("a JWT with a forged signature", forged_jwt(&p).await?),
    ];
    for (what, token) in cases {
        let answer = exchange(s, &p.endpoint, &with_token(s, &token), what).await?;
        let verdict = judge_rejection(&answer, what, "a token nobody issued was served");
        match verdict.kind {
            crate::outcome::Kind::Pass => {}
            _ => {
                problems.push(verdict.message.clone());
                if worst
                    .as_ref()
                    .is_none_or(|w| w.kind != crate::outcome::Kind::Fail)
                {
                    worst = Some(verdict);
                }
            }
        }
    }
    Ok(match worst {
        None => Outcome::pass("garbage and forged tokens get 401 invalid_token"),
        Some(w) => Outcome::new(w.kind, problems.joined()),
    })
}

async fn malformed_header(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let token = run_token(&p).await;
    let mut cases: Vec<(String, String)> = vec![(
        "`Authorization: Bearer` with no token".into(),
        "Bearer".into(),
    )];
    if let Some(token) = &token {
        cases.insert(
            0,
            (
                "a valid token without the `Bearer` scheme".into(),
                token.clone(),
            ),
        );
    }
    for (what, value) in &cases {
        let mut request = first_request(s).header("Authorization", value.clone());
        request.credentials = true;
        let answer = exchange(s, &p.endpoint, &request, what).await?;
        if !refused(&answer) {
            return Ok(Outcome::fail(format!(
                "{what} was not refused (400 or 401 expected): {}",
                answer.describe()
            )));
        }
    }
    Ok(Outcome::pass(if token.is_some() {
        "a token without its scheme and a scheme without a token are refused".to_owned()
    } else {
        "`Bearer` without a token is refused (the run has no valid token to send without its \
         scheme)"
            .to_owned()
    }))
}

async fn query_string_rejected(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    // The test issuer's right token when there is one: the user's own stays out of URLs.
    let token = match p.issuer() {
        Some(_) => right_token(&p).await?,
        None => run_token(&p).await.ok_or_else(|| {
            Outcome::skipped(
                "needs a valid token to put in the query string (--bearer* or --auth-issuer)",
            )
        })?,
    };
    control(s, &p, &token, "the token, in the Authorization header").await?;
    let mut in_query = p.endpoint.clone().with_credentials(None);
    let separator = if in_query.path.contains('?') {
        '&'
    } else {
        '?'
    };
    in_query.path = format!("{}{separator}access_token={token}", in_query.path);
    let answer = exchange(
        s,
        &in_query,
        &first_request(s),
        "the token in the query string",
    )
    .await?;
    Ok(if (200..300).contains(&answer.status) {
        Outcome::fail(format!(
            "a token in the query string was accepted (OAuth 2.1 §5.1 forbids it): {}",
            answer.describe()
        ))
    } else if answer.status == 401 {
        Outcome::pass("a token in the query string is not read: 401")
    } else {
        Outcome::pass(format!(
            "a token in the query string is not accepted (HTTP {})",
            answer.status
        ))
    })
}

/// A token check with the test issuer: a right token first (the control), then `spec`'s,
/// which must get 401.
async fn minted_rejected(
    s: &mut Scenario,
    what: &str,
    failure: &str,
    spec: impl FnOnce(&Protected, TokenSpec) -> TokenSpec,
) -> Verdict {
    let p = protected(s).await?;
    let issuer = p
        .issuer()
        .ok_or_else(|| Outcome::skipped(NEEDS_ISSUER))?
        .clone();
    let right = TokenSpec::right(&p.endpoint.url(), &server_scopes(&p).await.join(" "));
    let right_token = issuer
        .mint(&right)
        .await
        .map_err(|e| Outcome::error(format!("the test issuer did not mint a token: {e}")))?;
    control(s, &p, &right_token, "the test issuer's right token").await?;
    let wrong = issuer
        .mint(&spec(&p, right))
        .await
        .map_err(|e| Outcome::error(format!("the test issuer did not mint a token: {e}")))?;
    let answer = exchange(s, &p.endpoint, &with_token(s, &wrong), what).await?;
    Ok(judge_rejection(&answer, what, failure))
}

async fn expired_rejected(s: &mut Scenario) -> Verdict {
    minted_rejected(
        s,
        "a token that expired an hour ago",
        "an expired token was served",
        |_, right| TokenSpec {
            expires_in: -3600,
            ..right
        },
    )
    .await
}

async fn wrong_issuer_rejected(s: &mut Scenario) -> Verdict {
    minted_rejected(
        s,
        "a token naming another issuer",
        "a token from an issuer the server does not trust was served",
        |_, right| TokenSpec {
            iss: Some(OTHER_ISSUER.into()),
            ..right
        },
    )
    .await
}

async fn unknown_key_rejected(s: &mut Scenario) -> Verdict {
    minted_rejected(
        s,
        "a token signed by a key the issuer never published",
        "a token whose signature no published key verifies was served",
        |_, right| TokenSpec {
            key: KeyChoice::Unknown,
            ..right
        },
    )
    .await
}

async fn wrong_audience_rejected(s: &mut Scenario) -> Verdict {
    minted_rejected(
        s,
        "a token issued for another resource",
        "a token issued for another resource was served (token passthrough)",
        |_, right| TokenSpec {
            aud: OTHER_RESOURCE.into(),
            ..right
        },
    )
    .await
}

// --- auth/scope/*, auth/offline-access/* ------------------------------------------------------

async fn insufficient_scope(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let issuer = p
        .issuer()
        .ok_or_else(|| Outcome::skipped(NEEDS_ISSUER))?
        .clone();
    let right = right_token(&p).await?;
    control(s, &p, &right, "the test issuer's right token").await?;
    let scopeless = issuer
        .mint(&TokenSpec::right(&p.endpoint.url(), ""))
        .await
        .map_err(|e| Outcome::error(format!("the test issuer did not mint a token: {e}")))?;
    let what = "a right token without any scope";
    let answer = exchange(s, &p.endpoint, &with_token(s, &scopeless), what).await?;
    if served(&answer) {
        return Ok(Outcome::skipped(
            "the server served a token without any scope: this request needs none",
        ));
    }
    if answer.status != 403 {
        return Ok(Outcome::non_strict(format!(
            "{what} got HTTP {}, not 403 insufficient_scope (the same token with the scopes is \
             served): {}",
            answer.status,
            answer.describe()
        )));
    }
    let mut missing = Vec::new();
    match answer.bearer() {
        None => missing.push("a Bearer challenge".to_owned()),
        Some(c) => {
            if c.param("error") != Some("insufficient_scope") {
                missing.push("`error=\"insufficient_scope\"`".into());
            }
            if c.param("scope").is_none_or(|v| v.trim().is_empty()) {
                missing.push("`scope` (the scopes needed)".into());
            }
            if c.param("resource_metadata").is_none() {
                missing.push("`resource_metadata`".into());
            }
        }
    }
    Ok(if missing.is_empty() {
        Outcome::pass("403 with insufficient_scope, the scope needed and resource_metadata")
    } else {
        Outcome::non_strict(format!(
            "403, but its challenge lacks {}: {}",
            missing.join(", "),
            answer.describe()
        ))
    })
}

async fn offline_access(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    if !s.facts().modern() {
        let seen = shorten(&s.facts().discover_seen, 200);
        return Ok(Outcome::skipped(if run_token(&p).await.is_none() {
            format!(
                "applies to servers of 2026-07-28, and without a token mcpspec cannot tell the                  server's revisions (server/discover got {seen}): give --bearer* or --auth-issuer"
            )
        } else {
            format!("applies to servers of 2026-07-28; server/discover got {seen}")
        }));
    }
    let in_challenge = p
        .refusal
        .bearer()
        .is_some_and(|c| c.scopes().contains(&OFFLINE_ACCESS));
    let in_metadata = match metadata(s, &p).await {
        Ok((_, url, document)) => discovery::scopes_supported(&document)
            .iter()
            .any(|scope| scope == OFFLINE_ACCESS)
            .then_some(url),
        Err(_) => None,
    };
    let mut places = Vec::new();
    if in_challenge {
        places.push(format!("the challenge's scope ({})", p.refusal.describe()));
    }
    if let Some(url) = in_metadata {
        places.push(format!("`scopes_supported` of {url}"));
    }
    Ok(if places.is_empty() {
        Outcome::pass("`offline_access` is advertised nowhere")
    } else {
        Outcome::non_strict(format!(
            "`offline_access` is advertised in {} (SEP-2207: a client asks for it itself)",
            places.join(" and ")
        ))
    })
}

async fn token_served(s: &mut Scenario) -> Verdict {
    let p = protected(s).await?;
    let Some(token) = run_token(&p).await else {
        return Ok(Outcome::skipped(
            "the run has no token: give one with --bearer, --bearer-env, --bearer-command or \
             --auth-issuer",
        ));
    };
    let answer = exchange(
        s,
        &p.endpoint,
        &with_token(s, &token),
        "with the run's token",
    )
    .await?;
    Ok(if served(&answer) {
        Outcome::pass("the request refused without a token is served with it")
    } else {
        Outcome::fail(format!(
            "the run's token was not served: {} (a right token must be served like on an open \
             server)",
            answer.describe()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, challenge: &str, body: &str) -> Refusal {
        let raw: Vec<String> = if challenge.is_empty() {
            Vec::new()
        } else {
            vec![challenge.to_owned()]
        };
        Refusal {
            status,
            challenges: crate::auth::challenge::parse_all(raw.iter().map(String::as_str)),
            raw,
            body: body.to_owned(),
        }
    }

    #[test]
    fn rejections_are_judged_by_status_and_error() {
        let kind = |a: Refusal| judge_rejection(&a, "t", "served").kind;
        use crate::outcome::Kind;
        assert_eq!(
            kind(answer(401, r#"Bearer error="invalid_token""#, "")),
            Kind::Pass
        );
        assert_eq!(kind(answer(401, "Bearer", "")), Kind::NonStrict);
        assert_eq!(kind(answer(400, "", "")), Kind::NonStrict);
        assert_eq!(kind(answer(200, "", r#"{"result":{}}"#)), Kind::Fail);
        assert_eq!(kind(answer(500, "", "")), Kind::Fail);
    }

    #[test]
    fn served_means_a_result_in_json_or_an_event() {
        assert!(served(&answer(
            200,
            "",
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
        )));
        assert!(served(&answer(
            200,
            "",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
        )));
        assert!(!served(&answer(
            200,
            "",
            r#"{"jsonrpc":"2.0","id":1,"error":{}}"#
        )));
        assert!(!served(&answer(401, "", r#"{"result":{}}"#)));
    }
}
