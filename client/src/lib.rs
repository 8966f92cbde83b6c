//! `mcpspec client`: conformance tests and fuzzing of MCP **clients**. The roles swap: mcpspec
//! plays the server (a scripted peer built on the reference server) and judges what the client
//! sent.
//!
//! ```text
//! scenario (scenario.rs): a name the client routes on, the peer's era and behaviour, the env
//!   |
//!   peer (peer.rs): the reference server, its eras and behaviour switched by a middleware
//!   |   over HTTP  served on 127.0.0.1:0; its endpoint hook records every exchange (headers
//!   |              included) and answers what the scenario answers below the protocol
//!   |   over stdio a loopback listener; the client starts `mcpspec client peer ADDR TOKEN`
//!   |              (relay.rs), which copies its stdio to it; a tee records every line
//!   client (process.rs): the command, then the URL (or the peer command) as last argument;
//!   |   MCP_CONFORMANCE_SCENARIO, _PROTOCOL_VERSION, _CONTEXT (and _TRANSPORT=stdio) set; its
//!   |   own process group, killed at --timeout and on every way out
//!   v
//! Observation (observation.rs): every message either way, HTTP heads, the client's end
//!   --> checks (checks.rs, checks/*): each judges one scenario's observation -> Outcome
//!   --> CheckResult in a RunReport (run.rs): the server run's report types and renderers
//! ```
//!
//! `mcpspec client fuzz` (fuzz.rs) runs the client against peers that add generated hostile
//! messages to the peer's replies (oracle CLI-10), shrinks what breaks it to the shortest peer
//! script and writes it for `mcpspec client replay`.
//!
//! The crate `mcpspec-client`. The thing tested and the thing testing share no code that could
//! hide a bug: the reference client (the crate `mcpspec-reference-client`, on the harness's
//! driver, wire codec and protocol constants) is what the checks are proven against, and this
//! crate does not depend on it (cargo holds that); it reads what a client sent with its own
//! explicit rules (`judge.rs`) and names methods, codes and versions with the reference
//! server's constants. Of the crates below it may import the report, outcome, requirements,
//! flag values, output, transcript and text leaves, `transport::LineReader` (bytes only) and
//! the fuzz strategies' value generators; never `driver`, `wire`, `protocol` or `negotiation`
//! (a test reads the imports and holds this: `ARCHITECTURE.md`, "The client tester's layers").

pub mod checks;
pub mod env;
pub mod fuzz;
pub mod judge;
pub mod observation;
pub mod peer;
mod process;
pub mod relay;
pub mod run;
pub mod scenario;

pub use run::{ClientOptions, run};
pub use scenario::Transport;
