//! The middleware chain: plain `async fn(ctx, next)` functions with an owned [`Next`].
//!
//! ```text
//!            wire (reader)                                         wire (writer)
//!                 |                                                     ^
//!   middleware[0] |  in ------------------------------------- out  |   e.g. tracing
//!   middleware[1] |    in ------------------------------- out      |   e.g. probe
//!        ...      v                                                 |
//!                  endpoint: era routing -> lookup -> validation -> handler -> stamping
//! ```
//!
//! `middleware[0]` is nearest the wire: it sees the message first and the outcome last, so a
//! chain `[a, b]` runs `a-in, b-in, endpoint, b-out, a-out`. The endpoint stamps modern
//! results (`resultType`, serverInfo); a middleware that answers is not stamped.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tracing::Instrument;

use crate::config::Era;
use crate::engine::connection::{Connection, ClientHandle};
use crate::error::RpcError;
use crate::wire::{Outbound, RequestId};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What a chain returns: the reply's `result` member, or its `error` member. Discarded for
/// notifications.
pub type RpcResult = Result<Value, RpcError>;

/// The innermost link, which the chain ends in: handed to [`Chain::new`] (the server's is era
/// routing -> lookup -> validation -> handler -> stamping; a test's may be a stub).
pub type Endpoint = Arc<dyn Fn(Ctx) -> BoxFuture<RpcResult> + Send + Sync>;

/// A middleware list and the endpoint it ends in.
#[derive(Clone)]
pub struct Chain {
    middleware: Arc<[Middleware]>,
    endpoint: Endpoint,
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chain")
            .field("middleware", &self.middleware)
            .finish_non_exhaustive()
    }
}

impl Chain {
    /// `middleware` (`[0]` outermost) ending in `endpoint`.
    pub fn new<F, Fut>(middleware: impl Into<Arc<[Middleware]>>, endpoint: F) -> Self
    where
        F: Fn(Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = RpcResult> + Send + 'static,
    {
        Self {
            middleware: middleware.into(),
            endpoint: Arc::new(move |ctx| Box::pin(endpoint(ctx))),
        }
    }
}

/// Request or notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    Request,
    Notification,
}

impl MessageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::Request => "request",
            MessageKind::Notification => "notification",
        }
    }
}

/// One inbound message as the chain sees it. Middleware may change any public field before
/// calling `next` (rewrite): the endpoint reads `method`, `params` and `era` from here.
#[derive(Clone)]
pub struct Ctx {
    pub method: String,
    /// The raw `params` member, as sent (including `_meta`).
    pub params: Option<Value>,
    /// `None` for notifications.
    pub id: Option<RequestId>,
    /// Modern: the request's `_meta` protocolVersion. Legacy: the negotiated version (none
    /// before a handshake has committed).
    pub protocol_version: Option<String>,
    /// `None` while a both-eras connection has not chosen (see the crate doc).
    pub era: Option<Era>,
    /// `params._meta` as the client sent it.
    pub client_meta: Option<Map<String, Value>>,
    pub(crate) conn: Arc<Connection>,
    /// The legacy version an `initialize` handler negotiated; committed only if the whole
    /// chain succeeds.
    pub(crate) staged: Arc<Mutex<Option<String>>>,
    /// Where this request's notifications (log, progress, a listen stream) go; `None`: the
    /// connection's writer (stdio). See [`Ctx::stream_to`].
    pub(crate) stream: Option<mpsc::UnboundedSender<Outbound>>,
}

impl fmt::Debug for Ctx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctx")
            .field("method", &self.method)
            .field("params", &self.params)
            .field("id", &self.id)
            .field("protocol_version", &self.protocol_version)
            .field("era", &self.era)
            .finish_non_exhaustive()
    }
}

impl Ctx {
    pub fn kind(&self) -> MessageKind {
        if self.id.is_some() {
            MessageKind::Request
        } else {
            MessageKind::Notification
        }
    }

    /// A handle for server->client requests (legacy era; see [`ClientHandle::request`]).
    pub fn client(&self) -> ClientHandle {
        ClientHandle {
            conn: self.conn.clone(),
        }
    }

    /// Sends this request's notifications to `tx` instead of the connection's writer: a
    /// transport that gives each request its own stream (HTTP: the SSE body of the POST)
    /// forwards what `tx`'s receiver yields, then the reply `dispatch::run` returns.
    /// A `subscriptions/listen` request streams until the client cancels (drop the future)
    /// or the server ends it (the reply is its completion result).
    pub(crate) fn stream_to(mut self, tx: mpsc::UnboundedSender<Outbound>) -> Self {
        self.stream = Some(tx);
        self
    }

    pub(crate) fn stage_negotiated(&self, version: String) {
        if let Ok(mut slot) = self.staged.lock() {
            *slot = Some(version);
        }
    }
}

type MiddlewareFn = dyn Fn(Ctx, Next) -> BoxFuture<RpcResult> + Send + Sync;

/// One link of the chain.
#[derive(Clone)]
pub struct Middleware {
    name: Arc<str>,
    f: Arc<MiddlewareFn>,
}

impl fmt::Debug for Middleware {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Middleware").field(&self.name).finish()
    }
}

impl Middleware {
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Makes a middleware of an `async fn(Ctx, Next) -> RpcResult`.
pub fn from_fn<F, Fut>(name: &str, f: F) -> Middleware
where
    F: Fn(Ctx, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = RpcResult> + Send + 'static,
{
    Middleware {
        name: name.into(),
        f: Arc::new(move |ctx, next| Box::pin(f(ctx, next))),
    }
}

/// The rest of the chain: the inner middleware, then the endpoint.
pub struct Next {
    chain: Chain,
    index: usize,
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = &self.chain.middleware;
        let rest: Vec<&str> = list[self.index.min(list.len())..]
            .iter()
            .map(Middleware::name)
            .collect();
        f.debug_struct("Next").field("rest", &rest).finish()
    }
}

impl Next {
    /// The whole chain, from the outermost middleware.
    pub(crate) fn start(chain: Chain) -> Self {
        Self { chain, index: 0 }
    }

    /// Runs the rest of the chain on `ctx`.
    pub async fn run(self, ctx: Ctx) -> RpcResult {
        match self.chain.middleware.get(self.index).cloned() {
            Some(middleware) => {
                let next = Next {
                    chain: self.chain,
                    index: self.index + 1,
                };
                (middleware.f)(ctx, next).await
            }
            None => (self.chain.endpoint)(ctx).await,
        }
    }
}

/// The default tracing middleware: one `mcp.message` span per inbound message with method, id,
/// version and era; an event with the outcome. Silent unless a subscriber is installed.
pub fn tracing_middleware() -> Middleware {
    from_fn(TRACING, trace)
}

/// The name of [`tracing_middleware`] (to find or remove it).
pub const TRACING: &str = "tracing";

async fn trace(ctx: Ctx, next: Next) -> RpcResult {
    let id = ctx
        .id
        .as_ref()
        .map_or_else(|| "-".to_owned(), ToString::to_string);
    let span = tracing::info_span!(
        "mcp.message",
        method = %ctx.method,
        id = %id,
        version = ctx.protocol_version.as_deref().unwrap_or("-"),
        era = ctx.era.map_or("-", Era::as_str),
    );
    async move {
        let outcome = next.run(ctx).await;
        match &outcome {
            Ok(_) => tracing::debug!("ok"),
            Err(error) => tracing::debug!(code = error.code, message = %error.message, "error"),
        }
        outcome
    }
    .instrument(span)
    .await
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::Config;

    fn ctx(method: &str) -> Ctx {
        let (out, _) = mpsc::unbounded_channel();
        Ctx {
            method: method.to_owned(),
            params: None,
            id: None,
            protocol_version: None,
            era: None,
            client_meta: None,
            conn: Arc::new(Connection::new(Config::default(), out)),
            staged: Arc::new(Mutex::new(None)),
            stream: None,
        }
    }

    #[tokio::test]
    async fn the_chain_ends_in_the_endpoint_it_is_given() {
        let rewrite = from_fn("rewrite", |mut ctx: Ctx, next: Next| async move {
            ctx.method = format!("{}/rewritten", ctx.method);
            next.run(ctx).await
        });
        let stub = |ctx: Ctx| async move { Ok(json!({ "endpoint saw": ctx.method })) };
        let chain = Chain::new(vec![rewrite], stub);
        let result = Next::start(chain).run(ctx("tools/list")).await;
        assert_eq!(
            result,
            Ok(json!({ "endpoint saw": "tools/list/rewritten" }))
        );
    }
}
