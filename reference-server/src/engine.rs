//! The core: from one decoded message to at most one reply, whatever the era or the transport.
//!
//! Owns the per-connection state ([`connection`]), the middleware chain and its context
//! ([`middleware`]), building a message's context and running it through the chain
//! ([`dispatch`]), what a handler knows of its one request ([`scope`]), the cancellation of
//! in-flight requests ([`cancellation`]), the open `subscriptions/listen` streams and the
//! filters they deliver by ([`hub`]), the connection state only faults read ([`fault_state`])
//! and the interface through which the crate root adds tools ([`tool_extension`]).
//!
//! May import: the ground floor (`protocol`, `error`, `config`) and the codec (`wire`). Never
//! an era, a feature, a transport or the misbehaviour wing: the chain's endpoint (the eras) is
//! passed in by whoever builds the chain.

pub(crate) mod cancellation;
pub(crate) mod connection;
pub(crate) mod dispatch;
pub(crate) mod fault_state;
pub(crate) mod hub;
pub mod middleware;
pub(crate) mod scope;
pub(crate) mod tool_extension;
