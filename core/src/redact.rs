//! Secrets never leave mcpspec in what it writes. Every credential the run holds (a `--bearer`
//! token, a `--header` value, a token a `--bearer-command` printed, a token mcpspec minted) is
//! registered here when it is made, and every byte mcpspec writes goes through [`text`] or
//! [`Writer`]: the console and logs (`output`), every report and transcript file and every
//! report on stdout (`cli_values::Destination`), the `cargo test` messages (`testing`). A secret
//! is replaced by [`REDACTED`], so `Authorization: Bearer T` is written `Bearer ‹redacted›`,
//! whether mcpspec wrote it or the server echoed it.
//!
//! A secret is also looked for in the forms the renderers escape it to (JSON, HTML, Markdown),
//! so an escaped copy cannot slip through. Values shorter than [`MIN_SECRET`] bytes are not
//! registered: replacing every `1` of a report would hide the report, not the secret.
//!
//! A leaf: imports nothing of the crate.

use std::borrow::Cow;
use std::io::Write;
use std::sync::RwLock;

/// What a secret is replaced by.
pub const REDACTED: &str = "‹redacted›";

/// The shortest value registered as a secret, in bytes.
pub const MIN_SECRET: usize = 4;

/// Every form of every secret registered in this process, longest first (so a secret that
/// contains another is replaced whole).
static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Registers `secret` (and its escaped forms) for redaction in everything written from now on.
pub fn register(secret: &str) {
    if secret.len() < MIN_SECRET {
        return;
    }
    let mut forms = vec![secret.to_owned()];
    if let Ok(json) = serde_json::to_string(secret) {
        forms.push(json[1..json.len() - 1].to_owned());
    }
    forms.push(html_escaped(secret));
    // XML writers (JUnit) spell the apostrophe as a named entity.
    forms.push(html_escaped(secret).replace("&#39;", "&apos;"));
    forms.push(
        secret
            .replace('|', "\\|")
            .replace('<', "&lt;")
            .replace('>', "&gt;"),
    );
    let Ok(mut secrets) = SECRETS.write() else {
        return;
    };
    for form in forms {
        if !secrets.contains(&form) {
            secrets.push(form);
        }
    }
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

fn html_escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// `text` with every registered secret replaced by [`REDACTED`].
pub fn text(text: &str) -> Cow<'_, str> {
    let Ok(secrets) = SECRETS.read() else {
        return Cow::Borrowed(text);
    };
    if !secrets.iter().any(|s| text.contains(s.as_str())) {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_owned();
    for secret in secrets.iter() {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), REDACTED);
        }
    }
    Cow::Owned(out)
}

/// The longest registered form, in bytes (0 when nothing is registered).
fn longest() -> usize {
    SECRETS
        .read()
        .map(|s| s.first().map_or(0, String::len))
        .unwrap_or(0)
}

/// A writer that redacts what passes through it. It holds back the last bytes of each write
/// (fewer than the longest secret) until it knows a secret does not start there, so a secret
/// split across two writes is still found; [`Writer::finish`] (or a flush) writes the rest.
#[derive(Debug)]
pub struct Writer<W: Write> {
    inner: W,
    held: Vec<u8>,
}

impl<W: Write> Writer<W> {
    pub fn new(inner: W) -> Self {
        Writer {
            inner,
            held: Vec::new(),
        }
    }

    /// Writes what is held back and returns the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.release_all()?;
        Ok(self.inner)
    }

    fn release_all(&mut self) -> std::io::Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        let text = String::from_utf8_lossy(&held);
        match text {
            // Not UTF-8: written as it came (a secret is text; the renderers write UTF-8).
            Cow::Owned(_) => self.inner.write_all(&held),
            Cow::Borrowed(t) => self.inner.write_all(self::text(t).as_bytes()),
        }
    }
}

impl<W: Write> Write for Writer<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let keep = longest().saturating_sub(1);
        if keep == 0 {
            self.release_all()?;
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        self.held.extend_from_slice(buf);
        if self.held.len() <= keep {
            return Ok(buf.len());
        }
        // Redact what is held, then keep back the tail that could start a secret (cut at a
        // character boundary).
        let held = std::mem::take(&mut self.held);
        let redacted: Vec<u8> = match std::str::from_utf8(&held) {
            Ok(t) => text(t).into_owned().into_bytes(),
            Err(e) => {
                // A multi-byte character cut at the end: redact up to it, keep the rest.
                let (valid, rest) = held.split_at(e.valid_up_to());
                let mut out = text(std::str::from_utf8(valid).unwrap_or_default())
                    .into_owned()
                    .into_bytes();
                out.extend_from_slice(rest);
                out
            }
        };
        let mut cut = redacted.len().saturating_sub(keep);
        while cut > 0 && cut < redacted.len() && (redacted[cut] & 0xC0) == 0x80 {
            cut -= 1;
        }
        self.inner.write_all(&redacted[..cut])?;
        self.held = redacted[cut..].to_vec();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.release_all()?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_secrets_are_replaced_in_every_escaped_form() {
        register("s3cr3t-token.abc");
        register("a\"b<c>|d");
        register("xyz"); // too short: left alone
        assert_eq!(
            text("Authorization: Bearer s3cr3t-token.abc"),
            "Authorization: Bearer ‹redacted›"
        );
        assert_eq!(text(r#"{"v":"a\"b<c>|d"}"#), r#"{"v":"‹redacted›"}"#);
        assert_eq!(text("a&quot;b&lt;c&gt;|d"), "‹redacted›");
        assert_eq!(text("a\"b&lt;c&gt;\\|d"), "‹redacted›");
        assert_eq!(text("xyz"), "xyz");
        assert!(matches!(text("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_writer_finds_a_secret_split_across_writes() {
        register("split-secret-0123456789");
        let mut w = Writer::new(Vec::new());
        w.write_all(b"before split-sec").unwrap();
        w.write_all(b"ret-01234").unwrap();
        w.write_all("56789 after é".as_bytes()).unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(out, "before ‹redacted› after é");
    }
}
