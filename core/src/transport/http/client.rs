//! A minimal HTTP/1.1 client over a plain TCP socket, so checks can send exact header sets
//! (odd case, duplicates, bad characters, malformed requests) that HTTP libraries refuse.
//! One request per connection (`Connection: close`); every read has a deadline; bodies are
//! bounded. Redirects are never followed: a 3xx is the response.
//!
//! Credentials belong to the endpoint ([`Endpoint::credentials`]): every request [`send`]
//! makes to it carries them (unless the request is [`Request::anonymous`] or sets the header
//! itself), and only requests to that endpoint do: an endpoint parsed from any other URL has
//! none. What they are and how they are refreshed is `mcpspec::auth`'s, behind the
//! [`Credentials`] trait, so this module imports nothing above it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// A boxed future of the [`Credentials`] trait.
pub type CredentialsFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an endpoint's requests carry to be let in: headers whose values are secrets. Implemented
/// by `mcpspec::auth::Credentials`.
pub trait Credentials: std::fmt::Debug + Send + Sync {
    /// The headers to add, values in full (obtaining them may run a command or mint a token);
    /// an error says why they could not be had.
    fn headers(&self) -> CredentialsFuture<'_, Result<Vec<(String, String)>, String>>;

    /// The same headers as a transcript shows them: the values redacted.
    fn shown(&self) -> Vec<(String, String)>;

    /// The server answered a request that carried `sent` with 401 and these
    /// `WWW-Authenticate` values: whether fresh credentials were obtained, so the request is
    /// worth sending once more.
    fn rejected<'a>(
        &'a self,
        sent: &'a [(String, String)],
        challenges: &'a [String],
    ) -> CredentialsFuture<'a, bool>;

    /// The implementation, for the checks that need more than headers (its issuer).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// An HTTP endpoint: `http://HOST:PORT/PATH`, and the credentials its requests carry.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// `host:port`, as connected to and sent in `Host`.
    pub authority: String,
    pub path: String,
    /// Sent with every request to this endpoint (see the module doc).
    pub credentials: Option<Arc<dyn Credentials>>,
}

/// Endpoints are the same place when authority and path are; credentials do not count.
impl PartialEq for Endpoint {
    fn eq(&self, other: &Self) -> bool {
        self.authority == other.authority && self.path == other.path
    }
}

impl Eq for Endpoint {}

impl Endpoint {
    /// Parses an `http://` URL (no TLS: mcpspec tests loopback servers in plain HTTP).
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("`{url}`: only http:// URLs are supported"))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.is_empty() {
            return Err(format!("`{url}` has no host"));
        }
        if authority
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(format!(
                "`{url}`: the host has a space or control character"
            ));
        }
        let authority = if authority.contains(':') && !authority.ends_with(']') {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        // Host and port: a bracketed IPv6 literal must close, a host must be named and the
        // port must be a number a socket can have.
        let (host, port) = authority
            .rsplit_once(':')
            .ok_or_else(|| format!("`{url}` has no port"))?;
        if host.is_empty() || (host.starts_with('[') != host.ends_with(']')) {
            return Err(format!("`{url}` has no valid host"));
        }
        if !matches!(port.parse::<u16>(), Ok(p) if p > 0) {
            return Err(format!(
                "`{url}`: the port `{port}` is not between 1 and 65535"
            ));
        }
        Ok(Endpoint {
            authority,
            path: path.to_owned(),
            credentials: None,
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}{}", self.authority, self.path)
    }

    /// The host, without the port (a bracketed IPv6 literal keeps its brackets).
    pub fn host(&self) -> &str {
        self.authority
            .rsplit_once(':')
            .map_or(self.authority.as_str(), |(host, _)| host)
    }

    /// `http://host:port`: the origin (RFC 6454) the endpoint belongs to.
    pub fn origin(&self) -> String {
        format!("http://{}", self.authority)
    }

    /// Whether the host is a loopback name or address (`127.0.0.0/8`, `localhost`, `[::1]`).
    pub fn is_loopback(&self) -> bool {
        let host = self.host();
        host.eq_ignore_ascii_case("localhost")
            || host == "[::1]"
            || host
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The same endpoint with `credentials` on every request.
    pub fn with_credentials(mut self, credentials: Option<Arc<dyn Credentials>>) -> Self {
        self.credentials = credentials;
        self
    }
}

/// A request, byte-exact.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Header lines in order; values are raw bytes.
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// Whether to add `Host`, `Content-Length` and `Connection: close` automatically.
    pub auto_headers: bool,
    /// Whether the endpoint's credentials go with it (off: [`Request::anonymous`]).
    pub credentials: bool,
}

impl Request {
    pub fn new(method: &str) -> Self {
        Request {
            method: method.to_owned(),
            headers: Vec::new(),
            body: Vec::new(),
            auto_headers: true,
            credentials: true,
        }
    }

    /// Sent without the endpoint's credentials: what a client without a token sends.
    pub fn anonymous(mut self) -> Self {
        self.credentials = false;
        self
    }

    pub fn header(mut self, name: &str, value: impl Into<Vec<u8>>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// Removes every header with this name (case-insensitive).
    pub fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The bytes on the wire, as a transcript shows them: the endpoint's credentials with
    /// their values redacted.
    pub fn to_bytes(&self, endpoint: &Endpoint) -> Vec<u8> {
        let shown = match (&endpoint.credentials, self.credentials) {
            (Some(c), true) => c.shown(),
            _ => Vec::new(),
        };
        self.render(endpoint, &shown)
    }

    /// The bytes on the wire with `credentials` added (those whose header the request does not
    /// set itself).
    fn render(&self, endpoint: &Endpoint, credentials: &[(String, String)]) -> Vec<u8> {
        let mut out = format!("{} {} HTTP/1.1\r\n", self.method, endpoint.path).into_bytes();
        let has = |name: &str| {
            self.headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        if self.auto_headers && !has("host") {
            out.extend_from_slice(format!("Host: {}\r\n", endpoint.authority).as_bytes());
        }
        for (name, value) in credentials.iter().filter(|(n, _)| !has(n)) {
            out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        for (name, value) in &self.headers {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.extend_from_slice(b"\r\n");
        }
        if self.auto_headers {
            if !has("content-length") {
                out.extend_from_slice(
                    format!("Content-Length: {}\r\n", self.body.len()).as_bytes(),
                );
            }
            if !has("connection") {
                out.extend_from_slice(b"Connection: close\r\n");
            }
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

/// What went wrong at the HTTP level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    #[error("cannot connect to {0}: {1}")]
    Connect(String, String),
    #[error("no response within the deadline")]
    TimedOut,
    #[error("the connection closed before a complete response")]
    Closed,
    #[error("malformed response: {0}")]
    Malformed(String),
    #[error("a response larger than {0} bytes")]
    TooLarge(usize),
    #[error("the body was cut at {got} of {expected} bytes (the connection closed)")]
    Truncated { got: usize, expected: usize },
    #[error("i/o error: {0}")]
    Io(String),
    /// The endpoint's credentials could not be had (a `--bearer-command` failed, the issuer
    /// did not mint): nothing was sent.
    #[error("no credentials: {0}")]
    Credentials(String),
}

/// The status line and headers of a response, and a reader for its body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// The reason phrase of the status line, as sent (`Found`, `Internal Server Error`).
    pub reason: String,
    /// Header names lower-cased; values as sent (trimmed).
    pub headers: Vec<(String, String)>,
    body: BodyReader,
}

impl Response {
    /// The first value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn content_type(&self) -> String {
        self.header("content-type")
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    }

    pub fn is_event_stream(&self) -> bool {
        self.content_type() == "text/event-stream"
    }

    /// The next piece of the (de-chunked) body; `None` at its end.
    pub async fn chunk(&mut self, deadline: Instant) -> Result<Option<Vec<u8>>, HttpError> {
        self.body.next(deadline).await
    }

    /// The whole body, bounded by `limit` bytes.
    pub async fn body(&mut self, deadline: Instant, limit: usize) -> Result<Vec<u8>, HttpError> {
        let mut all = Vec::new();
        while let Some(c) = self.chunk(deadline).await? {
            all.extend_from_slice(&c);
            if all.len() > limit {
                return Err(HttpError::TooLarge(limit));
            }
        }
        Ok(all)
    }
}

/// Sends one request and reads the status line and headers. The endpoint's credentials go
/// with it (see the module doc); when the server answers them with 401 and fresh ones can be
/// had ([`Credentials::rejected`]), the request is sent once more with those.
pub async fn send(
    endpoint: &Endpoint,
    request: &Request,
    deadline: Instant,
) -> Result<Response, HttpError> {
    let credentials = match (&endpoint.credentials, request.credentials) {
        (Some(c), true) => Some(c),
        _ => None,
    };
    let Some(credentials) = credentials else {
        return send_bytes(endpoint, &request.render(endpoint, &[]), deadline).await;
    };
    let sent = credentials
        .headers()
        .await
        .map_err(HttpError::Credentials)?;
    let response = send_bytes(endpoint, &request.render(endpoint, &sent), deadline).await?;
    // Only a refusal of what the credentials themselves sent (not of a header the request set
    // in their place, a check's deliberately bad token) is a reason to refresh them.
    let own: Vec<(String, String)> = sent
        .into_iter()
        .filter(|(n, _)| {
            !request
                .headers
                .iter()
                .any(|(m, _)| m.eq_ignore_ascii_case(n))
        })
        .collect();
    if response.status != 401 || own.is_empty() {
        return Ok(response);
    }
    let sent = own;
    let challenges: Vec<String> = response
        .headers
        .iter()
        .filter(|(n, _)| n == "www-authenticate")
        .map(|(_, v)| v.clone())
        .collect();
    if !credentials.rejected(&sent, &challenges).await {
        return Ok(response);
    }
    let fresh = credentials
        .headers()
        .await
        .map_err(HttpError::Credentials)?;
    send_bytes(endpoint, &request.render(endpoint, &fresh), deadline).await
}

/// Sends raw bytes (possibly not valid HTTP) and reads the response head.
pub async fn send_bytes(
    endpoint: &Endpoint,
    bytes: &[u8],
    deadline: Instant,
) -> Result<Response, HttpError> {
    let connect = TcpStream::connect(&endpoint.authority);
    let mut stream = match tokio::time::timeout_at(deadline, connect).await {
        Err(_) => return Err(HttpError::TimedOut),
        Ok(Err(e)) => {
            return Err(HttpError::Connect(
                endpoint.authority.clone(),
                e.to_string(),
            ));
        }
        Ok(Ok(s)) => s,
    };
    let write = async {
        stream.write_all(bytes).await?;
        stream.flush().await
    };
    match tokio::time::timeout_at(deadline, write).await {
        Err(_) => return Err(HttpError::TimedOut),
        Ok(Err(e)) => return Err(HttpError::Io(e.to_string())),
        Ok(Ok(())) => {}
    }
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        // Say at once when the peer is not speaking HTTP (an SSH banner, a raw protocol).
        let prefix = &buf[..buf.len().min(5)];
        if !b"HTTP/".starts_with(prefix) {
            let first = buf.split(|&b| b == b'\n').next().unwrap_or_default();
            return Err(HttpError::Malformed(format!(
                "not an HTTP response: it starts {:?}",
                String::from_utf8_lossy(&first[..first.len().min(80)]).trim_end()
            )));
        }
        if buf.len() > MAX_HEAD {
            return Err(HttpError::TooLarge(MAX_HEAD));
        }
        let mut chunk = [0u8; 8192];
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            Err(_) => return Err(HttpError::TimedOut),
            Ok(Err(e)) => return Err(HttpError::Io(e.to_string())),
            Ok(Ok(0)) => return Err(HttpError::Closed),
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = std::str::from_utf8(&buf[..head_end])
        .map_err(|_| HttpError::Malformed("head is not UTF-8".into()))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status = parts
        .next()
        .filter(|code| code.len() == 3)
        .and_then(|code| code.parse::<u16>().ok())
        .filter(|_| version.starts_with("HTTP/1."))
        .ok_or_else(|| HttpError::Malformed(format!("malformed status line {status_line:?}")))?;
    let reason = parts.next().unwrap_or_default().trim().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let rest = buf[head_end + 4..].to_vec();
    let framing = if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked"))
    {
        Framing::Chunked
    } else if let Some((_, v)) = headers.iter().find(|(n, _)| n == "content-length") {
        Framing::Length(
            v.parse()
                .map_err(|_| HttpError::Malformed(format!("content-length {v:?}")))?,
        )
    } else if status == 204 || status == 304 || (100..200).contains(&status) {
        Framing::Length(0)
    } else {
        Framing::UntilClose
    };
    let expected = match framing {
        Framing::Length(n) => n,
        _ => 0,
    };
    Ok(Response {
        status,
        reason,
        headers,
        body: BodyReader {
            stream,
            pending: rest,
            framing,
            expected,
            done: false,
        },
    })
}

const MAX_HEAD: usize = 64 * 1024;

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[derive(Debug)]
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
}

#[derive(Debug)]
struct BodyReader {
    stream: TcpStream,
    /// Bytes read but not yet handed out (raw, still chunk-encoded if chunked).
    pending: Vec<u8>,
    framing: Framing,
    /// The `Content-Length`, for saying where a cut body ended.
    expected: usize,
    done: bool,
}

impl BodyReader {
    async fn fill(&mut self, deadline: Instant) -> Result<bool, HttpError> {
        let mut chunk = [0u8; 16384];
        match tokio::time::timeout_at(deadline, self.stream.read(&mut chunk)).await {
            Err(_) => Err(HttpError::TimedOut),
            Ok(Err(e)) => Err(HttpError::Io(e.to_string())),
            Ok(Ok(0)) => Ok(false),
            Ok(Ok(n)) => {
                self.pending.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
        }
    }

    async fn next(&mut self, deadline: Instant) -> Result<Option<Vec<u8>>, HttpError> {
        if self.done {
            return Ok(None);
        }
        match self.framing {
            Framing::Length(0) => {
                self.done = true;
                Ok(None)
            }
            Framing::Length(ref mut left) => {
                if self.pending.is_empty() {
                    let left_now = *left;
                    if !self.fill(deadline).await? {
                        return if left_now == 0 {
                            Ok(None)
                        } else {
                            Err(HttpError::Truncated {
                                got: self.expected - left_now,
                                expected: self.expected,
                            })
                        };
                    }
                }
                let Framing::Length(ref mut left) = self.framing else {
                    return Ok(None);
                };
                let take = self.pending.len().min(*left);
                let out: Vec<u8> = self.pending.drain(..take).collect();
                *left -= take;
                if *left == 0 {
                    self.done = true;
                }
                Ok(Some(out))
            }
            Framing::UntilClose => {
                if self.pending.is_empty() && !self.fill(deadline).await? {
                    self.done = true;
                    return Ok(None);
                }
                Ok(Some(std::mem::take(&mut self.pending)))
            }
            Framing::Chunked => loop {
                // A chunk: HEX-SIZE[;ext]\r\n DATA \r\n; size 0 ends the body.
                if let Some(line_end) = find(&self.pending, b"\r\n") {
                    let size_text = String::from_utf8_lossy(&self.pending[..line_end]).into_owned();
                    let size_hex = size_text.split(';').next().unwrap_or("").trim();
                    let size = usize::from_str_radix(size_hex, 16)
                        .map_err(|_| HttpError::Malformed(format!("chunk size {size_text:?}")))?;
                    if size == 0 {
                        self.done = true;
                        return Ok(None);
                    }
                    if self.pending.len() >= line_end + 2 + size + 2 {
                        let data = self.pending[line_end + 2..line_end + 2 + size].to_vec();
                        self.pending.drain(..line_end + 2 + size + 2);
                        return Ok(Some(data));
                    }
                }
                if !self.fill(deadline).await? {
                    return Err(HttpError::Closed);
                }
            },
        }
    }
}

/// `=?base64?…?=` encoding of a header value (HTTP-10).
pub fn base64_header(value: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = value.as_bytes();
    let mut out = String::from("=?base64?");
    for group in bytes.chunks(3) {
        let b = [
            group[0],
            *group.get(1).unwrap_or(&0),
            *group.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out.push_str("?=");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_endpoints() {
        let e = Endpoint::parse("http://127.0.0.1:8000/mcp").unwrap();
        assert_eq!(e.authority, "127.0.0.1:8000");
        assert_eq!(e.path, "/mcp");
        assert_eq!(
            Endpoint::parse("http://localhost/x").unwrap().authority,
            "localhost:80"
        );
        assert!(Endpoint::parse("https://x/y").is_err());
        for bad in [
            "http://127.0.0.1:99999/",
            "http://[::1",
            "http://:80/",
            "http://a b/",
            "http://127.0.0.1:0/",
        ] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Endpoint::parse("http://[::1]:8080/mcp").unwrap().authority,
            "[::1]:8080"
        );
    }

    /// Credentials that count how often a refusal was reported to them.
    #[derive(Debug, Default)]
    struct Counting(std::sync::atomic::AtomicUsize);

    impl Credentials for Counting {
        fn headers(&self) -> CredentialsFuture<'_, Result<Vec<(String, String)>, String>> {
            Box::pin(async { Ok(vec![("Authorization".into(), "Bearer run-token".into())]) })
        }
        fn shown(&self) -> Vec<(String, String)> {
            vec![("Authorization".into(), "Bearer ‹redacted›".into())]
        }
        fn rejected<'a>(
            &'a self,
            _sent: &'a [(String, String)],
            _challenges: &'a [String],
        ) -> CredentialsFuture<'a, bool> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Box::pin(async { false })
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    #[tokio::test]
    async fn credentials_go_with_requests_unless_anonymous_or_replaced() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (heads_tx, mut heads) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            loop {
                let (mut s, _) = listener.accept().await.unwrap();
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).await.unwrap();
                heads_tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .unwrap();
                let reply = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer \
                             error=\"invalid_token\"\r\nContent-Length: 0\r\n\r\n";
                s.write_all(reply.as_bytes()).await.unwrap();
            }
        });
        let counting = Arc::new(Counting::default());
        let endpoint = Endpoint::parse(&format!("http://{addr}/mcp"))
            .unwrap()
            .with_credentials(Some(counting.clone()));
        let deadline = Instant::now() + std::time::Duration::from_secs(2);
        let run = Request::new("POST");
        assert_eq!(send(&endpoint, &run, deadline).await.unwrap().status, 401);
        assert!(
            heads
                .recv()
                .await
                .unwrap()
                .contains("Authorization: Bearer run-token")
        );
        let own = Request::new("POST").header("Authorization", "Bearer mine");
        send(&endpoint, &own, deadline).await.unwrap();
        let head = heads.recv().await.unwrap();
        assert!(
            head.contains("Bearer mine") && !head.contains("run-token"),
            "{head}"
        );
        send(&endpoint, &Request::new("POST").anonymous(), deadline)
            .await
            .unwrap();
        assert!(!heads.recv().await.unwrap().contains("Authorization"));
        // Only the refusal of the credentials' own token is reported to them.
        assert_eq!(counting.0.load(std::sync::atomic::Ordering::Relaxed), 1);
        // A transcript shows the request with the value redacted.
        let shown = String::from_utf8(run.to_bytes(&endpoint)).unwrap();
        assert!(
            shown.contains("Authorization: Bearer ‹redacted›"),
            "{shown}"
        );
        // Another endpoint (a metadata URL on the same host) carries none.
        assert!(
            Endpoint::parse(&format!("http://{addr}/x"))
                .unwrap()
                .credentials
                .is_none()
        );
    }

    #[test]
    fn encodes_base64_header_values() {
        assert_eq!(base64_header("echo"), "=?base64?ZWNobw==?=");
        assert_eq!(base64_header("abc"), "=?base64?YWJj?=");
    }

    #[tokio::test]
    async fn reads_chunked_and_length_bodies() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            for reply in [
                &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"[..],
                &b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"[..],
            ] {
                let (mut s, _) = listener.accept().await.unwrap();
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf).await;
                s.write_all(reply).await.unwrap();
            }
        });
        let endpoint = Endpoint {
            authority: addr.to_string(),
            path: "/mcp".into(),
            credentials: None,
        };
        let deadline = Instant::now() + std::time::Duration::from_secs(2);
        let mut r = send(&endpoint, &Request::new("POST").body("{}"), deadline)
            .await
            .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.body(deadline, 100).await.unwrap(), b"abcde");
        let mut r = send(&endpoint, &Request::new("POST"), deadline)
            .await
            .unwrap();
        assert_eq!(r.status, 202);
        assert!(r.body(deadline, 100).await.unwrap().is_empty());
    }
}
