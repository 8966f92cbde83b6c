//! Finding a protected server's authorization, as a client does: the 401 challenge to a request
//! without a token, the protected resource metadata (RFC 9728) in the spec's order (the
//! challenge's `resource_metadata` URL, the well-known URI with the endpoint's path inserted,
//! the root well-known URI), and each authorization server's metadata (RFC 8414 path insertion,
//! then OpenID Connect discovery with the path inserted and appended).
//!
//! Every fetch is bounded: at most [`METADATA_LIMIT`] bytes read, at most [`MAX_REDIRECTS`]
//! redirects followed (a URL seen twice is a loop), and the caller's deadline. A fetch never
//! carries credentials, and goes only where mcpspec was pointed: to a loopback host when the
//! target is on loopback, else to the target's own host (see [`reachable`]). What came instead
//! of a JSON document is a [`Fetched`] value that names it, never a panic.
//!
//! Imports `transport::http::client` and [`super::challenge`].

use serde_json::Value;
use tokio::time::Instant;

use super::challenge::{self, Challenge, ChallengeError};
use mcpspec_core::transport::http::client::{self, Endpoint, Request};

/// The most bytes of a metadata document read (a larger one is named, not read to its end).
pub const METADATA_LIMIT: usize = 256 * 1024;
/// The most redirects followed from one metadata URL.
pub const MAX_REDIRECTS: usize = 5;
/// The well-known suffix of protected resource metadata (RFC 9728 §3).
pub const PRM_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What a request without a token got.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub status: u16,
    /// The `WWW-Authenticate` values, as sent.
    pub raw: Vec<String>,
    /// The challenges they hold, or why they cannot be read.
    pub challenges: Result<Vec<Challenge>, ChallengeError>,
    /// The body (its first [`BODY_KEPT`] bytes).
    pub body: String,
}

impl Refusal {
    /// The `Bearer` challenge, when the header holds one.
    pub fn bearer(&self) -> Option<&Challenge> {
        self.challenges
            .as_ref()
            .ok()
            .and_then(|c| challenge::bearer(c))
    }

    /// `HTTP 401, WWW-Authenticate: …` as a verdict quotes it.
    pub fn describe(&self) -> String {
        let mut text = format!("HTTP {}", self.status);
        if self.raw.is_empty() {
            text.push_str(" without WWW-Authenticate");
        }
        for value in &self.raw {
            text.push_str(&format!(
                ", WWW-Authenticate: {}",
                mcpspec_core::text::shorten(value, 300)
            ));
        }
        if !self.body.trim().is_empty() {
            text.push_str(&format!(
                ", body {}",
                mcpspec_core::text::shorten(self.body.trim(), 100)
            ));
        }
        text
    }
}

/// Sends `request` to `endpoint` as it is (the caller decides about credentials) and reads
/// the status, the challenges and the body's first bytes.
pub async fn exchange(
    endpoint: &Endpoint,
    request: &Request,
    deadline: Instant,
) -> Result<Refusal, client::HttpError> {
    let mut response = client::send(endpoint, request, deadline).await?;
    let raw: Vec<String> = response
        .headers
        .iter()
        .filter(|(n, _)| n == "www-authenticate")
        .map(|(_, v)| v.clone())
        .collect();
    // The body up to [`BODY_KEPT`] bytes; an event stream only up to its first response (a
    // stream may stay open after it).
    let stream = response.is_event_stream();
    let mut bytes = Vec::new();
    while let Ok(Some(chunk)) = response.chunk(deadline).await {
        bytes.extend_from_slice(&chunk);
        let answered = stream
            && String::from_utf8_lossy(&bytes)
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .any(|d| {
                    serde_json::from_str::<Value>(d.trim())
                        .is_ok_and(|v| v.get("result").is_some() || v.get("error").is_some())
                });
        if answered || bytes.len() >= BODY_KEPT {
            bytes.truncate(BODY_KEPT);
            break;
        }
    }
    let body = String::from_utf8_lossy(&bytes).into_owned();
    Ok(Refusal {
        status: response.status,
        challenges: challenge::parse_all(raw.iter().map(String::as_str)),
        raw,
        body,
    })
}

/// The most body bytes of an answer kept (a verdict quotes fewer).
const BODY_KEPT: usize = 256 * 1024;

/// What fetching one metadata URL gave.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::enum_variant_names,
    reason = "`Fetched::NotFetched` reads as the outcome it is"
)]
pub enum Fetched {
    /// A JSON document (status 200), at `url` (after redirects).
    Json { url: String, value: Value },
    /// A status other than 200, with no document.
    Status { url: String, status: u16 },
    /// A 200 whose body is not JSON (an HTML page, say).
    NotJson {
        url: String,
        content_type: String,
        preview: String,
    },
    /// A body over [`METADATA_LIMIT`].
    TooLarge { url: String },
    /// Redirects that came back to a URL already seen, or more than [`MAX_REDIRECTS`].
    Redirects { chain: Vec<String>, looped: bool },
    /// Not fetched: mcpspec does not go there (another host, HTTPS).
    NotFetched { url: String, why: String },
    /// The exchange failed (refused, timed out, not HTTP).
    Failed { url: String, error: String },
}

impl Fetched {
    pub fn json(&self) -> Option<&Value> {
        match self {
            Fetched::Json { value, .. } => Some(value),
            _ => None,
        }
    }

    /// One phrase for a verdict.
    pub fn describe(&self) -> String {
        match self {
            Fetched::Json { url, value } => {
                format!("{url}: {}", mcpspec_core::text::preview(value, 200))
            }
            Fetched::Status { url, status } => format!("{url}: HTTP {status}"),
            Fetched::NotJson {
                url,
                content_type,
                preview,
            } => format!(
                "{url}: not JSON ({}): {preview}",
                if content_type.is_empty() {
                    "no Content-Type"
                } else {
                    content_type
                }
            ),
            Fetched::TooLarge { url } => format!(
                "{url}: a body over {} KiB (not read further)",
                METADATA_LIMIT / 1024
            ),
            Fetched::Redirects { chain, looped } => format!(
                "{}: {}",
                chain.first().map_or("?", String::as_str),
                if *looped {
                    format!("a redirect loop ({})", chain.join(" -> "))
                } else {
                    format!(
                        "more than {MAX_REDIRECTS} redirects ({})",
                        chain.join(" -> ")
                    )
                }
            ),
            Fetched::NotFetched { url, why } => format!("{url}: not fetched: {why}"),
            Fetched::Failed { url, error } => format!("{url}: {error}"),
        }
    }
}

/// Whether mcpspec may fetch `url` for `target`: plain HTTP, and a loopback host when the target
/// is on loopback, else the target's own host. `Err` says why not.
pub fn reachable(target: &Endpoint, url: &str) -> Result<Endpoint, String> {
    if url.starts_with("https://") {
        return Err("an https URL (mcpspec speaks plain HTTP only)".into());
    }
    let there = Endpoint::parse(url)?;
    if target.is_loopback() {
        if !there.is_loopback() {
            return Err(format!(
                "its host `{}` is not on loopback, like the target: mcpspec goes only where it \
                 is pointed",
                there.host()
            ));
        }
    } else if !there.host().eq_ignore_ascii_case(target.host()) {
        return Err(format!(
            "its host `{}` is not the target's (`{}`): mcpspec goes only where it is pointed",
            there.host(),
            target.host()
        ));
    }
    Ok(there)
}

/// GETs `url` as a JSON document for `target` (see the module doc for the bounds).
pub async fn fetch_json(target: &Endpoint, url: &str, deadline: Instant) -> Fetched {
    let mut chain: Vec<String> = Vec::new();
    let mut current = url.to_owned();
    loop {
        let endpoint = match reachable(target, &current) {
            Ok(e) => e,
            Err(why) => return Fetched::NotFetched { url: current, why },
        };
        if chain.contains(&current) {
            chain.push(current);
            return Fetched::Redirects {
                chain,
                looped: true,
            };
        }
        chain.push(current.clone());
        if chain.len() > MAX_REDIRECTS + 1 {
            return Fetched::Redirects {
                chain,
                looped: false,
            };
        }
        let request = Request::new("GET")
            .anonymous()
            .header("Accept", "application/json");
        let mut response = match client::send(&endpoint, &request, deadline).await {
            Ok(r) => r,
            Err(e) => {
                return Fetched::Failed {
                    url: current,
                    error: e.to_string(),
                };
            }
        };
        if matches!(response.status, 301 | 302 | 303 | 307 | 308) {
            let Some(location) = response.header("location") else {
                return Fetched::Status {
                    url: current,
                    status: response.status,
                };
            };
            current = resolve(&endpoint, location);
            continue;
        }
        if response.status != 200 {
            return Fetched::Status {
                url: current,
                status: response.status,
            };
        }
        let content_type = response.content_type();
        let bytes = match response.body(deadline, METADATA_LIMIT).await {
            Ok(b) => b,
            Err(client::HttpError::TooLarge(_)) => return Fetched::TooLarge { url: current },
            Err(e) => {
                return Fetched::Failed {
                    url: current,
                    error: e.to_string(),
                };
            }
        };
        return match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) if is_json_type(&content_type) => Fetched::Json {
                url: current,
                value,
            },
            _ => Fetched::NotJson {
                url: current,
                content_type,
                preview: mcpspec_core::text::shorten(String::from_utf8_lossy(&bytes).trim(), 80),
            },
        };
    }
}

/// `application/json` or a `+json` type (RFC 6839).
fn is_json_type(content_type: &str) -> bool {
    content_type == "application/json" || content_type.ends_with("+json")
}

/// A `Location` against the URL it came from: absolute, or an absolute path on the same
/// authority (a relative path is taken from the root, which is what every server sends).
fn resolve(from: &Endpoint, location: &str) -> String {
    if location.contains("://") {
        location.to_owned()
    } else if location.starts_with('/') {
        format!("{}{location}", from.origin())
    } else {
        format!("{}/{location}", from.origin())
    }
}

/// Where a protected resource metadata URL came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The challenge's `resource_metadata`.
    Challenge,
    /// `/.well-known/oauth-protected-resource` with the endpoint's path after it.
    PathInserted,
    /// `/.well-known/oauth-protected-resource` at the root.
    Root,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Challenge => "the challenge's resource_metadata",
            Source::PathInserted => "the path-inserted well-known URI",
            Source::Root => "the root well-known URI",
        }
    }
}

/// The protected resource metadata URLs to try for `target`, in the spec's order.
pub fn metadata_urls(target: &Endpoint, from_challenge: Option<&str>) -> Vec<(Source, String)> {
    let mut urls = Vec::new();
    if let Some(url) = from_challenge {
        urls.push((Source::Challenge, url.to_owned()));
    }
    let path = target.path.split(['?', '#']).next().unwrap_or("/");
    if path != "/" && !path.is_empty() {
        urls.push((
            Source::PathInserted,
            format!("{}{PRM_WELL_KNOWN}{path}", target.origin()),
        ));
    }
    urls.push((Source::Root, format!("{}{PRM_WELL_KNOWN}", target.origin())));
    urls
}

/// Every URL tried, what it gave, and the first JSON document found.
#[derive(Debug, Clone)]
pub struct Discovered {
    pub tried: Vec<(Source, Fetched)>,
}

impl Discovered {
    /// The first document found, and where.
    pub fn found(&self) -> Option<(Source, &str, &Value)> {
        self.tried
            .iter()
            .find_map(|(source, fetched)| match fetched {
                Fetched::Json { url, value } => Some((*source, url.as_str(), value)),
                _ => None,
            })
    }

    /// What each URL tried gave, `; `-joined.
    pub fn describe(&self) -> String {
        self.tried
            .iter()
            .map(|(source, f)| format!("{} {}", source.name(), f.describe()))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Looks for the protected resource metadata of `target` in the spec's order, stopping at the
/// first JSON document.
pub async fn protected_resource_metadata(
    target: &Endpoint,
    from_challenge: Option<&str>,
    deadline: Instant,
) -> Discovered {
    let mut tried = Vec::new();
    for (source, url) in metadata_urls(target, from_challenge) {
        let fetched = fetch_json(target, &url, deadline).await;
        let done = fetched.json().is_some();
        tried.push((source, fetched));
        if done {
            break;
        }
    }
    Discovered { tried }
}

/// What is wrong with a protected resource metadata document (RFC 9728 §2): not an object, no
/// `resource` string, no non-empty `authorization_servers` array of strings.
pub fn metadata_problems(document: &Value) -> Vec<String> {
    let Some(object) = document.as_object() else {
        return vec!["it is not a JSON object".into()];
    };
    let mut problems = Vec::new();
    match object.get("resource") {
        Some(Value::String(_)) => {}
        Some(other) => problems.push(format!(
            "`resource` is {}, not a string",
            mcpspec_core::text::preview(other, 60)
        )),
        None => problems.push("`resource` is missing".into()),
    }
    match object.get("authorization_servers") {
        Some(Value::Array(a)) if a.is_empty() => {
            problems.push("`authorization_servers` is empty".into());
        }
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
        Some(other) => problems.push(format!(
            "`authorization_servers` is {}, not an array of issuer URLs",
            mcpspec_core::text::preview(other, 60)
        )),
        None => problems.push("`authorization_servers` is missing".into()),
    }
    problems
}

/// The authorization servers a metadata document names.
pub fn authorization_servers(document: &Value) -> Vec<String> {
    document
        .get("authorization_servers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The scopes a metadata document lists in `scopes_supported`.
pub fn scopes_supported(document: &Value) -> Vec<String> {
    document
        .get("scopes_supported")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Why `issuer` is not an issuer identifier (RFC 8414 §2: an absolute URL with a scheme and a
/// host, no query, no fragment), if it is not.
pub fn issuer_problem(issuer: &str) -> Option<String> {
    let Some((scheme, rest)) = issuer.split_once("://") else {
        return Some(format!("`{issuer}` is not an absolute URL"));
    };
    if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
        return Some(format!("`{issuer}` is not an http(s) URL"));
    }
    if rest.is_empty() || rest.starts_with('/') {
        return Some(format!("`{issuer}` has no host"));
    }
    if issuer.contains('?') || issuer.contains('#') {
        return Some(format!("`{issuer}` has a query or a fragment"));
    }
    None
}

/// The metadata URLs of an authorization server, in the order the spec gives (2025-11-25,
/// "Authorization Server Metadata Discovery"): RFC 8414 with the issuer's path inserted, then
/// OpenID Connect discovery with the path inserted, then appended (only the first two for an
/// issuer without a path).
pub fn authorization_server_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed.split_once("://") {
        Some((scheme, rest)) => match rest.find('/') {
            Some(i) => (format!("{scheme}://{}", &rest[..i]), rest[i..].to_owned()),
            None => (trimmed.to_owned(), String::new()),
        },
        None => (trimmed.to_owned(), String::new()),
    };
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls
}

/// The scopes a right token for `target` asks for: those of the challenge to a request without
/// a token and those the metadata lists, as a client would learn them.
pub async fn scopes_for(target: &Endpoint, deadline: Instant) -> Vec<String> {
    let bare = Endpoint {
        credentials: None,
        ..target.clone()
    };
    let mut scopes: Vec<String> = Vec::new();
    let Ok(refusal) = exchange(&bare, &probe_request(), deadline).await else {
        return scopes;
    };
    let header_url = refusal
        .bearer()
        .and_then(|c| c.param("resource_metadata"))
        .map(str::to_owned);
    if let Some(challenge) = refusal.bearer() {
        scopes.extend(challenge.scopes().into_iter().map(str::to_owned));
    }
    let found = protected_resource_metadata(&bare, header_url.as_deref(), deadline).await;
    if let Some((_, _, document)) = found.found() {
        scopes.extend(scopes_supported(document));
    }
    let mut seen = std::collections::BTreeSet::new();
    scopes.retain(|s| seen.insert(s.clone()));
    scopes
}

/// A modern `server/discover` POST, as a client without a token would first send it.
pub fn probe_request() -> Request {
    use mcpspec_core::protocol::{meta, method, version};
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": method::DISCOVER,
        "params": {"_meta": {meta::PROTOCOL_VERSION: version::MODERN, meta::CLIENT_CAPABILITIES: {}}}
    });
    Request::new("POST")
        .anonymous()
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", version::MODERN)
        .header("Mcp-Method", method::DISCOVER)
        .body(body.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn endpoint(url: &str) -> Endpoint {
        Endpoint::parse(url).unwrap()
    }

    #[test]
    fn metadata_urls_follow_the_spec_order() {
        let urls: Vec<String> = metadata_urls(
            &endpoint("http://127.0.0.1:8000/mcp"),
            Some("http://127.0.0.1:8000/prm"),
        )
        .into_iter()
        .map(|(_, u)| u)
        .collect();
        assert_eq!(
            urls,
            [
                "http://127.0.0.1:8000/prm",
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            metadata_urls(&endpoint("http://127.0.0.1:8000/"), None).len(),
            1
        );
        assert_eq!(
            authorization_server_urls("https://auth.example/tenant1"),
            [
                "https://auth.example/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example/.well-known/openid-configuration/tenant1",
                "https://auth.example/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(authorization_server_urls("http://127.0.0.1:9").len(), 2);
    }

    #[test]
    fn only_where_mcpspec_was_pointed() {
        let local = endpoint("http://127.0.0.1:8000/mcp");
        assert!(reachable(&local, "http://localhost:9/x").is_ok());
        assert!(reachable(&local, "http://example.com/x").is_err());
        assert!(reachable(&local, "https://127.0.0.1/x").is_err());
        let remote = endpoint("http://mcp.example:8000/mcp");
        assert!(reachable(&remote, "http://MCP.example/x").is_ok());
        assert!(reachable(&remote, "http://127.0.0.1/x").is_err());
    }

    #[test]
    fn judges_the_metadata_shape() {
        let good = json!({"resource": "http://x/mcp", "authorization_servers": ["http://a"]});
        assert!(metadata_problems(&good).is_empty());
        assert_eq!(metadata_problems(&json!([])), ["it is not a JSON object"]);
        let bad = json!({"resource": 1, "authorization_servers": []});
        assert_eq!(metadata_problems(&bad).len(), 2);
        assert!(issuer_problem("http://127.0.0.1:9").is_none());
        assert!(issuer_problem("/issuer").is_some());
        assert!(issuer_problem("https://a.example/?x=1").is_some());
    }
}
