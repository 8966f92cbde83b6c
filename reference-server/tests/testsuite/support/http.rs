//! A raw HTTP/1.1 client over a tokio `TcpStream` for the streamable HTTP tests: requests are
//! written byte for byte (odd case, duplicates, bad characters all possible), responses parsed
//! by hand (Content-Length, chunked, or to EOF), SSE events split out. Every wait is bounded.

use std::net::SocketAddr;
use std::time::Duration;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_reference_server::{Config, HttpHandle, Server, from_fn};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::{WAIT, initialize, notification};

/// Starts an HTTP server with [`Server::new`]'s middleware on 127.0.0.1:0.
pub async fn start_http(config: Config) -> HttpHandle {
    start_http_server(Server::new(config)).await
}

pub async fn start_http_server(server: Server) -> HttpHandle {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    server.spawn_http(listener).unwrap()
}

/// One request, as bytes on the wire.
#[derive(Debug, Clone)]
pub struct Req {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Req {
    /// A request with `Host: 127.0.0.1` and `Connection: close`.
    pub fn new(method: &str, body: &[u8]) -> Self {
        Self {
            method: method.into(),
            path: "/mcp".into(),
            headers: vec![
                ("Host".into(), "127.0.0.1".into()),
                ("Connection".into(), "close".into()),
            ],
            body: body.to_vec(),
        }
    }

    /// A POST of `body` with the JSON content type and the Accept header a client sends.
    pub fn post(body: &[u8]) -> Self {
        Self::new("POST", body)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
    }

    /// A POST of a JSON-RPC message with no MCP headers.
    pub fn json(msg: &Value) -> Self {
        Self::post(msg.to_string().as_bytes())
    }

    /// A POST of a modern message with the headers it needs: `MCP-Protocol-Version` (from
    /// `_meta`), `Mcp-Method`, and `Mcp-Name` where the method has one.
    pub fn modern(msg: &Value) -> Self {
        let mut req = Self::json(msg);
        let version = msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
            .as_str()
            .unwrap_or(super::MODERN);
        req = req.header("MCP-Protocol-Version", version);
        if let Some(method) = msg["method"].as_str() {
            req = req.header("Mcp-Method", method);
            let name = match method {
                "tools/call" | "prompts/get" => msg["params"]["name"].as_str(),
                "resources/read" => msg["params"]["uri"].as_str(),
                _ => None,
            };
            if let Some(name) = name {
                req = req.header("Mcp-Name", name);
            }
        }
        req
    }

    /// Appends a header (a second one with the same name makes a duplicate).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Removes every header named `name` (ASCII case-insensitive).
    pub fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Replaces every header named `name` by one with `value`.
    pub fn set(self, name: &str, value: &str) -> Self {
        self.without(name).header(name, value)
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut out = format!("{} {} HTTP/1.1\r\n", self.method, self.path).into_bytes();
        for (name, value) in &self.headers {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        if !self.body.is_empty() || self.method == "POST" {
            out.extend_from_slice(format!("Content-Length: {}\r\n", self.body.len()).as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

/// A complete response.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON: the JSON body, or the last event of an SSE body.
    pub fn json(&self) -> Value {
        if self.content_type().starts_with("text/event-stream") {
            let events = self.events();
            let last = events
                .last()
                .unwrap_or_else(|| panic!("no events: {}", self.text()));
            return last.json();
        }
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}), status {}: {:?}", self.status, self.text()))
    }

    pub fn events(&self) -> Vec<Event> {
        parse_events(&self.text())
    }
}

/// One SSE event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|e| panic!("event data not JSON ({e}): {:?}", self.data))
    }
}

pub fn parse_events(text: &str) -> Vec<Event> {
    text.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(parse_event)
        .collect()
}

fn parse_event(block: &str) -> Event {
    let mut event = Event {
        id: None,
        event: None,
        data: String::new(),
    };
    let mut lines = Vec::new();
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => event.id = Some(value.into()),
            "event" => event.event = Some(value.into()),
            "data" => lines.push(value),
            _ => {}
        }
    }
    event.data = lines.join("\n");
    event
}

/// Sends `req` and reads the whole response (bounded by `WAIT`).
pub async fn send(addr: SocketAddr, req: &Req) -> Reply {
    send_bytes(addr, &req.bytes()).await
}

pub async fn send_bytes(addr: SocketAddr, bytes: &[u8]) -> Reply {
    tokio::time::timeout(WAIT, async {
        let mut stream = Stream::connect(addr, bytes).await;
        let body = stream.read_all().await;
        Reply {
            status: stream.status,
            headers: stream.headers,
            body,
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no complete response within {WAIT:?}"))
}

/// A response being read incrementally (SSE).
#[derive(Debug)]
pub struct Stream {
    reader: BufReader<TcpStream>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    chunked: bool,
    remaining: Option<usize>,
    done: bool,
    /// Decoded body bytes not yet returned as events.
    buf: Vec<u8>,
}

impl Stream {
    /// Sends `req` and reads the response head (bounded).
    pub async fn open(addr: SocketAddr, req: &Req) -> Stream {
        tokio::time::timeout(WAIT, Stream::connect(addr, &req.bytes()))
            .await
            .expect("no response head within WAIT")
    }

    async fn connect(addr: SocketAddr, bytes: &[u8]) -> Stream {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        tcp.write_all(bytes).await.unwrap();
        let mut reader = BufReader::new(tcp);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).await.unwrap();
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).await.unwrap();
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("header line");
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        let find = |name: &str| {
            headers
                .iter()
                .find(|(n, _): &&(String, String)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let chunked = find("transfer-encoding").is_some_and(|v| v.contains("chunked"));
        let remaining = find("content-length").and_then(|v| v.parse().ok());
        Stream {
            reader,
            status,
            headers,
            chunked,
            remaining,
            done: false,
            buf: Vec::new(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// More body bytes into `buf`; false at the end of the body.
    async fn fill(&mut self) -> bool {
        if self.done {
            return false;
        }
        if self.chunked {
            let mut size_line = String::new();
            if self.reader.read_line(&mut size_line).await.unwrap() == 0 {
                self.done = true;
                return false;
            }
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap(), 16)
                .unwrap_or_else(|_| panic!("bad chunk size {size_line:?}"));
            if size == 0 {
                let mut trailer = String::new();
                let _ = self.reader.read_line(&mut trailer).await;
                self.done = true;
                return false;
            }
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk).await.unwrap();
            chunk.truncate(size);
            self.buf.extend_from_slice(&chunk);
            return true;
        }
        if let Some(remaining) = self.remaining {
            if remaining == 0 {
                self.done = true;
                return false;
            }
            let mut chunk = vec![0; remaining.min(1 << 16)];
            let n = self.reader.read(&mut chunk).await.unwrap();
            if n == 0 {
                self.done = true;
                return false;
            }
            self.remaining = Some(remaining - n);
            self.buf.extend_from_slice(&chunk[..n]);
            return true;
        }
        let mut chunk = vec![0; 1 << 16];
        let n = self.reader.read(&mut chunk).await.unwrap();
        if n == 0 {
            self.done = true;
            return false;
        }
        self.buf.extend_from_slice(&chunk[..n]);
        true
    }

    /// The rest of the body.
    pub async fn read_all(&mut self) -> Vec<u8> {
        while self.fill().await {}
        std::mem::take(&mut self.buf)
    }

    /// The next SSE event, `None` at the end of the stream; panics after `WAIT`.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.next_event_within(WAIT)
            .await
            .unwrap_or_else(|| panic!("no event or end of stream within {WAIT:?}"))
    }

    /// `None` if nothing happened within `wait`; `Some(None)` at the end of the stream.
    pub async fn next_event_within(&mut self, wait: Duration) -> Option<Option<Event>> {
        tokio::time::timeout(wait, async {
            loop {
                let text = String::from_utf8_lossy(&self.buf).into_owned();
                if let Some(end) = text.find("\n\n") {
                    let block = text[..end].to_owned();
                    self.buf.drain(..end + 2);
                    if block.trim().is_empty() || block.lines().all(|l| l.starts_with(':')) {
                        continue;
                    }
                    return Some(parse_event(&block));
                }
                if !self.fill().await {
                    return None;
                }
            }
        })
        .await
        .ok()
    }
}

/// `initialize` at `version`, then `notifications/initialized`; returns the session id.
pub async fn legacy_session(addr: std::net::SocketAddr, version: &str) -> String {
    let reply = send(addr, &Req::json(&initialize(1, version, "http-test"))).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["result"]["protocolVersion"], version);
    let id = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let note = notification("notifications/initialized", json!({}));
    let reply = send(addr, &Req::json(&note).header("Mcp-Session-Id", &id)).await;
    assert_eq!(reply.status, 202);
    assert!(reply.body.is_empty());
    id
}

/// `initialize` at `version` only; returns the reply (with its `Mcp-Session-Id`, if any).
pub async fn legacy_initialize(addr: SocketAddr, version: &str) -> Reply {
    send(addr, &Req::json(&initialize(1, version, "http-test"))).await
}

/// What the slow middleware of [`slow_server`] went through with its request.
#[derive(Debug, Default)]
pub struct Slow {
    /// The request reached the middleware.
    pub started: AtomicBool,
    /// The middleware's 300 ms delay ran to its end.
    pub finished: AtomicBool,
    /// The middleware was dropped (its request cancelled) before its delay ended.
    pub cancelled: AtomicBool,
}

impl Slow {
    /// Polls until `done` holds, for up to [`WAIT`]; whether it did. A condition, never a
    /// fixed sleep: a loaded machine only makes this wait longer.
    pub async fn until(&self, done: impl Fn(&Slow) -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + WAIT;
        while !done(self) {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        true
    }

    /// The request's fate: it ran to its end, or it was cancelled (polled for up to [`WAIT`]).
    pub async fn settled(&self) -> (bool, bool) {
        self.until(|s| s.finished.load(Ordering::SeqCst) || s.cancelled.load(Ordering::SeqCst))
            .await;
        (
            self.finished.load(Ordering::SeqCst),
            self.cancelled.load(Ordering::SeqCst),
        )
    }
}

/// A middleware that takes 300 ms and records in `slow` whether it started, got to the end, or
/// was dropped before.
pub fn slow_server(config: Config, slow: Arc<Slow>) -> Server {
    /// Marks the request cancelled if the middleware is dropped before its delay ends.
    struct Dropped(Arc<Slow>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            if !self.0.finished.load(Ordering::SeqCst) {
                self.0.cancelled.store(true, Ordering::SeqCst);
            }
        }
    }
    Server::new(config).with_middleware(from_fn("slow", move |ctx, next| {
        let slow = slow.clone();
        async move {
            slow.started.store(true, Ordering::SeqCst);
            let dropped = Dropped(slow.clone());
            tokio::time::sleep(Duration::from_millis(300)).await;
            slow.finished.store(true, Ordering::SeqCst);
            drop(dropped);
            next.run(ctx).await
        }
    }))
}
