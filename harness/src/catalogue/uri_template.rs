//! RFC 6570 URI templates, as far as the feature-surface checks need them (FEAT-5): whether a
//! `uriTemplate` is one, its variables, its expansion with string values, and the values a
//! concrete URI gives a simple template.
//!
//! Below the area files; imports nothing of the crate.

use std::fmt::Write as _;

/// A parsed template: literals and expressions, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression {
        operator: Option<char>,
        variables: Vec<VarSpec>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct VarSpec {
    name: String,
    /// `:N`: the first N characters of the value. (`*`, explode, changes nothing for a
    /// string value, the only kind mcpspec expands.)
    prefix: Option<usize>,
}

/// The operators of levels 2 to 4 (RFC 6570 §2.2).
const OPERATORS: &str = "+#./;?&";
/// Operators the RFC reserves for future extensions: a template using one is invalid.
const RESERVED_OPERATORS: &str = "=,!@|";
/// The longest prefix modifier (`:9999`, RFC 6570 §2.4.1).
const MAX_PREFIX: usize = 9999;

impl Template {
    /// Parses `text`, or says what in it is not RFC 6570.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' => {
                    let close = text[at..]
                        .find('}')
                        .map(|i| at + i)
                        .ok_or_else(|| format!("the expression at {at} is not closed by `}}`"))?;
                    let body = &text[at + 1..close];
                    if body.contains('{') {
                        return Err(format!("the expression at {at} is not closed by `}}`"));
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(expression(body).map_err(|e| format!("`{{{body}}}`: {e}"))?);
                    while chars.peek().is_some_and(|(i, _)| *i <= close) {
                        chars.next();
                    }
                }
                '}' => return Err(format!("a `}}` at {at} closes no expression")),
                '%' => {
                    let hex: String = text[at + 1..].chars().take(2).collect();
                    if hex.len() != 2 || !hex.chars().all(|h| h.is_ascii_hexdigit()) {
                        return Err(format!("a `%` at {at} that starts no percent-encoding"));
                    }
                    literal.push('%');
                    literal.push_str(&hex);
                    chars.next();
                    chars.next();
                }
                c if c.is_control() || " \"'<>\\^`|".contains(c) => {
                    return Err(format!("{c:?} at {at} is not allowed in a URI template"));
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Template { parts })
    }

    /// The variable names, each once, in order.
    pub fn variables(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Expression { variables, .. } = part {
                for v in variables {
                    if !names.contains(&v.name.as_str()) {
                        names.push(&v.name);
                    }
                }
            }
        }
        names
    }

    /// The URI for these string values (RFC 6570 §3.2); a variable without a value is
    /// undefined and left out, as the RFC says.
    pub fn expand(&self, value: impl Fn(&str) -> Option<String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Expression {
                    operator,
                    variables,
                } => expand_expression(&mut out, *operator, variables, &value),
            }
        }
        out
    }

    /// The values `uri` gives the variables, for a template of literals and simple
    /// expressions (`{name}`, one variable each) only: each variable takes the text up to the
    /// next literal. `None` when the template is not that simple or `uri` is not an instance.
    pub fn match_uri(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut rest = uri;
        let mut values = Vec::new();
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Part::Expression {
                    operator: None,
                    variables,
                } if variables.len() == 1 => {
                    let end = match self.parts.get(i + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        Some(_) => return None,
                        None => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() {
                        return None;
                    }
                    values.push((variables[0].name.clone(), value.to_owned()));
                    rest = &rest[end..];
                }
                Part::Expression { .. } => return None,
            }
        }
        rest.is_empty().then_some(values)
    }
}

fn expression(body: &str) -> Result<Part, String> {
    let mut chars = body.chars();
    let operator = match chars.clone().next() {
        Some(c) if OPERATORS.contains(c) => {
            chars.next();
            Some(c)
        }
        Some(c) if RESERVED_OPERATORS.contains(c) => {
            return Err(format!("`{c}` is an operator RFC 6570 reserves"));
        }
        Some(_) => None,
        None => return Err("an empty expression".into()),
    };
    let list: String = chars.collect();
    let variables = list
        .split(',')
        .map(varspec)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Part::Expression {
        operator,
        variables,
    })
}

fn varspec(spec: &str) -> Result<VarSpec, String> {
    let (name, prefix) = if let Some(name) = spec.strip_suffix('*') {
        (name, None)
    } else if let Some((name, length)) = spec.split_once(':') {
        let ok = !length.is_empty()
            && length.len() <= 4
            && length.chars().all(|c| c.is_ascii_digit())
            && !length.starts_with('0');
        let n = length
            .parse::<usize>()
            .ok()
            .filter(|n| ok && *n <= MAX_PREFIX);
        let n = n.ok_or_else(|| format!("`:{length}` is not a prefix length (1 to 9999)"))?;
        (name, Some(n))
    } else {
        (spec, None)
    };
    if !valid_varname(name) {
        return Err(format!("`{name}` is not a variable name"));
    }
    Ok(VarSpec {
        name: name.to_owned(),
        prefix,
    })
}

/// `varchar *( ["."] varchar )`, varchar being ALPHA, DIGIT, `_` or a percent-encoding.
fn valid_varname(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes[0] == b'.' || bytes[bytes.len() - 1] == b'.' {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
            {
                i += 3;
            }
            b'.' if bytes.get(i + 1) != Some(&b'.') => i += 1,
            b if b.is_ascii_alphanumeric() || b == b'_' => i += 1,
            _ => return false,
        }
    }
    true
}

/// RFC 6570 §3.2.1: the first string, separator, whether names are written, what follows an
/// empty named value, and whether reserved characters pass unencoded.
fn behaviour(operator: Option<char>) -> (&'static str, &'static str, bool, &'static str, bool) {
    match operator {
        Some('+') => ("", ",", false, "", true),
        Some('.') => (".", ".", false, "", false),
        Some('/') => ("/", "/", false, "", false),
        Some(';') => (";", ";", true, "", false),
        Some('?') => ("?", "&", true, "=", false),
        Some('&') => ("&", "&", true, "=", false),
        Some('#') => ("#", ",", false, "", true),
        _ => ("", ",", false, "", false),
    }
}

fn expand_expression(
    out: &mut String,
    operator: Option<char>,
    variables: &[VarSpec],
    value: &impl Fn(&str) -> Option<String>,
) {
    let (first, separator, named, if_empty, reserved) = behaviour(operator);
    let mut wrote = false;
    for v in variables {
        let Some(mut text) = value(&v.name) else {
            continue;
        };
        if let Some(n) = v.prefix {
            text = text.chars().take(n).collect();
        }
        out.push_str(if wrote { separator } else { first });
        wrote = true;
        if named {
            out.push_str(&v.name);
            if text.is_empty() {
                out.push_str(if_empty);
                continue;
            }
            out.push('=');
        }
        out.push_str(&encode(&text, reserved));
    }
}

/// Percent-encodes everything but unreserved characters (and, when `reserved`, the reserved
/// ones and existing percent-encodings).
fn encode(text: &str, reserved: bool) -> String {
    const RESERVED: &str = ":/?#[]@!$&'()*+,;=";
    let mut out = String::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let kept = b.is_ascii_alphanumeric()
            || b"-._~".contains(&b)
            || (reserved && RESERVED.as_bytes().contains(&b));
        let encoded_already = reserved
            && b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if kept || encoded_already {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(template: &str, values: &[(&str, &str)]) -> String {
        Template::parse(template).unwrap().expand(|name| {
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn rfc_6570_examples_expand_as_the_rfc_says() {
        let values = [
            ("var", "value"),
            ("hello", "Hello World!"),
            ("path", "/foo/bar"),
            ("x", "1024"),
            ("y", "768"),
            ("empty", ""),
        ];
        let cases = [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("X{.var}", "X.value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{var:3}", "val"),
            ("map?{x,undef}", "map?1024"),
        ];
        for (template, want) in cases {
            assert_eq!(expand(template, &values), want, "{template}");
        }
    }

    #[test]
    fn what_is_not_a_template_is_named() {
        for bad in [
            "mcpspec://notes/{topic",
            "mcpspec://notes/topic}",
            "{}",
            "{=x}",
            "{a b}",
            "{x:0}",
            "{x:10000}",
            "{.}",
            "a b/{x}",
            "{a..b}",
            "100%",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad} parsed");
        }
        for good in [
            "file:///{+path}",
            "users://{id}/profile{?fields*}",
            "{a.b,c_d:5}",
        ] {
            assert!(Template::parse(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn variables_and_matching() {
        let t = Template::parse("mcpspec://reference/notes/{topic}/{page}").unwrap();
        assert_eq!(t.variables(), ["topic", "page"]);
        assert_eq!(
            t.match_uri("mcpspec://reference/notes/logging/2"),
            Some(vec![
                ("topic".into(), "logging".into()),
                ("page".into(), "2".into())
            ])
        );
        assert_eq!(t.match_uri("mcpspec://other/logging/2"), None);
        let query = Template::parse("x://{a}{?b}").unwrap();
        assert_eq!(query.match_uri("x://1?b=2"), None);
    }
}
