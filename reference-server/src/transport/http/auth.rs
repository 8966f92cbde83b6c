//! Authorization mode (`--auth-issuer URL`, AUTH-1..9): the server is an OAuth 2.1 protected
//! resource. Every request to `/mcp` needs `Authorization: Bearer <JWT>` from the one issuer it
//! trusts; its protected resource metadata (RFC 9728) is served at the path-inserted well-known
//! URI.
//!
//! ```text
//! request --security (Host, Origin)--> authenticate                       (endpoint)
//!   no Authorization ............................ 401  Bearer resource_metadata, scope
//!   not `Bearer <b64token>` (bare token, junk) .. 400  error="invalid_request"
//!   another scheme (Basic …) .................... 401  challenge, no error
//!   JWT: ES256, a key of the issuer's JWKS, `iss` = the issuer, `aud` = the server's URL,
//!        not expired ........................... else 401  error="invalid_token"
//! --> body read --> authorize (scopes)                                        (post, get, delete)
//!   every request needs `mcp:read`, `tools/call` also `mcp:tools`
//!        ........................................ else 403  error="insufficient_scope", scope
//! ```
//!
//! A token in the query string is never read (AUTH-6). The issuer's keys are fetched from the
//! `jwks_uri` of its metadata (RFC 8414) on first use, and again (at most every
//! [`REFETCH_AFTER`]) when a token names a key id the server does not know. Each `auth-*` fault
//! breaks one of these rules (see `config/faults.rs`).
//!
//! Imports `config` and the transport's `shared` only.

mod fetch;

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::shared::{Shared, set};
use crate::config::AuthOptions;
use crate::config::faults::Fault;

/// The scope every request needs.
pub const SCOPE_READ: &str = "mcp:read";
/// The scope `tools/call` needs besides [`SCOPE_READ`].
pub const SCOPE_TOOLS: &str = "mcp:tools";
/// The scope the `auth-offline-access` fault advertises (AUTH-8).
const OFFLINE_ACCESS: &str = "offline_access";
/// The well-known prefix of protected resource metadata (RFC 9728 §3.1).
pub const METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";
/// The least time between two fetches of the issuer's keys.
const REFETCH_AFTER: Duration = Duration::from_secs(1);
/// Clock skew allowed on `exp`.
const LEEWAY_SECONDS: i64 = 30;

/// The server's authorization state: what it trusts and what it says about itself.
#[derive(Debug)]
pub(crate) struct Guard {
    issuer: String,
    /// The canonical URL: the metadata's `resource`, the `aud` required.
    resource: String,
    /// Where the metadata is served (the challenge's `resource_metadata`).
    metadata_url: String,
    /// The path the metadata route answers.
    metadata_path: String,
    keys: tokio::sync::Mutex<Keys>,
}

#[derive(Debug, Default)]
struct Keys {
    by_kid: Vec<(Option<String>, jsonwebtoken::DecodingKey)>,
    fetched: Option<Instant>,
}

/// What an authenticated request may do.
#[derive(Debug, Clone)]
pub(crate) struct Grant {
    scopes: Vec<String>,
}

impl Guard {
    /// The guard for a server bound at `addr` (its default canonical URL `http://ADDR/mcp`).
    pub(crate) fn new(options: &AuthOptions, addr: std::net::SocketAddr) -> Guard {
        let resource = options
            .resource
            .clone()
            .unwrap_or_else(|| format!("http://{addr}{}", super::ENDPOINT));
        let (origin, path) = split_url(&resource);
        let metadata_path = format!("{METADATA_PREFIX}{path}");
        Guard {
            issuer: options.issuer.trim_end_matches('/').to_owned(),
            metadata_url: format!("{origin}{metadata_path}"),
            metadata_path,
            resource,
            keys: tokio::sync::Mutex::new(Keys::default()),
        }
    }

    /// The path the protected resource metadata is served at.
    pub(crate) fn metadata_path(&self) -> &str {
        &self.metadata_path
    }

    /// The scopes the server defines (the metadata's `scopes_supported`, the 401's `scope`).
    fn scopes(&self, shared: &Shared) -> Vec<&'static str> {
        let mut scopes = vec![SCOPE_READ, SCOPE_TOOLS];
        if shared.has(Fault::AuthOfflineAccess) {
            scopes.push(OFFLINE_ACCESS);
        }
        scopes
    }

    /// `GET` of the metadata path: the protected resource metadata (RFC 9728 §3.2).
    pub(crate) fn metadata(&self, shared: &Shared) -> Response {
        if shared.has(Fault::AuthMetadataMissing) {
            return json_response(StatusCode::NOT_FOUND, &json!({"error": "not_found"}));
        }
        let resource = if shared.has(Fault::AuthResourceMismatch) {
            format!("{}/", self.resource)
        } else {
            self.resource.clone()
        };
        let server = if shared.has(Fault::AuthBadAuthorizationServer) {
            "/oauth".to_owned()
        } else {
            self.issuer.clone()
        };
        json_response(
            StatusCode::OK,
            &json!({
                "resource": resource,
                "authorization_servers": [server],
                "scopes_supported": self.scopes(shared),
                "bearer_methods_supported": ["header"],
                "resource_name": "mcp-reference-server",
            }),
        )
    }

    /// Who sent the request: the grant of a valid token, or the response refusing it.
    pub(crate) async fn authenticate(
        &self,
        shared: &Shared,
        headers: &HeaderMap,
        uri: &Uri,
    ) -> Result<Grant, Response> {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let token = match (values.next(), values.next()) {
            (Some(_), Some(_)) => {
                return Err(self.refuse(shared, Refusal::Malformed("two Authorization headers")));
            }
            (None, _) => match query_token(uri) {
                Some(token) if shared.has(Fault::AuthQueryTokenAccepted) => token,
                // A token in the query string is not read (AUTH-6): no token was sent.
                _ => return Err(self.refuse(shared, Refusal::NoToken)),
            },
            (Some(value), None) => {
                let Ok(value) = value.to_str() else {
                    return Err(self.refuse(
                        shared,
                        Refusal::Malformed("the Authorization header is not visible ASCII"),
                    ));
                };
                self.bearer_token(shared, value)?
            }
        };
        let claims = self
            .verify(shared, &token)
            .await
            .map_err(|why| self.refuse(shared, why))?;
        Ok(Grant {
            scopes: claims
                .get("scope")
                .and_then(Value::as_str)
                .map(|s| {
                    s.split(' ')
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        })
    }

    /// The token of an `Authorization` value (RFC 6750 §2.1: `Bearer 1*SP b64token`).
    fn bearer_token(&self, shared: &Shared, value: &str) -> Result<String, Response> {
        let value = value.trim_matches([' ', '\t']);
        let Some((scheme, rest)) = value.split_once(' ') else {
            if shared.has(Fault::AuthSchemeOptional) && is_b64token(value) {
                return Ok(value.to_owned());
            }
            if value.eq_ignore_ascii_case("bearer") {
                return Err(self.refuse(shared, Refusal::Malformed("`Bearer` without a token")));
            }
            return Err(self.refuse(
                shared,
                Refusal::Malformed("no scheme: the header must read `Bearer <token>`"),
            ));
        };
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(self.refuse(shared, Refusal::OtherScheme));
        }
        let token = rest.trim_start_matches(' ');
        if !is_b64token(token) {
            return Err(self.refuse(
                shared,
                Refusal::Malformed("the bearer token is not a b64token (RFC 6750 §2.1)"),
            ));
        }
        Ok(token.to_owned())
    }

    /// The claims of a token the server accepts (see the module doc), or why not.
    async fn verify(&self, shared: &Shared, token: &str) -> Result<Value, Refusal> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| Refusal::InvalidToken("not a JWT".into()))?;
        let claims = if shared.has(Fault::AuthSignatureUnchecked) {
            jsonwebtoken::dangerous::insecure_decode::<Value>(token)
                .map_err(|_| Refusal::InvalidToken("unreadable claims".into()))?
                .claims
        } else {
            if header.alg != jsonwebtoken::Algorithm::ES256 {
                return Err(Refusal::InvalidToken(format!(
                    "alg {:?}: only ES256 is accepted",
                    header.alg
                )));
            }
            let key = self.key(header.kid.as_deref()).await?;
            let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
            // The claims are judged below, one rule (and one fault) at a time.
            validation.validate_exp = false;
            validation.validate_aud = false;
            validation.required_spec_claims.clear();
            jsonwebtoken::decode::<Value>(token, &key, &validation)
                .map_err(|e| Refusal::InvalidToken(format!("signature: {e}")))?
                .claims
        };
        if !shared.has(Fault::AuthIssuerUnchecked)
            && claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str())
        {
            return Err(Refusal::InvalidToken("issued by another issuer".into()));
        }
        let expected_audience = if shared.has(Fault::AuthRejectsValidToken) {
            format!("{}/", self.resource)
        } else {
            self.resource.clone()
        };
        if !shared.has(Fault::AuthWrongAudienceAccepted)
            && !audience_has(claims.get("aud"), &expected_audience)
        {
            return Err(Refusal::InvalidToken(
                "issued for another resource (aud)".into(),
            ));
        }
        if !shared.has(Fault::AuthExpiredAccepted) {
            let now = jsonwebtoken::get_current_timestamp();
            let expired = match claims.get("exp").and_then(Value::as_i64) {
                Some(exp) => {
                    exp.saturating_add(LEEWAY_SECONDS) < i64::try_from(now).unwrap_or(i64::MAX)
                }
                None => true,
            };
            if expired {
                return Err(Refusal::InvalidToken("expired (or no exp)".into()));
            }
        }
        Ok(claims)
    }

    /// The issuer's key `kid`, fetching the JWKS on first use and when the id is unknown.
    async fn key(&self, kid: Option<&str>) -> Result<jsonwebtoken::DecodingKey, Refusal> {
        let mut keys = self.keys.lock().await;
        let find = |keys: &Keys| {
            keys.by_kid
                .iter()
                .find(|(k, _)| kid.is_none() || k.as_deref() == kid)
                .map(|(_, key)| key.clone())
        };
        if let Some(key) = find(&keys) {
            return Ok(key);
        }
        let stale =
            keys.by_kid.is_empty() || keys.fetched.is_none_or(|at| at.elapsed() >= REFETCH_AFTER);
        if stale {
            match fetch::jwks(&self.issuer).await {
                Ok(set) => {
                    keys.by_kid = set;
                    keys.fetched = Some(Instant::now());
                }
                Err(e) => {
                    tracing::warn!(issuer = %self.issuer, "cannot fetch the issuer's keys: {e}");
                    return Err(Refusal::Unavailable);
                }
            }
        }
        find(&keys).ok_or_else(|| {
            Refusal::InvalidToken("signed by a key the issuer does not publish".into())
        })
    }

    /// Whether `grant` may run this request (its body); the 403 when it may not.
    pub(crate) fn authorize(
        &self,
        shared: &Shared,
        grant: &Grant,
        body: &[u8],
    ) -> Result<(), Response> {
        let needed = needed_scopes(body);
        if needed.iter().all(|s| grant.scopes.iter().any(|g| g == s)) {
            return Ok(());
        }
        if shared.has(Fault::AuthInsufficientScope401) {
            return Err(self.refuse(shared, Refusal::InvalidToken("missing a scope".into())));
        }
        Err(self.refuse(shared, Refusal::InsufficientScope(needed)))
    }

    /// The response refusing a request.
    fn refuse(&self, shared: &Shared, why: Refusal) -> Response {
        let (status, error, description, scopes) = match &why {
            Refusal::NoToken | Refusal::OtherScheme => {
                (StatusCode::UNAUTHORIZED, None, None, self.scopes(shared))
            }
            Refusal::Malformed(d) => (
                StatusCode::BAD_REQUEST,
                Some("invalid_request"),
                Some((*d).to_owned()),
                Vec::new(),
            ),
            Refusal::InvalidToken(d) => (
                StatusCode::UNAUTHORIZED,
                Some("invalid_token"),
                Some(format!("the token is {d}")),
                Vec::new(),
            ),
            Refusal::InsufficientScope(needed) => (
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                Some("the token lacks a scope this request needs".to_owned()),
                needed.clone(),
            ),
            Refusal::Unavailable => {
                return json_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &json!({"error": "temporarily_unavailable", "error_description": "the issuer's keys cannot be fetched"}),
                );
            }
        };
        let mut params: Vec<String> = Vec::new();
        if let Some(e) = error {
            params.push(format!("error=\"{e}\""));
        }
        if let Some(d) = &description {
            params.push(format!(
                "error_description=\"{}\"",
                d.replace(['"', '\\'], "'")
            ));
        }
        let scope_dropped = error.is_none() && shared.has(Fault::AuthChallengeNoScope);
        if !scopes.is_empty() && !scope_dropped {
            params.push(format!("scope=\"{}\"", scopes.join(" ")));
        }
        if !shared.has(Fault::AuthChallengeNoResourceMetadata) {
            params.push(format!("resource_metadata=\"{}\"", self.metadata_url));
        }
        let mut response = json_response(
            status,
            &json!({"error": error.unwrap_or("unauthorized"), "error_description": description.unwrap_or_else(|| "a bearer token is required".into())}),
        );
        if !shared.has(Fault::AuthNoChallenge) {
            let challenge = if params.is_empty() {
                "Bearer".to_owned()
            } else {
                format!("Bearer {}", params.join(", "))
            };
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, value);
            }
        }
        response
    }
}

/// Why a request is refused.
#[derive(Debug)]
enum Refusal {
    NoToken,
    OtherScheme,
    Malformed(&'static str),
    InvalidToken(String),
    InsufficientScope(Vec<&'static str>),
    /// The issuer's keys could not be fetched: the server cannot judge any token.
    Unavailable,
}

/// The scopes a request body needs: `mcp:read`, and `mcp:tools` for a `tools/call` (in a batch,
/// any of its elements).
fn needed_scopes(body: &[u8]) -> Vec<&'static str> {
    let calls_tool = |m: &Value| m.get("method").and_then(Value::as_str) == Some("tools/call");
    let tools = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(items)) => items.iter().any(calls_tool),
        Ok(message) => calls_tool(&message),
        Err(_) => false,
    };
    if tools {
        vec![SCOPE_READ, SCOPE_TOOLS]
    } else {
        vec![SCOPE_READ]
    }
}

/// `access_token=…` in the query string (read only under `auth-query-token-accepted`).
fn query_token(uri: &Uri) -> Option<String> {
    uri.query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("access_token="))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

/// RFC 6750 §2.1: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// Whether `aud` (a string or an array of strings) names `resource` exactly.
fn audience_has(aud: Option<&Value>, resource: &str) -> bool {
    match aud {
        Some(Value::String(a)) => a == resource,
        Some(Value::Array(items)) => items.iter().any(|a| a.as_str() == Some(resource)),
        _ => false,
    }
}

/// `http://host:port` and the path of a URL (`/` when it has none).
fn split_url(url: &str) -> (String, String) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => (
            url[..after_scheme + i].to_owned(),
            url[after_scheme + i..].to_owned(),
        ),
        None => (url.to_owned(), String::new()),
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    set(&mut response, header::CONTENT_TYPE, "application/json");
    set(&mut response, header::CACHE_CONTROL, "no-store");
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_follow_the_method() {
        assert_eq!(
            needed_scopes(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#),
            [SCOPE_READ, SCOPE_TOOLS]
        );
        assert_eq!(needed_scopes(br#"{"method":"tools/list"}"#), [SCOPE_READ]);
        assert_eq!(
            needed_scopes(br#"[{"method":"ping"},{"method":"tools/call"}]"#),
            [SCOPE_READ, SCOPE_TOOLS]
        );
        assert_eq!(needed_scopes(b"{oops"), [SCOPE_READ]);
    }

    #[test]
    fn reads_tokens_and_urls() {
        assert!(is_b64token("abc.DEF-_~+/=="));
        assert!(!is_b64token("a b") && !is_b64token("==") && !is_b64token(""));
        assert_eq!(
            query_token(&"/mcp?x=1&access_token=t".parse().unwrap()).as_deref(),
            Some("t")
        );
        assert_eq!(
            split_url("http://127.0.0.1:8/mcp"),
            ("http://127.0.0.1:8".to_owned(), "/mcp".to_owned())
        );
        assert!(audience_has(Some(&json!(["a", "b"])), "b"));
        assert!(!audience_has(Some(&json!("b/")), "b"));
    }
}
