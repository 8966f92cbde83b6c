//! The transports: they move bytes, not messages. [`stdio`] serves one newline-delimited byte
//! stream; [`http`] serves streamable HTTP (its session, header and SSE parts in `http/`).
//! Both decode with the codec, run each message through the chain they are given and write
//! what it returns.
//!
//! May import: the core (`engine`), the codec (`wire`) and the ground floor (`protocol`,
//! `error`, `config`). Never a feature, an era, the misbehaviour wing or the crate root: the
//! chain arrives as an argument, and the HTTP `route` tool is offered to the tools feature as a
//! tool extension (`engine::tool_extension`) that the crate root supplies.
//!
//! Inside `http/`, top down: `http.rs` (the router, POST, GET, DELETE) uses `session` (legacy
//! sessions; it reuses the stdio transport's batch handling), `sse` (event streams) and
//! `headers` (the header checks and the `route` tool); `session` uses `sse`; all of them use
//! `shared` (the per-server state, the header names and the response builders), which uses
//! none of them.

pub mod http;
pub(crate) mod stdio;
