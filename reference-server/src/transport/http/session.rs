//! Legacy sessions over HTTP: one [`Connection`] per `Mcp-Session-Id`, an outbox that routes
//! what the connection sends (replies to their POST, everything else to the GET stream or a
//! backlog until one opens), and the POST, GET and DELETE operations on a session.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::config::Era;
use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::engine::dispatch;
use crate::error::RpcError;
use crate::protocol::{code, version};
use crate::transport::http::shared::{
    Shared, accepted, empty, header_name, internal_error, json_body, json_reply, lock, plain,
    rpc_error, set, single_header,
};
use crate::transport::http::sse;
use crate::transport::stdio;
use crate::wire::{self, Inbound, Message, Outbound, RequestId};

/// At most this many live sessions (503 beyond).
const MAX_SESSIONS: usize = 4096;
/// At most this many undelivered messages wait for a GET stream (the oldest are dropped).
const MAX_BACKLOG: usize = 1024;
/// How long a request whose reply went through the outbox (a committed `initialize`) may take
/// to be routed back to its POST.
const REPLY_GRACE: Duration = Duration::from_secs(2);

/// A fresh session id: 128 bits from the OS as 32 lowercase hex digits (visible ASCII, LEG-9).
/// `spaced` (the `http-legacy-session-id-invalid-chars` fault) puts a space in it.
pub(crate) fn new_id(spaced: bool) -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back to something unique, if not unguessable.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = nanos.to_le_bytes();
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if spaced {
        format!("{} {}", &hex[..16], &hex[16..])
    } else {
        hex
    }
}

/// The live sessions of one server, by id.
#[derive(Default)]
pub(crate) struct Sessions(Mutex<HashMap<String, Arc<Session>>>);

/// One legacy session.
pub(crate) struct Session {
    conn: Arc<Connection>,
    outbox: Arc<Outbox>,
    router: AbortHandle,
    /// SSE event ids, unique within the session (LEG-12).
    event_ids: Arc<AtomicU64>,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.router.abort();
    }
}

/// Where a session's outbound messages go.
#[derive(Default)]
struct Outbox {
    /// POSTs waiting for a reply that comes through the connection (keyed by id JSON).
    waiters: Mutex<HashMap<String, oneshot::Sender<Outbound>>>,
    /// The open GET stream.
    stream: Mutex<Option<mpsc::UnboundedSender<Outbound>>>,
    /// Messages waiting for a GET stream.
    backlog: Mutex<VecDeque<Outbound>>,
}

impl Outbox {
    fn route(&self, msg: Outbound) {
        if let Outbound::Reply { id, .. } = &msg {
            if let Some(waiter) = lock(&self.waiters).remove(&id.to_string()) {
                let _ = waiter.send(msg);
                return;
            }
        }
        let mut stream = lock(&self.stream);
        let msg = match stream.as_ref() {
            Some(tx) => match tx.send(msg) {
                Ok(()) => return,
                Err(mpsc::error::SendError(msg)) => {
                    *stream = None;
                    msg
                }
            },
            None => msg,
        };
        let mut backlog = lock(&self.backlog);
        if backlog.len() >= MAX_BACKLOG {
            backlog.pop_front();
        }
        backlog.push_back(msg);
    }

    /// Opens the GET stream, with the backlog first; `None` while another one is open.
    fn open_stream(&self) -> Option<mpsc::UnboundedReceiver<Outbound>> {
        let mut stream = lock(&self.stream);
        if stream.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return None;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        for msg in lock(&self.backlog).drain(..) {
            let _ = tx.send(msg);
        }
        *stream = Some(tx);
        Some(rx)
    }
}

impl Session {
    fn new(shared: &Shared) -> Arc<Self> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let conn = shared.new_connection(tx);
        let outbox = Arc::new(Outbox::default());
        let routing = outbox.clone();
        let router = tokio::spawn(async move {
            while let Some(msg) = rx.recv().await {
                routing.route(msg);
            }
        });
        Arc::new(Self {
            conn,
            outbox,
            router: router.abort_handle(),
            event_ids: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Runs one request through the chain in a detached task (a client going away does not
    /// cancel it, LEG-11) and returns its reply, if any.
    async fn call(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        ctx: crate::engine::middleware::Ctx,
    ) -> Option<Outbound> {
        let id = ctx.id.as_ref().map(|id| id.as_json().to_string());
        let waiter = id.as_ref().map(|key| {
            let (tx, rx) = oneshot::channel();
            lock(&self.outbox.waiters).insert(key.clone(), tx);
            rx
        });
        let conn = self.conn.clone();
        let chain = shared.chain.clone();
        let work = tokio::spawn(dispatch::run(conn, chain, ctx));
        let reply = work.await.unwrap_or_else(|_| {
            Some(Outbound::Reply {
                id: Value::Null,
                outcome: Err(RpcError::internal("the handler failed")),
            })
        });
        let forget = |key: &String| {
            lock(&self.outbox.waiters).remove(key);
        };
        match (reply, waiter, &id) {
            (Some(reply), _, Some(key)) => {
                forget(key);
                Some(reply)
            }
            (None, Some(waiter), Some(key)) => {
                // The reply went through the connection (a committed `initialize`).
                let routed = tokio::time::timeout(REPLY_GRACE, waiter).await;
                forget(key);
                routed.ok().and_then(Result::ok)
            }
            (reply, _, _) => reply,
        }
    }
}

/// A POST of a bare `initialize`: a new session, kept (and named in `Mcp-Session-Id`) only if
/// the handshake committed.
pub(crate) async fn initialize(
    shared: Arc<Shared>,
    sessions: &Sessions,
    id: RequestId,
    name: String,
    params: Option<Value>,
) -> Response {
    if lock(&sessions.0).len() >= MAX_SESSIONS {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "too many sessions");
    }
    let session = Session::new(&shared);
    let ctx = dispatch::make_ctx(&session.conn, Some(id), name, params);
    let reply = session.call(&shared, ctx).await;
    let mut response = respond(&shared, &session, reply);
    if session.conn.negotiated().is_some() {
        let session_id = new_id(shared.has(Fault::HttpLegacySessionIdInvalidChars));
        if let Ok(value) = HeaderValue::from_str(&session_id) {
            response
                .headers_mut()
                .insert(header_name::SESSION_ID, value);
            lock(&sessions.0).insert(session_id, session);
        }
    }
    response
}

fn find(sessions: &Sessions, id: &str) -> Option<Arc<Session>> {
    lock(&sessions.0).get(id).cloned()
}

fn unknown_session() -> Response {
    plain(
        StatusCode::NOT_FOUND,
        "unknown or terminated Mcp-Session-Id: send a new `initialize`",
    )
}

/// LEG-8: an `MCP-Protocol-Version` on a session must be a supported legacy revision; the
/// 400 refusal otherwise.
fn version_refusal(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    if shared.has(Fault::HttpLegacyVersionHeaderIgnored) {
        return None;
    }
    match single_header(headers, header_name::PROTOCOL_VERSION) {
        Ok(None) => None,
        Ok(Some(v)) if version::LEGACY_SUPPORTED.contains(&v.as_str()) => None,
        Ok(Some(_)) => Some(plain(
            StatusCode::BAD_REQUEST,
            "unsupported MCP-Protocol-Version for this session",
        )),
        Err(why) => Some(plain(StatusCode::BAD_REQUEST, why)),
    }
}

/// A POST naming a session.
pub(crate) async fn post(
    shared: Arc<Shared>,
    sessions: &Sessions,
    session_id: &str,
    headers: &HeaderMap,
    bytes: Bytes,
) -> Response {
    let Some(session) = find(sessions, session_id) else {
        return unknown_session();
    };
    if let Some(refusal) = version_refusal(&shared, headers) {
        return refusal;
    }
    let conn = &session.conn;
    match wire::decode(&bytes, &shared.config.faults) {
        Inbound::ParseError(_) => rpc_error(
            &shared,
            StatusCode::BAD_REQUEST,
            Value::Null,
            RpcError::new(code::PARSE_ERROR, "parse error: the body is not valid JSON"),
        ),
        Inbound::Invalid { id, error } => rpc_error(&shared, StatusCode::BAD_REQUEST, id, error),
        Inbound::DroppedNotification(_) => empty(StatusCode::BAD_REQUEST),
        Inbound::Batch(items) => {
            let batching = conn.negotiated().as_deref() == Some(version::BATCHING);
            let conn = conn.clone();
            let chain = shared.chain.clone();
            let work = tokio::spawn(async move { stdio::batch(&conn, &chain, items).await });
            match work.await {
                Ok(Some(reply)) if batching => json_body(&shared, StatusCode::OK, &reply),
                Ok(Some(reply)) => json_body(&shared, StatusCode::BAD_REQUEST, &reply),
                Ok(None) => accepted(&shared, Era::Legacy),
                Err(_) => internal_error(&shared),
            }
        }
        Inbound::Message(Message::Response { id, outcome }) => {
            conn.route_response(&id, outcome);
            accepted(&shared, Era::Legacy)
        }
        Inbound::Message(Message::Notification {
            method: name,
            params,
        }) => {
            let ctx = dispatch::make_ctx(conn, None, name, params);
            let chain = shared.chain.clone();
            let work = tokio::spawn(dispatch::run(conn.clone(), chain, ctx));
            // A reply to a notification (only under faults) goes where unsolicited messages go.
            if let Ok(Some(reply)) = work.await {
                session.outbox.route(reply);
            }
            accepted(&shared, Era::Legacy)
        }
        Inbound::Message(Message::Request {
            id,
            method: name,
            params,
        }) => {
            let ctx = dispatch::make_ctx(conn, Some(id), name, params);
            let reply = session.call(&shared, ctx).await;
            respond(&shared, &session, reply)
        }
    }
}

/// A request's reply: JSON (200, errors included), or one SSE event with `HttpOptions::sse`.
fn respond(shared: &Arc<Shared>, session: &Session, reply: Option<Outbound>) -> Response {
    match reply {
        None => empty(StatusCode::ACCEPTED),
        Some(msg) if shared.config.http.sse || shared.has(Fault::HttpSseNoTerminate) => {
            sse::response(
                shared,
                sse::Source::fixed(vec![msg]),
                Some(session.event_ids.clone()),
            )
        }
        Some(msg) => json_reply(shared, Era::Legacy, &msg),
    }
}

/// GET: the session's stream of server->client messages (LEG-10).
pub(crate) fn get(
    shared: &Arc<Shared>,
    sessions: &Sessions,
    session_id: &str,
    headers: &HeaderMap,
) -> Response {
    let Some(session) = find(sessions, session_id) else {
        return unknown_session();
    };
    if let Some(refusal) = version_refusal(shared, headers) {
        return refusal;
    }
    if shared.has(Fault::HttpLegacyGet200Json) {
        let mut response = axum::response::Response::new(axum::body::Body::from("{}"));
        set(
            &mut response,
            axum::http::header::CONTENT_TYPE,
            "application/json",
        );
        return response;
    }
    match session.outbox.open_stream() {
        Some(rx) => sse::response(
            shared,
            sse::Source::listen(rx),
            Some(session.event_ids.clone()),
        ),
        None => plain(
            StatusCode::CONFLICT,
            "a GET stream is already open for this session",
        ),
    }
}

/// DELETE: ends the session; later requests naming it get 404 (LEG-9).
pub(crate) fn delete(
    shared: &Arc<Shared>,
    sessions: &Sessions,
    session_id: &str,
    headers: &HeaderMap,
) -> Response {
    if let Some(refusal) = version_refusal(shared, headers) {
        return refusal;
    }
    let removed = if shared.has(Fault::HttpLegacyTerminatedSession200) {
        find(sessions, session_id)
    } else {
        lock(&sessions.0).remove(session_id)
    };
    match removed {
        Some(session) => {
            if !shared.has(Fault::HttpLegacyTerminatedSession200) {
                lock(&session.outbox.stream).take();
            }
            empty(StatusCode::OK)
        }
        None => unknown_session(),
    }
}
