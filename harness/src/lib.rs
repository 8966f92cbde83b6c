//! mcpspec-harness: the server side of mcpspec, a conformance test harness and fuzzer for MCP
//! (Model Context Protocol) servers. The `mcpspec` crate puts the command line on top of it.
//!
//! Data flow:
//!
//! ```text
//! Target      a command (stdio child, own process group) | a URL (streamable HTTP) |
//!             the embedded reference server                              (target)
//!   -> Transport   bytes out, typed events in (`Recv`), a deadline on every read;
//!                  Closed/TimedOut/Overflow are events, never hangs; over HTTP each line is
//!                  a POST and each JSON body or SSE event a `Recv::Exchange` with its status
//!                  and the POSTed id, or the failure that came instead    (transport)
//!   -> Wire codec  bytes <-> Frame { raw, json, parsed: Result<Message, DecodeError> }
//!                  lossless, classified by explicit rules                   (wire)
//!   -> Driver      send(frame builder) / expect_*(…); answers server->client requests;
//!                  assigns ids; records every event                         (driver)
//!   -> Scenarios   the catalogue, grouped by spec area; each check cites requirement ids
//!                  and ends in an Outcome                                   (check, checks)
//!   -> Runner      negotiates like a dual-era client (discover, -32022 retry, fallback to
//!                  initialize), then runs checks on fresh connections     (negotiation, runner)
//!   -> Transcript  numbered events (snapshot-tested)                       (transcript)
//!      Report      console, JSON, JUnit, Markdown; baseline of known failures
//!                                                          (report, baseline)
//!   Around them: selection and sharding (select), requirement coverage (coverage), the
//!   `cargo test` integration, one libtest test per check (testing), the black-box fuzzer
//!   on the same transports (fuzz), and what the command line stands on: its flag values and
//!   pipe-safe output (cli_values, output)
//! ```
//!
//! The bottom of that flow (the transports, the wire codec, the transcript) is the
//! `mcpspec-core` crate, which every layer here names by its path (`mcpspec_core::wire`).
//!
//! The root only declares modules (the `mcpspec` crate on top holds the façade users link).
//! Every module is `pub`: the crates above (`mcpspec-client`, `mcpspec-reference-client` and
//! the `mcpspec` command line) are its callers. Which module may import which is held by a
//! test (`ARCHITECTURE.md`, "The harness's layers, tested").
//!
//! The harness shares no code with the reference server it is tested against (only the
//! embedding entry point), so a bug in one cannot hide the same bug in the other.

pub mod auth;
pub mod baseline;
pub mod catalogue;
pub mod check;
pub mod cli_values;
pub mod coverage;
pub mod default_run;
pub mod driver;
pub mod explain;
pub mod fuzz;
pub mod negotiation;
pub mod outcome;
pub mod output;
pub mod plan;
pub mod pool;
pub mod preflight;
pub mod progress;
pub mod replicas;
pub mod report;
pub mod requirements;
pub mod runner;
pub mod schema;
pub mod select;
pub mod target;
pub mod testing;
pub mod yaml;
