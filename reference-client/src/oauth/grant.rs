//! The exchanges with the authorization server once it is known: the client's registration
//! (Dynamic Client Registration, RFC 7591), PKCE (RFC 7636, S256), the authorization request
//! sent as a browser would but without following its redirect (the `Location` is read
//! instead), and the token requests (code and refresh grants).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::fetch::{self, BODY_LIMIT};
use super::urls;
use mcpspec_core::transport::http::client::Request;

/// Where the authorization server sends the browser back; nothing listens there (the client
/// reads the redirect instead of following it).
pub const REDIRECT_URI: &str = "http://127.0.0.1:3000/callback";
/// The name the client registers under.
pub const CLIENT_NAME: &str = "mcpspec-reference-client";

/// A client_id, and the secret that goes with it (sent `client_secret_post`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    pub id: String,
    pub secret: Option<String>,
}

/// A PKCE pair: the verifier kept, the challenge sent.
#[derive(Debug, Clone)]
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl Pkce {
    /// A fresh verifier (32 random bytes: 43 characters) and its S256 challenge.
    pub fn new() -> Result<Pkce, String> {
        let verifier = random(32)?;
        Ok(Pkce {
            challenge: s256(&verifier),
            verifier,
        })
    }
}

/// `BASE64URL-NOPAD(SHA256(verifier))` (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes from the OS, base64url-encoded: a verifier, a `state`.
pub fn random(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("no randomness from the OS: {e}"))?;
    Ok(URL_SAFE_NO_PAD.encode(buf))
}

/// The Dynamic Client Registration request's body; `application_type` unless `typeless`
/// (the `dcr-no-application-type` fault), the name padded to `padding` more bytes (`huge-body`).
pub fn registration(typeless: bool, padding: usize) -> Value {
    let mut name = CLIENT_NAME.to_owned();
    if padding > 0 {
        name.push(' ');
        name.push_str(&"x".repeat(padding));
    }
    let mut body = json!({
        "redirect_uris": [REDIRECT_URI],
        "client_name": name,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    if !typeless && let Some(b) = body.as_object_mut() {
        b.insert("application_type".into(), json!("native"));
    }
    body
}

/// What one registration request got.
#[derive(Debug)]
pub enum Registered {
    Client(Client),
    /// 429: the server will register no more.
    TooMany,
}

/// POSTs `body` to the registration endpoint `url`.
pub async fn register(url: &str, body: &Value, leak: Option<&str>) -> Result<Registered, String> {
    let request = with_leak(
        Request::new("POST")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .body(serde_json::to_vec(body).unwrap_or_default()),
        leak,
    );
    let reply = fetch::exchange(url, &request, BODY_LIMIT).await?;
    if reply.status == 429 {
        return Ok(Registered::TooMany);
    }
    let id = reply
        .json()
        .filter(|_| (200..300).contains(&reply.status))
        .and_then(|j| {
            let id = j.get("client_id")?.as_str()?.to_owned();
            let secret = j
                .get("client_secret")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Some(Client { id, secret })
        });
    id.map(Registered::Client).ok_or_else(|| {
        format!(
            "registration at {url} answered HTTP {} without a client_id: {}",
            reply.status,
            reply.said()
        )
    })
}

/// Where the authorization server sent the browser back, read from `Location`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redirect {
    pub code: Option<String>,
    pub state: Option<String>,
    pub iss: Option<String>,
    pub error: Option<String>,
}

impl Redirect {
    /// The parameters of a `Location` URL.
    pub fn parse(location: &str) -> Redirect {
        let mut r = Redirect::default();
        for (name, value) in urls::query_params(location) {
            let slot = match name.as_str() {
                "code" => &mut r.code,
                "state" => &mut r.state,
                "iss" => &mut r.iss,
                "error" => &mut r.error,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        r
    }

    /// The code, when it may be redeemed: no `error`, the `state` sent (when `state` is
    /// checked), and `iss` the issuer, or absent only when the server does not say it sends
    /// one (when `iss` is checked: the issuer and whether it sends `iss`).
    pub fn code_to_redeem(
        self,
        state: Option<&str>,
        iss: Option<(&str, bool)>,
    ) -> Result<String, String> {
        if let Some(error) = &self.error {
            return Err(format!("the authorization server answered error `{error}`"));
        }
        if let Some(sent) = state
            && self.state.as_deref() != Some(sent)
        {
            return Err(format!(
                "the authorization response's state {:?} is not the one sent: its code is not \
                 redeemed",
                self.state
            ));
        }
        match (iss, &self.iss) {
            (Some((issuer, _)), Some(got)) if got != issuer => {
                return Err(format!(
                    "the authorization response's iss `{got}` is not the issuer `{issuer}`: its \
                     code is not redeemed"
                ));
            }
            (Some((_, true)), None) => {
                return Err(
                    "the authorization response has no iss although the server sends \
                     one: its code is not redeemed"
                        .into(),
                );
            }
            _ => {}
        }
        self.code
            .ok_or_else(|| "the authorization response carries no code".into())
    }
}

/// GETs the authorization URL `url` and reads the redirect it answers, without following it.
pub async fn authorization(url: &str, leak: Option<&str>) -> Result<Redirect, String> {
    let request = with_leak(Request::new("GET"), leak);
    let reply = fetch::exchange(url, &request, BODY_LIMIT).await?;
    let location = reply
        .header("location")
        .filter(|_| (300..400).contains(&reply.status))
        .ok_or_else(|| {
            format!(
                "the authorization request answered HTTP {} without a redirect: {}",
                reply.status,
                reply.said()
            )
        })?;
    Ok(Redirect::parse(location))
}

/// What a token response gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    pub access: String,
    pub refresh: Option<String>,
}

/// POSTs the form `pairs` to the token endpoint `url`.
pub async fn token(
    url: &str,
    pairs: &[(&str, &str)],
    leak: Option<&str>,
) -> Result<Tokens, String> {
    let request = with_leak(
        Request::new("POST")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .body(urls::form(pairs)),
        leak,
    );
    let reply = fetch::exchange(url, &request, BODY_LIMIT).await?;
    let tokens = reply.json().filter(|_| reply.status == 200).and_then(|j| {
        let bearer = j
            .get("token_type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.eq_ignore_ascii_case("bearer"));
        let access = j.get("access_token")?.as_str()?.to_owned();
        let refresh = j
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned);
        bearer.then_some(Tokens { access, refresh })
    });
    tokens.ok_or_else(|| {
        format!(
            "the token request to {url} answered HTTP {} without a bearer token: {}",
            reply.status,
            reply.said()
        )
    })
}

/// `request` with the access token (the `token-to-auth-server` fault), when there is one.
fn with_leak(request: Request, leak: Option<&str>) -> Request {
    match leak {
        Some(token) => request.header("Authorization", format!("Bearer {token}")),
        None => request,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636 appendix B's vector, as the RFC prints it.
    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_long_enough() {
        let (a, b) = (Pkce::new().unwrap(), Pkce::new().unwrap());
        assert_eq!(a.verifier.len(), 43);
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.challenge, s256(&a.verifier));
    }

    #[test]
    fn the_redirect_is_read_from_location() {
        let r = Redirect::parse(
            "http://127.0.0.1:3000/callback?code=C%2B1&state=S&iss=http%3A%2F%2F127.0.0.1%3A9",
        );
        assert_eq!(
            r,
            Redirect {
                code: Some("C+1".into()),
                state: Some("S".into()),
                iss: Some("http://127.0.0.1:9".into()),
                error: None,
            }
        );
        let r = Redirect::parse("/callback?error=access_denied&state=S&state=T#x");
        assert_eq!(r.error.as_deref(), Some("access_denied"));
        assert_eq!(r.state.as_deref(), Some("S"));
        assert_eq!(r.iss, None);
        assert_eq!(Redirect::parse("http://h:1/cb"), Redirect::default());
    }

    #[test]
    fn a_code_is_redeemed_only_with_its_state_and_issuer() {
        let issuer = "http://127.0.0.1:9";
        let good = Redirect {
            code: Some("C".into()),
            state: Some("S".into()),
            iss: Some(issuer.into()),
            error: None,
        };
        let checked = (Some("S"), Some((issuer, true)));
        assert_eq!(
            good.clone().code_to_redeem(checked.0, checked.1),
            Ok("C".into())
        );
        let other_state = Redirect {
            state: Some("T".into()),
            ..good.clone()
        };
        assert!(
            other_state
                .clone()
                .code_to_redeem(checked.0, checked.1)
                .is_err()
        );
        assert!(other_state.code_to_redeem(None, checked.1).is_ok());
        let no_state = Redirect {
            state: None,
            ..good.clone()
        };
        assert!(no_state.code_to_redeem(checked.0, checked.1).is_err());
        let other_iss = Redirect {
            iss: Some("http://127.0.0.1:9/another".into()),
            ..good.clone()
        };
        assert!(
            other_iss
                .clone()
                .code_to_redeem(checked.0, checked.1)
                .is_err()
        );
        assert!(other_iss.code_to_redeem(checked.0, None).is_ok());
        let no_iss = Redirect {
            iss: None,
            ..good.clone()
        };
        assert!(no_iss.clone().code_to_redeem(checked.0, checked.1).is_err());
        assert!(
            no_iss
                .code_to_redeem(checked.0, Some((issuer, false)))
                .is_ok()
        );
        let error = Redirect {
            error: Some("access_denied".into()),
            ..good
        };
        assert!(error.code_to_redeem(None, None).is_err());
    }

    #[test]
    fn registration_names_a_native_public_client() {
        let body = registration(false, 0);
        assert_eq!(body["application_type"], "native");
        assert_eq!(body["token_endpoint_auth_method"], "none");
        assert_eq!(body["redirect_uris"][0], REDIRECT_URI);
        assert!(registration(true, 0).get("application_type").is_none());
        assert_eq!(
            registration(false, 10)["client_name"]
                .as_str()
                .map(str::len),
            Some(CLIENT_NAME.len() + 11)
        );
    }
}
