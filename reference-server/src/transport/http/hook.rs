//! The endpoint hook's tap ([`crate::config::http_hook`]): an axum middleware, outermost, that
//! reads each request whole, hands it to the hook, and either sends the hook's answer or lets
//! the server answer, then reports the response (rewritten first, if the hook asks) piece by
//! piece as it is sent.
//!
//! Bounded: a request body past the server's limit is 413 (as the server would answer), and a
//! response read whole for a rewrite is cut at the same limit and at [`REWRITE_CAP`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;

use crate::config::http_hook::{Exchange, HookRequest, HookResponse, HttpHook};

/// How long the tap waits for a response it reads whole for a rewrite.
const REWRITE_CAP: Duration = Duration::from_secs(30);

/// The hook and the exchange counter, shared by every request of one server.
#[derive(Debug)]
pub(crate) struct Tap {
    hook: Arc<dyn HttpHook>,
    exchanges: AtomicU64,
    max_body: usize,
}

impl Tap {
    pub(crate) fn new(hook: Arc<dyn HttpHook>, max_body: usize) -> Arc<Self> {
        Arc::new(Self {
            hook,
            exchanges: AtomicU64::new(0),
            max_body,
        })
    }
}

/// The middleware: see the module doc.
pub(crate) async fn tap(State(tap): State<Arc<Tap>>, req: Request, next: Next) -> Response {
    let exchange: Exchange = tap.exchanges.fetch_add(1, Ordering::Relaxed) + 1;
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, tap.max_body).await else {
        let answer = HookResponse::new(413, "text/plain", "request body over the limit");
        return send(&tap, exchange, answer);
    };
    let headers: Vec<(String, String)> = parts
        .headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let target = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
    let view = HookRequest {
        method: parts.method.as_str(),
        target: &target,
        headers: &headers,
        body: &bytes,
    };
    if let Some(answer) = tap.hook.request(exchange, &view) {
        return send(&tap, exchange, answer);
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if tap.hook.rewrites(exchange) {
        let (head, body) = response.into_parts();
        let read = tokio::time::timeout(REWRITE_CAP, axum::body::to_bytes(body, tap.max_body));
        let body = match read.await {
            Ok(Ok(body)) => body.to_vec(),
            Ok(Err(_)) | Err(_) => Vec::new(),
        };
        let original = HookResponse {
            status: head.status.as_u16(),
            headers: head
                .headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            chunks: vec![body],
        };
        let rewritten = tap.hook.rewrite(exchange, original);
        return send(&tap, exchange, rewritten);
    }
    let headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    tap.hook
        .response_head(exchange, response.status().as_u16(), &headers);
    let (head, body) = response.into_parts();
    Response::from_parts(head, observed(&tap, exchange, body.into_data_stream()))
}

/// A response the hook made (or rewrote), reported as it is sent. A status or header the HTTP
/// stack cannot carry is dropped (a status outside 100..=999 becomes 500).
fn send(tap: &Arc<Tap>, exchange: Exchange, answer: HookResponse) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut headers = Vec::new();
    let mut builder = Response::builder().status(status);
    for (name, value) in &answer.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_bytes(value.as_bytes()),
        ) {
            headers.push((n.as_str().to_owned(), value.clone()));
            builder = builder.header(n, v);
        }
    }
    tap.hook.response_head(exchange, status.as_u16(), &headers);
    let chunks = futures_util::stream::iter(
        answer
            .chunks
            .into_iter()
            .map(|c| Ok::<Bytes, axum::Error>(Bytes::from(c))),
    );
    builder
        .body(observed(tap, exchange, chunks))
        .unwrap_or_else(|_| {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            r
        })
}

/// `chunks` as a body that reports each piece, and its end (or the client going away: the
/// body is dropped), to the hook.
fn observed<S>(tap: &Arc<Tap>, exchange: Exchange, chunks: S) -> Body
where
    S: futures_util::Stream<Item = Result<Bytes, axum::Error>> + Send + 'static,
{
    let end = EndGuard {
        hook: tap.hook.clone(),
        exchange,
    };
    let hook = tap.hook.clone();
    Body::from_stream(chunks.map(move |chunk| {
        let _keep = &end;
        if let Ok(bytes) = &chunk {
            hook.response_chunk(exchange, bytes);
        }
        chunk
    }))
}

/// Tells the hook that a response body ended when the body is dropped.
struct EndGuard {
    hook: Arc<dyn HttpHook>,
    exchange: Exchange,
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        self.hook.response_end(self.exchange);
    }
}
