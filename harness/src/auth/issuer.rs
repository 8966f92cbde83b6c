//! The built-in test issuer: an authorization server that does one thing, hand out signed JWT
//! access tokens of known content, so the `auth/*` checks can send a server tokens that are
//! expired, for another audience, from another issuer, signed by an unknown key or missing a
//! scope, and a right one (RFC 9068 access tokens, ES256).
//!
//! ```text
//! mcpspec auth issuer --keys DIR --port P      serves on 127.0.0.1:P (loopback only):
//!   GET  /.well-known/oauth-authorization-server   RFC 8414 metadata (issuer, jwks_uri, …)
//!   GET  /.well-known/openid-configuration         the same, for OpenID discovery clients
//!   GET  /jwks.json                                the published key (RFC 7517)
//!   POST /token   grant_type=client_credentials&resource=URL[&scope=…]   a right token
//!   POST /mint    {aud, scope, expires_in, iss?, key: published|unknown}  any token (tests)
//! mcpspec run --auth-issuer http://127.0.0.1:P   mints through POST /mint
//! mcpspec run --auth-issuer DIR                  mints with DIR's keys, as the issuer DIR names
//! ```
//!
//! The keys live in a directory so that a server under test is configured once: the published
//! key (`signing-key.pem`) and a second one that is never published (`unknown-key.pem`, for
//! tokens a server must reject), PKCS#8 PEM, created on first use (mode 0600); `issuer.json`
//! records the URL the issuer last served at. Every token minted is registered for redaction
//! ([`super::redact`]).
//!
//! Imports `transport::http::client` (the remote minter) and [`super::redact`].

pub mod http;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use serde_json::{Value, json};

use mcpspec_core::transport::http::client::{self, Endpoint, Request};

/// The published key's file in the keys directory.
pub const SIGNING_KEY: &str = "signing-key.pem";
/// The key whose tokens no server should accept: never published.
pub const UNKNOWN_KEY: &str = "unknown-key.pem";
/// Where the issuer records the URL it serves at.
pub const ISSUER_FILE: &str = "issuer.json";
/// The lifetime of a right token.
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
/// The subject and client id of every token: mcpspec itself.
pub const CLIENT_ID: &str = "mcpspec";
/// How long a remote mint may take.
const MINT_WAIT: Duration = Duration::from_secs(5);
/// The largest mint answer read.
const MINT_ANSWER_LIMIT: usize = 64 * 1024;

/// Which key signs a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyChoice {
    /// The key in the issuer's JWKS.
    Published,
    /// A key the issuer never published.
    Unknown,
}

/// What a token says. `expires_in` may be negative: a token that expired that long ago.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenSpec {
    pub aud: String,
    /// Space-separated scopes (`""`: none).
    #[serde(default)]
    pub scope: String,
    pub expires_in: i64,
    /// The `iss` claim; the issuer's own URL when `None`.
    #[serde(default)]
    pub iss: Option<String>,
    pub key: KeyChoice,
}

impl TokenSpec {
    /// A right token for `aud` with `scope`.
    pub fn right(aud: &str, scope: &str) -> Self {
        TokenSpec {
            aud: aud.to_owned(),
            scope: scope.to_owned(),
            expires_in: i64::try_from(TOKEN_LIFETIME.as_secs()).unwrap_or(3600),
            iss: None,
            key: KeyChoice::Published,
        }
    }
}

/// One ES256 key: the signing half (PKCS#8 DER, as `jsonwebtoken` takes it) and its public JWK.
#[derive(Debug, Clone)]
struct Key {
    pkcs8: Vec<u8>,
    jwk: Value,
    kid: String,
}

impl Key {
    fn generate() -> Result<p256::SecretKey, String> {
        // A uniformly random scalar: rejection-sample the (vanishingly rare) invalid ones.
        for _ in 0..16 {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| format!("no randomness from the OS: {e}"))?;
            if let Ok(key) = p256::SecretKey::from_slice(&bytes) {
                return Ok(key);
            }
        }
        Err("could not draw a P-256 key".into())
    }

    fn from_secret(secret: &p256::SecretKey) -> Result<Key, String> {
        let pkcs8 = secret
            .to_pkcs8_der()
            .map_err(|e| format!("cannot encode the key: {e}"))?
            .as_bytes()
            .to_vec();
        let point = p256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(
            &secret.public_key(),
            false,
        );
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err("the public key has no affine coordinates".into());
        };
        let (x, y) = (URL_SAFE_NO_PAD.encode(x), URL_SAFE_NO_PAD.encode(y));
        // RFC 7638: the thumbprint of the required members, in lexicographic order.
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        let kid =
            URL_SAFE_NO_PAD.encode(<sha2::Sha256 as sha2::Digest>::digest(canonical.as_bytes()));
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "x": x, "y": y,
            "kid": kid, "use": "sig", "alg": "ES256",
        });
        Ok(Key { pkcs8, jwk, kid })
    }

    /// The key in `path`, made and written there (mode 0600) when the file does not exist.
    fn load_or_create(path: &Path) -> Result<Key, String> {
        let secret = match std::fs::read_to_string(path) {
            Ok(pem) => p256::SecretKey::from_pkcs8_pem(&pem)
                .map_err(|e| format!("{} is not a P-256 PKCS#8 PEM key: {e}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let secret = Key::generate()?;
                let pem = secret
                    .to_pkcs8_pem(LineEnding::LF)
                    .map_err(|e| format!("cannot encode the key: {e}"))?;
                write_private(path, pem.as_bytes())?;
                secret
            }
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        Key::from_secret(&secret)
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The issuer's two keys, from its directory (or made for this process only).
#[derive(Debug, Clone)]
pub struct Keys {
    dir: Option<PathBuf>,
    published: Key,
    unknown: Key,
}

impl Keys {
    /// Two new keys kept nowhere: an issuer that lives as long as this process (tests).
    pub fn ephemeral() -> Result<Keys, String> {
        Ok(Keys {
            dir: None,
            published: Key::from_secret(&Key::generate()?)?,
            unknown: Key::from_secret(&Key::generate()?)?,
        })
    }

    /// The keys in `dir`, made there (with `dir`) when absent.
    pub fn load_or_create(dir: &Path) -> Result<Keys, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the keys directory {}: {e}", dir.display()))?;
        Ok(Keys {
            dir: Some(dir.to_owned()),
            published: Key::load_or_create(&dir.join(SIGNING_KEY))?,
            unknown: Key::load_or_create(&dir.join(UNKNOWN_KEY))?,
        })
    }

    /// The keys in `dir`, which must exist (`--auth-issuer DIR` does not make an issuer up).
    pub fn load(dir: &Path) -> Result<Keys, String> {
        if !dir.join(SIGNING_KEY).is_file() {
            return Err(format!(
                "{} holds no issuer keys: start `mcpspec auth issuer --keys {}` first",
                dir.display(),
                dir.display()
            ));
        }
        Keys::load_or_create(dir)
    }

    /// The JWKS the issuer publishes: the published key only.
    pub fn jwks(&self) -> Value {
        json!({"keys": [self.published.jwk]})
    }

    /// The key id of the published key.
    pub fn kid(&self) -> &str {
        &self.published.kid
    }

    /// Records `url` as where the issuer serves, for `--auth-issuer DIR` (nothing for keys
    /// kept nowhere).
    pub fn record_url(&self, url: &str) -> Result<(), String> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let path = dir.join(ISSUER_FILE);
        let text = serde_json::to_string_pretty(&json!({"issuer": url})).unwrap_or_default();
        std::fs::write(&path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// The URL recorded with [`Keys::record_url`].
    pub fn recorded_url(&self) -> Result<String, String> {
        let Some(dir) = &self.dir else {
            return Err("these keys are kept nowhere: no issuer URL was recorded".into());
        };
        let path = dir.join(ISSUER_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "cannot read {} ({e}): start `mcpspec auth issuer --keys {}` first",
                path.display(),
                dir.display()
            )
        })?;
        serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("issuer")?.as_str().map(str::to_owned))
            .ok_or_else(|| format!("{} names no issuer", path.display()))
    }
}

/// An issuer that mints locally: its keys and the URL it is known by (the `iss` of its tokens).
#[derive(Debug, Clone)]
pub struct Issuer {
    pub url: String,
    pub keys: Arc<Keys>,
}

impl Issuer {
    /// A signed token as `spec` says; registered for redaction.
    pub fn mint(&self, spec: &TokenSpec) -> Result<String, String> {
        let now = unix_now();
        let key = match spec.key {
            KeyChoice::Published => &self.keys.published,
            KeyChoice::Unknown => &self.keys.unknown,
        };
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some(key.kid.clone());
        header.typ = Some("at+jwt".into());
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(|e| format!("no randomness from the OS: {e}"))?;
        let exp = now + spec.expires_in;
        let mut claims = json!({
            "iss": spec.iss.clone().unwrap_or_else(|| self.url.clone()),
            "sub": CLIENT_ID,
            "client_id": CLIENT_ID,
            "aud": spec.aud,
            "iat": now.min(exp - 60),
            "exp": exp,
            "jti": URL_SAFE_NO_PAD.encode(nonce),
        });
        if !spec.scope.is_empty() {
            claims["scope"] = json!(spec.scope);
        }
        let token = jsonwebtoken::encode(
            &header,
            &claims,
            &jsonwebtoken::EncodingKey::from_ec_der(&key.pkcs8),
        )
        .map_err(|e| format!("cannot sign the token: {e}"))?;
        mcpspec_core::redact::register(&token);
        Ok(token)
    }

    /// RFC 8414 metadata for this issuer.
    pub fn metadata(&self) -> Value {
        json!({
            "issuer": self.url,
            "jwks_uri": format!("{}/jwks.json", self.url),
            "token_endpoint": format!("{}/token", self.url),
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["none"],
            "response_types_supported": [],
            "code_challenge_methods_supported": ["S256"],
        })
    }
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX / 2))
}

/// Where `--auth-issuer` tokens come from: this process (a keys directory) or a running
/// `mcpspec auth issuer` (its URL).
#[derive(Debug, Clone)]
pub enum Minter {
    Local(Issuer),
    Remote { url: String, endpoint: Endpoint },
}

impl Minter {
    /// `--auth-issuer URL|DIR`.
    pub fn from_arg(arg: &str) -> Result<Minter, String> {
        if arg.starts_with("http://") || arg.starts_with("https://") {
            let url = arg.trim_end_matches('/').to_owned();
            let endpoint = Endpoint::parse(&format!("{url}/mint"))
                .map_err(|e| format!("--auth-issuer {e}"))?;
            if !endpoint.is_loopback() {
                return Err(format!(
                    "--auth-issuer {arg}: the test issuer serves on loopback only"
                ));
            }
            return Ok(Minter::Remote { url, endpoint });
        }
        let keys = Keys::load(Path::new(arg)).map_err(|e| format!("--auth-issuer: {e}"))?;
        let url = keys
            .recorded_url()
            .map_err(|e| format!("--auth-issuer: {e}"))?;
        Ok(Minter::Local(Issuer {
            url,
            keys: Arc::new(keys),
        }))
    }

    /// The issuer's URL (the `iss` of its right tokens).
    pub fn url(&self) -> &str {
        match self {
            Minter::Local(issuer) => &issuer.url,
            Minter::Remote { url, .. } => url,
        }
    }

    /// A token as `spec` says; registered for redaction.
    pub async fn mint(&self, spec: &TokenSpec) -> Result<String, String> {
        match self {
            Minter::Local(issuer) => issuer.mint(spec),
            Minter::Remote { url, endpoint } => {
                let body = serde_json::to_vec(spec).map_err(|e| e.to_string())?;
                let request = Request::new("POST")
                    .anonymous()
                    .header("Content-Type", "application/json")
                    .body(body);
                let deadline = tokio::time::Instant::now() + MINT_WAIT;
                let cannot = |e: String| format!("the issuer at {url} did not mint a token: {e}");
                let mut response = client::send(endpoint, &request, deadline)
                    .await
                    .map_err(|e| cannot(e.to_string()))?;
                let bytes = response
                    .body(deadline, MINT_ANSWER_LIMIT)
                    .await
                    .map_err(|e| cannot(e.to_string()))?;
                let token = serde_json::from_slice::<Value>(&bytes)
                    .ok()
                    .filter(|_| response.status == 200)
                    .and_then(|v| v.get("access_token")?.as_str().map(str::to_owned))
                    .ok_or_else(|| {
                        cannot(format!(
                            "HTTP {} {}",
                            response.status,
                            mcpspec_core::text::shorten(&String::from_utf8_lossy(&bytes), 120)
                        ))
                    })?;
                mcpspec_core::redact::register(&token);
                Ok(token)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcpspec-issuer-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn keys_are_made_once_and_kept() {
        let dir = scratch("keys");
        let first = Keys::load_or_create(&dir).unwrap();
        let again = Keys::load(&dir).unwrap();
        assert_eq!(first.kid(), again.kid());
        assert_ne!(first.published.kid, first.unknown.kid);
        assert_eq!(first.jwks()["keys"].as_array().unwrap().len(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(SIGNING_KEY))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(Keys::load(&dir.join("nowhere")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn minted_tokens_verify_against_the_published_key_only() {
        let dir = scratch("mint");
        let issuer = Issuer {
            url: "http://127.0.0.1:9".into(),
            keys: Arc::new(Keys::load_or_create(&dir).unwrap()),
        };
        let jwk: jsonwebtoken::jwk::Jwk =
            serde_json::from_value(issuer.keys.jwks()["keys"][0].clone()).unwrap();
        let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.set_audience(&["http://127.0.0.1:8000/mcp"]);
        validation.set_issuer(&["http://127.0.0.1:9"]);
        let right = issuer
            .mint(&TokenSpec::right("http://127.0.0.1:8000/mcp", "mcp:read"))
            .unwrap();
        let data = jsonwebtoken::decode::<Value>(&right, &key, &validation).unwrap();
        assert_eq!(data.claims["scope"], "mcp:read");
        assert_eq!(data.header.kid.as_deref(), Some(issuer.keys.kid()));
        let unknown = issuer
            .mint(&TokenSpec {
                key: KeyChoice::Unknown,
                ..TokenSpec::right("http://127.0.0.1:8000/mcp", "")
            })
            .unwrap();
        assert!(jsonwebtoken::decode::<Value>(&unknown, &key, &validation).is_err());
        let expired = issuer
            .mint(&TokenSpec {
                expires_in: -600,
                ..TokenSpec::right("http://127.0.0.1:8000/mcp", "")
            })
            .unwrap();
        assert!(jsonwebtoken::decode::<Value>(&expired, &key, &validation).is_err());
        assert_eq!(
            mcpspec_core::redact::text(&right),
            mcpspec_core::redact::REDACTED
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
