//! `client/auth/*`: the OAuth flow of a client meeting a protected server (CLI-11..19), and its
//! bounds against hostile authorization documents (CLI-10), judged from every HTTP request it
//! made to the protected peer's two origins (`observation/authorization.rs`) against what the
//! peer issued. One file per part of the flow: discovery (CLI-11), the authorization request
//! and its response (CLI-12, 13, 15, 16, 17), scopes and tokens (CLI-13, 14, 18, 19), bounds
//! (CLI-10).
//!
//! What the client must have done for a check to apply (POL-34): tried to authorize at all
//! (fetched a well-known URL or went to the authorization server after the 401); a client
//! without authorization support is Skipped with that reason, never failed. Each check also
//! names the step it needs (an authorization request, a code redeemed, a refresh, the 403 of
//! a tool call) and is Skipped when the client did not get there.

mod bounds;
mod discovery;
mod request;
mod tokens;

use super::prelude::*;
use crate::observation::authorization::{AuthFacts, AuthRequest, AuthTrail, Origin, form_pairs};

pub fn group() -> Vec<ClientCheck> {
    [
        discovery::group(),
        request::group(),
        tokens::group(),
        bounds::group(),
    ]
    .concat()
}

/// Why a check of a client that never tried to authorize is skipped.
const NOT_ATTEMPTED: &str = "the client did not try to authorize (after the 401 it fetched no \
     metadata and never went to the authorization server; POL-34)";

/// A scenario's authorization record and the peer's facts.
struct Flow<'a> {
    trail: &'a AuthTrail,
    facts: &'a AuthFacts,
}

/// The flow of `obs`, or the Skip of a client that never tried to authorize.
fn flow(obs: &Observation) -> Result<Flow<'_>, Outcome> {
    let trail = &obs.authorization;
    let Some(facts) = &trail.facts else {
        return Err(Outcome::skipped("not a protected peer's scenario"));
    };
    if !trail.attempted() {
        return Err(Outcome::skipped(NOT_ATTEMPTED));
    }
    Ok(Flow { trail, facts })
}

impl<'a> Flow<'a> {
    /// Every request, in order.
    fn requests(&self) -> impl Iterator<Item = &'a AuthRequest> + use<'a> {
        self.trail.requests.iter()
    }

    /// The authorization requests (GET of the AS's authorize endpoint).
    fn authorizations(&self) -> Vec<&'a AuthRequest> {
        let path = self.facts.authorize_path.as_str();
        self.trail
            .to(Origin::AuthServer)
            .filter(|r| r.path() == path)
            .collect()
    }

    /// The token requests of grant `grant` to the AS's token endpoint.
    fn grants(&self, grant: &str) -> Vec<&'a AuthRequest> {
        let path = self.facts.token_path.as_str();
        self.trail
            .to(Origin::AuthServer)
            .filter(|r| r.path() == path && r.form_param("grant_type").as_deref() == Some(grant))
            .collect()
    }

    /// The registration requests (POST of the AS's register endpoint, or a guess of it).
    fn registrations(&self) -> Vec<&'a AuthRequest> {
        self.trail
            .to(Origin::AuthServer)
            .filter(|r| r.method == "POST" && r.path().ends_with("/register"))
            .collect()
    }

    /// Whether `token` is an access token the peer issued.
    fn is_access_token(&self, token: &str) -> bool {
        self.facts.access_tokens.iter().any(|t| t == token)
    }

    /// The index (in [`Flow::requests`]) of the first token request answered with a token.
    fn first_token_at(&self) -> Option<usize> {
        let path = self.facts.token_path.as_str();
        self.trail.requests.iter().position(|r| {
            r.origin == Origin::AuthServer && r.path() == path && r.status == Some(200)
        })
    }
}

/// The query parameters of a `Location` URL.
fn location_params(location: &str) -> Vec<(String, String)> {
    location
        .split_once('?')
        .map(|(_, q)| form_pairs(q.split('#').next().unwrap_or("")))
        .unwrap_or_default()
}

/// The scopes of a space-separated list, sorted, without `offline_access` (judged apart).
fn scope_set(scope: Option<&str>) -> Vec<String> {
    let mut s: Vec<String> = scope
        .unwrap_or("")
        .split_whitespace()
        .filter(|s| *s != crate::scenario::protection::OFFLINE_ACCESS)
        .map(str::to_owned)
        .collect();
    s.sort();
    s.dedup();
    s
}

/// A Fail quoting `request`.
fn fail_on(request: &AuthRequest, text: impl Into<String>) -> Outcome {
    Outcome::fail(text).with_evidence(Some(request.evidence()))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::checks::script::{assert_verdict, judge};
    use crate::observation::authorization::AuthRequest;
    use crate::observation::{ClientEnd, Log};
    use crate::scenario::{self, Transport};
    use mcpspec_harness::outcome::Kind as Verdict;

    const AS: &str = "http://127.0.0.1:2";

    fn facts(issuer_path: &str) -> AuthFacts {
        AuthFacts {
            resource: "http://127.0.0.1:1/mcp".into(),
            mcp_origin: "http://127.0.0.1:1".into(),
            metadata_url: "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp".into(),
            auth_origin: AS.into(),
            issuer: format!("{AS}{issuer_path}"),
            authorize_path: format!("{issuer_path}/authorize"),
            token_path: format!("{issuer_path}/token"),
            ..AuthFacts::default()
        }
    }

    /// A request to `origin` answered `status`, with `location` and `body`.
    fn asked(origin: Origin, method: &str, target: &str, status: u16) -> AuthRequest {
        AuthRequest {
            entry: None,
            origin,
            exchange: None,
            method: method.into(),
            target: target.into(),
            headers: Vec::new(),
            body: Vec::new(),
            body_len: 0,
            status: Some(status),
            location: None,
            challenge: None,
        }
    }

    fn observed(name: &str, facts: AuthFacts, requests: Vec<AuthRequest>) -> Observation {
        let log = Log::default();
        log.auth_facts(facts);
        for r in requests {
            log.auth_request(r);
        }
        let s = scenario::named(name).expect("a known scenario");
        log.finish(
            s,
            Transport::Http,
            ClientEnd::Exited(1),
            Vec::new(),
            Duration::ZERO,
        )
    }

    #[test]
    fn a_client_that_never_tried_is_skipped_not_failed() {
        let obs = observed(
            "auth/basic",
            facts(""),
            vec![asked(Origin::Mcp, "POST", "/mcp", 401)],
        );
        for id in ["client/auth/pkce-s256", "client/auth/prm-from-challenge"] {
            assert_verdict(&judge(id, &obs), Verdict::Skipped, "POL-34");
        }
    }

    #[test]
    fn as_metadata_is_judged_by_the_order_tried() {
        let prm = asked(
            Origin::Mcp,
            "GET",
            "/.well-known/oauth-protected-resource/mcp",
            200,
        );
        let oauth = "/.well-known/oauth-authorization-server/tenant";
        let oidc = "/.well-known/openid-configuration/tenant";
        let appended = "/tenant/.well-known/openid-configuration";
        let right = observed(
            "auth/as-path-issuer",
            facts("/tenant"),
            vec![
                prm.clone(),
                asked(Origin::AuthServer, "GET", oauth, 404),
                asked(Origin::AuthServer, "GET", oidc, 404),
                asked(Origin::AuthServer, "GET", appended, 200),
            ],
        );
        assert_verdict(
            &judge("client/auth/as-metadata-order", &right),
            Verdict::Pass,
            "in the spec's order",
        );
        let oidc_first = observed(
            "auth/as-path-issuer",
            facts("/tenant"),
            vec![prm, asked(Origin::AuthServer, "GET", appended, 200)],
        );
        assert_verdict(
            &judge("client/auth/as-metadata-order", &oidc_first),
            Verdict::Fail,
            "metadata request #1",
        );
    }

    #[test]
    fn a_spoiled_code_redeemed_fails_and_one_left_alone_passes() {
        let mut authorize = asked(
            Origin::AuthServer,
            "GET",
            "/authorize?response_type=code&client_id=c&state=s",
            302,
        );
        authorize.location = Some("http://127.0.0.1:3/cb?code=C1&state=other&iss=x".into());
        let mut redeem = asked(Origin::AuthServer, "POST", "/token", 200);
        redeem.body = b"grant_type=authorization_code&code=C1&code_verifier=v".to_vec();
        let redeemed = observed(
            "auth/wrong-state",
            facts(""),
            vec![authorize.clone(), redeem],
        );
        assert_verdict(
            &judge("client/auth/state-checked", &redeemed),
            Verdict::Fail,
            "yet the client redeemed its code",
        );
        let refused = observed("auth/wrong-state", facts(""), vec![authorize]);
        assert_verdict(
            &judge("client/auth/state-checked", &refused),
            Verdict::Pass,
            "did not redeem",
        );
    }
}
