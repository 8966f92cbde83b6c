//! Entry points for the cargo-fuzz targets (`fuzz/`) and the property tests; not a stable API.
//! They drive the whole server through the crate root ([`crate::serve_stream`],
//! `Server::serve_memory`), so they stand above every other module, like `main.rs`; no module
//! of the crate uses them.
//!
//! Three inputs drive the server, all in memory and bounded in wall time:
//!
//! - [`dispatch_invariants`]: raw bytes, served as newline-delimited input (decode + dispatch);
//! - [`structured_invariants`]: bytes read through [`arbitrary`] as a [`Session`] of typed
//!   messages (era selection, the `_meta` envelope ladder, the legacy handshake, probe
//!   directives, tool calls with odd arguments), rendered to lines and served;
//! - [`transport_invariants`]: raw bytes, like `dispatch`, but through the stdio transport end
//!   to end ([`crate::serve_stream`] on duplex pipes: async framing, the writer's stream, EOF).
//!
//! # Two ways to serve, one runtime
//!
//! [`serve_in_memory`] (the `dispatch` and `structured` targets) cuts the input into lines in
//! memory and runs the stdio transport's own reader loop and writer on them (`initialize`
//! inline, everything else concurrent, batches, the EOF grace, the faults the reader acts
//! out, the encoder), writing into a `Vec`: no pipe, no task, no async framing. What the
//! invariants judge (the bytes the writer produced for these lines) is what the transport
//! writes for them; `paths_agree` (used by the tests) compares the two byte for byte.
//! [`serve`] (the `transport` target) goes through [`crate::serve_stream`] on duplex pipes: it
//! keeps the parts only a byte stream has (lines assembled from reads, the output stream
//! closing) under the fuzzer.
//!
//! Both run on one current-thread runtime per thread (the fuzzing process has one), built once
//! with the time driver only (nothing here does I/O on the OS), so an input costs what the
//! server does with it. Every serve is bounded by [`SERVE_LIMIT`] of wall time on that
//! runtime's clock: a stall is a finding. A panic in the server is caught and reported (under
//! libFuzzer its panic hook aborts first, which is the crash it reports).
//!
//! All check the server's invariants on what it wrote ([`check_output`]): it did not panic or
//! stall; every output line is one JSON value; every request got exactly one reply with its id
//! and every unparseable or invalid line one error; notifications and client responses got
//! none; error codes are ones this server may emit; server->client requests only follow a
//! successful legacy handshake; a legacy session never gets a DiscoverResult. The `fuzz_*`
//! functions panic on a violation, which is what a fuzz target reports.
//!
//! The judge reads input and output lines for the members those rules need, through the
//! parser a `Value` goes through but without building one (see "the reader" below): it used
//! to cost more than serving the input. The tests hold its reading of input lines to
//! [`wire::decode`] and name every violation it reports.

//!
//! The rooms: [`serve`](self::serve) (the two ways to serve, one runtime), `judge` (the
//! invariants on what was written), `reader` (the judge's reader of lines, without building a
//! `Value`) and [`model`](self::model) (the structure-aware target's typed session).

mod judge;
mod model;
mod reader;
mod serve;

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};

use crate::config::Config;
use crate::config::faults::{Fault, Faults};
use crate::wire::{self, Inbound};

use judge::judge;

pub use judge::check_output;
pub use model::*;
pub use serve::{SERVE_LIMIT, Served, serve, serve_bytes, serve_in_memory};

/// The environment variable naming faults (comma-separated) the fuzz targets switch on.
pub const FAULTS_ENV: &str = "MCP_REFERENCE_FAULTS";

/// Decodes one line with the server's codec (must never panic).
pub fn decode(line: &[u8]) -> Inbound {
    wire::decode(line, &Faults::none())
}

/// Faults named by [`FAULTS_ENV`] (unknown names are ignored), read once.
pub fn env_faults() -> Faults {
    static FAULTS: OnceLock<Faults> = OnceLock::new();
    FAULTS
        .get_or_init(|| {
            std::env::var(FAULTS_ENV)
                .unwrap_or_default()
                .split(',')
                .filter_map(|name| name.trim().parse::<Fault>().ok())
                .collect()
        })
        .clone()
}

/// The config of the raw-bytes targets: the default, plus [`env_faults`].
fn raw_config() -> Config {
    Config {
        faults: env_faults(),
        ..Config::default()
    }
}

/// The raw-bytes target: serves `data` in memory with the default config (plus
/// [`env_faults`]) and checks the invariants.
pub fn dispatch_invariants(data: &[u8]) -> Result<(), String> {
    check_in_memory(raw_config(), data)
}

/// [`dispatch_invariants`], panicking on a violation (the cargo-fuzz target).
pub fn fuzz_dispatch(data: &[u8]) {
    if let Err(violation) = dispatch_invariants(data) {
        panic!("invariant violated: {violation}");
    }
}

/// The structure-aware target: `data` read as a [`Session`], rendered, served in memory,
/// checked. Input that does not make a session is not an error.
pub fn structured_invariants(data: &[u8]) -> Result<(), String> {
    let Ok(session) = Session::arbitrary_take_rest(Unstructured::new(data)) else {
        return Ok(());
    };
    let (config, input) = session.render(env_faults());
    check_in_memory(config, &input)
}

/// [`structured_invariants`], panicking on a violation (the cargo-fuzz target).
pub fn fuzz_structured(data: &[u8]) {
    if let Err(violation) = structured_invariants(data) {
        panic!("invariant violated: {violation}");
    }
}

/// The transport target: `data` served through the stdio transport end to end with the
/// default config (plus [`env_faults`]), invariants checked on the stream's output.
pub fn transport_invariants(data: &[u8]) -> Result<(), String> {
    check_through_transport(raw_config(), data)
}

/// [`transport_invariants`], panicking on a violation (the cargo-fuzz target).
pub fn fuzz_transport(data: &[u8]) {
    if let Err(violation) = transport_invariants(data) {
        panic!("invariant violated: {violation}");
    }
}

/// Serves `input` both ways (in memory, then through the transport) and checks the invariants
/// on each output.
pub fn serve_and_check(config: Config, input: &[u8]) -> Result<(), String> {
    check_in_memory(config.clone(), input)?;
    check_through_transport(config, input)
}

/// Serves `input` in memory ([`serve_in_memory`]) and checks the invariants on the output.
pub fn check_in_memory(config: Config, input: &[u8]) -> Result<(), String> {
    let served = serve_in_memory(config.clone(), input).map_err(|e| format!("no runtime: {e}"))?;
    judge(&config, input, served)
}

/// Serves `input` through the transport ([`serve`]) and checks the invariants on the output.
pub fn check_through_transport(config: Config, input: &[u8]) -> Result<(), String> {
    let served = serve(config.clone(), input).map_err(|e| format!("no runtime: {e}"))?;
    judge(&config, input, served)
}

/// Serves `input` both ways and compares what was written: the fast path must write, byte for
/// byte, what the transport writes (for inputs whose replies do not race a clock).
pub fn paths_agree(config: Config, input: &[u8]) -> Result<(), String> {
    let memory = serve_in_memory(config.clone(), input).map_err(|e| format!("no runtime: {e}"))?;
    let stream = serve(config, input).map_err(|e| format!("no runtime: {e}"))?;
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if memory.output != stream.output
        || memory.panicked.is_some() != stream.panicked.is_some()
        || memory.stalled != stream.stalled
    {
        return Err(format!(
            "in memory: {:?} (panicked: {:?}, stalled: {}); through the transport: {:?} \
             (panicked: {:?}, stalled: {})",
            text(&memory.output),
            memory.panicked,
            memory.stalled,
            text(&stream.output),
            stream.panicked,
            stream.stalled
        ));
    }
    Ok(())
}
