//! The transports: they move bytes, not messages. [`stdio`] serves one newline-delimited byte
//! stream; [`http`] serves streamable HTTP (its session, header and SSE parts in `http/`).
//! Both decode with the codec, run each message through the chain they are given and write
//! what it returns.
//!
//! May import: the core (`engine`), the codec (`wire`), the ground floor (`protocol`, `error`,
//! `config`) and the features (the HTTP header tool's definition). Never the misbehaviour wing
//! or the crate root: the chain arrives as an argument.

pub mod http;
pub(crate) mod stdio;
