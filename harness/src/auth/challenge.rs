//! `WWW-Authenticate` challenges, parsed as RFC 9110 §11.6.1 writes them and RFC 6750 §3 uses
//! them: several challenges in one header (and several headers, joined by commas), a
//! case-insensitive scheme, parameters whose values are tokens or quoted strings (with `\`
//! escapes), or a token68. What cannot be read is an error value naming the byte where reading
//! stopped: a server's header never panics the parser, and every loop moves forward.
//!
//! ```text
//! WWW-Authenticate = #challenge
//! challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//! auth-param       = token BWS "=" BWS ( token / quoted-string )
//! token68          = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//! ```
//!
//! A leaf: imports only `text`.

/// One challenge: `Bearer realm="x", scope="a b"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// As sent (compare with [`Challenge::is`]).
    pub scheme: String,
    /// The token68 form (`Basic dXNlcg==`), when the challenge has one instead of parameters.
    pub token68: Option<String>,
    /// Parameters in order: the name lower-cased, the value unquoted.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// Whether the scheme is `scheme` (case-insensitive, RFC 9110 §11.1).
    pub fn is(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }

    /// The first value of parameter `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `scope` parameter split at spaces (RFC 6750 §3).
    pub fn scopes(&self) -> Vec<&str> {
        self.param("scope")
            .map(|s| s.split(' ').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }
}

/// Where and why a header could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read the challenge at byte {at}: {problem}")]
pub struct ChallengeError {
    pub at: usize,
    pub problem: String,
}

/// The challenges of every `WWW-Authenticate` value of one response, in order.
pub fn parse_all<'a>(
    values: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<Challenge>, ChallengeError> {
    let joined = values.into_iter().collect::<Vec<_>>().join(", ");
    parse(&joined)
}

/// The challenges of one header value.
pub fn parse(value: &str) -> Result<Vec<Challenge>, ChallengeError> {
    Parser {
        bytes: value.as_bytes(),
        at: 0,
    }
    .challenges()
    .map_err(|mut e| {
        // Where reading stopped is often past the cause: say it when the quotes do not pair.
        if odd_quotes(value) && !e.problem.contains("unbalanced") {
            e.problem = format!(
                "unbalanced `\"` (an odd number of quotes in the header); {}",
                e.problem
            );
        }
        e
    })
}

/// Whether `value` has an odd number of `"` outside `\` escapes.
fn odd_quotes(value: &str) -> bool {
    let mut count = 0;
    let mut escaped = false;
    for b in value.bytes() {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => count += 1,
            _ => {}
        }
    }
    count % 2 == 1
}

/// The first `Bearer` challenge among `challenges`.
pub fn bearer(challenges: &[Challenge]) -> Option<&Challenge> {
    challenges.iter().find(|c| c.is("Bearer"))
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// `tchar` of RFC 9110 §5.6.2.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

impl Parser<'_> {
    fn challenges(mut self) -> Result<Vec<Challenge>, ChallengeError> {
        let mut out = Vec::new();
        loop {
            // Empty list elements are allowed (`#rule`): skip separators.
            self.skip(|b| b == b',' || b == b' ' || b == b'\t');
            if self.done() {
                return Ok(out);
            }
            out.push(self.challenge()?);
        }
    }

    fn challenge(&mut self) -> Result<Challenge, ChallengeError> {
        let scheme = self.token().ok_or_else(|| self.error("an auth-scheme"))?;
        let mut challenge = Challenge {
            scheme,
            token68: None,
            params: Vec::new(),
        };
        let spaced = self.skip(|b| b == b' ' || b == b'\t') > 0;
        if self.done() || self.peek() == Some(b',') {
            return Ok(challenge);
        }
        if !spaced {
            return Err(self.error("a space after the auth-scheme"));
        }
        let start = self.at;
        if let Some(param) = self.param()? {
            challenge.params.push(param);
            loop {
                self.skip(|b| b == b' ' || b == b'\t');
                if self.done() {
                    return Ok(challenge);
                }
                if self.peek() != Some(b',') {
                    return Err(self.error("`,` between parameters"));
                }
                self.skip(|b| b == b',' || b == b' ' || b == b'\t');
                let next = self.at;
                match self.param()? {
                    Some(param) => challenge.params.push(param),
                    None => {
                        // Not `name=`: the next challenge starts here (after the comma).
                        self.at = next;
                        return Ok(challenge);
                    }
                }
            }
        }
        self.at = start;
        let token68 = self
            .token68()
            .ok_or_else(|| self.error("a parameter or a token68"))?;
        self.skip(|b| b == b' ' || b == b'\t');
        if !self.done() && self.peek() != Some(b',') {
            return Err(self.error("the end of the challenge after its token68"));
        }
        challenge.token68 = Some(token68);
        Ok(challenge)
    }

    /// `token BWS "=" BWS ( token / quoted-string )`; `None` (nothing consumed) when the input
    /// here is not `token BWS "="` followed by a value start, so the caller can read a token68
    /// or a new challenge instead.
    fn param(&mut self) -> Result<Option<(String, String)>, ChallengeError> {
        let start = self.at;
        let Some(name) = self.token() else {
            return Ok(None);
        };
        self.skip(|b| b == b' ' || b == b'\t');
        if self.peek() != Some(b'=') {
            self.at = start;
            return Ok(None);
        }
        self.at += 1;
        self.skip(|b| b == b' ' || b == b'\t');
        let value = match self.peek() {
            Some(b'"') => self.quoted()?,
            Some(b) if is_tchar(b) => self.token().unwrap_or_default(),
            // `abc==` (a token68 with padding) or `name=` with nothing after it.
            _ => {
                self.at = start;
                return Ok(None);
            }
        };
        Ok(Some((name.to_ascii_lowercase(), value)))
    }

    fn quoted(&mut self) -> Result<String, ChallengeError> {
        let open = self.at;
        self.at += 1;
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None => {
                    return Err(ChallengeError {
                        at: open,
                        problem: "a quoted string that is never closed (unbalanced `\"`)".into(),
                    });
                }
                Some(b'"') => {
                    self.at += 1;
                    return Ok(String::from_utf8_lossy(&value).into_owned());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.peek() {
                        Some(b) => {
                            value.push(b);
                            self.at += 1;
                        }
                        None => {
                            return Err(ChallengeError {
                                at: open,
                                problem: "a quoted string ending in a lone `\\`".into(),
                            });
                        }
                    }
                }
                Some(b) if b == b'\t' || b >= 0x20 && b != 0x7f => {
                    value.push(b);
                    self.at += 1;
                }
                Some(b) => {
                    return Err(self.error_found(
                        "a visible character in the quoted string",
                        format!("byte 0x{b:02x}"),
                    ));
                }
            }
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.at;
        self.skip(is_tchar);
        (self.at > start).then(|| String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned())
    }

    fn token68(&mut self) -> Option<String> {
        let start = self.at;
        if self.skip(is_token68_char) == 0 {
            return None;
        }
        self.skip(|b| b == b'=');
        Some(String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned())
    }

    /// Skips bytes while `keep` holds; how many.
    fn skip(&mut self, keep: impl Fn(u8) -> bool) -> usize {
        let start = self.at;
        while self.peek().is_some_and(&keep) {
            self.at += 1;
        }
        self.at - start
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn error(&self, expected: &str) -> ChallengeError {
        let found = match self.peek() {
            None => "the end of the header".to_owned(),
            Some(_) => {
                let rest = String::from_utf8_lossy(&self.bytes[self.at..]);
                format!("`{}`", mcpspec_core::text::shorten(&rest, 20))
            }
        };
        self.error_found(expected, found)
    }

    fn error_found(&self, expected: &str, found: String) -> ChallengeError {
        ChallengeError {
            at: self.at,
            problem: format!("expected {expected}, found {found}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(value: &str) -> Challenge {
        let mut all = parse(value).unwrap();
        assert_eq!(all.len(), 1, "{all:?}");
        all.remove(0)
    }

    #[test]
    fn reads_a_bearer_challenge_with_quoted_and_token_values() {
        let c = one(
            r#"Bearer resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:tools", error=invalid_token"#,
        );
        assert!(c.is("bearer"));
        assert_eq!(
            c.param("resource_metadata"),
            Some("http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.scopes(), ["mcp:read", "mcp:tools"]);
        assert_eq!(c.param("ERROR"), Some("invalid_token"));
    }

    #[test]
    fn reads_several_challenges_and_headers() {
        let all = parse_all([
            r#"Basic realm="a, b", charset="UTF-8", bEaReR realm="x""#,
            "Negotiate dXNlcjpwYXNz==, Bearer",
        ])
        .unwrap();
        let schemes: Vec<&str> = all.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "bEaReR", "Negotiate", "Bearer"]);
        assert_eq!(all[0].param("realm"), Some("a, b"));
        assert_eq!(all[0].param("charset"), Some("UTF-8"));
        assert_eq!(all[2].token68.as_deref(), Some("dXNlcjpwYXNz=="));
        assert!(all[3].params.is_empty());
        assert_eq!(bearer(&all).and_then(|c| c.param("realm")), Some("x"));
    }

    #[test]
    fn unescapes_quoted_pairs_and_allows_spaces_around_equals() {
        let c = one(r#"Bearer error_description = "say \"no\" \\ twice" ,  realm=x"#);
        assert_eq!(c.param("error_description"), Some(r#"say "no" \ twice"#));
        assert_eq!(c.param("realm"), Some("x"));
        // Empty list elements between challenges.
        assert_eq!(parse(", ,Bearer realm=x,,").unwrap().len(), 1);
    }

    #[test]
    fn malformed_headers_are_errors_naming_the_byte() {
        let e = parse(r#"Bearer realm="never closed, scope=x"#).unwrap_err();
        assert_eq!(e.at, 13);
        assert!(e.problem.contains("unbalanced"), "{e}");
        // Three quotes: the first two pair up, and reading stops at what follows them.
        let e = parse(r#"Bearer realm="mcp, resource_metadata="http://x/m""#).unwrap_err();
        assert!(e.problem.starts_with("unbalanced `\"`"), "{e}");
        for bad in [
            r#"Bearer realm="x" scope="y""#,
            r#"="x""#,
            "Bearer\u{1}",
            "Bearer realm=\"a\u{7f}\"",
            "Bearer realm=\"\\",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
        assert!(parse("").unwrap().is_empty());
        // `name=` with no value is a token68 (`realm=`), as the grammar reads it.
        assert_eq!(one("Bearer realm=").token68.as_deref(), Some("realm="));
    }
}
