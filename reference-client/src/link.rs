//! How the reference client reaches its server: a stdio child (the harness's stdio transport)
//! or streamable HTTP (the harness's HTTP/1.1 client, one request per connection), both turned
//! into one stream of [`Incoming`] messages read with a deadline.
//!
//! Over HTTP every message is a POST whose headers the client sets itself (so its faults can
//! break them); each response body (JSON, or the events of an SSE stream) is read in its own
//! task into one queue, as is the legacy session's GET stream once it is opened. A response
//! that carries no JSON-RPC message comes out as an [`Incoming::Failure`] naming the request;
//! so does every 401, and a 403 with a `WWW-Authenticate` challenge, with the challenges (the
//! session's authorization reads them). Once the session has an access token ([`Bearer`]),
//! every request to the endpoint (POST, GET stream, DELETE) carries it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;

use mcpspec_core::transport::http::client::{self, Endpoint, Request};
use mcpspec_core::transport::http::sse::SseParser;
use mcpspec_core::transport::{LineTransport, Recv};
use mcpspec_core::wire::Frame;
use mcpspec_harness::target::Target;

/// How long one HTTP exchange (an SSE stream included) may take.
const EXCHANGE_CAP: Duration = Duration::from_secs(60);
/// Messages queued from HTTP responses before their readers wait.
const QUEUED: usize = 256;
/// How long the body of a refusal (401, 403) is read, and how much of it.
const REFUSAL_WAIT: Duration = Duration::from_secs(5);
const REFUSAL_BODY: usize = 64 * 1024;

/// What the client reads.
#[derive(Debug)]
pub enum Incoming {
    Message(Box<Frame>),
    /// An HTTP response without a JSON-RPC message, or a refusal (401, 403 with a challenge):
    /// its status (0: no response at all), what it said, the id of the request it answered,
    /// and its `WWW-Authenticate` values.
    Failure {
        status: u16,
        text: String,
        id: Option<Value>,
        challenges: Vec<String>,
    },
    Closed,
    TimedOut,
}

/// The HTTP headers of one POST, as the client decides them.
#[derive(Debug, Clone, Default)]
pub struct Headers(pub Vec<(String, String)>);

impl Headers {
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.0.push((name.to_owned(), value.into()));
    }
}

/// How the access token goes with every request to the endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bearer {
    /// `Authorization: Bearer <token>`.
    Header(String),
    /// `?access_token=<token>` on the endpoint's URL (the `token-in-query` fault).
    Query(String),
}

/// A connection to the server.
pub enum Link {
    Stdio(Box<LineTransport>),
    Http(HttpLink),
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Link::Stdio(_) => f.write_str("Link::Stdio"),
            Link::Http(h) => write!(f, "Link::Http({})", h.endpoint.url()),
        }
    }
}

impl Link {
    /// Opens a link to `peer`: a URL, or a command line that starts the server.
    pub fn open(peer: &str, stdio: bool, max_message: usize) -> Result<Link, String> {
        if stdio {
            let words = split_words(peer);
            let Some((program, args)) = words.split_first() else {
                return Err("an empty server command".into());
            };
            let target = Target::command(program.clone()).args(args.iter().cloned());
            return target
                .connect(max_message)
                .map(|t| Link::Stdio(Box::new(t)))
                .map_err(|e| e.to_string());
        }
        let endpoint = Endpoint::parse(peer)?;
        Ok(Link::Http(HttpLink::new(endpoint, max_message)))
    }

    /// Sends `message`; over HTTP with `headers` (stdio ignores them). A failed write is the
    /// error.
    pub async fn send(&mut self, message: &Value, headers: Headers) -> Result<(), String> {
        match self {
            Link::Stdio(t) => {
                let bytes = mcpspec_core::wire::encode_value(message);
                t.send(&bytes, Instant::now() + Duration::from_secs(10))
                    .await
                    .map_err(|e| e.to_string())
            }
            Link::Http(h) => h.post(message, headers).await,
        }
    }

    /// The next message, failure or end, waiting until `deadline`.
    pub async fn next(&mut self, deadline: Instant) -> Incoming {
        match self {
            Link::Stdio(t) => match t.recv(deadline).await {
                Recv::Line(line) => Incoming::Message(Box::new(Frame::decode_owned(line))),
                Recv::Exchange(exchange) => Incoming::Message(Box::new(exchange.into_frame())),
                Recv::Overflow { head, limit } => {
                    Incoming::Message(Box::new(Frame::oversized(&head, limit)))
                }
                Recv::Closed => Incoming::Closed,
                Recv::TimedOut => Incoming::TimedOut,
            },
            Link::Http(h) => match tokio::time::timeout_at(deadline, h.queue.recv()).await {
                Ok(Some(incoming)) => incoming,
                Ok(None) => Incoming::Closed,
                Err(_) => Incoming::TimedOut,
            },
        }
    }

    /// Ends the link: stdio closes the server's input and waits a moment for it to exit.
    pub async fn close(&mut self) {
        if let Link::Stdio(t) = self {
            t.close_input().await;
            let _ = t.wait_exit(Duration::from_secs(2)).await;
            t.terminate(Duration::from_secs(1)).await;
        }
    }

    pub fn http(&mut self) -> Option<&mut HttpLink> {
        match self {
            Link::Http(h) => Some(h),
            Link::Stdio(_) => None,
        }
    }
}

/// Streamable HTTP: the endpoint, the session the server minted, and the queue every response
/// feeds.
pub struct HttpLink {
    pub endpoint: Endpoint,
    /// The endpoint's path as given (before an access token in its query).
    path: String,
    bearer: Option<Bearer>,
    /// `Mcp-Session-Id` from the last `initialize` response.
    pub session: Arc<Mutex<Option<String>>>,
    queue: mpsc::Receiver<Incoming>,
    sender: mpsc::Sender<Incoming>,
    readers: JoinSet<()>,
    max_message: usize,
}

impl HttpLink {
    fn new(endpoint: Endpoint, max_message: usize) -> Self {
        let (sender, queue) = mpsc::channel(QUEUED);
        Self {
            path: endpoint.path.clone(),
            endpoint,
            bearer: None,
            session: Arc::default(),
            queue,
            sender,
            readers: JoinSet::new(),
            max_message,
        }
    }

    pub fn session_id(&self) -> Option<String> {
        self.session.lock().ok().and_then(|s| s.clone())
    }

    /// Forgets the session (after a 404), so the next `initialize` starts a new one.
    pub fn forget_session(&mut self) {
        if let Ok(mut s) = self.session.lock() {
            *s = None;
        }
    }

    /// From now on every request carries `bearer`.
    pub fn set_bearer(&mut self, bearer: Bearer) {
        self.endpoint.path = match &bearer {
            Bearer::Header(_) => self.path.clone(),
            Bearer::Query(token) => {
                let joiner = if self.path.contains('?') { '&' } else { '?' };
                format!("{}{joiner}access_token={}", self.path, query_encoded(token))
            }
        };
        self.bearer = Some(bearer);
    }

    /// `request` with the access token's header, when it goes in one.
    fn authorized(&self, request: Request) -> Request {
        match &self.bearer {
            Some(Bearer::Header(token)) => {
                request.header("Authorization", format!("Bearer {token}"))
            }
            _ => request,
        }
    }

    /// POSTs `message`. A request's exchange runs in the background (its reply joins the
    /// queue; the server's requests meanwhile still reach the client); a notification's or a
    /// reply's is awaited, so the messages that follow it arrive after it.
    async fn post(&mut self, message: &Value, headers: Headers) -> Result<(), String> {
        let mut request = Request::new("POST")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(serde_json::to_vec(message).unwrap_or_default());
        for (n, v) in headers.0 {
            request = request.header(&n, v);
        }
        let request = self.authorized(request);
        // The exchanges that ended are let go of, so a long run keeps no trace of each.
        while self.readers.try_join_next().is_some() {}
        let id = message
            .get("method")
            .and_then(|_| message.get("id"))
            .cloned();
        let exchange = Exchange {
            endpoint: self.endpoint.clone(),
            request,
            initialize: message.get("method").and_then(Value::as_str) == Some("initialize"),
            session: self.session.clone(),
            sender: self.sender.clone(),
            max: self.max_message,
        };
        match id {
            Some(id) => {
                self.readers.spawn(exchange.run(Some(id)));
            }
            None => exchange.run(None).await,
        }
        Ok(())
    }

    /// Opens the legacy session's GET stream; its messages join the queue.
    pub async fn open_get_stream(&mut self, headers: Headers) {
        let mut request = Request::new("GET").header("Accept", "text/event-stream");
        for (n, v) in headers.0 {
            request = request.header(&n, v);
        }
        let request = self.authorized(request);
        let deadline = Instant::now() + EXCHANGE_CAP;
        let Ok(response) = client::send(&self.endpoint, &request, deadline).await else {
            return;
        };
        if !(200..300).contains(&response.status) || !response.is_event_stream() {
            return;
        }
        let sender = self.sender.clone();
        let max = self.max_message;
        self.readers
            .spawn(read_body(response, None, sender, max, deadline));
    }

    /// Sends `DELETE` with `headers`; its status (0 when nothing came back).
    pub async fn delete(&self, headers: Headers) -> u16 {
        let mut request = Request::new("DELETE");
        for (n, v) in headers.0 {
            request = request.header(&n, v);
        }
        let request = self.authorized(request);
        let deadline = Instant::now() + Duration::from_secs(5);
        client::send(&self.endpoint, &request, deadline)
            .await
            .map_or(0, |r| r.status)
    }
}

/// One POST and its response, read into the queue.
struct Exchange {
    endpoint: Endpoint,
    request: Request,
    /// An `initialize`: the session id of its response is kept (before its reply is queued,
    /// so the client knows it once it reads the reply).
    initialize: bool,
    session: Arc<Mutex<Option<String>>>,
    sender: mpsc::Sender<Incoming>,
    max: usize,
}

impl Exchange {
    async fn run(self, id: Option<Value>) {
        let deadline = Instant::now() + EXCHANGE_CAP;
        let response = match client::send(&self.endpoint, &self.request, deadline).await {
            Ok(r) => r,
            Err(e) => {
                let failure = Incoming::Failure {
                    status: 0,
                    text: e.to_string(),
                    id,
                    challenges: Vec::new(),
                };
                let _ = self.sender.send(failure).await;
                return;
            }
        };
        if self.initialize {
            if let (Some(minted), Ok(mut s)) =
                (response.header("mcp-session-id"), self.session.lock())
            {
                *s = Some(minted.to_owned());
            }
        }
        let challenges: Vec<String> = response
            .headers
            .iter()
            .filter(|(n, _)| n == "www-authenticate")
            .map(|(_, v)| v.clone())
            .collect();
        if response.status == 401 || (response.status == 403 && !challenges.is_empty()) {
            let wait = deadline.min(Instant::now() + REFUSAL_WAIT);
            let mut response = response;
            let body = response.body(wait, REFUSAL_BODY).await.unwrap_or_default();
            let failure = Incoming::Failure {
                status: response.status,
                text: mcpspec_core::text::shorten(String::from_utf8_lossy(&body).trim(), 200),
                id,
                challenges,
            };
            let _ = self.sender.send(failure).await;
            return;
        }
        read_body(response, id, self.sender, self.max, deadline).await;
    }
}

/// Reads one response body into the queue: each JSON-RPC message of it, or one failure.
async fn read_body(
    mut response: client::Response,
    id: Option<Value>,
    sender: mpsc::Sender<Incoming>,
    max: usize,
    deadline: Instant,
) {
    let status = response.status;
    if response.is_event_stream() {
        let mut parser = SseParser::new(max);
        while let Ok(Some(chunk)) = response.chunk(deadline).await {
            let Ok(events) = parser.feed(&chunk) else {
                return;
            };
            for e in events.into_iter().filter(|e| !e.data.is_empty()) {
                let frame = Frame::decode_owned(e.data.into_bytes());
                if sender
                    .send(Incoming::Message(Box::new(frame)))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
        return;
    }
    let body = response.body(deadline, max).await.unwrap_or_default();
    let json = serde_json::from_slice::<Value>(&body).ok();
    let incoming = match json {
        Some(j) if j.is_object() || j.is_array() => {
            Incoming::Message(Box::new(Frame::decode_owned(body)))
        }
        _ if status == 202 && id.is_none() => return,
        _ => Incoming::Failure {
            status,
            text: mcpspec_core::text::shorten(String::from_utf8_lossy(&body).trim(), 200),
            id,
            challenges: Vec::new(),
        },
    };
    let _ = sender.send(incoming).await;
}

/// `token` percent-encoded for a query (everything but RFC 3986's unreserved characters).
fn query_encoded(token: &str) -> String {
    token
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// Splits a command line into words: whitespace separates, single quotes keep what they hold
/// (as `shell_quote` writes them, `'\''` included), double quotes and backslashes as a shell's.
pub fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words("/a/mcpspec client peer 127.0.0.1:1 'x y' 'it'\\''s'"),
            ["/a/mcpspec", "client", "peer", "127.0.0.1:1", "x y", "it's"]
        );
        assert_eq!(split_words("  a \"b c\" ''  "), ["a", "b c", ""]);
    }
}
