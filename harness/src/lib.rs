//! mcpspec: a conformance test harness and fuzzer for MCP (Model Context Protocol) servers.
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
//!   on the same transports (fuzz), and the command line itself, its flag values and
//!   pipe-safe output (cli, cli_values, output)
//! ```
//!
//! The bottom of that flow (the transports, the wire codec, the transcript) is the
//! `mcpspec-core` crate, which every layer here names by its path (`mcpspec_core::wire`).
//!
//! The harness shares no code with the reference server it is tested against (only the
//! embedding entry point), so a bug in one cannot hide the same bug in the other.

/// The library's inner modules: `pub(crate)`, so the compiler sees every caller and reports
/// dead code; `pub` and hidden with the `internals` feature, which only this crate's own
/// integration tests, benches and fuzz targets turn on (a self dev-dependency).
macro_rules! inner_modules {
    ($($name:ident),* $(,)?) => {
        $(
            #[cfg(feature = "internals")]
            #[doc(hidden)]
            pub mod $name;
            #[cfg(not(feature = "internals"))]
            pub(crate) mod $name;
        )*
    };
}

inner_modules!(
    auth,
    baseline,
    catalogue,
    check,
    check_reference,
    cli_values,
    client,
    coverage,
    default_run,
    driver,
    explain,
    fuzz,
    negotiation,
    outcome,
    pool,
    preflight,
    progress,
    replicas,
    report,
    requirements,
    schema,
    select,
    target,
    yaml,
);

// Declared by hand, outside the macro above: it re-exports the crate's print macros
// (`out!`, `errln!`, `pub(crate)`), which modules name by path (`crate::output::errln!`).
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod output;
#[cfg(not(feature = "internals"))]
pub(crate) mod output;

// The façade: what a user of the library (the `cargo test` integration, the binaries) needs.
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod reference_client;
pub mod runner;
pub mod testing;

pub use check::{Check, Need};
pub use outcome::{Kind, Level, Outcome};
pub use report::RunReport;
pub use runner::{RunOptions, run};
pub use target::Target;
