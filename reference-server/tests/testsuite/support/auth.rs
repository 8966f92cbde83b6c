//! Authorization mode in the tests: a test issuer of the tests' own (an ES256 key, its metadata
//! and JWKS on 127.0.0.1, tokens signed with `jsonwebtoken`), the reference server started in
//! authorization mode against it, and the demonstration of every `auth-*` fault. Nothing here is
//! shared with mcpspec's issuer: a bug in one must not hide the same bug in the other.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_reference_server::config::AuthOptions;
use mcp_reference_server::{Config, Fault, HttpHandle, HttpOptions};
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::http::{Reply, Req, send, start_http};
use super::{config, modern};

pub const KID: &str = "test-key";

/// A key: the signing half (PKCS#8 DER) and the public JWK.
pub struct TestKey {
    pkcs8: Vec<u8>,
    jwk: Value,
}

impl TestKey {
    pub fn new(kid: &str) -> TestKey {
        let secret = loop {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).unwrap();
            if let Ok(key) = p256::SecretKey::from_slice(&bytes) {
                break key;
            }
        };
        let point = p256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(
            &secret.public_key(),
            false,
        );
        TestKey {
            pkcs8: secret.to_pkcs8_der().unwrap().as_bytes().to_vec(),
            jwk: json!({
                "kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
                "x": URL_SAFE_NO_PAD.encode(point.x().unwrap()),
                "y": URL_SAFE_NO_PAD.encode(point.y().unwrap()),
            }),
        }
    }

    pub fn sign(&self, kid: &str, claims: &Value) -> String {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some(kid.into());
        jsonwebtoken::encode(
            &header,
            claims,
            &jsonwebtoken::EncodingKey::from_ec_der(&self.pkcs8),
        )
        .unwrap()
    }
}

/// The test issuer on 127.0.0.1 and the reference server that trusts it.
pub struct Protected {
    pub issuer: String,
    pub key: TestKey,
    pub server: HttpHandle,
    _issuer_task: tokio::task::JoinHandle<()>,
}

impl Protected {
    /// Starts the issuer, then the reference server (in authorization mode, with `faults`).
    pub async fn start(faults: &[Fault]) -> Protected {
        let key = TestKey::new(KID);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let metadata = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")});
        let jwks = json!({"keys": [key.jwk]});
        let json_of = |v: Value| {
            move || {
                let body = v.to_string();
                async move { ([("content-type", "application/json")], body) }
            }
        };
        let router = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(json_of(metadata)),
            )
            .route("/jwks", get(json_of(jwks)));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        let server = start_http(Config {
            http: HttpOptions {
                auth: Some(AuthOptions {
                    issuer: issuer.clone(),
                    resource: None,
                }),
                ..HttpOptions::default()
            },
            ..config(faults)
        })
        .await;
        Protected {
            issuer,
            key,
            server,
            _issuer_task: task,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.server.local_addr()
    }

    /// The server's canonical URL (the `aud` of its tokens).
    pub fn resource(&self) -> String {
        self.server.url()
    }

    /// The claims of a right token with `scope`; change what a case needs.
    pub fn claims(&self, scope: &str) -> Value {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        json!({
            "iss": self.issuer, "aud": self.resource(), "sub": "test",
            "iat": now, "exp": now + 600, "scope": scope,
        })
    }

    pub fn token(&self, claims: &Value) -> String {
        self.key.sign(KID, claims)
    }

    /// A right token with both scopes.
    pub fn right(&self) -> String {
        self.token(&self.claims("mcp:read mcp:tools"))
    }

    /// `tools/list` with `Authorization: Bearer token`.
    pub async fn list_with(&self, token: &str) -> Reply {
        send(
            self.addr(),
            &list().header("Authorization", &format!("Bearer {token}")),
        )
        .await
    }
}

pub fn list() -> Req {
    Req::modern(&modern(1, "tools/list", json!({})))
}

/// The parameters of a `Bearer` challenge, as `name="value"` pairs (simple quoting only).
pub fn challenge(reply: &Reply) -> Vec<(String, String)> {
    let value = reply.header("www-authenticate").unwrap_or_default();
    let params = value.strip_prefix("Bearer").unwrap_or_default();
    params
        .split("\", ")
        .filter_map(|p| {
            let (n, v) = p.trim().split_once('=')?;
            Some((n.trim().to_owned(), v.trim_matches('"').to_owned()))
        })
        .collect()
}

pub fn param(reply: &Reply, name: &str) -> Option<String> {
    challenge(reply)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

/// Asserts the violation an `auth-*` fault is documented to cause.
pub async fn demonstrate(fault: Fault) {
    let p = Protected::start(&[fault]).await;
    let addr = p.addr();
    let metadata_path = "/.well-known/oauth-protected-resource/mcp";
    let get_metadata = || async move {
        let mut req = Req::new("GET", b"");
        req.path = metadata_path.into();
        send(addr, &req).await
    };
    match fault {
        Fault::AuthNoChallenge => {
            let reply = send(addr, &list()).await;
            assert_eq!(reply.status, 401);
            assert!(reply.header("www-authenticate").is_none());
        }
        Fault::AuthChallengeNoResourceMetadata => {
            let reply = send(addr, &list()).await;
            assert_eq!(reply.status, 401);
            assert!(reply.header("www-authenticate").is_some());
            assert_eq!(param(&reply, "resource_metadata"), None);
        }
        Fault::AuthChallengeNoScope => {
            let reply = send(addr, &list()).await;
            assert_eq!(param(&reply, "scope"), None);
            assert!(param(&reply, "resource_metadata").is_some());
        }
        Fault::AuthMetadataMissing => {
            let reply = send(addr, &list()).await;
            assert!(param(&reply, "resource_metadata").is_some());
            assert_eq!(get_metadata().await.status, 404);
        }
        Fault::AuthResourceMismatch => {
            let document = get_metadata().await.json();
            assert_eq!(document["resource"], format!("{}/", p.resource()));
        }
        Fault::AuthBadAuthorizationServer => {
            assert_eq!(
                get_metadata().await.json()["authorization_servers"],
                json!(["/oauth"])
            );
        }
        Fault::AuthSignatureUnchecked => {
            let stranger = TestKey::new(KID);
            let token = stranger.sign(KID, &p.claims("mcp:read"));
            assert_eq!(p.list_with(&token).await.status, 200);
        }
        Fault::AuthExpiredAccepted => {
            let mut claims = p.claims("mcp:read");
            claims["exp"] = json!(claims["iat"].as_u64().unwrap() - 3600);
            assert_eq!(p.list_with(&p.token(&claims)).await.status, 200);
        }
        Fault::AuthIssuerUnchecked => {
            let mut claims = p.claims("mcp:read");
            claims["iss"] = json!("http://127.0.0.1:1");
            assert_eq!(p.list_with(&p.token(&claims)).await.status, 200);
        }
        Fault::AuthSchemeOptional => {
            let req = list().header("Authorization", &p.right());
            assert_eq!(send(addr, &req).await.status, 200);
        }
        Fault::AuthWrongAudienceAccepted => {
            let mut claims = p.claims("mcp:read");
            claims["aud"] = json!("http://127.0.0.1:1/other");
            assert_eq!(p.list_with(&p.token(&claims)).await.status, 200);
        }
        Fault::AuthQueryTokenAccepted => {
            let mut req = list();
            req.path = format!("/mcp?access_token={}", p.right());
            assert_eq!(send(addr, &req).await.status, 200);
        }
        Fault::AuthInsufficientScope401 => {
            let reply = p.list_with(&p.token(&p.claims(""))).await;
            assert_eq!(reply.status, 401);
            assert_eq!(param(&reply, "error").as_deref(), Some("invalid_token"));
        }
        Fault::AuthOfflineAccess => {
            let reply = send(addr, &list()).await;
            assert!(param(&reply, "scope").unwrap().contains("offline_access"));
            let supported = get_metadata().await.json()["scopes_supported"].clone();
            assert!(
                supported
                    .as_array()
                    .unwrap()
                    .contains(&json!("offline_access"))
            );
        }
        Fault::AuthRejectsValidToken => {
            let reply = p.list_with(&p.right()).await;
            assert_eq!(reply.status, 401);
        }
        other => unreachable!("not an authorization fault: {other:?}"),
    }
}
