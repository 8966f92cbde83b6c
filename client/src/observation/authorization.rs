//! What an `auth/*` scenario saw besides the MCP messages: every HTTP request the client made to
//! either origin of the protected peer (the MCP server's well-known URLs and endpoint, the
//! authorization server's metadata, authorize, token and register endpoints), in order, with
//! what each was answered; and the facts the peer made (its URLs, the tokens and client ids it
//! issued) that the checks compare against.
//!
//! Bounded: past [`MAX_REQUESTS`] requests each is counted by kind, not kept; a body is kept up to
//! [`MAX_BODY_KEPT`] bytes (its size is always known).

use mcpspec_harness::outcome::Evidence;

/// Requests kept per scenario.
pub const MAX_REQUESTS: usize = 2000;
/// Bytes of a request body kept.
pub const MAX_BODY_KEPT: usize = 64 * 1024;

/// Which server of the protected peer a request went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The MCP server's origin (its endpoint and its well-known URLs).
    Mcp,
    /// The authorization server's origin.
    AuthServer,
}

impl Origin {
    pub fn name(self) -> &'static str {
        match self {
            Origin::Mcp => "the MCP server",
            Origin::AuthServer => "the authorization server",
        }
    }
}

/// One HTTP request of the client to the protected peer.
#[derive(Debug, Clone)]
pub struct AuthRequest {
    /// Its transcript entry.
    pub entry: Option<u32>,
    pub origin: Origin,
    /// The MCP server's exchange number (its requests only).
    pub exchange: Option<u64>,
    pub method: String,
    /// The path and query.
    pub target: String,
    /// Every header, names lower case.
    pub headers: Vec<(String, String)>,
    /// The body, up to [`MAX_BODY_KEPT`] bytes.
    pub body: Vec<u8>,
    /// The body's whole size.
    pub body_len: usize,
    /// What the peer answered (once it did).
    pub status: Option<u16>,
    /// The answer's `Location`.
    pub location: Option<String>,
    /// The answer's `WWW-Authenticate`.
    pub challenge: Option<String>,
}

impl AuthRequest {
    /// The path, without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The query's parameters, decoded.
    pub fn query(&self) -> Vec<(String, String)> {
        self.target
            .split_once('?')
            .map(|(_, q)| form_pairs(q))
            .unwrap_or_default()
    }

    /// The value of query parameter `name`.
    pub fn query_param(&self, name: &str) -> Option<String> {
        param(&self.query(), name)
    }

    /// The form body's parameters, decoded.
    pub fn form(&self) -> Vec<(String, String)> {
        form_pairs(&String::from_utf8_lossy(&self.body))
    }

    /// The value of form parameter `name`.
    pub fn form_param(&self, name: &str) -> Option<String> {
        param(&self.form(), name)
    }

    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The bearer token of its `Authorization` header.
    pub fn bearer(&self) -> Option<&str> {
        bearer_token(self.header("authorization")?)
    }

    /// Whether it asked for a well-known URL (at the root, or after an issuer's path).
    pub fn is_well_known(&self) -> bool {
        self.path().contains("/.well-known/")
    }

    /// `GET /authorize (the authorization server)`-style words for a verdict.
    pub fn describe(&self) -> String {
        format!(
            "{} {} ({})",
            self.method,
            mcpspec_core::text::shorten(self.path(), 80),
            self.origin.name()
        )
    }

    /// What a verdict quotes of it.
    pub fn evidence(&self) -> Evidence {
        Evidence {
            entry: self.entry.unwrap_or(0),
            conn: 1,
            instance: None,
            quote: mcpspec_core::text::shorten(&format!("{} {}", self.method, self.target), 200),
        }
    }
}

/// What the peer made: its URLs and what it issued.
#[derive(Debug, Clone, Default)]
pub struct AuthFacts {
    /// The MCP endpoint's URL: the canonical resource URI (`http://127.0.0.1:P/mcp`).
    pub resource: String,
    /// The MCP server's origin (`http://127.0.0.1:P`).
    pub mcp_origin: String,
    /// The URL its Protected Resource Metadata is served at.
    pub metadata_url: String,
    /// The authorization server's origin and issuer.
    pub auth_origin: String,
    pub issuer: String,
    /// The AS's endpoints' paths.
    pub authorize_path: String,
    pub token_path: String,
    /// Every access token and refresh token issued (held in memory only; registered for
    /// redaction when made, so never written).
    pub access_tokens: Vec<String>,
    pub refresh_tokens: Vec<String>,
    /// The client ids registered by DCR.
    pub registered: Vec<String>,
    /// Whether the AS lists `offline_access`.
    pub offline_access_listed: bool,
}

/// What the protected peer issues during a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Issued {
    AccessToken(String),
    RefreshToken(String),
    /// A client_id registered by DCR.
    ClientId(String),
}

/// Requests counted by kind, kept or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuthCounts {
    pub total: usize,
    /// Requests for well-known URLs (either origin).
    pub metadata: usize,
    pub registrations: usize,
    pub authorizations: usize,
    pub token_requests: usize,
    /// Requests whose body was over the peer's limit (answered 413).
    pub oversized: usize,
    /// The largest body seen.
    pub largest_body: usize,
}

/// The whole authorization record of a scenario.
#[derive(Debug, Clone, Default)]
pub struct AuthTrail {
    pub requests: Vec<AuthRequest>,
    pub counts: AuthCounts,
    /// `None` outside the `auth/*` scenarios.
    pub facts: Option<AuthFacts>,
}

impl AuthTrail {
    /// The requests to `origin`.
    pub fn to(&self, origin: Origin) -> impl Iterator<Item = &AuthRequest> {
        self.requests.iter().filter(move |r| r.origin == origin)
    }

    /// Whether the client did anything of authorization at all: fetched a well-known URL or
    /// went to the authorization server.
    pub fn attempted(&self) -> bool {
        self.requests
            .iter()
            .any(|r| r.is_well_known() || r.origin == Origin::AuthServer)
    }
}

/// `a=1&b=x%20y` -> pairs, `+` read as a space.
pub fn form_pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// The first value of parameter `name` among `pairs`.
pub fn param(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// The token of an `Authorization: Bearer …` value (the scheme's case is free, RFC 7235).
pub fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// Percent-decoding of a form value (`+` is a space; a bad escape is kept as it is).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_decode_like_a_browser() {
        assert_eq!(
            form_pairs("a=1&b=x%20y+z&c&d=%zz&e=%41"),
            [
                ("a".into(), "1".into()),
                ("b".into(), "x y z".into()),
                ("c".into(), String::new()),
                ("d".into(), "%zz".into()),
                ("e".into(), "A".into()),
            ]
        );
        assert_eq!(percent_decode("%4"), "%4");
        assert_eq!(percent_decode("http%3A%2F%2Fa"), "http://a");
    }
}
