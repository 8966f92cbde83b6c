//! Streamable HTTP as a line transport: every line the driver writes becomes one POST to the
//! endpoint, and every JSON-RPC message that comes back (a JSON body, or each SSE event of an
//! event-stream body) becomes one line to read. So every check written against stdio runs
//! unchanged over HTTP; the `http/*` checks use [`client`] directly for exact header sets.
//!
//! A response that is an SSE stream is read as it arrives: each event becomes a line when it
//! is parsed, so a long-lived stream (a `subscriptions/listen` request's) delivers its
//! notifications while it stays open. The driver can close one request's stream
//! ([`LineTransport::close_stream`](super::LineTransport::close_stream)): its exchange is
//! dropped and its TCP connection closed, which is how an HTTP client cancels a listen stream
//! (SUB-7). Every exchange still open ends with the transport.
//!
//! Headers follow the body, as a conforming client sends them: modern requests get
//! `MCP-Protocol-Version`, `Mcp-Method` and (for tools/call, resources/read, prompts/get)
//! `Mcp-Name`; legacy requests get the negotiated `MCP-Protocol-Version` and the
//! `Mcp-Session-Id` the server minted on `initialize`.

pub mod client;
pub mod sse;

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWrite;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use self::client::{Endpoint, HttpError, Request};
use super::{Exchange, ExchangeBody, HttpContext, LineTransport, Recv, ServerHandle};

/// How long one HTTP exchange may take in all (an SSE stream included).
const EXCHANGE_CAP: Duration = Duration::from_secs(30);

/// Events waiting for the driver. Bounded, so a server that streams events faster than the
/// driver reads them is slowed down (TCP backpressure) instead of filling memory.
const EVENTS_QUEUED: usize = 64;

/// Legacy session state learned from responses, and the era the driver speaks.
#[derive(Debug, Default)]
struct Session {
    id: Option<String>,
    version: Option<String>,
    /// The driver speaks the modern era on this connection: every message gets the modern
    /// headers, even one whose body breaks the envelope on purpose (POL-1: one rule broken at
    /// a time).
    modern: Option<bool>,
    /// The exchanges of requests still in flight, by request id (compact JSON): what closes
    /// each one's response stream. Bounded by the requests in flight: an exchange removes its
    /// own entry when it ends.
    streams: HashMap<String, (u64, oneshot::Sender<()>)>,
    /// Numbers the exchanges, so one that ends never removes a later one with the same id.
    exchanges: u64,
}

impl Session {
    /// Registers a request's exchange; the number that unregisters it and what tells it to stop.
    fn open_stream(&mut self, id: &Value) -> (u64, oneshot::Receiver<()>) {
        let (close, closed) = oneshot::channel();
        self.exchanges += 1;
        self.streams.insert(id.to_string(), (self.exchanges, close));
        (self.exchanges, closed)
    }

    fn stream_ended(&mut self, id: &Value, number: u64) {
        let key = id.to_string();
        if self.streams.get(&key).is_some_and(|(n, _)| *n == number) {
            self.streams.remove(&key);
        }
    }
}

/// What the driver tells an HTTP transport: the era it speaks, and which request's stream to
/// close. Every exchange of the transport ends when this is dropped (with the transport).
#[derive(Debug)]
pub struct EraHint {
    session: Arc<Mutex<Session>>,
    /// Never sent on: its drop is the signal.
    _alive: watch::Sender<()>,
}

impl EraHint {
    pub fn set_modern(&self, modern: bool) {
        if let Ok(mut s) = self.session.lock() {
            s.modern = Some(modern);
        }
    }

    /// Closes the response stream of request `id` (its connection is dropped); whether one was
    /// still open.
    pub fn close_stream(&self, id: &Value) -> bool {
        let Ok(mut s) = self.session.lock() else {
            return false;
        };
        match s.streams.remove(&id.to_string()) {
            Some((_, close)) => close.send(()).is_ok(),
            None => false,
        }
    }
}

/// Opens a line transport to `endpoint`.
pub fn connect(endpoint: Endpoint, max_message: usize) -> LineTransport {
    let session = Arc::new(Mutex::new(Session::default()));
    let (alive_tx, alive) = watch::channel(());
    let (events_tx, events) = mpsc::channel::<Recv>(EVENTS_QUEUED);
    let writer = HttpWriter {
        endpoint: Arc::new(endpoint),
        session: session.clone(),
        events: events_tx,
        buf: Vec::new(),
        max_message,
        alive,
    };
    LineTransport::over_exchanges(Box::new(writer), events, ServerHandle::remote()).with_era_hint(
        EraHint {
            session,
            _alive: alive_tx,
        },
    )
}

/// Turns written lines into POSTs.
struct HttpWriter {
    endpoint: Arc<Endpoint>,
    session: Arc<Mutex<Session>>,
    /// Where every exchange posts what it brought back, each event whole.
    events: mpsc::Sender<Recv>,
    buf: Vec<u8>,
    max_message: usize,
    /// Ends when the transport is dropped.
    alive: watch::Receiver<()>,
}

impl AsyncWrite for HttpWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.buf.extend_from_slice(data);
        while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=i).take(i).collect();
            let (endpoint, session, events, max, mut alive) = (
                self.endpoint.clone(),
                self.session.clone(),
                self.events.clone(),
                self.max_message,
                self.alive.clone(),
            );
            let id = request_id(&line);
            let registered = match (&id, session.lock()) {
                (Some(id), Ok(mut s)) => Some(s.open_stream(id)),
                _ => None,
            };
            tokio::spawn(async move {
                let (number, closed) = match registered {
                    Some((number, closed)) => (number, Some(closed)),
                    None => (0, None),
                };
                let closed = async move {
                    let told = match closed {
                        Some(closed) => closed.await.is_ok(),
                        None => false,
                    };
                    // Not a request, or its sender dropped (a later request reused the id):
                    // nothing closes this exchange but its end or the transport's.
                    if !told {
                        std::future::pending::<()>().await;
                    }
                };
                tokio::select! {
                    () = exchange(&endpoint, &session, &events, line, max) => {}
                    () = closed => {}
                    // `changed` fails only once the transport (the sender) is gone.
                    _ = alive.changed() => {}
                }
                if let (Some(id), Ok(mut s)) = (&id, session.lock()) {
                    s.stream_ended(id, number);
                }
            });
        }
        Poll::Ready(Ok(data.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The headers a conforming client sends with this body.
fn headers_for(body: &[u8], session: &Session) -> Vec<(String, String)> {
    let mut h = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        (
            "Accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
    ];
    let json: Option<Value> = serde_json::from_slice(body).ok();
    let method = json
        .as_ref()
        .and_then(|j| j.get("method"))
        .and_then(Value::as_str);
    let modern_version = json
        .as_ref()
        .and_then(|j| j.pointer("/params/_meta"))
        .and_then(|m| m.get(crate::protocol::meta::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let modern_version = match (modern_version, session.modern) {
        (Some(v), _) => Some(v),
        (None, Some(true)) if method.is_some() => Some(crate::protocol::version::MODERN),
        (None, _) => None,
    };
    match (modern_version, method) {
        (Some(v), _) => {
            h.push(("MCP-Protocol-Version".into(), v.to_owned()));
            if let Some(m) = method {
                h.push(("Mcp-Method".into(), m.to_owned()));
                let name = match m {
                    "tools/call" | "prompts/get" => {
                        json.as_ref().and_then(|j| j.pointer("/params/name"))
                    }
                    "resources/read" => json.as_ref().and_then(|j| j.pointer("/params/uri")),
                    _ => None,
                };
                if let Some(n) = name.and_then(Value::as_str) {
                    h.push(("Mcp-Name".into(), n.to_owned()));
                }
            }
        }
        (None, m) => {
            if m != Some(crate::protocol::method::INITIALIZE) {
                if let Some(v) = &session.version {
                    h.push(("MCP-Protocol-Version".into(), v.clone()));
                }
                if let Some(id) = &session.id {
                    h.push(("Mcp-Session-Id".into(), id.clone()));
                }
            }
        }
    }
    h
}

async fn exchange(
    endpoint: &Endpoint,
    session: &Mutex<Session>,
    events: &mpsc::Sender<Recv>,
    body: Vec<u8>,
    max: usize,
) {
    let headers = session
        .lock()
        .map(|s| headers_for(&body, &s))
        .unwrap_or_default();
    let posted: Option<Value> = serde_json::from_slice(&body).ok();
    let is_initialize = posted.as_ref().is_some_and(|j| {
        j.get("method").and_then(Value::as_str) == Some(crate::protocol::method::INITIALIZE)
    });
    let request_id = posted.as_ref().and_then(id_of_request);
    // A notification's or a response's exchange is judged by its status (HTTP-3). Anything
    // else expected a JSON-RPC reply: a request, and a body that is not a JSON object at all
    // (invalid JSON, a batch), so what came instead of one is said, never read as silence.
    let judged_by_status = posted.as_ref().is_some_and(|j| {
        let has = |k: &str| j.get(k).is_some();
        (has("method") && !has("id")) || (!has("method") && (has("result") || has("error")))
    });
    let request_id = &request_id;
    let fail = |status: u16, why: String| async move {
        if request_id.is_some() || !judged_by_status {
            let http = HttpContext {
                status,
                request_id: request_id.clone(),
            };
            let failed = ExchangeBody::Failed(why.replace(['\n', '\r'], " "));
            let _ = events
                .send(Recv::Exchange(Exchange { http, body: failed }))
                .await;
        }
    };
    let mut request = Request::new("POST").body(body);
    for (n, v) in headers {
        request = request.header(&n, v);
    }
    let deadline = Instant::now() + EXCHANGE_CAP;
    let mut response = match client::send(endpoint, &request, deadline).await {
        Ok(r) => r,
        // Nothing came back in time: the driver reports the missing reply as a timeout.
        Err(HttpError::TimedOut) => return,
        Err(e) => return fail(0, e.to_string()).await,
    };
    if is_initialize {
        if let (Some(id), Ok(mut s)) = (
            response.header("mcp-session-id").map(str::to_owned),
            session.lock(),
        ) {
            s.id = Some(id);
        }
    }
    let status = response.status;
    if response.is_event_stream() {
        let mut parser = sse::SseParser::new(max);
        loop {
            let chunk = match response.chunk(deadline).await {
                Ok(Some(chunk)) => chunk,
                Ok(None) | Err(HttpError::TimedOut) => return,
                Err(e) => {
                    return fail(
                        status,
                        format!("{}: the event stream broke: {e}", status_text(&response)),
                    )
                    .await;
                }
            };
            let parsed = match parser.feed(&chunk) {
                Ok(parsed) => parsed,
                Err(e) => return fail(status, format!("{}: {e}", status_text(&response))).await,
            };
            // An event without data (a 2025-11-25 priming event, a keep-alive) is no message
            // (POL-27).
            for e in parsed.into_iter().filter(|e| !e.data.is_empty()) {
                note_version(session, is_initialize, e.data.as_bytes());
                if events
                    .send(message(status, request_id, e.data.into_bytes(), max))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
    }
    let bytes = match response.body(deadline, max).await {
        Ok(bytes) => bytes,
        Err(HttpError::TimedOut) => return,
        Err(e) => return fail(status, format!("{}: {e}", status_text(&response))).await,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return fail(
            status,
            format!("{} with an empty body", status_text(&response)),
        )
        .await;
    }
    let is_json = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok();
    if !is_json && !(200..300).contains(&status) {
        let why = format!(
            "{} with a {} body: {}",
            status_text(&response),
            match response.content_type() {
                t if t.is_empty() => "non-JSON".to_owned(),
                t => t,
            },
            crate::text::shorten(String::from_utf8_lossy(&bytes).trim(), 100)
        );
        return fail(status, why).await;
    }
    note_version(session, is_initialize, &bytes);
    let _ = events.send(message(status, request_id, bytes, max)).await;
}

/// The id of a posted request. Requests carry an id; responses the driver posts (to server
/// requests) do too, but they are not answered, so only a message with a method counts.
fn request_id(body: &[u8]) -> Option<Value> {
    id_of_request(&serde_json::from_slice(body).ok()?)
}

fn id_of_request(posted: &Value) -> Option<Value> {
    posted.get("method")?;
    posted.get("id").cloned()
}

/// `HTTP 302 Found (a redirect to /mcp)`: the status line as a verdict quotes it.
fn status_text(response: &client::Response) -> String {
    let mut text = format!("HTTP {}", response.status);
    if !response.reason.is_empty() {
        text.push(' ');
        text.push_str(&response.reason);
    }
    if (300..400).contains(&response.status) {
        match response.header("location") {
            Some(to) => text.push_str(&format!(" (a redirect, Location: {to})")),
            None => text.push_str(" (a redirect without a Location header)"),
        }
    }
    text
}

/// A message an exchange brought back, as the event the driver reads: past the bound only its
/// head is kept, as a line reader keeps it.
fn message(status: u16, request_id: &Option<Value>, bytes: Vec<u8>, max: usize) -> Recv {
    if bytes.len() > max {
        let head = bytes[..crate::wire::OVERSIZED_HEAD.min(max)].to_vec();
        return Recv::Overflow { limit: max, head };
    }
    Recv::Exchange(Exchange {
        http: HttpContext {
            status,
            request_id: request_id.clone(),
        },
        body: ExchangeBody::Message(bytes),
    })
}

/// Remembers the negotiated legacy version from an InitializeResult.
fn note_version(session: &Mutex<Session>, is_initialize: bool, body: &[u8]) {
    if !is_initialize {
        return;
    }
    let version = serde_json::from_slice::<Value>(body).ok().and_then(|j| {
        j.pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    if let (Some(v), Ok(mut s)) = (version, session.lock()) {
        s.version = Some(v);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A loopback endpoint that answers one POST with `status` and `body`, byte for byte.
    async fn answering_once(status: &'static str, body: &'static [u8]) -> Endpoint {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            // The request head and its small body arrive well within one read here.
            let mut request = vec![0; 64 * 1024];
            let _ = socket.read(&mut request).await;
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body).await;
        });
        Endpoint::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap()
    }

    async fn first_event(endpoint: Endpoint) -> Recv {
        let mut transport = connect(endpoint, 1 << 20);
        let soon = Instant::now() + Duration::from_secs(5);
        transport
            .send(
                b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n",
                soon,
            )
            .await
            .unwrap();
        transport.recv(soon).await
    }

    #[tokio::test]
    async fn a_body_arrives_as_the_server_wrote_it_with_its_exchange() {
        // A raw line break inside a JSON string: invalid JSON, and it must stay so (a transport
        // that made a line of it by turning the break into a space would make it valid).
        let body = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"a\":\"x\ny\"}}";
        let event = first_event(answering_once("200 OK", body).await).await;
        let Recv::Exchange(exchange) = event else {
            panic!("expected an exchange, got {event:?}");
        };
        assert_eq!(exchange.http.status, 200);
        assert_eq!(exchange.http.request_id, Some(serde_json::json!(7)));
        assert_eq!(exchange.body, ExchangeBody::Message(body.to_vec()));
        let frame = exchange.into_frame();
        assert!(frame.json.is_none() && frame.parsed.is_err(), "{frame:?}");
    }

    #[tokio::test]
    async fn a_status_without_a_body_is_a_failed_exchange_saying_so() {
        let event = first_event(answering_once("503 Service Unavailable", b"").await).await;
        let Recv::Exchange(Exchange {
            http,
            body: ExchangeBody::Failed(why),
        }) = event
        else {
            panic!("expected a failed exchange, got {event:?}");
        };
        assert_eq!(http.status, 503);
        assert_eq!(http.request_id, Some(serde_json::json!(7)));
        assert!(
            why.contains("HTTP 503") && why.contains("empty body"),
            "{why}"
        );
    }
}
