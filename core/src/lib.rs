//! mcpspec's bottom layer: what every part of mcpspec that talks to a peer stands on, and
//! nothing that judges one.
//!
//! ```text
//! transcript   numbered events of a conversation, bounded; the evidence a verdict points at
//! transport    bytes out, typed events in (`Recv`), a deadline on every read: lines over a
//!              child process or an in-memory pipe, streamable HTTP (one POST per line)
//! wire         bytes <-> Frame { raw, json, parsed, envelope }, lossless, bounded
//! redact       every credential replaced before anything is written
//! protocol, text   leaves: names and constants, short texts
//! ```
//!
//! The server harness, the client tester, the reference client and the fuzzers (the `mcpspec`
//! crate) are built on it; this crate imports none of them, which cargo enforces.
//! `fuzz_targets` holds the cargo-fuzz entry points for the codec and the SSE parser, so the
//! fuzz crate builds this crate and the reference server only.

pub mod fuzz_targets;
pub mod protocol;
pub mod redact;
pub mod text;
pub mod transcript;
pub mod transport;
pub mod wire;
