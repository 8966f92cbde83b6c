//! The `Bearer` challenge of a refusal's `WWW-Authenticate` values (RFC 9110 §11.6.1, RFC 6750
//! §3): several challenges per value and several values, a case-insensitive scheme, parameters
//! whose values are tokens or quoted strings with `\` escapes. What cannot be read is skipped;
//! every loop moves forward, so a server's header never hangs or panics the client.

/// What the client reads of a `Bearer` challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// RFC 9728 §5.1: where the Protected Resource Metadata is.
    pub resource_metadata: Option<String>,
    /// The scopes needed, space-separated as sent.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
}

impl Challenge {
    /// The challenged scopes, split at spaces.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref().unwrap_or_default())
    }
}

/// Scopes from a space-separated list.
pub fn split_scopes(list: &str) -> Vec<String> {
    list.split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The first `Bearer` challenge among `values`; `None` when there is none.
pub fn bearer(values: &[String]) -> Option<Challenge> {
    values.iter().find_map(|v| {
        challenges(v)
            .into_iter()
            .find(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, params)| {
                let find = |name: &str| {
                    params
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(name))
                        .map(|(_, v)| v.clone())
                };
                Challenge {
                    resource_metadata: find("resource_metadata"),
                    scope: find("scope"),
                    error: find("error"),
                }
            })
    })
}

/// A scheme and its parameters (name, unquoted value).
type Raw = (String, Vec<(String, String)>);

/// Every challenge of one header value, in order.
fn challenges(value: &str) -> Vec<Raw> {
    let bytes = value.as_bytes();
    let mut found: Vec<Raw> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // Separators between items.
        if bytes[i] == b',' || bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !matches!(bytes[i], b',' | b'=' | b' ' | b'\t') {
            i += 1;
        }
        let word = &value[start..i];
        let mut j = i;
        while j < bytes.len() && matches!(bytes[j], b' ' | b'\t') {
            j += 1;
        }
        let is_param = j < bytes.len() && bytes[j] == b'=' && !found.is_empty();
        if !is_param {
            // A new challenge's scheme (or a token68, which has no parameters to read).
            if bytes.get(i) == Some(&b'=') {
                while i < bytes.len() && bytes[i] == b'=' {
                    i += 1;
                }
                continue;
            }
            found.push((word.to_owned(), Vec::new()));
            continue;
        }
        i = j + 1;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        let (v, next) = read_value(value, i);
        i = next;
        if let Some((_, params)) = found.last_mut() {
            params.push((word.to_ascii_lowercase(), v));
        }
    }
    found
}

/// A token or a quoted string starting at byte `at`: its value and the byte after it.
fn read_value(value: &str, at: usize) -> (String, usize) {
    let bytes = value.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        let end = value[at..]
            .find([',', ' ', '\t'])
            .map_or(value.len(), |e| at + e);
        return (value[at..end].to_owned(), end);
    }
    let mut out = String::new();
    let mut chars = value[at + 1..].char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => return (out, at + 1 + k + 1),
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    out.push(escaped);
                }
            }
            c => out.push(c),
        }
    }
    (out, value.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(v: &str) -> Option<Challenge> {
        bearer(&[v.to_owned()])
    }

    #[test]
    fn reads_the_bearer_parameters() {
        let c = one(
            r#"Bearer resource_metadata="http://127.0.0.1:8/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:tools""#,
        )
        .unwrap();
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://127.0.0.1:8/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.scopes(), ["mcp:read", "mcp:tools"]);
        assert_eq!(c.error, None);
    }

    #[test]
    fn reads_errors_tokens_and_escapes_in_any_case() {
        let c = one(r#"bearer ERROR=invalid_token, error_description="a \"bad\" token""#).unwrap();
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        let c = one(r#"Bearer error="insufficient_scope",scope="mcp:read mcp:tools""#).unwrap();
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("mcp:read mcp:tools"));
    }

    #[test]
    fn finds_bearer_among_other_challenges_and_values() {
        let c = one(r#"Basic realm="x", Bearer scope="a""#).unwrap();
        assert_eq!(c.scope.as_deref(), Some("a"));
        let c = bearer(&["Basic dXNlcg==".into(), "Bearer error=invalid_token".into()]).unwrap();
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(one("Bearer"), Some(Challenge::default()));
        assert_eq!(one(r#"Basic realm="x""#), None);
    }

    #[test]
    fn odd_headers_end_without_panic() {
        for odd in [
            "",
            "=",
            "Bearer =",
            "Bearer a=\"unterminated",
            ",,,",
            "Bearer a=b=c, ==",
        ] {
            let _ = one(odd);
        }
        assert_eq!(
            one("Bearer scope=\"é\\").map(|c| c.scope),
            Some(Some("é".to_owned()))
        );
    }
}
