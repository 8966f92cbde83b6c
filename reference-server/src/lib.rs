//! `mcp-reference-server`: an independent, dual-era MCP server with a middleware chain and
//! fault switches. It is the target mcpspec proves every check against: each [`Fault`] makes
//! it violate one requirement on purpose.
//!
//! # Data flow
//!
//! ```text
//! input bytes --LineReader (newline framing, 16 MiB cap)--> wire::decode --> Inbound
//!   parse error / invalid request / batch ......................... answered by the reader
//!   response (to a server->client request) ........................ routed to its waiter
//!   request / notification --> Ctx (era selected) --> middleware chain --> endpoint
//!        endpoint = era routing -> method lookup -> validation -> handler -> stamping
//!   outcome --> at most one reply --> the single writer (Encoder) --> output bytes
//! ```
//!
//! `initialize` is handled **inline**: the reader reads nothing more until its chain returns,
//! and the negotiated version is committed only if the whole chain succeeded. Every other
//! message runs concurrently with the reader (answered by id); a handler that does not wait
//! finishes before the next line is read, so replies come out in arrival order.
//!
//! # Middleware
//!
//! A middleware is a plain `async fn(ctx: Ctx, next: Next) -> RpcResult`; `next` is owned and
//! `next.run(ctx).await` runs the rest of the chain. The list is walked outermost-first:
//! `middleware[0]` is nearest the wire.
//!
//! ```text
//!        request ──▶ ┌─ a (middleware[0]) ─────────────────────────────┐ ──▶ reply
//!                    │  a-in   ┌─ b (middleware[1]) ───────────┐ a-out │
//!                    │         │  b-in   ┌─ endpoint ──┐ b-out │       │
//!                    │         │         │ lookup      │       │       │
//!                    │         │         │ validation  │       │       │
//!                    │         │         │ handler     │       │       │
//!                    │         │         │ stamping    │       │       │
//!                    │         │         └─────────────┘       │       │
//!                    │         └───────────────────────────────┘       │
//!                    └─────────────────────────────────────────────────┘
//! ```
//!
//! The chain wraps every inbound request and notification: `server/discover`, `initialize`,
//! notifications, unknown methods. (Parse errors, invalid requests and batches-as-errors never
//! become messages; client responses go to the server request awaiting them.) Four powers:
//!
//! - **observe**: read the [`Ctx`] (method, raw params, id, protocol version, era, client
//!   `_meta`) and the [`RpcResult`] `next` returns, errors included: a handler error flows back
//!   through `next`, so an outer middleware sees (and can time) failures;
//! - **refuse**: return `Err` without calling `next`; the error is the reply and the connection
//!   serves the next message. A refused `initialize` leaves the connection uninitialized, and a
//!   later `initialize` works;
//! - **rewrite**: change `ctx.method` / `ctx.params` before `next`: lookup, validation and the
//!   handler read the changed values;
//! - **answer**: return `Ok(result)` without calling `next`: the result is sent verbatim. The
//!   endpoint stamps modern results (`resultType`, serverInfo), so an answer is never stamped.
//!
//! For a notification the outcome is discarded: notifications are never answered. A
//! middleware that awaits a server->client request ([`ClientHandle::request`]) while `initialize` is
//! being handled deadlocks: the reader is parked and never reads the reply (this is the
//! behaviour mcpspec's deadlock checks detect; the `deadlock-on-initialize` fault and the
//! probe profile do it on purpose).
//!
//! [`Server::new`] puts the [`tracing_middleware`] first (one `mcp.message` span per message
//! with method, id, version and era; silent without a subscriber; remove it through
//! [`Server::middleware_mut`]), then the probe middleware with the probe profile (see
//! [`probe`]), then the fault middlewares; [`Server::with_middleware`] appends innermost.
//!
//! # Eras
//!
//! Modern (2026-07-28) requests carry their own `_meta` envelope; legacy revisions (2024-11-05,
//! 2025-03-26, 2025-06-18, 2025-11-25) use the `initialize` handshake. With
//! [`Eras::Both`] (the default) the first request selects the era of the connection (on stdio:
//! of the process):
//!
//! - a request whose `params._meta` has the `io.modelcontextprotocol/protocolVersion` or
//!   `io.modelcontextprotocol/clientCapabilities` key, or any `server/discover`, locks the
//!   connection **modern** at once (so `initialize` with the modern envelope gets -32601);
//! - an `initialize` without those keys is handled as legacy, and a successful handshake
//!   locks the connection **legacy**; a refused one leaves it undecided;
//! - before either: `ping` is answered `{}`, notifications are ignored, and any other request
//!   gets -32602 (it is a modern request missing its envelope, or a legacy request before
//!   `initialize`; -32602 is right for both);
//! - once locked, every message is handled in that era: on a legacy connection `_meta` is
//!   plain metadata and `server/discover` is an unknown method (-32601); on a modern one
//!   `initialize`, `ping`, `logging/setLevel` and `resources/(un)subscribe` are -32601.
//!
//! [`Eras::Modern`]: everything is modern; `initialize` (with or without the envelope) gets
//! -32601 with `data.supported` naming the modern versions (VER-5).
//! [`Eras::Legacy`]: everything is legacy; requests other than `initialize` and `ping` before
//! the handshake (including `server/discover`) get -32600 "not initialized", and
//! `server/discover` after it gets -32601: never a DiscoverResult.
//!
//! # Legacy decisions where the spec is open
//!
//! - Unknown requested version: counter-offer 2025-11-25 (LEG-2), also for `2026-07-28`
//!   requested through a bare `initialize` (VER-6).
//! - A second `initialize` after a successful one: -32600 "already initialized".
//! - Batches only on a 2025-03-26 session (RPC-10): an array of replies (notifications add
//!   none; none at all -> no reply); an empty array -> -32600; `initialize` inside -> -32600
//!   for that element. Elsewhere an array gets one -32600 with id null.
//! - After `notifications/initialized` the server sends one `ping` request (id `srv-N`).
//! - Resource not found: -32002 in legacy (LEG-13), -32602 in modern (FEAT-1).
//!
//! # The rest of the 2026-07-28 surface
//!
//! Every modern handler sees one request's scope (`scope`): its id, its stream, and the
//! opt-ins of its own `_meta` only (META-3). Discover advertises `tools`, `resources`
//! (`subscribe`, `listChanged`), `prompts`, `logging` and `completions`, all served.
//!
//! - **Lists** (`pagination`): `prompts/list`, `resources/list` and `resources/templates/list`
//!   page two items at a time, `tools/list` is one page; a cursor the server did not issue is
//!   -32602; every page of every list, discover and `resources/read` carry `ttlMs` and the
//!   same `cacheScope`; order and content never vary.
//! - **Resources and prompts** (`resources`, `prompts`, `completion`): three static resources,
//!   the template `mcpspec://reference/notes/{topic}`, three prompts with arguments;
//!   `completion/complete` for `code_review`'s `language` and the template's `topic`.
//! - **`subscriptions/listen`** (`subscriptions`): ack first, every stream notification tagged
//!   with the listen id, only what was asked for; the client ends it with
//!   `notifications/cancelled`, the server with a completion result.
//! - **Logging and progress** (`logging`, `progress`): only with the request's `logLevel` /
//!   `progressToken`, on its stream, before its reply.
//! - **Cancellation** (`cancellation`): an in-flight request is dropped and never answered;
//!   invalid cancellations are ignored.
//! - **Input-required results** (`mrtr`): the probe tool `mcpspec_confirm`; an undeclared
//!   capability is -32021 with `data.requiredCapabilities`.
//!
//! The probe profile lists the tools that fire these for a black-box harness
//! (`probe_tools`): `mcpspec_trigger_list_changed`, `mcpspec_trigger_resource_updated`,
//! `mcpspec_end_subscriptions`, `mcpspec_slow`, `mcpspec_log_demo`, `mcpspec_confirm`.
//!
//! A transport that gives each request its own stream (HTTP) calls `Ctx::stream_to` so the
//! request's notifications (a listen stream's included) go to that stream, and shares one
//! subscription hub between its connections (`Connection::with_subscriptions`).
//!
//! # Stdio
//!
//! [`serve_stream`] serves newline-delimited JSON-RPC on any byte stream; the binary serves
//! stdin/stdout. Logs go to stderr (tracing), never stdout. The server stops at input EOF
//! (in-flight requests get up to 200 ms).
//!
//! # Streamable HTTP
//!
//! [`serve_http`] / [`spawn_http`] (and [`Server::serve_http`] / [`Server::spawn_http`] with a
//! custom chain) serve the endpoint `/mcp` on a `TcpListener` (`--http ADDR` in the binary),
//! with the same middleware chain and endpoint: a fresh connection per modern request, one per
//! legacy session. Header rules, status codes, streams, sessions and the security checks are
//! described in [`http`].

#![forbid(unsafe_code)]

pub mod config;
mod engine;
mod eras;
pub mod error;
mod features;
#[doc(hidden)]
pub mod fuzz_targets;
mod misbehaviour;
pub mod protocol;
mod transport;
pub mod wire;

use std::io;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::engine::tool_extension::{ToolExtension, ToolExtensions};

pub use crate::config::faults;
pub use crate::config::faults::{Fault, Faults};
pub use crate::config::{Config, Era, Eras};
pub use crate::engine::connection::ClientHandle;
pub use crate::engine::middleware;
pub use crate::engine::middleware::{
    BoxFuture, Chain, Ctx, Endpoint, MessageKind, Middleware, Next, RpcResult, from_fn,
    tracing_middleware,
};
pub use crate::error::RpcError;
pub use crate::features::tools;
pub use crate::misbehaviour::probe;
pub use crate::transport::http;
pub use crate::transport::http::{HttpHandle, HttpOptions};
pub use crate::wire::RequestId;

/// Serves newline-delimited JSON-RPC on any byte stream until input EOF (stdio semantics).
///
/// Returns at input EOF (never, under the `ignore-eof` fault, until dropped), or when a fault
/// says "exit" (`Ok`) or "crash" (`Err`).
pub async fn serve_stream<R, W>(config: Config, input: R, output: W) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    Server::new(config).serve(input, output).await
}

/// Serves streamable HTTP on `listener` with [`Server::new`]'s middleware until the
/// future is dropped.
pub async fn serve_http(config: Config, listener: tokio::net::TcpListener) -> io::Result<()> {
    Server::new(config).serve_http(listener).await
}

/// Starts serving on `listener` in a task; see [`HttpHandle`].
pub fn spawn_http(config: Config, listener: tokio::net::TcpListener) -> io::Result<HttpHandle> {
    Server::new(config).spawn_http(listener)
}

/// A configured server with its middleware list.
#[derive(Debug, Clone)]
pub struct Server {
    config: Config,
    middleware: Vec<Middleware>,
}

impl Server {
    /// The default list: tracing, then the probe (with the probe profile), then fault
    /// middlewares (`deadlock-on-initialize`, `silent-deadlock-on-initialize`).
    pub fn new(config: Config) -> Self {
        let config = config::with_new_instance(config);
        let mut middleware = vec![tracing_middleware()];
        middleware.extend(misbehaviour::middleware(&config));
        Self { config, middleware }
    }

    /// A server with an empty middleware list (the endpoint only).
    pub fn bare(config: Config) -> Self {
        Self {
            config: config::with_new_instance(config),
            middleware: Vec::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn middleware(&self) -> &[Middleware] {
        &self.middleware
    }

    /// The list, to reorder or remove entries (e.g. the [`middleware::TRACING`] one).
    pub fn middleware_mut(&mut self) -> &mut Vec<Middleware> {
        &mut self.middleware
    }

    /// Appends a middleware innermost (nearest the endpoint).
    pub fn with_middleware(mut self, middleware: Middleware) -> Self {
        self.middleware.push(middleware);
        self
    }

    /// The middleware list ending in the eras, which serve this server's tool extensions: the
    /// probe profile's tools (with the probe profile), then the HTTP `route` tool (with
    /// `HttpOptions::header_tool`).
    fn chain(&self) -> Chain {
        let mut tools: Vec<Box<dyn ToolExtension>> = Vec::new();
        if self.config.probe_profile {
            tools.push(Box::new(misbehaviour::probe_tools::ProbeTools));
        }
        if self.config.http.header_tool {
            tools.push(Box::new(transport::http::RouteTool));
        }
        let tools = ToolExtensions::new(tools);
        Chain::new(self.middleware.clone(), move |ctx| {
            eras::endpoint(ctx, tools.clone())
        })
    }

    /// Serves one byte stream; see [`serve_stream`].
    pub async fn serve<R, W>(self, input: R, output: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let chain = self.chain();
        transport::stdio::serve(self.config, chain, input, output).await
    }

    /// Serves `input`, held in memory, as a byte stream that ends after it, writing into
    /// `output`: [`Server::serve`]'s reader loop and writer without the stream (no pipe, no
    /// async framing, no task). The fuzz targets' fast path (see `fuzz_targets`).
    pub(crate) async fn serve_memory(self, input: &[u8], output: &mut Vec<u8>) -> io::Result<()> {
        let chain = self.chain();
        transport::stdio::serve_memory(self.config, chain, input, output).await
    }

    /// Serves streamable HTTP on `listener` (see [`http`]) until the future is dropped.
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> io::Result<()> {
        let (_stop, stop_rx) = tokio::sync::watch::channel(false);
        let chain = self.chain();
        http::serve(self.config, chain, listener, stop_rx).await
    }

    /// Serves streamable HTTP on `listener` in a task; the handle has the address and stops it.
    pub fn spawn_http(self, listener: tokio::net::TcpListener) -> io::Result<HttpHandle> {
        let chain = self.chain();
        http::spawn(self.config, chain, listener)
    }
}
