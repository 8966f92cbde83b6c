//! The URLs of the flow, as strings: the well-known metadata URLs of a resource and of an issuer
//! in the spec's order, query strings written and read (percent-encoding), a redirect's
//! `Location` resolved. Pure functions; `http://` only, as the client's HTTP/1.1 client is.

/// The well-known suffix of Protected Resource Metadata (RFC 9728 §3).
const PRM_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
/// The well-known suffix of OAuth authorization server metadata (RFC 8414 §3).
const OAUTH_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";
/// The well-known suffix of OpenID Connect discovery.
const OIDC_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// A URL cut into its origin (`http://host:port`), its path (`""` when it has none) and its
/// query; a fragment is dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts<'a> {
    pub origin: &'a str,
    pub path: &'a str,
    pub query: Option<&'a str>,
}

/// Cuts `url` into [`Parts`]; `None` when it is not `scheme://authority…`.
pub fn parts(url: &str) -> Option<Parts<'_>> {
    let url = url.split('#').next().unwrap_or_default();
    let after_scheme = url.find("://")? + 3;
    let authority_end = url[after_scheme..]
        .find(['/', '?'])
        .map_or(url.len(), |i| after_scheme + i);
    if authority_end == after_scheme {
        return None;
    }
    let (path, query) = match url[authority_end..].split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (&url[authority_end..], None),
    };
    Some(Parts {
        origin: &url[..authority_end],
        path,
        query,
    })
}

/// Where Protected Resource Metadata of the resource `mcp_url` is looked for, in order: the
/// well-known URL with the endpoint's path inserted, then the root one (one URL when the path
/// is empty).
pub fn prm_urls(mcp_url: &str) -> Vec<String> {
    let Some(p) = parts(mcp_url) else {
        return Vec::new();
    };
    let root = format!("{}{PRM_WELL_KNOWN}", p.origin);
    let path = p.path.trim_end_matches('/');
    if path.is_empty() {
        return vec![root];
    }
    vec![format!("{}{PRM_WELL_KNOWN}{path}", p.origin), root]
}

/// The root Protected Resource Metadata URL of `mcp_url`'s origin.
pub fn prm_root_url(mcp_url: &str) -> Option<String> {
    parts(mcp_url).map(|p| format!("{}{PRM_WELL_KNOWN}", p.origin))
}

/// Where the metadata of `issuer` is looked for, in the spec's order: with a path, OAuth
/// path-inserted, OIDC path-inserted, OIDC path-appended; without, OAuth then OIDC.
/// `oidc_first` is the `as-metadata-oidc-first` fault's order (the same list backwards).
pub fn as_metadata_urls(issuer: &str, oidc_first: bool) -> Vec<String> {
    let Some(p) = parts(issuer) else {
        return Vec::new();
    };
    let path = p.path.trim_end_matches('/');
    let origin = p.origin;
    let mut urls = if path.is_empty() {
        vec![
            format!("{origin}{OAUTH_WELL_KNOWN}"),
            format!("{origin}{OIDC_WELL_KNOWN}"),
        ]
    } else {
        vec![
            format!("{origin}{OAUTH_WELL_KNOWN}{path}"),
            format!("{origin}{OIDC_WELL_KNOWN}{path}"),
            format!("{origin}{path}{OIDC_WELL_KNOWN}"),
        ]
    };
    if oidc_first {
        urls.reverse();
    }
    urls
}

/// `base` with `pairs` added to its query (`?` or `&`), each name and value percent-encoded.
pub fn with_query(base: &str, pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return base.to_owned();
    }
    let joiner = if base.contains('?') { '&' } else { '?' };
    format!("{base}{joiner}{}", form(pairs))
}

/// `a=1&b=2`, percent-encoded: the query of a URL and an
/// `application/x-www-form-urlencoded` body alike.
pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(n, v)| format!("{}={}", encode(n), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` and `+` (a form's space); a `%` not followed by two hex digits stays.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = text
                    .get(i + 1..i + 3)
                    .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                        continue;
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

/// The query parameters of `url` (a redirect's `Location`), decoded, in order.
pub fn query_params(url: &str) -> Vec<(String, String)> {
    let query = url
        .split('#')
        .next()
        .and_then(|u| u.split_once('?'))
        .map_or("", |(_, q)| q);
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((n, v)) => (decode(n), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// A redirect's `Location` made absolute against the URL that answered it.
pub fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_owned();
    }
    let Some(p) = parts(base) else {
        return location.to_owned();
    };
    if location.starts_with('/') {
        return format!("{}{location}", p.origin);
    }
    let dir = p.path.rsplit_once('/').map_or("", |(d, _)| d);
    format!("{}{dir}/{location}", p.origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_cut_at_origin_path_and_query() {
        assert_eq!(
            parts("http://127.0.0.1:8/mcp?x=1#f"),
            Some(Parts {
                origin: "http://127.0.0.1:8",
                path: "/mcp",
                query: Some("x=1")
            })
        );
        assert_eq!(parts("http://h:1").map(|p| p.path), Some(""));
        assert_eq!(parts("http://h:1?q").map(|p| p.query), Some(Some("q")));
        assert_eq!(parts("no-scheme"), None);
        assert_eq!(parts("http:///x"), None);
    }

    #[test]
    fn prm_is_looked_for_path_inserted_then_at_the_root() {
        assert_eq!(
            prm_urls("http://127.0.0.1:8/mcp"),
            [
                "http://127.0.0.1:8/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:8/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            prm_urls("http://127.0.0.1:8/"),
            ["http://127.0.0.1:8/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn as_metadata_urls_follow_the_spec_for_both_issuer_shapes() {
        assert_eq!(
            as_metadata_urls("http://127.0.0.1:9/tenant", false),
            [
                "http://127.0.0.1:9/.well-known/oauth-authorization-server/tenant",
                "http://127.0.0.1:9/.well-known/openid-configuration/tenant",
                "http://127.0.0.1:9/tenant/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            as_metadata_urls("http://127.0.0.1:9", false),
            [
                "http://127.0.0.1:9/.well-known/oauth-authorization-server",
                "http://127.0.0.1:9/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            as_metadata_urls("http://127.0.0.1:9/", false),
            as_metadata_urls("http://127.0.0.1:9", false)
        );
        assert_eq!(
            as_metadata_urls("http://127.0.0.1:9/tenant", true),
            [
                "http://127.0.0.1:9/tenant/.well-known/openid-configuration",
                "http://127.0.0.1:9/.well-known/openid-configuration/tenant",
                "http://127.0.0.1:9/.well-known/oauth-authorization-server/tenant",
            ]
        );
    }

    #[test]
    fn queries_are_written_and_read_back() {
        let url = with_query(
            "http://a:1/authorize",
            &[
                ("scope", "mcp:read mcp:tools"),
                ("resource", "http://b:2/mcp"),
            ],
        );
        assert_eq!(
            url,
            "http://a:1/authorize?scope=mcp%3Aread%20mcp%3Atools&resource=http%3A%2F%2Fb%3A2%2Fmcp"
        );
        assert_eq!(
            with_query("http://a:1/x?k=v", &[("n", "1")]),
            "http://a:1/x?k=v&n=1"
        );
        assert_eq!(
            query_params(&url),
            [
                ("scope".to_owned(), "mcp:read mcp:tools".to_owned()),
                ("resource".to_owned(), "http://b:2/mcp".to_owned())
            ]
        );
    }

    #[test]
    fn decoding_keeps_what_is_not_an_escape() {
        assert_eq!(decode("a+b%20c"), "a b c");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%C3%A9"), "é");
    }

    #[test]
    fn redirects_resolve_against_the_url_that_answered() {
        let base = "http://h:1/a/b?q";
        assert_eq!(resolve(base, "http://o:2/x"), "http://o:2/x");
        assert_eq!(resolve(base, "/x"), "http://h:1/x");
        assert_eq!(resolve(base, "c"), "http://h:1/a/c");
    }
}
