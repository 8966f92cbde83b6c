//! The protected peer of the `auth/*` scenarios: the MCP server as an OAuth protected resource
//! and a test authorization server on another loopback origin, both reference-server instances
//! whose endpoint hooks answer below the protocol, as the scenario's [`Protection`] says.
//!
//! ```text
//! client ──> MCP origin (ProtectedHook)                    client ──> AS origin (AuthServerHook)
//!   /.well-known/oauth-protected-resource[/mcp]  PRM         /.well-known/…  RFC 8414 metadata
//!   /mcp  no/unknown token   401 WWW-Authenticate            {issuer}/register  DCR (RFC 7591)
//!         scope missing      403 insufficient_scope          {issuer}/authorize 302 code, state, iss
//!         else the reference server (the inner hook records) {issuer}/token     PKCE, refresh
//! ```
//!
//! Every request to either origin is recorded in the scenario's [`Log`] (`AuthRequest`) with
//! what it was answered, and what the peer issued goes into its facts for the checks. The
//! authorization server approves at once (no login page): the client's "browser" is the client,
//! which fetches the authorization URL without following its redirect. It is lenient where
//! leniency lets a check judge more (a request without `resource` is still served) and strict
//! where a real one is (an unknown client_id, a code redeemed twice or with the wrong
//! verifier). Every token, refresh token and client secret it makes is registered for
//! redaction, so none is ever written.
//!
//! Bounded: both origins refuse bodies over [`MAX_BODY`] (413), registrations past
//! [`MAX_REGISTRATIONS`] get 429, and the record keeps what `observation` bounds.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use mcp_reference_server::config::http_hook::{Exchange, HookRequest, HookResponse, HttpHook};
use serde_json::{Value, json};
use sha2::Digest as _;

use crate::judge;
use crate::observation::Log;
use crate::observation::authorization::{
    AuthFacts, AuthRequest, Issued as Made, MAX_BODY_KEPT, Origin, bearer_token, form_pairs, param,
    percent_decode,
};
use crate::scenario::protection::{
    ANOTHER, FOREIGN_STATE, HUGE_METADATA, Hostile, MAX_BODY, MAX_REGISTRATIONS, OFFLINE_ACCESS,
    PRE_REGISTERED_ID, PRE_REGISTERED_SECRET, PrmAt, Protection, Redirect, Registration,
    SCOPE_READ, SCOPE_TOOLS, SCOPES,
};

/// The MCP endpoint's path.
const ENDPOINT: &str = "/mcp";
/// The root well-known URL of protected resource metadata (RFC 9728 §3).
const PRM_ROOT: &str = "/.well-known/oauth-protected-resource";
/// An access token's lifetime, in seconds (the refresh scenario's is shorter, and it dies
/// early anyway).
const LIFETIME: u64 = 3600;
const SHORT_LIFETIME: u64 = 60;

/// The peer's URLs, fixed once both listeners are bound.
#[derive(Debug, Clone)]
pub struct Urls {
    /// `http://127.0.0.1:P`.
    pub mcp_origin: String,
    /// `http://127.0.0.1:Q`.
    pub auth_origin: String,
}

/// What both hooks share: the scenario's protection, its URLs, and what was issued.
#[derive(Debug)]
pub struct AuthState {
    protection: Protection,
    urls: Urls,
    log: Log,
    issued: Mutex<Issued>,
}

#[derive(Debug, Default)]
struct Issued {
    /// client_id -> its secret (none for a public client).
    clients: HashMap<String, Option<String>>,
    registrations: usize,
    codes: HashMap<String, Code>,
    /// Access token -> the scopes it grants.
    access: HashMap<String, Vec<String>>,
    /// Access tokens that died (the refresh scenario's first one).
    dead: HashSet<String>,
    /// Refresh token -> the scopes it renews.
    refresh: HashMap<String, Vec<String>>,
    /// The first access token issued (the one the refresh scenario lets die).
    first: Option<String>,
}

/// An authorization code and what it was issued for.
#[derive(Debug, Clone)]
struct Code {
    client_id: String,
    challenge: Option<String>,
    method: Option<String>,
    scope: Vec<String>,
}

impl AuthState {
    pub fn new(protection: Protection, urls: Urls, log: Log) -> Arc<Self> {
        let state = Self {
            protection,
            urls,
            log,
            issued: Mutex::default(),
        };
        if protection.registration == Registration::PreRegistered {
            state.lock().clients.insert(
                PRE_REGISTERED_ID.to_owned(),
                Some(PRE_REGISTERED_SECRET.to_owned()),
            );
            mcpspec_core::redact::register(PRE_REGISTERED_SECRET);
        }
        state.log.auth_facts(AuthFacts {
            resource: state.resource(),
            mcp_origin: state.urls.mcp_origin.clone(),
            metadata_url: state.metadata_url(),
            auth_origin: state.urls.auth_origin.clone(),
            issuer: state.issuer(),
            authorize_path: format!("{}/authorize", protection.issuer_path),
            token_path: format!("{}/token", protection.issuer_path),
            offline_access_listed: protection.refresh,
            ..AuthFacts::default()
        });
        Arc::new(state)
    }

    fn lock(&self) -> MutexGuard<'_, Issued> {
        self.issued.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The canonical resource URI: the MCP endpoint's URL.
    fn resource(&self) -> String {
        format!("{}{ENDPOINT}", self.urls.mcp_origin)
    }

    fn issuer(&self) -> String {
        format!("{}{}", self.urls.auth_origin, self.protection.issuer_path)
    }

    /// Where the PRM is served.
    fn metadata_url(&self) -> String {
        match self.protection.prm_at {
            PrmAt::PathInserted => format!("{}{PRM_ROOT}{ENDPOINT}", self.urls.mcp_origin),
            PrmAt::Root => format!("{}{PRM_ROOT}", self.urls.mcp_origin),
        }
    }

    /// The 401 (or 403) challenge: `Bearer` with the scenario's parameters.
    fn challenge(&self, error: Option<&str>, scope: Option<&str>) -> String {
        let mut params = Vec::new();
        if let Some(e) = error {
            params.push(format!("error=\"{e}\""));
        }
        if let Some(s) = scope.or(self.protection.challenge_scope) {
            params.push(format!("scope=\"{s}\""));
        }
        if self.protection.challenge_metadata {
            params.push(format!("resource_metadata=\"{}\"", self.metadata_url()));
        }
        if params.is_empty() {
            params.push("realm=\"mcpspec\"".to_owned());
        }
        format!("Bearer {}", params.join(", "))
    }

    fn refuse(&self, status: u16, error: Option<&str>, scope: Option<&str>) -> HookResponse {
        let mut r = HookResponse::new(
            status,
            "text/plain",
            if status == 401 {
                "authorization required"
            } else {
                "insufficient scope"
            },
        );
        r.headers
            .push(("www-authenticate".into(), self.challenge(error, scope)));
        r
    }

    /// Whether an MCP request may be served (`None`) or its refusal.
    fn admit(&self, req: &HookRequest<'_>) -> Option<HookResponse> {
        let token = req.header("authorization").and_then(bearer_token);
        let Some(token) = token else {
            return Some(self.refuse(401, None, None));
        };
        if self.protection.hostile == Some(Hostile::UnauthorizedForever) {
            return Some(self.refuse(401, Some("invalid_token"), None));
        }
        let mut issued = self.lock();
        let scopes = match issued.access.get(token) {
            Some(s) if !issued.dead.contains(token) => s.clone(),
            _ => return Some(self.refuse(401, Some("invalid_token"), None)),
        };
        let message: Option<Value> = serde_json::from_slice(req.body).ok();
        let method = judge::kind(message.as_ref()).method().map(str::to_owned);
        let method = method.as_deref();
        if self.protection.step_up
            && method == Some(judge::method::TOOLS_CALL)
            && !scopes.iter().any(|s| s == SCOPE_TOOLS)
        {
            drop(issued);
            return Some(self.refuse(403, Some("insufficient_scope"), Some(SCOPES)));
        }
        // The refresh scenario: the first token serves the first `tools/list`, then dies.
        if self.protection.refresh
            && method == Some(judge::method::TOOLS_LIST)
            && issued.first.as_deref() == Some(token)
        {
            issued.dead.insert(token.to_owned());
        }
        None
    }

    /// A well-known URL on the MCP origin.
    fn well_known_on_mcp(&self, path: &str) -> HookResponse {
        match self.protection.hostile {
            Some(Hostile::RedirectLoop) => return redirect(&self.urls.mcp_origin, path),
            Some(Hostile::PrmSelf) => return json_response(200, &self.prm(true)),
            Some(Hostile::HugeMetadata) if path.starts_with(PRM_ROOT) => return huge_prm(),
            _ => {}
        }
        let served = match self.protection.prm_at {
            PrmAt::PathInserted => format!("{PRM_ROOT}{ENDPOINT}"),
            PrmAt::Root => PRM_ROOT.to_owned(),
        };
        if path == served {
            json_response(200, &self.prm(false))
        } else {
            not_found()
        }
    }

    /// The Protected Resource Metadata (`self_pointing`: naming its own URL as the AS).
    fn prm(&self, self_pointing: bool) -> Value {
        let resource = if self.protection.foreign_resource {
            format!("{}{ANOTHER}", self.urls.mcp_origin)
        } else {
            self.resource()
        };
        let server = if self_pointing {
            self.metadata_url()
        } else {
            self.issuer()
        };
        json!({
            "resource": resource,
            "authorization_servers": [server],
            "scopes_supported": [SCOPE_READ, SCOPE_TOOLS],
            "bearer_methods_supported": ["header"],
        })
    }

    /// The AS metadata URLs' paths, in the spec's order for the issuer.
    fn metadata_paths(&self) -> Vec<String> {
        let p = self.protection.issuer_path;
        if p.is_empty() {
            vec![
                "/.well-known/oauth-authorization-server".into(),
                "/.well-known/openid-configuration".into(),
            ]
        } else {
            vec![
                format!("/.well-known/oauth-authorization-server{p}"),
                format!("/.well-known/openid-configuration{p}"),
                format!("{p}/.well-known/openid-configuration"),
            ]
        }
    }

    fn as_metadata(&self) -> Value {
        let issuer = self.issuer();
        let p = &self.protection;
        let mut scopes = vec![SCOPE_READ, SCOPE_TOOLS];
        if p.refresh {
            scopes.push(OFFLINE_ACCESS);
        }
        let mut m = json!({
            "issuer": if p.foreign_issuer { format!("{issuer}{ANOTHER}") } else { issuer.clone() },
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "scopes_supported": scopes,
            "authorization_response_iss_parameter_supported": true,
            // What OpenID Connect Discovery requires, so that a client reading the OIDC URLs
            // with a strict schema takes the document (no ID tokens are ever issued).
            "jwks_uri": format!("{issuer}/jwks.json"),
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
        });
        if p.s256 {
            m["code_challenge_methods_supported"] = json!(["S256"]);
        }
        if p.registration != Registration::PreRegistered {
            m["registration_endpoint"] = json!(format!("{issuer}/register"));
        }
        if p.registration == Registration::MetadataDocument {
            m["client_id_metadata_document_supported"] = json!(true);
        }
        m
    }

    /// A request to the authorization server.
    fn serve_auth(&self, req: &HookRequest<'_>) -> HookResponse {
        let path = req.target.split('?').next().unwrap_or("");
        let ip = self.protection.issuer_path;
        if path.contains("/.well-known/") {
            if self.protection.hostile == Some(Hostile::RedirectLoop) {
                return redirect(&self.urls.auth_origin, path);
            }
            let paths = self.metadata_paths();
            let served = if self.protection.metadata_last_only {
                &paths[paths.len() - 1..]
            } else {
                &paths[..]
            };
            return if served.iter().any(|s| s == path) {
                json_response(200, &self.as_metadata())
            } else {
                not_found()
            };
        }
        match (req.method, path.strip_prefix(ip)) {
            ("GET", Some("/authorize")) => self.authorize(req.target),
            ("POST", Some("/token")) => self.token(req),
            ("GET", Some("/jwks.json")) => json_response(200, &json!({"keys": []})),
            ("POST", Some("/register"))
                if self.protection.registration != Registration::PreRegistered =>
            {
                self.register(req.body)
            }
            _ => not_found(),
        }
    }

    fn authorize(&self, target: &str) -> HookResponse {
        let query = target
            .split_once('?')
            .map(|(_, q)| form_pairs(q))
            .unwrap_or_default();
        let get = |name: &str| param(&query, name);
        let (Some(client_id), Some(redirect_uri)) = (get("client_id"), get("redirect_uri")) else {
            return bad_request("invalid_request", "client_id and redirect_uri are required");
        };
        if get("response_type").as_deref() != Some("code") {
            return bad_request("unsupported_response_type", "response_type must be code");
        }
        let mut issued = self.lock();
        let metadata_document = self.protection.registration == Registration::MetadataDocument
            && client_id.starts_with("https://");
        if !issued.clients.contains_key(&client_id) && !metadata_document {
            return bad_request("invalid_client", "unknown client_id");
        }
        let code = secret("mcpspec-code");
        issued.codes.insert(
            code.clone(),
            Code {
                client_id,
                challenge: get("code_challenge"),
                method: get("code_challenge_method"),
                scope: self.granted(get("scope").as_deref()),
            },
        );
        drop(issued);
        let mut location = redirect_uri.clone();
        location.push(if redirect_uri.contains('?') { '&' } else { '?' });
        location.push_str(&format!("code={}", encode(&code)));
        let state = match self.protection.redirect {
            Redirect::WrongState => Some(FOREIGN_STATE.to_owned()),
            _ => get("state"),
        };
        if let Some(s) = state {
            location.push_str(&format!("&state={}", encode(&s)));
        }
        let iss = match self.protection.redirect {
            Redirect::WrongIss => Some(format!("{}{ANOTHER}", self.issuer())),
            Redirect::NoIss => None,
            _ => Some(self.issuer()),
        };
        if let Some(i) = iss {
            location.push_str(&format!("&iss={}", encode(&i)));
        }
        let mut r = HookResponse::new(302, "", Vec::new());
        r.headers.push(("location".into(), location));
        r
    }

    /// The scopes a token gets: what was asked, else the challenge's.
    fn granted(&self, asked: Option<&str>) -> Vec<String> {
        let asked = asked.filter(|s| !s.trim().is_empty());
        asked
            .unwrap_or(self.protection.default_scope())
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    }

    fn token(&self, req: &HookRequest<'_>) -> HookResponse {
        let form = form_pairs(&String::from_utf8_lossy(req.body));
        let get = |name: &str| param(&form, name);
        let mut issued = self.lock();
        let scope = match get("grant_type").as_deref() {
            Some("authorization_code") => {
                let Some(code) = get("code").and_then(|c| issued.codes.remove(&c)) else {
                    return bad_request("invalid_grant", "unknown or used authorization code");
                };
                if let Some(challenge) = &code.challenge {
                    let verifier = get("code_verifier").unwrap_or_default();
                    let derived = if code.method.as_deref() == Some("plain") {
                        verifier
                    } else {
                        URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
                    };
                    if &derived != challenge {
                        return bad_request("invalid_grant", "code_verifier does not match");
                    }
                }
                let client = client_of(req, &form).unwrap_or(code.client_id.clone());
                if client != code.client_id {
                    return bad_request("invalid_grant", "the code was issued to another client");
                }
                code.scope
            }
            Some("refresh_token") => {
                match get("refresh_token").and_then(|t| issued.refresh.get(&t).cloned()) {
                    Some(scope) => scope,
                    None => return bad_request("invalid_grant", "unknown refresh token"),
                }
            }
            _ => return bad_request("unsupported_grant_type", "unsupported grant_type"),
        };
        let access = secret("mcpspec-access");
        mcpspec_core::redact::register(&access);
        issued.access.insert(access.clone(), scope.clone());
        issued.first.get_or_insert_with(|| access.clone());
        self.log.auth_issued(Made::AccessToken(access.clone()));
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": if self.protection.refresh { SHORT_LIFETIME } else { LIFETIME },
            "scope": scope.join(" "),
        });
        if self.protection.refresh {
            let refresh = secret("mcpspec-refresh");
            mcpspec_core::redact::register(&refresh);
            issued.refresh.insert(refresh.clone(), scope);
            self.log.auth_issued(Made::RefreshToken(refresh.clone()));
            answer["refresh_token"] = refresh.into();
        }
        json_response(200, &answer)
    }

    fn register(&self, body: &[u8]) -> HookResponse {
        let mut issued = self.lock();
        issued.registrations += 1;
        if issued.registrations > MAX_REGISTRATIONS {
            return HookResponse::new(429, "text/plain", "too many registrations");
        }
        let Ok(Value::Object(mut metadata)) = serde_json::from_slice::<Value>(body) else {
            return bad_request("invalid_client_metadata", "the body is not a JSON object");
        };
        let id = format!("mcpspec-client-{}", issued.registrations);
        let public = metadata
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            == Some("none");
        let secret = (!public).then(|| secret("mcpspec-secret"));
        if let Some(s) = &secret {
            mcpspec_core::redact::register(s);
            metadata.insert("client_secret".into(), s.clone().into());
        }
        metadata.insert("client_id".into(), id.clone().into());
        metadata.insert("client_id_issued_at".into(), 0.into());
        issued.clients.insert(id.clone(), secret);
        self.log.auth_issued(Made::ClientId(id));
        json_response(201, &Value::Object(metadata))
    }
}

/// The client_id a token request authenticates as: HTTP Basic, else the form's `client_id`.
fn client_of(req: &HookRequest<'_>, form: &[(String, String)]) -> Option<String> {
    let basic = req
        .header("authorization")
        .and_then(|v| {
            v.strip_prefix("Basic ")
                .or_else(|| v.strip_prefix("basic "))
        })
        .and_then(|b| STANDARD.decode(b.trim()).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|pair| pair.split_once(':').map(|(id, _)| percent_decode(id)));
    basic.or_else(|| param(form, "client_id"))
}

/// A fresh secret: `prefix-` and 32 hex digits from the OS's randomness.
fn secret(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    // Should the OS's randomness fail (zeros), the counter still keeps every secret distinct.
    let _ = getrandom::fill(&mut bytes);
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    bytes[..8]
        .iter_mut()
        .zip(n.to_le_bytes())
        .for_each(|(b, c)| *b ^= c);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}-{hex}")
}

/// Form-encodes a query value.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn json_response(status: u16, body: &Value) -> HookResponse {
    HookResponse::new(status, "application/json", body.to_string())
}

fn bad_request(error: &str, description: &str) -> HookResponse {
    json_response(
        400,
        &json!({"error": error, "error_description": description}),
    )
}

fn not_found() -> HookResponse {
    HookResponse::new(404, "text/plain", "not found")
}

/// 302 to the URL itself.
fn redirect(origin: &str, path: &str) -> HookResponse {
    let mut r = HookResponse::new(302, "", Vec::new());
    r.headers
        .push(("location".into(), format!("{origin}{path}")));
    r
}

/// A PRM whose body is [`HUGE_METADATA`] bytes: valid JSON, padded.
fn huge_prm() -> HookResponse {
    const CHUNK: usize = 1024 * 1024;
    let mut chunks = vec![b"{\"resource\":\"padding\",\"x-padding\":\"".to_vec()];
    let mut left = HUGE_METADATA;
    while left > 0 {
        let n = left.min(CHUNK);
        chunks.push(vec![b'a'; n]);
        left -= n;
    }
    chunks.push(b"\"}".to_vec());
    HookResponse {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        chunks,
    }
}

/// What a request looks like in the record.
fn recorded(
    req: &HookRequest<'_>,
    origin: Origin,
    exchange: Option<u64>,
    entry: Option<u32>,
) -> AuthRequest {
    AuthRequest {
        entry,
        origin,
        exchange,
        method: req.method.to_owned(),
        target: req.target.to_owned(),
        headers: req.headers.to_vec(),
        body: req.body[..req.body.len().min(MAX_BODY_KEPT)].to_vec(),
        body_len: req.body.len(),
        status: None,
        location: None,
        challenge: None,
    }
}

/// The MCP origin's hook: records every request, answers the well-known URLs and refusals,
/// and lets the inner hook (the scenario's recorder) see the responses of what it serves.
#[derive(Debug)]
pub struct ProtectedHook {
    inner: Arc<super::http::Hook>,
    state: Arc<AuthState>,
    log: Log,
}

impl ProtectedHook {
    pub fn new(inner: Arc<super::http::Hook>, state: Arc<AuthState>, log: Log) -> Arc<Self> {
        Arc::new(Self { inner, state, log })
    }
}

impl HttpHook for ProtectedHook {
    fn request(&self, exchange: Exchange, req: &HookRequest<'_>) -> Option<HookResponse> {
        let head = super::http::head_of(exchange, req);
        let path = req.target.split('?').next().unwrap_or("");
        let entry = self.log.http_request(head.clone());
        if req.method == "POST" && path == ENDPOINT {
            self.log.client_message(1, req.body, Some(head));
        }
        self.log
            .auth_request(recorded(req, Origin::Mcp, Some(exchange), entry));
        if path.starts_with("/.well-known/") {
            return Some(self.state.well_known_on_mcp(path));
        }
        if path != ENDPOINT {
            return Some(not_found());
        }
        self.state.admit(req)
    }

    fn response_head(&self, exchange: Exchange, status: u16, headers: &[(String, String)]) {
        self.inner.response_head(exchange, status, headers);
        self.log.auth_answered(exchange, status, headers);
    }

    fn response_chunk(&self, exchange: Exchange, chunk: &[u8]) {
        self.inner.response_chunk(exchange, chunk);
    }

    fn response_end(&self, exchange: Exchange) {
        self.inner.response_end(exchange);
    }
}

/// The authorization server's hook: answers every request itself and records it with its
/// answer.
#[derive(Debug)]
pub struct AuthServerHook {
    state: Arc<AuthState>,
    log: Log,
}

impl AuthServerHook {
    pub fn new(state: Arc<AuthState>, log: Log) -> Arc<Self> {
        Arc::new(Self { state, log })
    }
}

impl HttpHook for AuthServerHook {
    fn request(&self, _exchange: Exchange, req: &HookRequest<'_>) -> Option<HookResponse> {
        let answer = self.state.serve_auth(req);
        let mut record = recorded(req, Origin::AuthServer, None, None);
        record.status = Some(answer.status);
        record.location = answer.header("location").map(str::to_owned);
        self.log.auth_request(record);
        Some(answer)
    }

    /// The authorization server never answers 413 itself: a 413 is the body limit's, sent
    /// before [`HttpHook::request`] sees the request, so it is recorded here.
    fn response_head(&self, _exchange: Exchange, status: u16, _headers: &[(String, String)]) {
        if status == 413 {
            self.log.auth_request(AuthRequest {
                entry: None,
                origin: Origin::AuthServer,
                exchange: None,
                method: "POST".into(),
                target: "(a request whose body was over the 1 MiB limit)".into(),
                headers: Vec::new(),
                body: Vec::new(),
                body_len: MAX_BODY + 1,
                status: Some(413),
                location: None,
                challenge: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256_matches_rfc_7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(
            URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes())),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn secrets_are_distinct_and_values_encode() {
        assert_ne!(secret("a"), secret("a"));
        assert_eq!(encode("http://a/b c"), "http%3A%2F%2Fa%2Fb%20c");
    }
}
