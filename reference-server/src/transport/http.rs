//! Streamable HTTP: one endpoint, `/mcp`, on axum (HTTP/1.1, no TLS), feeding the same
//! dispatcher and middleware chain as stdio.
//!
//! ```text
//! TCP --hyper/axum--> security (Host 421, Origin 403) --> method
//!   POST --body (limit 413)--> wire::decode
//!     parse error 400 -32700 | batch 400 -32600 | invalid 400 -32600
//!     Mcp-Session-Id present (legacy eras) --> that session's Connection (legacy.rs)
//!     `initialize` without the modern envelope --> a new session: Connection, Mcp-Session-Id
//!     anything else --> modern: headers (-32020) --> a fresh Connection for this request
//!        --> Ctx --> middleware chain --> endpoint --> reply as JSON, or as SSE when the
//!            handler emits messages (progress, logs) before its reply
//!   GET    --> legacy session: its SSE stream | no session or modern-only: 405
//!   DELETE --> legacy session: terminated (later 404) | no session or modern-only: 405
//! ```
//!
//! # Modern (2026-07-28)
//!
//! Stateless: every POST gets its own `Connection` (the probe log and the subscriptions hub
//! are shared, so the probe profile and `subscriptions/listen` work across requests). Before
//! the chain runs, the headers are validated against the body (HTTP-5, 6, 8, 9, 10, 11; see
//! `http/headers.rs`): a missing, duplicated, mismatched or malformed `Mcp-Method`,
//! `MCP-Protocol-Version`, `Mcp-Name` or `Mcp-Param-*` header gives 400 and -32020. Then the
//! chain decides: a missing `_meta` is -32602, an unsupported version -32022, a missing
//! client capability -32021 (all 400, HTTP-16), an unknown or removed method -32601 (404,
//! HTTP-7), an internal error -32603 (500), any other error 400, a result 200.
//!
//! Everything the handler sends on its connection while it runs (notifications such as
//! progress and log messages) turns the reply into a `text/event-stream`: those messages, then
//! the reply, then the end of the stream (HTTP-13; `X-Accel-Buffering: no`). The handler runs
//! in its own task; a client that closes the response (JSON or SSE) aborts it (HTTP-14). No
//! `Mcp-Session-Id` is minted or read, `Last-Event-ID` is ignored and events carry no ids
//! (HTTP-15). A notification POST gets 202 with an empty body (HTTP-3); one with bad headers
//! gets 400 with an empty body.
//!
//! # Legacy (2024-11-05 .. 2025-11-25)
//!
//! A successful `initialize` mints `Mcp-Session-Id`: 32 hex digits of OS randomness (128 bits).
//! Later POSTs, GETs and DELETEs name it: unknown or terminated gives 404; a POST without it is
//! a modern request (both eras) or 400 (legacy-only). An `MCP-Protocol-Version` header on a
//! session must name a supported legacy revision (else 400); without it the negotiated
//! version stands (LEG-8). Replies are JSON (errors too, with 200); notifications and client
//! responses get 202. Server->client messages that are not replies (the post-handshake `ping`,
//! notifications) go to the session's GET stream, or wait for one (one stream at a time: a
//! second GET gets 409). Events on a session carry ids unique within the session (LEG-12);
//! resumption is not offered (`Last-Event-ID` is ignored). A client going away does not
//! cancel its request (LEG-11): the chain runs in a detached task.
//!
//! # Authorization (`--auth-issuer`)
//!
//! With [`HttpOptions::auth`], every request to `/mcp` needs a bearer token the issuer signed
//! for this server, after the security checks and before anything else (see `http/auth.rs`),
//! and the protected resource metadata is served at
//! `/.well-known/oauth-protected-resource/mcp`.
//!
//! # Security
//!
//! `Host` must be `127.0.0.1`, `localhost` or `[::1]` (any port) or listed in
//! [`HttpOptions::allowed_hosts`], else 421 (DNS rebinding); a missing `Host` is 400. An
//! `Origin`, when present, must have one of those hosts (any scheme, any port) or be listed in
//! [`HttpOptions::allowed_origins`], else 403 (HTTP-2). Bodies over
//! [`HttpOptions::max_body`] (4 MiB by default) get 413. The binary binds 127.0.0.1 unless
//! told otherwise.
//!
//! # The endpoint hook
//!
//! With [`HttpOptions::hook`] set, a tap (`http/hook.rs`) sits outside all of the above: it
//! shows the hook each request before the server sees it (the hook may answer it instead) and
//! each response as it is sent (the hook may ask to rewrite it first); see
//! [`crate::config::http_hook`].

mod auth;
mod headers;
mod hook;
mod session;
mod shared;
mod sse;

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use axum::routing::{any, get as get_route};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::config::faults::Fault;
use crate::config::{Config, Era, Eras};
use crate::engine::connection::Connection;
use crate::engine::dispatch;
use crate::engine::middleware::{Chain, Ctx};
use crate::error::RpcError;
use crate::protocol::{code, method};
use crate::wire::{self, Encoder, Inbound, Message, Outbound, RequestId};

pub(crate) use headers::RouteTool;
use session::Sessions;
pub use shared::header_name;
use shared::{
    Shared, accepted, empty, internal_error, json_body, json_reply, plain, rpc_error, set,
    single_header,
};

/// The endpoint path.
pub const ENDPOINT: &str = "/mcp";
/// The default request body limit (4 MiB).
pub use crate::config::{DEFAULT_MAX_BODY, HttpOptions};

/// A running HTTP server: its address, and a way to stop it. Dropping the handle stops it too.
#[derive(Debug)]
pub struct HttpHandle {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<io::Result<()>>>,
}

impl HttpHandle {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{ENDPOINT}", self.addr)
    }

    /// Stops accepting, ends open SSE streams, and waits (up to 2 s) for the server to stop.
    pub async fn shutdown(mut self) -> io::Result<()> {
        let _ = self.stop.send(true);
        match self.task.take() {
            Some(task) => match tokio::time::timeout(Duration::from_secs(2), task).await {
                Ok(Ok(result)) => result,
                Ok(Err(join)) => Err(io::Error::other(join)),
                Err(_) => Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the HTTP server did not stop within 2 s",
                )),
            },
            None => Ok(()),
        }
    }
}

impl Drop for HttpHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

pub(crate) async fn serve(
    config: Config,
    chain: Chain,
    listener: TcpListener,
    stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let shared = Arc::new(Shared {
        encoder: Mutex::new(Encoder::new(config.faults.clone())),
        config,
        chain,
        probe_log: Arc::new(Mutex::new(Vec::new())),
        subscriptions: Arc::default(),
        stop: stop.clone(),
    });
    let guard = match &shared.config.http.auth {
        Some(options) => Some(Arc::new(auth::Guard::new(options, listener.local_addr()?))),
        None => None,
    };
    let hook = shared.config.http.hook.clone();
    let max_body = shared.config.http.max_body;
    let mut router = Router::new().route(ENDPOINT, any(endpoint));
    if let Some(guard) = &guard {
        router = router.route(guard.metadata_path(), get_route(resource_metadata));
    }
    let mut router =
        router
            .fallback(not_found)
            .with_state((shared, Arc::new(Sessions::default()), guard));
    // The hook's tap is outermost: it sees every request before the server's own checks.
    if let Some(hook) = hook {
        router = router.layer(axum::middleware::from_fn_with_state(
            hook::Tap::new(hook, max_body),
            hook::tap,
        ));
    }
    let mut stop = stop;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|stopped| *stopped).await;
        })
        .await
}

pub(crate) fn spawn(config: Config, chain: Chain, listener: TcpListener) -> io::Result<HttpHandle> {
    let addr = listener.local_addr()?;
    let (stop, stop_rx) = watch::channel(false);
    let task = tokio::spawn(serve(config, chain, listener, stop_rx));
    Ok(HttpHandle {
        addr,
        stop,
        task: Some(task),
    })
}

async fn not_found() -> Response {
    plain(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp")
}

/// The router's state: the server, its legacy sessions, and its authorization (when on).
type RouterState = (Arc<Shared>, Arc<Sessions>, Option<Arc<auth::Guard>>);

async fn resource_metadata(State((shared, _, guard)): State<RouterState>) -> Response {
    match guard {
        Some(guard) => guard.metadata(&shared),
        None => plain(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp"),
    }
}

/// A request's right to be served, in authorization mode: the guard and what the token grants.
type Access = Option<(Arc<auth::Guard>, auth::Grant)>;

/// Whether `access` may run a request with this body (always, outside authorization mode).
fn authorized(shared: &Shared, access: &Access, body: &[u8]) -> Result<(), Response> {
    match access {
        Some((guard, grant)) => guard.authorize(shared, grant, body),
        None => Ok(()),
    }
}

async fn endpoint(State((shared, sessions, guard)): State<RouterState>, req: Request) -> Response {
    if let Some(refusal) = security(&shared, req.headers()) {
        return refusal;
    }
    let access = match guard {
        Some(guard) => match guard.authenticate(&shared, req.headers(), req.uri()).await {
            Ok(grant) => Some((guard, grant)),
            Err(refusal) => return refusal,
        },
        None => None,
    };
    let http_method = req.method().clone();
    if http_method == Method::POST {
        post(shared, &sessions, req, access).await
    } else if let Err(refusal) = authorized(&shared, &access, b"") {
        refusal
    } else if http_method == Method::GET {
        get(&shared, &sessions, req.headers())
    } else if http_method == Method::DELETE {
        delete(&shared, &sessions, req.headers())
    } else {
        method_not_allowed(&shared)
    }
}

// --- security -------------------------------------------------------------------------------

/// Host (DNS rebinding: 421) and Origin (HTTP-2: 403) checks; `None` lets the request in.
fn security(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    let options = &shared.config.http;
    if !shared.has(Fault::HttpNoHostCheck) {
        let mut hosts = headers.get_all(header::HOST).iter();
        match (hosts.next(), hosts.next()) {
            (None, _) => return Some(plain(StatusCode::BAD_REQUEST, "missing Host header")),
            (Some(_), Some(_)) => {
                return Some(plain(StatusCode::BAD_REQUEST, "duplicated Host header"));
            }
            (Some(host), None) => {
                let ok = host
                    .to_str()
                    .is_ok_and(|host| host_allowed(host, &options.allowed_hosts));
                if !ok {
                    return Some(plain(
                        StatusCode::MISDIRECTED_REQUEST,
                        "Host not allowed (DNS rebinding protection)",
                    ));
                }
            }
        }
    }
    if !shared.has(Fault::HttpNoOriginCheck) {
        let mut origins = headers.get_all(header::ORIGIN).iter();
        if let Some(origin) = origins.next() {
            let ok = origins.next().is_none()
                && origin
                    .to_str()
                    .is_ok_and(|origin| origin_allowed(origin, &options.allowed_origins));
            if !ok {
                return Some(plain(StatusCode::FORBIDDEN, "Origin not allowed"));
            }
        }
    }
    None
}

/// The host part of `host[:port]` / `[v6][:port]`, or `None` if malformed.
fn host_part(authority: &str) -> Option<&str> {
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        let rest = &authority[end + 1..];
        let port_ok = rest.is_empty()
            || rest
                .strip_prefix(':')
                .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        return port_ok.then_some(&authority[..=end]);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            (!host.is_empty() && !host.contains(':')).then_some(host)
        }
        Some(_) => None,
        None => (!authority.is_empty()).then_some(authority),
    }
}

fn is_loopback(host: &str) -> bool {
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|h| h.eq_ignore_ascii_case(host))
}

fn host_allowed(value: &str, allowed: &[String]) -> bool {
    let value = value.trim();
    let Some(host) = host_part(value) else {
        return false;
    };
    is_loopback(host)
        || allowed
            .iter()
            .any(|a| a.eq_ignore_ascii_case(value) || a.eq_ignore_ascii_case(host))
}

fn origin_allowed(value: &str, allowed: &[String]) -> bool {
    let value = value.trim();
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(value)) {
        return true;
    }
    let Some((scheme, authority)) = value.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    scheme_ok && !authority.contains('/') && host_part(authority).is_some_and(is_loopback)
}

// --- POST -----------------------------------------------------------------------------------

async fn post(shared: Arc<Shared>, sessions: &Sessions, req: Request, access: Access) -> Response {
    if shared.has(Fault::HttpPost405) {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "POST is not served");
        set(&mut response, header::ALLOW, "GET");
        return response;
    }
    let (parts, body) = req.into_parts();
    let limit = if shared.has(Fault::HttpNoBodyLimit) {
        usize::MAX
    } else {
        shared.config.http.max_body
    };
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_large(limit);
    }
    let bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => return too_large(limit),
    };
    if let Err(refusal) = authorized(&shared, &access, &bytes) {
        return refusal;
    }
    let headers = parts.headers;

    let session_id = match single_header(&headers, header_name::SESSION_ID) {
        Ok(id) => id,
        Err(why) => return plain(StatusCode::BAD_REQUEST, why),
    };
    if shared.config.eras != Eras::Modern {
        if let Some(id) = session_id {
            return session::post(shared, sessions, &id, &headers, bytes).await;
        }
    }

    match wire::decode(&bytes, &shared.config.faults) {
        Inbound::ParseError(detail) => {
            tracing::debug!(%detail, "parse error");
            rpc_error(
                &shared,
                StatusCode::BAD_REQUEST,
                Value::Null,
                RpcError::new(code::PARSE_ERROR, "parse error: the body is not valid JSON"),
            )
        }
        Inbound::Batch(_) => rpc_error(
            &shared,
            StatusCode::BAD_REQUEST,
            Value::Null,
            RpcError::invalid_request(
                "JSON-RPC batches are not accepted here (only on a 2025-03-26 session)",
            ),
        ),
        Inbound::Invalid { id, error } => rpc_error(&shared, StatusCode::BAD_REQUEST, id, error),
        Inbound::DroppedNotification(_) | Inbound::Message(Message::Response { .. }) => {
            // Nothing to answer and nothing accepted: 4xx with no body (HTTP-3).
            empty(StatusCode::BAD_REQUEST)
        }
        Inbound::Message(Message::Request {
            id,
            method: name,
            params,
        }) => {
            let legacy_initialize = name == method::INITIALIZE
                && !dispatch::is_modern_marked(&name, params.as_ref())
                && shared.config.eras != Eras::Modern;
            if legacy_initialize {
                return session::initialize(shared, sessions, id, name, params).await;
            }
            if shared.config.eras == Eras::Legacy {
                return rpc_error(
                    &shared,
                    StatusCode::BAD_REQUEST,
                    id.as_json().clone(),
                    RpcError::invalid_request(
                        "missing Mcp-Session-Id: send `initialize` first and name its session",
                    ),
                );
            }
            modern_request(shared, &headers, id, name, params).await
        }
        Inbound::Message(Message::Notification {
            method: name,
            params,
        }) => {
            if shared.config.eras == Eras::Legacy {
                return empty(StatusCode::BAD_REQUEST);
            }
            modern_notification(shared, &headers, name, params).await
        }
    }
}

async fn modern_request(
    shared: Arc<Shared>,
    headers: &HeaderMap,
    id: RequestId,
    name: String,
    params: Option<Value>,
) -> Response {
    let (tx, rx) = mpsc::unbounded_channel();
    let conn = shared.new_connection(tx.clone());
    // A legacy client's `initialize` carries none of the modern headers; the dispatcher answers
    // it with the supported versions (VER-5) instead of a header error.
    let legacy_initialize =
        name == method::INITIALIZE && !dispatch::is_modern_marked(&name, params.as_ref());
    let checked = if legacy_initialize {
        Ok(())
    } else {
        headers::check(headers, &name, params.as_ref(), &conn, true)
    };
    if let Err(error) = checked {
        return modern_headers(
            &shared,
            rpc_error(
                &shared,
                StatusCode::BAD_REQUEST,
                id.as_json().clone(),
                error,
            ),
        );
    }
    if shared.has(Fault::HttpSseServerRequest) {
        conn.send_request(method::PING, None);
    }
    // The request's notifications and anything else its connection sends share one stream.
    let ctx = dispatch::make_ctx(&conn, Some(id), name, params).stream_to(tx);
    let response = reply(shared.clone(), conn, ctx, rx).await;
    modern_headers(&shared, response)
}

async fn modern_notification(
    shared: Arc<Shared>,
    headers: &HeaderMap,
    name: String,
    params: Option<Value>,
) -> Response {
    let (tx, _rx) = mpsc::unbounded_channel();
    let conn = shared.new_connection(tx);
    if headers::check(headers, &name, params.as_ref(), &conn, false).is_err() {
        return modern_headers(&shared, empty(StatusCode::BAD_REQUEST));
    }
    let ctx = dispatch::make_ctx(&conn, None, name, params);
    let chain = shared.chain.clone();
    let answered = dispatch::run(conn, chain, ctx).await;
    let response = match answered {
        // Only under faults (e.g. `reply-to-notifications`): the reply is shown, not hidden.
        Some(msg) => json_body(&shared, StatusCode::OK, &msg),
        None => accepted(&shared, Era::Modern),
    };
    modern_headers(&shared, response)
}

/// Headers every modern response gets (only a fault adds any).
fn modern_headers(shared: &Shared, mut response: Response) -> Response {
    if shared.has(Fault::HttpMintsSessionIdModern) {
        if let Ok(value) = HeaderValue::from_str(&session::new_id(false)) {
            response
                .headers_mut()
                .insert(header_name::SESSION_ID, value);
        }
    }
    response
}

/// Runs `ctx` through the chain in its own task and answers: JSON when nothing was sent before
/// the reply, SSE otherwise (or always, with `HttpOptions::sse`). Dropping the response (the
/// client went away) aborts the task (HTTP-14).
async fn reply(
    shared: Arc<Shared>,
    conn: Arc<Connection>,
    ctx: Ctx,
    mut rx: mpsc::UnboundedReceiver<Outbound>,
) -> Response {
    let (done_tx, mut done) = oneshot::channel();
    let chain = shared.chain.clone();
    let task = tokio::spawn(async move {
        let reply = dispatch::run(conn, chain, ctx).await;
        let _ = done_tx.send(reply);
    });
    let guard = sse::AbortOnDrop::new(
        task.abort_handle(),
        !shared.has(Fault::HttpCloseNotCancellation),
    );
    let streaming = shared.config.http.sse
        || shared.has(Fault::HttpSseNoTerminate)
        || shared.has(Fault::HttpSseServerRequest);
    if !streaming {
        tokio::select! {
            biased;
            // `None` (every sender gone: the handler finished) disables this branch.
            Some(first) = rx.recv() => {
                return sse::response(
                    &shared,
                    sse::Source::request(rx, done, vec![first], guard),
                    None,
                );
            }
            outcome = &mut done => {
                drop(guard);
                return match outcome {
                    Ok(Some(msg)) if rx.is_empty() => json_reply(&shared, Era::Modern, &msg),
                    Ok(Some(msg)) => {
                        let mut early = Vec::new();
                        while let Ok(m) = rx.try_recv() {
                            early.push(m);
                        }
                        early.push(msg);
                        sse::response(&shared, sse::Source::fixed(early), None)
                    }
                    Ok(None) => empty(StatusCode::ACCEPTED),
                    Err(_) => internal_error(&shared),
                };
            }
        }
    }
    sse::response(
        &shared,
        sse::Source::request(rx, done, Vec::new(), guard),
        None,
    )
}

// --- GET and DELETE -------------------------------------------------------------------------

fn get(shared: &Arc<Shared>, sessions: &Sessions, headers: &HeaderMap) -> Response {
    if shared.config.eras == Eras::Modern {
        if shared.has(Fault::HttpModernGet200) {
            return sse::response(shared, sse::Source::fixed(Vec::new()), None);
        }
        return method_not_allowed(shared);
    }
    match single_header(headers, header_name::SESSION_ID) {
        Err(why) => plain(StatusCode::BAD_REQUEST, why),
        Ok(None) => method_not_allowed(shared),
        Ok(Some(id)) => session::get(shared, sessions, &id, headers),
    }
}

fn delete(shared: &Arc<Shared>, sessions: &Sessions, headers: &HeaderMap) -> Response {
    if shared.config.eras == Eras::Modern {
        return method_not_allowed(shared);
    }
    match single_header(headers, header_name::SESSION_ID) {
        Err(why) => plain(StatusCode::BAD_REQUEST, why),
        Ok(None) => method_not_allowed(shared),
        Ok(Some(id)) => session::delete(shared, sessions, &id, headers),
    }
}

/// 405: GET and DELETE without a session (and always on a modern-only server, HTTP-15).
fn method_not_allowed(shared: &Shared) -> Response {
    let mut response = plain(
        StatusCode::METHOD_NOT_ALLOWED,
        "only POST is served without an Mcp-Session-Id",
    );
    let allow = if shared.config.eras == Eras::Modern {
        "POST"
    } else {
        "GET, POST, DELETE"
    };
    set(&mut response, header::ALLOW, allow);
    response
}

fn too_large(limit: usize) -> Response {
    let mut response = Response::new(Body::from(format!(
        "request body over the {limit}-byte limit"
    )));
    *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
    set(&mut response, header::CONTENT_TYPE, "text/plain");
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_rules() {
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "localhost",
            "LOCALHOST:1",
            "[::1]:9",
        ] {
            assert!(host_allowed(ok, &[]), "{ok}");
        }
        for bad in [
            "evil.test",
            "evil.test:80",
            "127.0.0.1.evil.test",
            "",
            ":80",
            "[::1]x",
        ] {
            assert!(!host_allowed(bad, &[]), "{bad}");
        }
        assert!(host_allowed("mcp.test:1", &["mcp.test".into()]));
    }

    #[test]
    fn origin_rules() {
        for ok in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:1",
        ] {
            assert!(origin_allowed(ok, &[]), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.test",
            "file://localhost",
            "http://localhost/x",
        ] {
            assert!(!origin_allowed(bad, &[]), "{bad}");
        }
        assert!(origin_allowed(
            "https://app.test",
            &["https://app.test".into()]
        ));
    }
}
