//! What the HTTP transport's parts share, below all of them: the per-server state ([`Shared`]),
//! the header names, and the response builders (JSON replies and their status codes, plain
//! and empty responses). Imports no other part of the HTTP transport; the legacy sessions
//! (`session::Sessions`) are kept beside [`Shared`], not in it, so that this module need not
//! know them.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use crate::config::faults::Fault;
use crate::config::{Config, Era};
use crate::engine::connection::Connection;
use crate::engine::hub::Hub;
use crate::engine::middleware::Chain;
use crate::error::RpcError;
use crate::protocol::code;
use crate::wire::{Encoder, Outbound};

/// Header names, lower case (HTTP header names are case-insensitive).
pub mod header_name {
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    pub const METHOD: &str = "mcp-method";
    pub const NAME: &str = "mcp-name";
    pub const SESSION_ID: &str = "mcp-session-id";
    /// The prefix of the `x-mcp-header` parameter headers (`Mcp-Param-{Name}`).
    pub const PARAM_PREFIX: &str = "mcp-param-";
    pub const ACCEL_BUFFERING: &str = "x-accel-buffering";
}

/// State shared by every request of one server.
pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) chain: Chain,
    /// One probe log for the whole server (modern requests each get a fresh connection).
    pub(crate) probe_log: Arc<Mutex<Vec<Value>>>,
    /// One hub for `subscriptions/listen` streams and their triggers, across requests.
    pub(crate) subscriptions: Arc<Hub>,
    /// One encoder, so that stateful output faults (`stale-reply-id`) span requests.
    pub(crate) encoder: Mutex<Encoder>,
    /// Becomes true when the server is stopping: open SSE streams end.
    pub(crate) stop: watch::Receiver<bool>,
}

impl Shared {
    pub(crate) fn has(&self, fault: Fault) -> bool {
        self.config.faults.has(fault)
    }

    pub(crate) fn encode(&self, msg: &Outbound) -> Vec<u8> {
        lock(&self.encoder).encode(msg)
    }

    pub(crate) fn new_connection(&self, out: mpsc::UnboundedSender<Outbound>) -> Arc<Connection> {
        Arc::new(
            Connection::new(self.config.clone(), out)
                .for_http()
                .with_probe_log(self.probe_log.clone())
                .with_subscriptions(self.subscriptions.clone()),
        )
    }
}

/// Locks a mutex, recovering from poisoning.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The 202 for an accepted notification or client response (HTTP-3, LEG-11).
pub(crate) fn accepted(shared: &Shared, era: Era) -> Response {
    let fault = match era {
        Era::Modern => Fault::HttpNotification200Body,
        Era::Legacy => Fault::HttpLegacyNotification200,
    };
    if shared.has(fault) {
        let mut response = Response::new(Body::from("{}"));
        set(&mut response, header::CONTENT_TYPE, "application/json");
        return response;
    }
    empty(StatusCode::ACCEPTED)
}

/// The handler task died (a panic): 500 with -32603.
pub(crate) fn internal_error(shared: &Shared) -> Response {
    rpc_error(
        shared,
        StatusCode::INTERNAL_SERVER_ERROR,
        Value::Null,
        RpcError::internal("the handler failed"),
    )
}

/// The HTTP status for a JSON reply (modern era: by error code; legacy: 200).
fn status_of(shared: &Shared, era: Era, msg: &Outbound) -> StatusCode {
    let Outbound::Reply {
        outcome: Err(error),
        ..
    } = msg
    else {
        return StatusCode::OK;
    };
    if era == Era::Legacy {
        return StatusCode::OK;
    }
    match error.code {
        code::METHOD_NOT_FOUND if shared.has(Fault::HttpUnknownMethod200) => StatusCode::OK,
        code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        code::INVALID_PARAMS
        | code::MISSING_CLIENT_CAPABILITY
        | code::UNSUPPORTED_PROTOCOL_VERSION
            if shared.has(Fault::HttpVersionErrorStatus200) =>
        {
            StatusCode::OK
        }
        code::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

pub(crate) fn json_reply(shared: &Shared, era: Era, msg: &Outbound) -> Response {
    json_body(shared, status_of(shared, era, msg), msg)
}

pub(crate) fn json_body(shared: &Shared, status: StatusCode, msg: &Outbound) -> Response {
    let mut response = Response::new(Body::from(shared.encode(msg)));
    *response.status_mut() = status;
    let content_type = if shared.has(Fault::HttpJsonWrongContentType) {
        "text/plain"
    } else {
        "application/json"
    };
    set(&mut response, header::CONTENT_TYPE, content_type);
    response
}

pub(crate) fn rpc_error(
    shared: &Shared,
    status: StatusCode,
    id: Value,
    error: RpcError,
) -> Response {
    json_body(
        shared,
        status,
        &Outbound::Reply {
            id,
            outcome: Err(error),
        },
    )
}

/// One header's value, trimmed; an error text if it is duplicated or not visible ASCII.
pub(crate) fn single_header(
    headers: &HeaderMap,
    name: &str,
) -> Result<Option<String>, &'static str> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err("duplicated header");
    }
    match value.to_str() {
        Ok(text) => Ok(Some(text.trim_matches([' ', '\t']).to_owned())),
        Err(_) => Err("header value with invalid characters"),
    }
}

pub(crate) fn set(response: &mut Response, name: header::HeaderName, value: &'static str) {
    response
        .headers_mut()
        .insert(name, HeaderValue::from_static(value));
}

pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    set(&mut response, header::CONTENT_TYPE, "text/plain");
    response
}

pub(crate) fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}
