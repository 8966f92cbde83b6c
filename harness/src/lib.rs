//! mcpspec: a conformance test harness and fuzzer for MCP (Model Context Protocol) servers.
//!
//! Data flow:
//!
//! ```text
//! Target      a command (stdio child, own process group) | a URL (streamable HTTP) |
//!             the embedded reference server                              (target)
//!   -> Transport   bytes out, lines in, a deadline on every read; Closed/TimedOut/Overflow
//!                  are events, never hangs; over HTTP each line is a POST and each JSON body
//!                  or SSE event a line, tagged with its HTTP status        (transport)
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
//!   on the same transports (fuzz), and the command line's flag values and pipe-safe output
//!   (cli_values, output)
//! ```
//!
//! The harness shares no code with the reference server it is tested against (only the
//! embedding entry point), so a bug in one cannot hide the same bug in the other.

pub mod auth;
pub mod baseline;
pub mod catalogue;
pub mod check;
pub mod check_reference;
pub mod cli_values;
pub mod client;
pub mod coverage;
pub mod default_run;
pub mod driver;
pub mod explain;
pub mod fuzz;
#[doc(hidden)]
pub mod fuzz_targets;
pub mod negotiation;
pub mod outcome;
pub mod output;
pub mod pool;
pub mod preflight;
pub mod progress;
pub mod protocol;
#[doc(hidden)]
pub mod reference_client;
pub mod replicas;
pub mod report;
pub mod requirements;
pub mod runner;
pub mod schema;
pub mod select;
pub mod target;
pub mod testing;
pub mod text;
pub mod transcript;
pub mod transport;
pub mod wire;
pub mod yaml;

pub use check::{Check, Need};
pub use outcome::{Kind, Level, Outcome};
pub use report::RunReport;
pub use runner::{RunOptions, run};
pub use target::Target;
