//! The test issuer's HTTP side: a small HTTP/1.1 server on a loopback listener (one request per
//! connection, `Connection: close`), with the routes the module doc of [`super`] lists. Every
//! read has a deadline and a size bound; a request with a `Host` that is not loopback is refused
//! (421), so a web page that rebinds a name to 127.0.0.1 cannot mint tokens.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{Issuer, TokenSpec};

/// How long one request may take to arrive.
const READ_WAIT: Duration = Duration::from_secs(5);
/// The largest request read (head and body).
const REQUEST_LIMIT: usize = 64 * 1024;

/// The running issuer: its URL, and a way to stop it (dropping the handle stops it too).
#[derive(Debug)]
pub struct IssuerHandle {
    pub issuer: Issuer,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl IssuerHandle {
    pub fn url(&self) -> &str {
        &self.issuer.url
    }
}

impl Drop for IssuerHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Serves `keys` on `listener` (bound to a loopback address by the caller) as the issuer at
/// `http://ADDR`, until the handle is dropped.
pub fn spawn(keys: Arc<super::Keys>, listener: TcpListener) -> std::io::Result<IssuerHandle> {
    let addr = listener.local_addr()?;
    let issuer = Issuer {
        url: format!("http://{addr}"),
        keys,
    };
    let (stop, mut stopped) = watch::channel(false);
    let serving = issuer.clone();
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    if let Ok((stream, _)) = accepted {
                        tokio::spawn(connection(serving.clone(), stream));
                    }
                }
                _ = stopped.changed() => return,
            }
        }
    });
    Ok(IssuerHandle {
        issuer,
        stop,
        task: Some(task),
    })
}

/// One parsed request.
struct Incoming {
    method: String,
    path: String,
    host: Option<String>,
    body: Vec<u8>,
}

async fn connection(issuer: Issuer, mut stream: TcpStream) {
    let deadline = tokio::time::Instant::now() + READ_WAIT;
    let (status, body) = match read_request(&mut stream, deadline).await {
        Ok(request) => route(&issuer, &request),
        Err(why) => (
            400,
            json!({"error": "invalid_request", "error_description": why}),
        ),
    };
    let body = body.to_string();
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        421 => "Misdirected Request",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = tokio::time::timeout(READ_WAIT, async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

async fn read_request(
    stream: &mut TcpStream,
    deadline: tokio::time::Instant,
) -> Result<Incoming, String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > REQUEST_LIMIT {
            return Err("request head too large".into());
        }
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Err(_) | Ok(Err(_)) => return Err("incomplete request".into()),
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let (method, target) = (
        first.next().unwrap_or_default(),
        first.next().unwrap_or("/"),
    );
    let mut host = None;
    let mut length = 0usize;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("host") {
            host = Some(value.to_owned());
        } else if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().map_err(|_| "bad Content-Length".to_owned())?;
        }
    }
    if length > REQUEST_LIMIT {
        return Err("request body too large".into());
    }
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Err(_) | Ok(Err(_)) => return Err("incomplete body".into()),
            Ok(Ok(n)) => body.extend_from_slice(&chunk[..n]),
        }
    }
    body.truncate(length);
    Ok(Incoming {
        method: method.to_owned(),
        path: target.split('?').next().unwrap_or("/").to_owned(),
        host,
        body,
    })
}

fn loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    name.eq_ignore_ascii_case("localhost")
        || name == "[::1]"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn route(issuer: &Issuer, request: &Incoming) -> (u16, Value) {
    if !request.host.as_deref().is_some_and(loopback_host) {
        return (
            421,
            json!({"error": "invalid_request", "error_description": "the test issuer answers loopback Host names only"}),
        );
    }
    match (request.method.as_str(), request.path.as_str()) {
        (
            "GET",
            "/.well-known/oauth-authorization-server" | "/.well-known/openid-configuration",
        ) => (200, issuer.metadata()),
        ("GET", "/jwks.json") => (200, issuer.keys.jwks()),
        ("POST", "/token") => token(issuer, &request.body),
        ("POST", "/mint") => mint(issuer, &request.body),
        (_, "/.well-known/oauth-authorization-server" | "/.well-known/openid-configuration")
        | (_, "/jwks.json" | "/token" | "/mint") => (
            405,
            json!({"error": "invalid_request", "error_description": "method not allowed"}),
        ),
        _ => (404, json!({"error": "not_found"})),
    }
}

/// `POST /token`: the client-credentials grant (RFC 6749 §4.4) with an RFC 8707 `resource`.
fn token(issuer: &Issuer, body: &[u8]) -> (u16, Value) {
    let form = form_pairs(&String::from_utf8_lossy(body));
    let field = |name: &str| {
        form.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if field("grant_type") != Some("client_credentials") {
        return (
            400,
            json!({"error": "unsupported_grant_type", "error_description": "only client_credentials"}),
        );
    }
    let Some(resource) = field("resource") else {
        return (
            400,
            json!({"error": "invalid_target", "error_description": "name the MCP server in `resource` (RFC 8707)"}),
        );
    };
    let spec = TokenSpec::right(resource, field("scope").unwrap_or_default());
    match issuer.mint(&spec) {
        Ok(token) => (
            200,
            json!({
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": spec.expires_in,
                "scope": spec.scope,
            }),
        ),
        Err(e) => (
            500,
            json!({"error": "server_error", "error_description": e}),
        ),
    }
}

/// `POST /mint`: a token of any content ([`TokenSpec`] as JSON), for mcpspec's checks.
fn mint(issuer: &Issuer, body: &[u8]) -> (u16, Value) {
    let spec: TokenSpec = match serde_json::from_slice(body) {
        Ok(spec) => spec,
        Err(e) => {
            return (
                400,
                json!({"error": "invalid_request", "error_description": e.to_string()}),
            );
        }
    };
    match issuer.mint(&spec) {
        Ok(token) => (200, json!({"access_token": token, "token_type": "Bearer"})),
        Err(e) => (
            500,
            json!({"error": "server_error", "error_description": e}),
        ),
    }
}

/// `application/x-www-form-urlencoded` pairs, percent-decoded (`+` is a space).
fn form_pairs(body: &str) -> Vec<(String, String)> {
    body.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(name), percent_decode(value))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    decode_escapes(text.replace('+', " ").as_bytes())
}

/// Replaces `%XX` escapes; a `%` not followed by two hex digits stays as it is.
fn decode_escapes(bytes: &[u8]) -> String {
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_forms() {
        assert_eq!(
            form_pairs(
                "grant_type=client_credentials&resource=http%3A%2F%2F127.0.0.1%3A8%2Fmcp&scope=a+b%"
            ),
            [
                ("grant_type".to_owned(), "client_credentials".to_owned()),
                ("resource".to_owned(), "http://127.0.0.1:8/mcp".to_owned()),
                ("scope".to_owned(), "a b%".to_owned()),
            ]
        );
    }

    #[test]
    fn loopback_hosts_only() {
        for ok in [
            "127.0.0.1:9000",
            "localhost",
            "LOCALHOST:1",
            "[::1]:80",
            "127.1.2.3",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in ["example.test", "10.0.0.1:80", "127.0.0.1.evil.test"] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }
}
