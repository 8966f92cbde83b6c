//! Credentials for HTTP targets: the `--header`, `--bearer`, `--bearer-env`, `--bearer-command`
//! and `--auth-issuer` flags every HTTP command takes (through `TargetArgs`), and what they make,
//! [`Credentials`]: the headers every request to the target carries.
//!
//! - `--header 'Name: value'` (repeatable): sent as is.
//! - `--bearer TOKEN`, `--bearer-env VAR`: `Authorization: Bearer TOKEN`.
//! - `--bearer-command CMD`: CMD runs once (through `sh -c`) when the credentials are made, and
//!   again when the server answers the token with 401 `error="invalid_token"` (a short-lived
//!   token expired), at most [`MAX_REFRESHES`] times a run; its stdout, trimmed, is the token.
//! - `--auth-issuer URL|DIR`: the built-in test issuer ([`super::issuer`]) mints the tokens the
//!   `auth/*` checks send; with no `--bearer*`, it also mints the run's own token: a right one
//!   for the target, with the scopes the server's challenge and metadata name.
//!
//! Every value is registered for redaction ([`super::redact`]) the moment it is known, and only
//! requests to the target's own endpoint carry it (`transport::http::client`).
//!
//! Imports `transport::http::client` (whose `Credentials` trait this implements), [`super::issuer`],
//! [`super::challenge`], [`super::discovery`] and [`super::redact`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::issuer::{Minter, TokenSpec};
use mcpspec_core::redact;
use mcpspec_core::transport::http::client::{self, CredentialsFuture, Endpoint};

/// The most times a `--bearer-command` is run again in one run.
pub const MAX_REFRESHES: u32 = 10;
/// How long a `--bearer-command` may take.
pub const COMMAND_WAIT: Duration = Duration::from_secs(30);
/// How long minting the run's token (and learning its scopes) may take.
const MINT_WAIT: Duration = Duration::from_secs(10);

/// The command-line flags of credentials, shared by every command that takes a target.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AuthArgs {
    /// HTTP only: a header sent with every request to the target, `Name: value` (an API key,
    /// say). Repeatable. Its value is redacted in everything mcpspec writes.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub header: Vec<String>,
    /// HTTP only: send `Authorization: Bearer TOKEN` with every request to the target. Prefer
    /// --bearer-env: a command line is visible to other users of the machine.
    #[arg(long, value_name = "TOKEN", conflicts_with_all = ["bearer_env", "bearer_command"])]
    pub bearer: Option<String>,
    /// HTTP only: the bearer token is the value of environment variable VAR.
    #[arg(long, value_name = "VAR", conflicts_with = "bearer_command")]
    pub bearer_env: Option<String>,
    /// HTTP only: the bearer token is what shell command CMD prints (trimmed). It runs once,
    /// and again when the server answers 401 `invalid_token` (an expired short-lived token).
    #[arg(long, value_name = "CMD")]
    pub bearer_command: Option<String>,
    /// HTTP only: the built-in test issuer (`mcpspec auth issuer`), by its URL or its keys
    /// directory. The `auth/*` checks send its tokens (expired, wrong audience, ...); without
    /// --bearer*, the run's own token is a right one it mints for the target.
    #[arg(long, value_name = "URL|DIR")]
    pub auth_issuer: Option<String>,
}

impl AuthArgs {
    /// Whether any credential flag was given.
    pub fn is_empty(&self) -> bool {
        self.header.is_empty()
            && self.bearer.is_none()
            && self.bearer_env.is_none()
            && self.bearer_command.is_none()
            && self.auth_issuer.is_none()
    }

    /// The credentials for the target at `url`; `None` when no flag was given. A usage error
    /// (a malformed header, an unset variable, a failing command, an issuer that is not there)
    /// as one line.
    pub fn credentials(&self, url: &str) -> Result<Option<Credentials>, String> {
        if self.is_empty() {
            return Ok(None);
        }
        let mut headers = Vec::new();
        for h in &self.header {
            headers.push(parse_header(h)?);
        }
        let bearer = if let Some(token) = &self.bearer {
            Some(Bearer::fixed(token.trim(), "--bearer")?)
        } else if let Some(var) = &self.bearer_env {
            let token = std::env::var(var).map_err(|_| {
                format!("--bearer-env {var}: the environment variable is not set (or not UTF-8)")
            })?;
            Some(Bearer::fixed(token.trim(), &format!("--bearer-env {var}"))?)
        } else if let Some(command) = &self.bearer_command {
            let token = run_command_blocking(command)?;
            Some(Bearer::from_command(command, token))
        } else {
            None
        };
        let issuer = match &self.auth_issuer {
            Some(arg) => Some(Arc::new(Minter::from_arg(arg)?)),
            None => None,
        };
        let bearer = match (bearer, &issuer) {
            (Some(b), _) => Some(b),
            (None, Some(_)) => Some(Bearer::minted()),
            (None, None) => None,
        };
        Ok(Some(Credentials {
            audience: url.to_owned(),
            headers,
            bearer,
            issuer,
        }))
    }
}

/// `Name: value`, the name a token and the value free of line breaks; both registered (the
/// value) for redaction.
fn parse_header(text: &str) -> Result<(String, String), String> {
    let Some((name, value)) = text.split_once(':') else {
        // The text is not echoed: it may be the secret itself.
        return Err("--header expects `Name: value` (this one has no `:`)".into());
    };
    let name = name.trim();
    let value = value.trim();
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(format!("--header: `{name}` is not a header name"));
    }
    if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return Err(format!(
            "--header {name}: the value has a line break or a NUL"
        ));
    }
    redact::register(value);
    Ok((name.to_owned(), value.to_owned()))
}

/// Where the bearer token comes from, and the one in use.
#[derive(Debug)]
struct Bearer {
    source: Source,
    current: tokio::sync::Mutex<Option<String>>,
    refreshes: AtomicU32,
}

#[derive(Debug)]
enum Source {
    /// `--bearer`, `--bearer-env`: never changes.
    Fixed,
    /// `--bearer-command`: run again after a 401 `invalid_token`.
    Command(String),
    /// Minted by the `--auth-issuer` on first use.
    Minted,
}

impl Bearer {
    fn fixed(token: &str, flag: &str) -> Result<Bearer, String> {
        check_token(token).map_err(|e| format!("{flag}: {e}"))?;
        redact::register(token);
        Ok(Bearer {
            source: Source::Fixed,
            current: tokio::sync::Mutex::new(Some(token.to_owned())),
            refreshes: AtomicU32::new(0),
        })
    }

    fn from_command(command: &str, token: String) -> Bearer {
        Bearer {
            source: Source::Command(command.to_owned()),
            current: tokio::sync::Mutex::new(Some(token)),
            refreshes: AtomicU32::new(0),
        }
    }

    fn minted() -> Bearer {
        Bearer {
            source: Source::Minted,
            current: tokio::sync::Mutex::new(None),
            refreshes: AtomicU32::new(0),
        }
    }
}

/// A bearer token must fit in a header: not empty, no whitespace or control character.
fn check_token(token: &str) -> Result<(), String> {
    if token.is_empty() {
        return Err("the token is empty".into());
    }
    if token
        .bytes()
        .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
    {
        return Err("the token has a space or a control character".into());
    }
    Ok(())
}

/// What every request to the target carries (see the module doc).
#[derive(Debug)]
pub struct Credentials {
    /// The `aud` of the token minted for the run: the target's URL.
    audience: String,
    headers: Vec<(String, String)>,
    bearer: Option<Bearer>,
    issuer: Option<Arc<Minter>>,
}

impl Credentials {
    /// Just `Authorization: Bearer TOKEN` (the `cargo test` builder's `bearer`).
    pub fn bearer(url: &str, token: &str) -> Result<Credentials, String> {
        Ok(Credentials {
            audience: url.to_owned(),
            headers: Vec::new(),
            bearer: Some(Bearer::fixed(token, "bearer")?),
            issuer: None,
        })
    }

    /// The test issuer that mints tokens for the `auth/*` checks, if one was given.
    pub fn issuer(&self) -> Option<&Minter> {
        self.issuer.as_deref()
    }

    /// Whether the run's token is the user's own (`--bearer*`), not one the issuer minted.
    #[cfg(test)]
    pub fn has_user_token(&self) -> bool {
        self.bearer
            .as_ref()
            .is_some_and(|b| !matches!(b.source, Source::Minted))
    }

    /// Whether the run sends a bearer token at all.
    pub fn has_bearer(&self) -> bool {
        self.bearer.is_some()
    }

    /// The run's bearer token (minting it on first use); `None` without one.
    pub async fn token(&self) -> Result<Option<String>, String> {
        let Some(bearer) = &self.bearer else {
            return Ok(None);
        };
        let mut current = bearer.current.lock().await;
        if let Some(token) = current.as_ref() {
            return Ok(Some(token.clone()));
        }
        let Some(minter) = &self.issuer else {
            return Err("no token and no --auth-issuer to mint one".into());
        };
        let deadline = tokio::time::Instant::now() + MINT_WAIT;
        let target = Endpoint::parse(&self.audience)?;
        let scopes = super::discovery::scopes_for(&target, deadline).await;
        let token = minter
            .mint(&TokenSpec::right(&self.audience, &scopes.join(" ")))
            .await?;
        *current = Some(token.clone());
        Ok(Some(token))
    }

    /// These credentials as the transport's trait object.
    pub fn into_shared(self) -> Arc<dyn client::Credentials> {
        Arc::new(self)
    }

    /// The concrete credentials behind an endpoint's trait object.
    pub fn of(endpoint: &Endpoint) -> Option<&Credentials> {
        endpoint.credentials.as_ref()?.as_any().downcast_ref()
    }
}

impl client::Credentials for Credentials {
    fn headers(&self) -> CredentialsFuture<'_, Result<Vec<(String, String)>, String>> {
        Box::pin(async move {
            let mut headers = self.headers.clone();
            if let Some(token) = self.token().await? {
                headers.push(("Authorization".into(), format!("Bearer {token}")));
            }
            Ok(headers)
        })
    }

    fn shown(&self) -> Vec<(String, String)> {
        let mut shown: Vec<(String, String)> = self
            .headers
            .iter()
            .map(|(n, _)| (n.clone(), redact::REDACTED.to_owned()))
            .collect();
        if self.bearer.is_some() {
            shown.push((
                "Authorization".into(),
                format!("Bearer {}", redact::REDACTED),
            ));
        }
        shown
    }

    fn rejected<'a>(
        &'a self,
        sent: &'a [(String, String)],
        challenges: &'a [String],
    ) -> CredentialsFuture<'a, bool> {
        Box::pin(async move {
            let Some(Bearer {
                source: Source::Command(command),
                current,
                refreshes,
            }) = &self.bearer
            else {
                return false;
            };
            let invalid_token = super::challenge::parse_all(challenges.iter().map(String::as_str))
                .ok()
                .and_then(|c| {
                    super::challenge::bearer(&c).map(|b| b.param("error") == Some("invalid_token"))
                })
                .unwrap_or(false);
            if !invalid_token {
                return false;
            }
            let Some(used) = sent
                .iter()
                .find(|(n, _)| n == "Authorization")
                .and_then(|(_, v)| v.strip_prefix("Bearer "))
            else {
                return false;
            };
            let mut current = current.lock().await;
            // Another request already got a fresh token: try that one.
            if current.as_deref() != Some(used) {
                return true;
            }
            if refreshes.fetch_add(1, Ordering::Relaxed) >= MAX_REFRESHES {
                return false;
            }
            match run_command(command).await {
                Ok(token) => {
                    *current = Some(token);
                    true
                }
                Err(_) => false,
            }
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Runs a `--bearer-command` now, for the run's first token (before any async runtime).
fn run_command_blocking(command: &str) -> Result<String, String> {
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("--bearer-command: cannot start `sh`: {e}"))?;
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < COMMAND_WAIT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "--bearer-command did not finish within {}",
                    mcpspec_core::text::seconds(COMMAND_WAIT)
                ));
            }
        }
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("--bearer-command: {e}"))?;
    token_from_output(
        output.status.success(),
        output.status.code(),
        &output.stdout,
        &output.stderr,
    )
}

/// Runs a `--bearer-command` again, for a fresh token.
async fn run_command(command: &str) -> Result<String, String> {
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("--bearer-command: cannot start `sh`: {e}"))?;
    match tokio::time::timeout(COMMAND_WAIT, child.wait_with_output()).await {
        Ok(Ok(output)) => token_from_output(
            output.status.success(),
            output.status.code(),
            &output.stdout,
            &output.stderr,
        ),
        Ok(Err(e)) => Err(format!("--bearer-command: {e}")),
        Err(_) => Err(format!(
            "--bearer-command did not finish within {}",
            mcpspec_core::text::seconds(COMMAND_WAIT)
        )),
    }
}

/// The token a command printed (registered for redaction), or why there is none.
fn token_from_output(
    success: bool,
    code: Option<i32>,
    stdout: &[u8],
    stderr: &[u8],
) -> Result<String, String> {
    let token = String::from_utf8_lossy(stdout).trim().to_owned();
    redact::register(&token);
    if !success {
        let stderr = String::from_utf8_lossy(stderr);
        let last = stderr.lines().last().unwrap_or("").trim();
        return Err(format!(
            "--bearer-command failed ({}){}",
            code.map_or("killed by a signal".into(), |c| format!("exit status {c}")),
            if last.is_empty() {
                String::new()
            } else {
                format!(
                    ": {}",
                    redact::text(&mcpspec_core::text::shorten(last, 200))
                )
            }
        ));
    }
    check_token(&token).map_err(|e| format!("--bearer-command printed no usable token: {e}"))?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_core::transport::http::client::Credentials as _;

    #[test]
    fn headers_are_checked_and_redacted() {
        assert_eq!(
            parse_header("X-Api-Key:  k3y-value-1 ").unwrap(),
            ("X-Api-Key".to_owned(), "k3y-value-1".to_owned())
        );
        assert_eq!(redact::text("key k3y-value-1"), "key ‹redacted›");
        assert!(parse_header("no colon").is_err());
        assert!(parse_header("Bad Name: x").is_err());
        assert!(parse_header("X: a\rb").is_err());
    }

    #[tokio::test]
    async fn a_bearer_flag_makes_an_authorization_header_shown_redacted() {
        let args = AuthArgs {
            bearer: Some("t0ken-from-flag".into()),
            header: vec!["X-Tenant: acme-tenant".into()],
            ..AuthArgs::default()
        };
        let c = args.credentials("http://127.0.0.1:1/mcp").unwrap().unwrap();
        assert!(c.has_user_token());
        assert_eq!(
            c.headers().await.unwrap(),
            [
                ("X-Tenant".to_owned(), "acme-tenant".to_owned()),
                (
                    "Authorization".to_owned(),
                    "Bearer t0ken-from-flag".to_owned()
                ),
            ]
        );
        assert_eq!(
            c.shown(),
            [
                ("X-Tenant".to_owned(), "‹redacted›".to_owned()),
                ("Authorization".to_owned(), "Bearer ‹redacted›".to_owned()),
            ]
        );
        assert!(
            AuthArgs::default()
                .credentials("http://x/")
                .unwrap()
                .is_none()
        );
        let unset = AuthArgs {
            bearer_env: Some("MCPSPEC_SURELY_UNSET_VARIABLE".into()),
            ..AuthArgs::default()
        };
        assert!(unset.credentials("http://x/").is_err());
    }

    #[tokio::test]
    async fn a_bearer_command_runs_again_after_invalid_token_only() {
        let dir = std::env::temp_dir().join(format!("mcpspec-bearer-cmd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let count = dir.join("count");
        // Prints token-1, token-2, … one more each run.
        let command = format!(
            "n=$(($(cat {0} 2>/dev/null || echo 0) + 1)); echo $n > {0}; echo cmd-token-$n",
            count.display()
        );
        let args = AuthArgs {
            bearer_command: Some(command),
            ..AuthArgs::default()
        };
        let c = args.credentials("http://127.0.0.1:1/mcp").unwrap().unwrap();
        let sent = c.headers().await.unwrap();
        assert_eq!(sent[0].1, "Bearer cmd-token-1");
        let other = vec![r#"Bearer error="insufficient_scope""#.to_owned()];
        assert!(!c.rejected(&sent, &other).await);
        let invalid = vec![r#"Bearer error="invalid_token""#.to_owned()];
        assert!(c.rejected(&sent, &invalid).await);
        assert_eq!(c.headers().await.unwrap()[0].1, "Bearer cmd-token-2");
        // A second request that failed with the old token uses the new one: no third run.
        assert!(c.rejected(&sent, &invalid).await);
        assert_eq!(std::fs::read_to_string(&count).unwrap().trim(), "2");
        let failing = AuthArgs {
            bearer_command: Some("echo oops >&2; exit 3".into()),
            ..AuthArgs::default()
        };
        let e = failing.credentials("http://x/").unwrap_err();
        assert!(e.contains("(exit status 3): oops"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
