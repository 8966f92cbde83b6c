//! Per-connection state shared by the reader, in-flight requests and middleware: the era lock,
//! the legacy session, pending server->client requests, the probe log, and the outbound queue.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::config::faults::Fault;
use crate::config::{Config, Era, Eras};
use crate::error::RpcError;
use crate::protocol::{code, method};
use crate::wire::Outbound;

/// The mutable part of a connection.
#[derive(Debug, Default)]
struct State {
    /// The era the connection is locked to (`Eras::Both` only; the others are fixed).
    era: Option<Era>,
    /// The negotiated legacy version, once an `initialize` chain has succeeded.
    negotiated: Option<String>,
    /// `notifications/initialized` seen after the handshake.
    initialized: bool,
    /// A `server/discover` was served (only the `require-discover-first` fault reads it).
    discovered: bool,
}

type PendingReply = oneshot::Sender<Result<Value, Value>>;

pub(crate) struct Connection {
    pub(crate) config: Config,
    out: mpsc::UnboundedSender<Outbound>,
    state: Mutex<State>,
    pending: Mutex<HashMap<String, PendingReply>>,
    next_server_id: AtomicU64,
    /// Shared by every connection of an HTTP server (see [`Connection::with_probe_log`]).
    probe_log: Arc<Mutex<Vec<Value>>>,
    exit_requested: AtomicBool,
    /// Requests being handled, so `notifications/cancelled` can stop them (STDIO-4).
    pub(crate) inflight: Arc<crate::engine::cancellation::Registry>,
    /// Open `subscriptions/listen` streams; shareable between connections (HTTP).
    pub(crate) subscriptions: Arc<crate::engine::hub::Hub>,
    /// State that only faults read (the modern era keeps none otherwise, META-3).
    pub(crate) fault_state: crate::engine::fault_state::FaultState,
    /// One request of the HTTP transport, where the `MCP-Protocol-Version` header names the
    /// era (the POL-19 faults apply to stdio only).
    over_http: bool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("config", &self.config)
            .field("state", &*lock(&self.state))
            .finish_non_exhaustive()
    }
}

/// Locks a mutex, recovering from poisoning (a panicking middleware must not wedge the server).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Connection {
    pub(crate) fn new(config: Config, out: mpsc::UnboundedSender<Outbound>) -> Self {
        Self {
            config,
            out,
            state: Mutex::new(State::default()),
            pending: Mutex::new(HashMap::new()),
            next_server_id: AtomicU64::new(1),
            probe_log: Arc::new(Mutex::new(Vec::new())),
            exit_requested: AtomicBool::new(false),
            inflight: Arc::default(),
            subscriptions: Arc::default(),
            fault_state: crate::engine::fault_state::FaultState::default(),
            over_http: false,
        }
    }

    /// Marks the connection as one HTTP request's (see [`Connection::over_http`]).
    pub(crate) fn for_http(mut self) -> Self {
        self.over_http = true;
        self
    }

    /// Whether the connection is one HTTP request's, not a stdio stream.
    pub(crate) fn over_http(&self) -> bool {
        self.over_http
    }

    /// The same connection, delivering `subscriptions/listen` triggers to (and from) `hub`:
    /// a transport with one [`Connection`] per request (HTTP) shares one hub between them.
    pub(crate) fn with_subscriptions(mut self, hub: Arc<crate::engine::hub::Hub>) -> Self {
        self.subscriptions = hub;
        self
    }

    /// The writer's queue (where a request's messages go unless the transport streams them).
    pub(crate) fn outbound(&self) -> mpsc::UnboundedSender<Outbound> {
        self.out.clone()
    }

    /// Shares `log` as the probe log (HTTP: one log for all the per-request connections).
    pub(crate) fn with_probe_log(mut self, log: Arc<Mutex<Vec<Value>>>) -> Self {
        self.probe_log = log;
        self
    }

    pub(crate) fn has(&self, fault: Fault) -> bool {
        self.config.faults.has(fault)
    }

    pub(crate) fn send(&self, msg: Outbound) {
        // The writer only goes away when the connection is ending; nothing to do then.
        let _ = self.out.send(msg);
    }

    /// The era for an inbound message, locking the connection on the first modern request.
    ///
    /// `marked`: the message carries the modern envelope or is `server/discover`.
    /// `names_version`: its `_meta` names the protocol version (what the POL-19 faults read).
    pub(crate) fn select_era(
        &self,
        marked: bool,
        names_version: bool,
        method_name: &str,
        is_request: bool,
    ) -> Option<Era> {
        match self.config.eras {
            Eras::Modern => Some(Era::Modern),
            Eras::Legacy => Some(Era::Legacy),
            Eras::Both => {
                let mut state = lock(&self.state);
                if let Some(era) = state.era {
                    return Some(era);
                }
                // The POL-19 faults: a request that names no protocol version, before any era
                // is chosen on a stdio connection, is read as one era without asking.
                let envelope_less = is_request
                    && !names_version
                    && !self.over_http
                    && method_name != method::INITIALIZE
                    && method_name != method::PING;
                if envelope_less && self.has(Fault::EnvelopeLessReadAsLegacy) {
                    // Not locked: the legacy handler answers "not initialized".
                    return Some(Era::Legacy);
                }
                if envelope_less && self.has(Fault::EnvelopeLessServedAsModern) {
                    state.era = Some(Era::Modern);
                    return Some(Era::Modern);
                }
                // Under `envelope-optional` a request without the envelope is taken for a
                // modern one (that is the fault: the envelope is not required).
                let marked = marked
                    || (self.config.faults.has(Fault::EnvelopeOptional)
                        && is_request
                        && method_name != method::INITIALIZE
                        && method_name != method::PING);
                if marked {
                    if is_request {
                        state.era = Some(Era::Modern);
                    }
                    Some(Era::Modern)
                } else if method_name == method::INITIALIZE {
                    // Legacy is locked only when the handshake commits (see `commit_legacy`).
                    Some(Era::Legacy)
                } else {
                    None
                }
            }
        }
    }

    pub(crate) fn locked_era(&self) -> Option<Era> {
        match self.config.eras {
            Eras::Modern => Some(Era::Modern),
            Eras::Legacy => Some(Era::Legacy),
            Eras::Both => lock(&self.state).era,
        }
    }

    pub(crate) fn negotiated(&self) -> Option<String> {
        lock(&self.state).negotiated.clone()
    }

    /// Commits a successful `initialize`: the connection is legacy from now on.
    pub(crate) fn commit_legacy(&self, version: String) {
        {
            let mut state = lock(&self.state);
            state.era = Some(Era::Legacy);
            state.negotiated = Some(version);
        }
        if self.has(Fault::RootsBeforeInitialized) {
            self.send_request(method::ROOTS_LIST, None);
        }
    }

    /// Records `notifications/initialized`; true the first time after the handshake.
    pub(crate) fn mark_initialized(&self) -> bool {
        let mut state = lock(&self.state);
        let first = state.negotiated.is_some() && !state.initialized;
        if state.negotiated.is_some() {
            state.initialized = true;
        }
        first
    }

    pub(crate) fn mark_discovered(&self) {
        lock(&self.state).discovered = true;
    }

    pub(crate) fn discovered(&self) -> bool {
        lock(&self.state).discovered
    }

    /// A fresh server->client request id (`srv-1`, `srv-2`, ...).
    pub(crate) fn next_request_id(&self) -> Value {
        let n = self.next_server_id.fetch_add(1, Ordering::Relaxed);
        Value::String(format!("srv-{n}"))
    }

    /// Sends a server->client request without waiting for its reply; returns its id.
    pub(crate) fn send_request(&self, method_name: &str, params: Option<Value>) -> Value {
        let id = self.next_request_id();
        self.send(Outbound::Request {
            id: id.clone(),
            method: method_name.to_owned(),
            params,
        });
        id
    }

    /// Sends a server->client request and waits for the client's reply.
    pub(crate) async fn request(
        &self,
        method_name: &str,
        params: Option<Value>,
    ) -> Result<Value, RpcError> {
        let id = self.next_request_id();
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.to_string(), tx);
        self.send(Outbound::Request {
            id,
            method: method_name.to_owned(),
            params,
        });
        match rx.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(RpcError {
                code: error
                    .get("code")
                    .and_then(Value::as_i64)
                    .unwrap_or(code::INTERNAL_ERROR),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("client error")
                    .to_owned(),
                data: error.get("data").cloned(),
            }),
            Err(_) => Err(RpcError::internal(
                "the connection closed before the client replied",
            )),
        }
    }

    /// Routes a client response to the server request awaiting it; unknown ids are ignored.
    pub(crate) fn route_response(&self, id: &Value, outcome: Result<Value, Value>) {
        match lock(&self.pending).remove(&id.to_string()) {
            Some(tx) => {
                let _ = tx.send(outcome);
            }
            None => tracing::debug!(%id, "response to no pending server request; ignored"),
        }
    }

    pub(crate) fn log_probe(&self, entry: Value) {
        lock(&self.probe_log).push(entry);
    }

    pub(crate) fn probe_log(&self) -> Vec<Value> {
        lock(&self.probe_log).clone()
    }

    pub(crate) fn request_exit(&self) {
        self.exit_requested.store(true, Ordering::Relaxed);
    }

    pub(crate) fn exit_requested(&self) -> bool {
        self.exit_requested.load(Ordering::Relaxed)
    }

    /// The error for bad method params (-32602; -32603 under `invalid-params-internal-error`).
    pub(crate) fn params_error(&self, message: impl Into<String>) -> RpcError {
        if self.has(Fault::InvalidParamsInternalError) {
            RpcError::internal(message)
        } else {
            RpcError::invalid_params(message)
        }
    }

    /// The error for an unknown or removed method (-32601 unless a fault changes the code).
    pub(crate) fn method_not_found(&self, method_name: &str) -> RpcError {
        let code = if self.has(Fault::UnknownMethodWrongCode) {
            code::INVALID_REQUEST
        } else if self.has(Fault::UnknownMethodCode32000) {
            code::SERVER_ERROR
        } else if self.has(Fault::UnknownMethodCode32050) {
            code::UNDEFINED_RESERVED
        } else {
            code::METHOD_NOT_FOUND
        };
        RpcError::new(code, format!("method not found: {method_name}"))
    }
}

/// A handle for server->client messages, given to middleware through [`crate::Ctx::peer`].
#[derive(Debug, Clone)]
pub struct ClientHandle {
    pub(crate) conn: Arc<Connection>,
}

impl ClientHandle {
    /// Sends a request to the client and waits for its reply. Legacy era only: in the modern
    /// era the server must not send requests (RPC-8). Awaiting this while `initialize` is being
    /// handled deadlocks (the reader is parked and never reads the reply): by design.
    pub async fn request(
        &self,
        method_name: &str,
        params: Option<Value>,
    ) -> Result<Value, RpcError> {
        self.conn.request(method_name, params).await
    }
}
