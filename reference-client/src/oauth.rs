//! The OAuth 2.1 authorization of an MCP client (HTTP only): what the client does when the MCP
//! endpoint refuses a request, so that the session can send it again with a token.
//!
//! ```text
//! 401 (no token yet)
//!   1. the Bearer challenge of WWW-Authenticate: resource_metadata, scope, error  (challenge.rs)
//!   2. PRM: the challenge's URL, else /.well-known/oauth-protected-resource/<path>, else the
//!      root one; a PRM naming another resource ends the flow; its issuer is
//!      authorization_servers[0]                                                   (discovery.rs)
//!   3. AS metadata at the issuer's well-known URLs in the spec's order; one naming another
//!      issuer ends the flow                                                       (discovery.rs)
//!      no S256 in code_challenge_methods_supported (or none at all) ends it too
//!   4. a client_id: the context's pre-registered one, else its client_metadata_url when the AS
//!      supports metadata documents, else Dynamic Client Registration, else an error
//!                                                                              (registration.rs)
//!   5. scope: the challenge's, else the PRM's scopes_supported, else none; offline_access
//!      added when the AS lists it
//!   6. GET the authorization URL (PKCE S256, state, resource) without following it; the
//!      redirect's state and iss checked before the code is redeemed             (grant.rs)
//!   7. the code grant at the token endpoint (code_verifier, resource)           (grant.rs)
//!   -> the session sends `Authorization: Bearer` on every request and resends the refused one
//! 401 with a token: the refresh grant when it holds a refresh token (error="invalid_token"),
//!   else (or when that fails) steps 5-7 again
//! 403 error="insufficient_scope": steps 5-7 for the union of its scopes and the challenged
//! ```
//!
//! Bounds: discovery runs once per run, at most [`fetch::MAX_DISCOVERY_FETCHES`] fetches, none
//! following a redirect; every request of the flow within 5 s, its body read up to 1 MiB
//! (`fetch.rs`); at most [`MAX_AUTHORIZATIONS`] authorizations, [`MAX_REFRESHES`] refreshes and
//! [`MAX_STEP_UPS`] step-ups. The faults of CLI-11..19 (and CLI-10's bounds) each break one of
//! these steps.
//!
//! Imports `faults`, the core's HTTP client and `core::text`; nothing of the session (which
//! calls it) or the link (which carries its token).

mod challenge;
mod discovery;
mod fetch;
mod grant;
mod registration;
mod urls;

use std::time::Duration;

use serde_json::Value;

use crate::faults::{Fault, Faults};
use challenge::Challenge;
use discovery::{Discovered, Server};
use fetch::Fetcher;
use grant::{Client, Pkce, REDIRECT_URI};

/// The most authorizations (code grants) of a run, the first included.
pub const MAX_AUTHORIZATIONS: usize = 3;
/// The most refresh grants of a run.
pub const MAX_REFRESHES: usize = 3;
/// The most step-ups (403 insufficient_scope answered) of a run.
pub const MAX_STEP_UPS: usize = 2;
/// The pause between two tries of the faults that retry without end.
const RETRY_PAUSE: Duration = Duration::from_millis(10);
/// The scope that asks for a refresh token.
const OFFLINE_ACCESS: &str = "offline_access";

/// What the scenario's context (`MCP_CONFORMANCE_CONTEXT`) gives the flow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub client_metadata_url: Option<String>,
}

impl Context {
    pub fn from_json(context: Option<&Value>) -> Context {
        let text = |key: &str| {
            context
                .and_then(|c| c.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Context {
            client_id: text("client_id"),
            client_secret: text("client_secret"),
            client_metadata_url: text("client_metadata_url"),
        }
    }
}

/// What to do about a refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Send it again with this access token.
    Retry(String),
    /// The refusal is no authorization matter (a 403 without `insufficient_scope`).
    NotMine,
    /// Authorization failed: why.
    GiveUp(String),
}

/// The authorization state of one run against one MCP endpoint.
#[derive(Debug)]
pub struct Authorizer {
    /// The MCP endpoint's URL as given: the resource (RFC 8707) the tokens are for.
    resource: String,
    faults: Faults,
    context: Context,
    fetcher: Fetcher,
    found: Option<Discovered>,
    client: Option<Client>,
    access: Option<String>,
    refresh: Option<String>,
    /// The scopes the last authorization asked for (`None`: no `scope` sent).
    scopes: Option<Vec<String>>,
    authorizations: usize,
    refreshes: usize,
    step_ups: usize,
}

impl Authorizer {
    pub fn new(mcp_url: &str, faults: Faults, context: Context) -> Self {
        let unbounded = faults.has(Fault::UnboundedDiscovery);
        Self {
            resource: mcp_url.to_owned(),
            faults,
            context,
            fetcher: Fetcher {
                spent: 0,
                unbounded,
                leak: None,
            },
            found: None,
            client: None,
            access: None,
            refresh: None,
            scopes: None,
            authorizations: 0,
            refreshes: 0,
            step_ups: 0,
        }
    }

    fn has(&self, fault: Fault) -> bool {
        self.faults.has(fault)
    }

    /// The MCP endpoint refused a request with `status` and these `WWW-Authenticate` values.
    pub async fn refused(&mut self, status: u16, challenges: &[String]) -> Verdict {
        let challenge = challenge::bearer(challenges).unwrap_or_default();
        let outcome = match status {
            401 if self.access.is_none() => self.first(&challenge).await,
            401 => self.again(&challenge).await,
            403 if challenge.error.as_deref() == Some("insufficient_scope") => {
                self.step_up(&challenge).await
            }
            _ => return Verdict::NotMine,
        };
        match outcome {
            Ok(token) => Verdict::Retry(token),
            Err(why) => Verdict::GiveUp(why),
        }
    }

    /// The first 401: discovery, then an authorization.
    async fn first(&mut self, challenge: &Challenge) -> Result<String, String> {
        let found = self.discovered(challenge).await?;
        let methods = &found.server.challenge_methods;
        match methods {
            None if self.has(Fault::ProceedWithoutS256) => {}
            None => {
                return Err(format!(
                    "the authorization server {} does not advertise code_challenge_methods_supported: \
                     PKCE cannot be assured, so this client does not authorize",
                    found.server.issuer
                ));
            }
            Some(m) if !m.iter().any(|m| m == "S256") => {
                return Err(format!(
                    "the authorization server {} does not support PKCE S256 (it lists {m:?})",
                    found.server.issuer
                ));
            }
            Some(_) => {}
        }
        let scopes = self.selection(challenge);
        self.authorize(scopes).await
    }

    /// A 401 although the client has a token: a refresh when the token is invalid and a refresh
    /// token is held, else (or when the refresh fails) a new authorization.
    async fn again(&mut self, challenge: &Challenge) -> Result<String, String> {
        let forever = self.has(Fault::RetryForever);
        if forever {
            tokio::time::sleep(RETRY_PAUSE).await;
        }
        let invalid = challenge.error.as_deref() == Some("invalid_token");
        if invalid && self.refresh.is_some() && (self.refreshes < MAX_REFRESHES || forever) {
            self.refreshes += 1;
            if let Ok(token) = self.refreshed().await {
                return Ok(token);
            }
        }
        let scopes = self
            .selection(challenge)
            .map(|s| union(self.scopes.as_deref(), &s));
        self.authorize(scopes.or_else(|| self.scopes.clone())).await
    }

    /// A 403 `insufficient_scope`: a new authorization for the union of the scopes it had and
    /// the challenged ones.
    async fn step_up(&mut self, challenge: &Challenge) -> Result<String, String> {
        if self.has(Fault::NoStepUp) {
            return Err(format!(
                "the server needs scope `{}` (403 insufficient_scope); this client does not step up",
                challenge.scope.as_deref().unwrap_or_default()
            ));
        }
        if self.step_ups >= MAX_STEP_UPS {
            return Err(format!(
                "still 403 insufficient_scope after {MAX_STEP_UPS} step-ups"
            ));
        }
        self.step_ups += 1;
        let scopes = if self.has(Fault::IgnoreChallengeScope) {
            None
        } else {
            Some(union(self.scopes.as_deref(), &challenge.scopes()))
        };
        self.authorize(scopes).await
    }

    /// The scopes of a new authorization: the challenge's, else the PRM's `scopes_supported`,
    /// else none.
    fn selection(&self, challenge: &Challenge) -> Option<Vec<String>> {
        if self.has(Fault::IgnoreChallengeScope) {
            return None;
        }
        let challenged = challenge.scopes();
        if !challenged.is_empty() {
            return Some(challenged);
        }
        let supported = &self.found.as_ref()?.resource.scopes_supported;
        (!supported.is_empty()).then(|| supported.clone())
    }

    /// Discovery, once per run (under `unbounded-discovery`, tried again without end until it
    /// succeeds).
    async fn discovered(&mut self, challenge: &Challenge) -> Result<Discovered, String> {
        if let Some(found) = &self.found {
            return Ok(found.clone());
        }
        loop {
            let outcome = discovery::discover(
                &mut self.fetcher,
                &self.faults,
                &self.resource,
                challenge.resource_metadata.as_deref(),
            )
            .await;
            match outcome {
                Ok(found) => {
                    self.found = Some(found.clone());
                    return Ok(found);
                }
                Err(_) if self.has(Fault::UnboundedDiscovery) => {
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Err(why) => return Err(why),
            }
        }
    }

    /// The client_id, obtained once (`registration.rs`).
    async fn client(&mut self) -> Result<Client, String> {
        if let Some(client) = &self.client {
            return Ok(client.clone());
        }
        let server = self.server()?;
        let client =
            registration::obtain(&self.faults, &self.context, &server, self.leak()).await?;
        self.client = Some(client.clone());
        Ok(client)
    }

    /// The authorization server discovered.
    fn server(&self) -> Result<Server, String> {
        self.found
            .as_ref()
            .map(|f| f.server.clone())
            .ok_or_else(|| "no authorization server was discovered".into())
    }

    /// The access token sent along to the authorization server (`token-to-auth-server`).
    fn leak(&self) -> Option<&str> {
        self.access
            .as_deref()
            .filter(|_| self.has(Fault::TokenToAuthServer))
    }

    /// One authorization asking for `scopes`: the authorization request, the redirect checked,
    /// the code redeemed. The access token.
    async fn authorize(&mut self, scopes: Option<Vec<String>>) -> Result<String, String> {
        if self.authorizations >= MAX_AUTHORIZATIONS && !self.has(Fault::RetryForever) {
            return Err(format!(
                "still refused after {MAX_AUTHORIZATIONS} authorizations"
            ));
        }
        self.authorizations += 1;
        let server = self.server()?;
        let client = self.client().await?;
        let offline = self.has(Fault::AlwaysOfflineAccess)
            || server.scopes_supported.iter().any(|s| s == OFFLINE_ACCESS);
        let scopes = scopes.map(|s| {
            if offline {
                union(Some(&s), &[OFFLINE_ACCESS.to_owned()])
            } else {
                s
            }
        });
        let scope = scopes.as_ref().map(|s| s.join(" "));
        let pkce = Pkce::new()?;
        let state = grant::random(16)?;
        let mut pairs = vec![
            ("response_type", "code"),
            ("client_id", client.id.as_str()),
            ("redirect_uri", REDIRECT_URI),
        ];
        if !self.has(Fault::NoPkce) {
            pairs.push(("code_challenge", &pkce.challenge));
            pairs.push(("code_challenge_method", "S256"));
        }
        if !self.has(Fault::NoState) {
            pairs.push(("state", &state));
        }
        if let Some(scope) = &scope {
            pairs.push(("scope", scope));
        }
        if !self.has(Fault::NoResource) {
            pairs.push(("resource", &self.resource));
        }
        let url = urls::with_query(&server.authorization_endpoint, &pairs);
        let redirect = grant::authorization(&url, self.leak()).await?;
        let state_checked = !self.has(Fault::NoState) && !self.has(Fault::IgnoreState);
        let iss_checked = !self.has(Fault::IgnoreIss);
        let code = redirect.code_to_redeem(
            state_checked.then_some(state.as_str()),
            iss_checked.then_some((server.issuer.as_str(), server.iss_supported)),
        )?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT_URI),
        ];
        if !self.has(Fault::NoPkce) {
            form.push(("code_verifier", &pkce.verifier));
        }
        form.push(("client_id", &client.id));
        if !self.has(Fault::NoResource) {
            form.push(("resource", &self.resource));
        }
        if let Some(secret) = &client.secret {
            form.push(("client_secret", secret));
        }
        let tokens = grant::token(&server.token_endpoint, &form, self.leak()).await?;
        self.scopes = scopes;
        self.keep(tokens.access.clone(), tokens.refresh);
        Ok(tokens.access)
    }

    /// The refresh grant: at the token endpoint (the MCP server's origin under
    /// `refresh-elsewhere`), with `resource`.
    async fn refreshed(&mut self) -> Result<String, String> {
        let server = self.server()?;
        let client = self.client().await?;
        let refresh = self.refresh.clone().ok_or("no refresh token")?;
        let url = if self.has(Fault::RefreshElsewhere) {
            let origin = urls::parts(&self.resource).map_or("", |p| p.origin);
            format!("{origin}/token")
        } else {
            server.token_endpoint.clone()
        };
        let mut form = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
        ];
        if !self.has(Fault::NoResource) && !self.has(Fault::RefreshWithoutResource) {
            form.push(("resource", &self.resource));
        }
        form.push(("client_id", &client.id));
        if let Some(secret) = &client.secret {
            form.push(("client_secret", secret));
        }
        let tokens = grant::token(&url, &form, self.leak()).await?;
        let access = tokens.access.clone();
        self.keep(tokens.access, tokens.refresh.or(Some(refresh)));
        Ok(access)
    }

    /// Keeps a new access token (and refresh token).
    fn keep(&mut self, access: String, refresh: Option<String>) {
        if self.has(Fault::TokenToAuthServer) {
            self.fetcher.leak = Some(access.clone());
        }
        self.access = Some(access);
        self.refresh = refresh;
    }
}

/// `had` and then the scopes of `more` it lacks, in order.
fn union(had: Option<&[String]>, more: &[String]) -> Vec<String> {
    let mut all: Vec<String> = had.map(<[String]>::to_vec).unwrap_or_default();
    for s in more {
        if !all.contains(s) {
            all.push(s.clone());
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_gives_credentials_and_a_metadata_url() {
        let c = Context::from_json(Some(&serde_json::json!({
            "operation": "tools_call", "client_id": "id-1", "client_secret": "s",
            "client_metadata_url": "http://h:1/client.json"
        })));
        assert_eq!(c.client_id.as_deref(), Some("id-1"));
        assert_eq!(c.client_secret.as_deref(), Some("s"));
        assert_eq!(
            c.client_metadata_url.as_deref(),
            Some("http://h:1/client.json")
        );
        assert_eq!(Context::from_json(None), Context::default());
    }

    #[test]
    fn scopes_unite_in_order_without_repeats() {
        let had = ["mcp:read".to_owned()];
        assert_eq!(
            union(Some(&had), &["mcp:read".into(), "mcp:tools".into()]),
            ["mcp:read", "mcp:tools"]
        );
        assert_eq!(union(None, &["a".into()]), ["a"]);
    }

    #[tokio::test]
    async fn a_403_without_insufficient_scope_is_not_an_authorization_matter() {
        let mut a = Authorizer::new(
            "http://127.0.0.1:1/mcp",
            Faults::default(),
            Context::default(),
        );
        let forbidden = ["Bearer error=\"invalid_request\"".to_owned()];
        assert_eq!(a.refused(403, &forbidden).await, Verdict::NotMine);
        assert_eq!(a.refused(403, &[]).await, Verdict::NotMine);
    }
}
