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

use std::collections::BTreeMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::task::Poll;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::faults::{Fault, Faults};
use crate::config::{Config, Eras};
use crate::protocol::{code, meta, method, version};
use crate::wire::{self, Inbound};

/// The wall-time bound on one serve: a stall past it is a finding.
pub const SERVE_LIMIT: Duration = Duration::from_secs(5);
/// The most steps one structured session renders.
const MAX_STEPS: usize = 24;
/// The environment variable naming faults (comma-separated) the fuzz targets switch on.
pub const FAULTS_ENV: &str = "MCP_REFERENCE_FAULTS";

/// Decodes one line with the server's codec (must never panic).
pub fn decode(line: &[u8]) -> Inbound {
    wire::decode(line, &Faults::none())
}

/// What one in-memory serve produced.
#[derive(Debug, Clone, Default)]
pub struct Served {
    /// Everything the server wrote.
    pub output: Vec<u8>,
    /// The panic message, if the server panicked.
    pub panicked: Option<String>,
    /// The server neither finished nor closed its output within the bound.
    pub stalled: bool,
}

thread_local! {
    /// This thread's runtime: current-thread, time driver only, built on first use.
    static RUNTIME: std::io::Result<tokio::runtime::Runtime> =
        tokio::runtime::Builder::new_current_thread().enable_time().build();
}

/// Runs `future` to completion on this thread's runtime (see the module doc).
fn block_on<F: Future>(future: F) -> std::io::Result<F::Output> {
    RUNTIME.with(|runtime| match runtime {
        Ok(runtime) => Ok(runtime.block_on(future)),
        Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
    })
}

/// `future`'s output, or the message of the panic that ended it.
async fn catch_panic<F: Future>(future: F) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_text(payload))),
        }
    })
    .await
}

/// Serves `input` (then EOF) through the transport and returns everything written, bounded by
/// [`SERVE_LIMIT`]. A panic in the server is re-raised here.
pub fn serve_bytes(config: Config, input: &[u8]) -> std::io::Result<Vec<u8>> {
    let served = serve(config, input)?;
    if let Some(message) = served.panicked {
        panic!("the server panicked: {message}");
    }
    if served.stalled {
        return Err(std::io::Error::other("the server did not finish in 5 s"));
    }
    Ok(served.output)
}

/// Serves `input` (then EOF) through the stdio transport ([`crate::serve_stream`] on duplex
/// pipes) on this thread's runtime; never panics itself.
pub fn serve(config: Config, input: &[u8]) -> std::io::Result<Served> {
    block_on(async {
        let (mut client_w, server_r) = tokio::io::duplex(1 << 16);
        let (server_w, mut client_r) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(crate::serve_stream(config, server_r, server_w));
        let feed = async {
            // A server that died or stopped reading makes the write fail; the output still
            // tells what happened.
            let _ = client_w.write_all(input).await;
            let _ = client_w.shutdown().await;
        };
        let mut output = Vec::new();
        let collect = async {
            let _ = client_r.read_to_end(&mut output).await;
        };
        let stalled = tokio::time::timeout(SERVE_LIMIT, async { tokio::join!(feed, collect) })
            .await
            .is_err();
        server.abort();
        let panicked = match server.await {
            Err(e) if e.is_panic() => Some(panic_text(e.into_panic())),
            _ => None,
        };
        Served {
            output,
            panicked,
            stalled,
        }
    })
}

/// Serves `input` (then its end) without the byte stream: the transport's reader loop and
/// writer on lines cut in memory (see the module doc), on this thread's runtime, bounded by
/// [`SERVE_LIMIT`]; never panics itself.
pub fn serve_in_memory(config: Config, input: &[u8]) -> std::io::Result<Served> {
    block_on(async {
        let mut output = Vec::new();
        let serving = catch_panic(crate::Server::new(config).serve_memory(input, &mut output));
        // The server's own result (an exit or crash fault) shows in what it wrote.
        let ended = tokio::time::timeout(SERVE_LIMIT, serving).await;
        Served {
            panicked: ended.as_ref().ok().and_then(|r| r.as_ref().err().cloned()),
            stalled: ended.is_err(),
            output,
        }
    })
}

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map_or_else(|| "(non-string panic payload)".into(), |s| (*s).to_owned()),
    }
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

/// The invariants on one serve: no panic, no stall, then [`check_output`].
fn judge(config: &Config, input: &[u8], served: Served) -> Result<(), String> {
    if let Some(message) = served.panicked {
        return Err(format!("the server panicked: {message}"));
    }
    if served.stalled {
        return Err("the server stalled (no EOF within 5 s)".into());
    }
    check_output(config, input, &served.output)
}

/// What the input obliges the server to write for one id, and what it wrote.
#[derive(Debug, Default)]
struct Tally {
    /// Replies that must come exactly (0: the id was not required).
    required: usize,
    /// Replies that may additionally come (batch elements and their invalid wrapper).
    optional: usize,
    /// Methods of the requests with this id, to check era rules on their replies.
    methods: Vec<String>,
    /// Replies written with this id.
    seen: usize,
}

/// Checks what the server wrote against what it was sent (see the module doc).
pub fn check_output(config: &Config, input: &[u8], output: &[u8]) -> Result<(), String> {
    let mut tallies = expectations(config, input);
    let text = std::str::from_utf8(output).map_err(|e| format!("output is not UTF-8: {e}"))?;
    let mut legacy_session = false;
    // The previous line and its reading: a line the same as the one before (one parse error
    // per bad input line, typically) is not read again.
    let mut previous: Option<(&str, Line)> = None;
    for line in text.lines() {
        let read = match previous.take() {
            Some((before, read)) if before == line => read,
            _ => read_whole_line(line.as_bytes())
                .map_err(|e| format!("output line is not JSON ({e}): {line:?}"))?,
        };
        let read = &previous.insert((line, read)).1;
        let replies = match read {
            Line::Batch(items) => items.as_slice(),
            Line::Single(one) => std::slice::from_ref(one),
        };
        for (index, reply) in replies.iter().enumerate() {
            // The reply as a `Value`, for a violation's message only.
            let shown = || reply_text(line, read, index);
            let Shape::Object(obj) = reply else {
                return Err(format!("output is not an object: {}", shown()));
            };
            if !obj.jsonrpc_2_0 {
                return Err(format!("output without `jsonrpc: \"2.0\"`: {}", shown()));
            }
            if obj.method.is_some() {
                // A server->client request or notification.
                if obj.id.is_some() && !legacy_session {
                    return Err(format!(
                        "server->client request outside a legacy session: {}",
                        shown()
                    ));
                }
                continue;
            }
            let tally = tallies
                .entry(key(obj.id.as_ref().unwrap_or(&Value::Null)))
                .or_default();
            tally.seen += 1;
            match (&obj.result, &obj.error) {
                (Some(result), None) => {
                    if tally.methods.iter().any(|m| m == method::INITIALIZE)
                        && result.protocol_version
                    {
                        legacy_session = true;
                    }
                    if legacy_session
                        && tally.methods.iter().all(|m| m == method::DISCOVER)
                        && result.supported_versions
                    {
                        return Err(format!("a DiscoverResult in a legacy session: {}", shown()));
                    }
                }
                (None, Some(code)) => {
                    if !code.is_some_and(allowed_code) {
                        return Err(format!("error code not in the allowed set: {}", shown()));
                    }
                }
                _ => {
                    return Err(format!(
                        "a reply needs exactly one of result/error: {}",
                        shown()
                    ));
                }
            }
        }
    }
    for (key, tally) in &tallies {
        let (got, want, extra) = (tally.seen, tally.required, tally.optional);
        if want > 0 && (got < want || got > want + extra) {
            return Err(format!(
                "id {key}: {got} replies, expected {want}{}",
                if extra > 0 {
                    format!(" (up to {})", want + extra)
                } else {
                    String::new()
                }
            ));
        }
        if want == 0 && got > extra {
            return Err(format!(
                "{got} replies with id {key}, which no request carried"
            ));
        }
    }
    Ok(())
}

/// Reply `index` of an output line that was read, as compact JSON.
fn reply_text(line: &str, read: &Line, index: usize) -> String {
    let value: Value = serde_json::from_str(line).unwrap_or_default();
    match (read, value) {
        (Line::Batch(_), Value::Array(mut items)) if index < items.len() => {
            items.swap_remove(index).to_string()
        }
        (_, value) => value.to_string(),
    }
}

/// An id as the key of the reply counts: its compact JSON text (what `Display` gives), through
/// the serializer the server's encoder uses.
fn key(id: &Value) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// Error codes the reference server emits (faults aside).
fn allowed_code(code: i64) -> bool {
    matches!(
        code,
        code::PARSE_ERROR
            | code::INVALID_REQUEST
            | code::METHOD_NOT_FOUND
            | code::INVALID_PARAMS
            | code::INTERNAL_ERROR
            | code::UNSUPPORTED_PROTOCOL_VERSION
            | code::RESOURCE_NOT_FOUND_LEGACY
    )
}

/// What `input` obliges the server to write, per id (`null` included).
fn expectations(config: &Config, input: &[u8]) -> BTreeMap<String, Tally> {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let null = key(&Value::Null);
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if input.ends_with(b"\n") {
        lines.pop();
    }
    for line in lines {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if line.len() > crate::protocol::MAX_LINE {
            tallies.entry(null.clone()).or_default().required += 1;
            continue;
        }
        match owed(line, &config.faults) {
            Owed::Nothing => {}
            Owed::Reply(id) => tallies.entry(key(&id)).or_default().required += 1,
            Owed::Answer { id, method } => {
                let tally = tallies.entry(key(&id)).or_default();
                tally.required += 1;
                tally.methods.push(method);
            }
            Owed::Batch(ids) => {
                // Rejected whole (one null-id error) or answered element by element.
                tallies.entry(null.clone()).or_default().optional += 1;
                for id in ids {
                    tallies.entry(key(&id)).or_default().optional += 1;
                }
            }
        }
    }
    tallies
}

/// What one input line obliges the server to write, as [`wire::decode`] classifies it.
#[derive(Debug, PartialEq)]
enum Owed {
    /// A notification (served or dropped) or a client response: no reply.
    Nothing,
    /// One error reply with this id: a parse error (`null`) or an invalid request.
    Reply(Value),
    /// One reply (a result or an error) to a request.
    Answer { id: Value, method: String },
    /// A batch: one null-id error, or one reply per element with these ids.
    Batch(Vec<Value>),
}

/// [`Owed`] for one line: the members [`wire::classify`] reads, by its rules, read without
/// building the message (a tool call's arguments, say) as a `Value`; the parse is the one a
/// `Value` goes through, so the line is JSON exactly when `wire::decode` says so.
fn owed(line: &[u8], faults: &Faults) -> Owed {
    match read_whole_line(line) {
        Err(_) => Owed::Reply(Value::Null),
        Ok(Line::Batch(items)) => Owed::Batch(
            items
                .into_iter()
                .filter_map(|item| match owed_by(item, faults) {
                    Owed::Reply(id) | Owed::Answer { id, .. } => Some(id),
                    Owed::Nothing | Owed::Batch(_) => None,
                })
                .collect(),
        ),
        Ok(Line::Single(message)) => owed_by(message, faults),
    }
}

/// [`wire::classify`]'s rules on the members read.
fn owed_by(message: Shape, faults: &Faults) -> Owed {
    let Shape::Object(m) = message else {
        return Owed::Reply(Value::Null);
    };
    let id = match m.id {
        None => None,
        Some(id @ Value::String(_)) => Some(id),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
        Some(Value::Null) if faults.has(Fault::NullIdAnswered) => Some(Value::Null),
        Some(_) => return Owed::Reply(Value::Null),
    };
    let jsonrpc_ok = m.jsonrpc_2_0 || faults.has(Fault::AcceptAnyJsonrpcVersion);
    let params_ok = m.params_structured.unwrap_or(true);
    match (m.method, id) {
        (Some(Some(_)), None) => Owed::Nothing,
        (Some(Some(method)), Some(id)) if jsonrpc_ok && params_ok => Owed::Answer { id, method },
        (Some(_), id) => Owed::Reply(id.unwrap_or(Value::Null)),
        (None, Some(_)) if m.result.is_some() != m.error.is_some() => Owed::Nothing,
        (None, id) => Owed::Reply(id.unwrap_or(Value::Null)),
    }
}

/// One line as the judge reads it, input or output: a message, or an array of them (a batch,
/// or a batch reply).
#[derive(Debug)]
enum Line {
    Single(Shape),
    Batch(Vec<Shape>),
}

#[derive(Debug)]
enum Shape {
    NotObject,
    Object(Members),
}

/// The members of one message the judge reads: those [`wire::classify`] reads of an input
/// line, and those the invariants read of a reply (the last of duplicates wins).
#[derive(Debug, Default)]
struct Members {
    /// `jsonrpc` is the string `"2.0"`.
    jsonrpc_2_0: bool,
    id: Option<Value>,
    /// `method` is present; its text when it is a string.
    method: Option<Option<String>>,
    /// `params` is present; whether it is an object or an array.
    params_structured: Option<bool>,
    /// `result` is present; the keys it has of those the invariants read.
    result: Option<ResultKeys>,
    /// `error` is present; its `code` as an `i64` when it is one.
    error: Option<Option<i64>>,
}

/// The keys of a result that tell an InitializeResult and a DiscoverResult apart.
#[derive(Debug, Default)]
struct ResultKeys {
    protocol_version: bool,
    supported_versions: bool,
}

fn read_whole_line(line: &[u8]) -> serde_json::Result<Line> {
    Ok(match read_line(line, Want::Line)? {
        Got::Line(read) => read,
        _ => Line::Single(Shape::NotObject),
    })
}

// --- the reader --------------------------------------------------------------------------------
//
// The judge reads lines for the few members it checks, through the parser a `Value` goes
// through (`deserialize_any` all the way down, on a byte slice as `wire::decode` does: the same
// syntax errors, number rules and recursion limit), without building the value: no map, no
// string copies. One visitor type for every kind of read, so that the parser's generic code is
// compiled (and instrumented) once more, not once per kind: every copy is more coverage
// counters for libFuzzer to walk after each input.

/// What to take from one JSON value.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// Nothing (the value is read and dropped).
    Skip,
    /// A member name the judge reads.
    KeyName,
    /// Whether it is the string `"2.0"`.
    Is20,
    /// A string's text.
    Text,
    /// An integer that fits an `i64`.
    I64,
    /// Whether it is an object or an array.
    Structured,
    /// A whole line: a message or an array of them.
    Line,
    /// One message's [`Members`].
    Members,
    ResultKeys,
    /// An error object's `code`.
    ErrorCode,
}

/// What was taken: `Nothing` when the value is not of the kind wanted.
#[derive(Debug)]
enum Got {
    Nothing,
    Key(&'static str),
    Yes,
    Text(String),
    I64(i64),
    Line(Line),
    Members(Members),
    ResultKeys(ResultKeys),
}

/// Member names the judge reads.
const KEY_NAMES: [&str; 9] = [
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "protocolVersion",
    "supportedVersions",
];

/// Reads one whole line (nothing but whitespace after the value) for `want`.
fn read_line(line: &[u8], want: Want) -> serde_json::Result<Got> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let got = Read(want).deserialize(&mut de)?;
    de.end()?;
    Ok(got)
}

/// A [`Want`] as a serde seed and visitor.
struct Read(Want);

impl<'de> DeserializeSeed<'de> for Read {
    type Value = Got;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Got, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Read {
    fn key<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Option<&'static str>>, A::Error> {
        Ok(map
            .next_key_seed(Read(Want::KeyName))?
            .map(|got| match got {
                Got::Key(name) => Some(name),
                _ => None,
            }))
    }

    fn value<'de, A: MapAccess<'de>>(map: &mut A, want: Want) -> Result<Got, A::Error> {
        map.next_value_seed(Read(want))
    }

    fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
        while map
            .next_entry_seed(Read(Want::Skip), Read(Want::Skip))?
            .is_some()
        {}
        Ok(())
    }

    fn members<'de, A: MapAccess<'de>>(mut map: A) -> Result<Members, A::Error> {
        let mut m = Members::default();
        while let Some(name) = Self::key(&mut map)? {
            match name {
                Some("jsonrpc") => {
                    m.jsonrpc_2_0 = matches!(Self::value(&mut map, Want::Is20)?, Got::Yes);
                }
                Some("id") => m.id = Some(map.next_value()?),
                Some("method") => {
                    m.method = Some(match Self::value(&mut map, Want::Text)? {
                        Got::Text(text) => Some(text),
                        _ => None,
                    });
                }
                Some("params") => {
                    let structured = Self::value(&mut map, Want::Structured)?;
                    m.params_structured = Some(matches!(structured, Got::Yes));
                }
                Some("result") => {
                    m.result = Some(match Self::value(&mut map, Want::ResultKeys)? {
                        Got::ResultKeys(keys) => keys,
                        _ => ResultKeys::default(),
                    });
                }
                Some("error") => {
                    m.error = Some(match Self::value(&mut map, Want::ErrorCode)? {
                        Got::I64(code) => Some(code),
                        _ => None,
                    });
                }
                _ => {
                    Self::value(&mut map, Want::Skip)?;
                }
            }
        }
        Ok(m)
    }

    fn result_keys<'de, A: MapAccess<'de>>(mut map: A) -> Result<ResultKeys, A::Error> {
        let mut keys = ResultKeys::default();
        while let Some(name) = Self::key(&mut map)? {
            match name {
                Some("protocolVersion") => keys.protocol_version = true,
                Some("supportedVersions") => keys.supported_versions = true,
                _ => {}
            }
            Self::value(&mut map, Want::Skip)?;
        }
        Ok(keys)
    }

    fn error_code<'de, A: MapAccess<'de>>(mut map: A) -> Result<Got, A::Error> {
        let mut code = Got::Nothing;
        while let Some(name) = Self::key(&mut map)? {
            let want = if name == Some("code") {
                Want::I64
            } else {
                Want::Skip
            };
            let got = Self::value(&mut map, want)?;
            if name == Some("code") {
                code = got;
            }
        }
        Ok(code)
    }
}

impl<'de> Visitor<'de> for Read {
    type Value = Got;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Got, E> {
        Ok(match self.0 {
            Want::I64 => Got::I64(v),
            _ => Got::Nothing,
        })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Got, E> {
        Ok(match (self.0, i64::try_from(v)) {
            (Want::I64, Ok(v)) => Got::I64(v),
            _ => Got::Nothing,
        })
    }

    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Got, E> {
        Ok(match self.0 {
            Want::KeyName => KEY_NAMES
                .into_iter()
                .find(|name| *name == v)
                .map_or(Got::Nothing, Got::Key),
            Want::Is20 if v == "2.0" => Got::Yes,
            Want::Text => Got::Text(v.to_owned()),
            _ => Got::Nothing,
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Got, E> {
        Ok(Got::Nothing)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Got, A::Error> {
        Ok(match self.0 {
            Want::Line => {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element_seed(Read(Want::Members))? {
                    items.push(match item {
                        Got::Members(m) => Shape::Object(m),
                        _ => Shape::NotObject,
                    });
                }
                Got::Line(Line::Batch(items))
            }
            want => {
                while seq.next_element_seed(Read(Want::Skip))?.is_some() {}
                match want {
                    Want::Structured => Got::Yes,
                    _ => Got::Nothing,
                }
            }
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Got, A::Error> {
        Ok(match self.0 {
            Want::Line => Got::Line(Line::Single(Shape::Object(Self::members(map)?))),
            Want::Members => Got::Members(Self::members(map)?),
            Want::ResultKeys => Got::ResultKeys(Self::result_keys(map)?),
            Want::ErrorCode => Self::error_code(map)?,
            Want::Structured => {
                Self::skip_map(map)?;
                Got::Yes
            }
            Want::Skip | Want::KeyName | Want::Is20 | Want::Text | Want::I64 => {
                Self::skip_map(map)?;
                Got::Nothing
            }
        })
    }
}

// --- the structure-aware model --------------------------------------------------------------

/// A connection's worth of typed messages, read from fuzz bytes.
#[derive(Debug, Clone, Arbitrary)]
pub struct Session {
    pub eras: ErasPick,
    pub probe_profile: bool,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum ErasPick {
    Both,
    Modern,
    Legacy,
}

/// One line the client writes.
#[derive(Debug, Clone, Arbitrary)]
pub enum Step {
    Request {
        id: IdPick,
        method: MethodPick,
        envelope: EnvelopePick,
        params: ParamsPick,
    },
    Notification {
        method: MethodPick,
        envelope: EnvelopePick,
        params: ParamsPick,
    },
    /// A legacy `initialize` (possibly with a modern envelope, which locks modern).
    Initialize {
        id: IdPick,
        version: VersionPick,
        envelope: EnvelopePick,
        veto: bool,
    },
    /// The handshake's closing notification.
    Initialized,
    /// A client response (to a server->client request, or to nothing).
    Response { id: IdPick, error: bool },
    /// A JSON array of requests.
    Batch {
        ids: Vec<IdPick>,
        method: MethodPick,
    },
    /// Arbitrary bytes on one line (newlines removed).
    Raw(Vec<u8>),
}

/// Ids from small spaces, so that reuse and collisions are common.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum IdPick {
    Int(u8),
    Negative(u8),
    Str(u8),
    NumericString(u8),
    Null,
    Fraction,
    Bool,
    Huge,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum MethodPick {
    Discover,
    Initialize,
    Initialized,
    Ping,
    ToolsList,
    ToolsCall,
    ResourcesList,
    ResourcesRead,
    TemplatesList,
    Subscribe,
    Unsubscribe,
    SetLevel,
    Cancelled,
    Unknown(u8),
}

/// The `_meta` envelope ladder: from nothing to the full modern envelope.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum EnvelopePick {
    None,
    MetaNotObject,
    EmptyMeta,
    VersionOnly(VersionPick),
    CapabilitiesOnly,
    Full {
        version: VersionPick,
        client_info: bool,
    },
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum VersionPick {
    Modern,
    Legacy(u8),
    Unknown,
    Malformed,
    NotAString,
}

#[derive(Debug, Clone, Arbitrary)]
pub enum ParamsPick {
    Absent,
    Empty,
    Array,
    ToolCall {
        tool: ToolPick,
        arguments: Vec<(KeyPick, ValuePick)>,
        arguments_not_object: bool,
    },
    Cursor(ValuePick),
    Uri(UriPick),
    Level(u8),
    Cancel(IdPick),
    Probe(ProbePick),
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum ToolPick {
    Echo,
    Add,
    ProbeLog,
    Missing,
    NotAString,
    Unknown,
}

#[derive(Debug, Clone, Arbitrary)]
pub enum KeyPick {
    Text,
    A,
    B,
    /// `__`-prefixed keys (`__proto__`, ...), a classic of JSON fuzz dictionaries.
    Dunder(u8),
    Meta,
    Other(String),
}

#[derive(Debug, Clone, Arbitrary)]
pub enum ValuePick {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<u8>),
    Object(Vec<(String, u8)>),
    /// Nested arrays this deep (bounded).
    Deep(u8),
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum UriPick {
    Known,
    Unknown,
    Empty,
    NotAString,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum ProbePick {
    Refuse(u8),
    Rewrite(MethodPick),
    RewriteParams,
    Answer,
    NotAnObject,
}

impl Session {
    /// Reads a session from fuzz bytes (`None` when they do not make one).
    pub fn from_bytes(data: &[u8]) -> Option<Session> {
        Session::arbitrary_take_rest(Unstructured::new(data)).ok()
    }

    /// The server config and the input bytes this session stands for.
    pub fn render(&self, faults: Faults) -> (Config, Vec<u8>) {
        let config = Config {
            faults,
            eras: match self.eras {
                ErasPick::Both => Eras::Both,
                ErasPick::Modern => Eras::Modern,
                ErasPick::Legacy => Eras::Legacy,
            },
            probe_profile: self.probe_profile,
            ..Config::default()
        };
        let mut input = Vec::new();
        for step in self.steps.iter().take(MAX_STEPS) {
            input.extend(step.render());
            input.push(b'\n');
        }
        (config, input)
    }
}

impl Step {
    fn render(&self) -> Vec<u8> {
        let value = match self {
            Step::Request {
                id,
                method,
                envelope,
                params,
            } => message(Some(id.json()), method.name(), params.json(*envelope)),
            Step::Notification {
                method,
                envelope,
                params,
            } => message(None, method.name(), params.json(*envelope)),
            Step::Initialize {
                id,
                version,
                envelope,
                veto,
            } => {
                let client = if *veto {
                    crate::misbehaviour::probe::VETO_CLIENT
                } else {
                    "fuzz"
                };
                let mut params = json!({
                    "protocolVersion": version.json(),
                    "capabilities": {},
                    "clientInfo": {"name": client, "version": "0"},
                });
                envelope.apply(&mut params);
                message(Some(id.json()), method::INITIALIZE, Some(params))
            }
            Step::Initialized => message(None, method::INITIALIZED, None),
            Step::Response { id, error } => {
                let outcome = if *error {
                    ("error", json!({"code": -1, "message": "no"}))
                } else {
                    ("result", json!({}))
                };
                json!({"jsonrpc": "2.0", "id": id.json(), outcome.0: outcome.1})
            }
            Step::Batch { ids, method } => Value::Array(
                ids.iter()
                    .take(4)
                    .map(|id| message(Some(id.json()), method.name(), None))
                    .collect(),
            ),
            Step::Raw(bytes) => {
                return bytes.iter().copied().filter(|&b| b != b'\n').collect();
            }
        };
        // Compact, like `value.to_string()`, through the serializer the server's encoder uses.
        serde_json::to_vec(&value).unwrap_or_default()
    }
}

fn message(id: Option<Value>, method: &str, params: Option<Value>) -> Value {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), "2.0".into());
    if let Some(id) = id {
        obj.insert("id".into(), id);
    }
    obj.insert("method".into(), method.into());
    if let Some(params) = params {
        obj.insert("params".into(), params);
    }
    Value::Object(obj)
}

impl IdPick {
    fn json(self) -> Value {
        match self {
            IdPick::Int(n) => json!(n % 8),
            IdPick::Negative(n) => json!(-i64::from(n % 4) - 1),
            IdPick::Str(n) => json!(format!("r{}", n % 8)),
            IdPick::NumericString(n) => json!((n % 8).to_string()),
            IdPick::Null => Value::Null,
            IdPick::Fraction => json!(1.5),
            IdPick::Bool => json!(true),
            IdPick::Huge => json!(u64::MAX),
        }
    }
}

impl MethodPick {
    fn name(self) -> &'static str {
        match self {
            MethodPick::Discover => method::DISCOVER,
            MethodPick::Initialize => method::INITIALIZE,
            MethodPick::Initialized => method::INITIALIZED,
            MethodPick::Ping => method::PING,
            MethodPick::ToolsList => method::TOOLS_LIST,
            MethodPick::ToolsCall => method::TOOLS_CALL,
            MethodPick::ResourcesList => method::RESOURCES_LIST,
            MethodPick::ResourcesRead => method::RESOURCES_READ,
            MethodPick::TemplatesList => method::RESOURCES_TEMPLATES_LIST,
            MethodPick::Subscribe => method::RESOURCES_SUBSCRIBE,
            MethodPick::Unsubscribe => method::RESOURCES_UNSUBSCRIBE,
            MethodPick::SetLevel => method::LOGGING_SET_LEVEL,
            MethodPick::Cancelled => method::CANCELLED,
            MethodPick::Unknown(n) => match n % 4 {
                0 => "no/such",
                1 => "",
                2 => "notifications/no-such",
                _ => "tools/call/",
            },
        }
    }
}

impl EnvelopePick {
    fn apply(self, params: &mut Value) {
        let Value::Object(obj) = params else { return };
        let full = |version: VersionPick, client_info: bool| {
            let mut m = json!({
                meta::PROTOCOL_VERSION: version.json(),
                meta::CLIENT_CAPABILITIES: {},
            });
            if client_info {
                m[meta::CLIENT_INFO] = json!({"name": "fuzz", "version": "0"});
            }
            m
        };
        let meta_value = match self {
            EnvelopePick::None => return,
            EnvelopePick::MetaNotObject => json!("meta"),
            EnvelopePick::EmptyMeta => json!({}),
            EnvelopePick::VersionOnly(v) => json!({ meta::PROTOCOL_VERSION: v.json() }),
            EnvelopePick::CapabilitiesOnly => json!({ meta::CLIENT_CAPABILITIES: {} }),
            EnvelopePick::Full {
                version,
                client_info,
            } => full(version, client_info),
        };
        match (obj.get_mut("_meta"), meta_value) {
            (Some(Value::Object(existing)), Value::Object(add)) => existing.extend(add),
            (_, v) => {
                obj.insert("_meta".into(), v);
            }
        }
    }
}

impl VersionPick {
    fn json(self) -> Value {
        match self {
            VersionPick::Modern => json!(version::MODERN),
            VersionPick::Legacy(n) => {
                let all = version::LEGACY_SUPPORTED;
                json!(all[usize::from(n) % all.len()])
            }
            VersionPick::Unknown => json!("2099-01-01"),
            VersionPick::Malformed => json!("not-a-version"),
            VersionPick::NotAString => json!(20260728),
        }
    }
}

impl ParamsPick {
    fn json(&self, envelope: EnvelopePick) -> Option<Value> {
        let mut params = match self {
            ParamsPick::Absent => {
                if matches!(envelope, EnvelopePick::None) {
                    return None;
                }
                json!({})
            }
            ParamsPick::Empty => json!({}),
            ParamsPick::Array => return Some(json!([1, 2])),
            ParamsPick::ToolCall {
                tool,
                arguments,
                arguments_not_object,
            } => {
                let mut p = Map::new();
                match tool {
                    ToolPick::Echo => p.insert("name".into(), json!(crate::features::tools::ECHO)),
                    ToolPick::Add => p.insert("name".into(), json!(crate::features::tools::ADD)),
                    ToolPick::ProbeLog => {
                        p.insert("name".into(), json!(crate::features::tools::PROBE_LOG))
                    }
                    ToolPick::Missing => None,
                    ToolPick::NotAString => p.insert("name".into(), json!(7)),
                    ToolPick::Unknown => p.insert("name".into(), json!("no-such-tool")),
                };
                let args: Map<String, Value> = arguments
                    .iter()
                    .take(6)
                    .map(|(k, v)| (k.name(), v.json()))
                    .collect();
                let args = if *arguments_not_object {
                    json!(["not", "an", "object"])
                } else {
                    Value::Object(args)
                };
                p.insert("arguments".into(), args);
                Value::Object(p)
            }
            ParamsPick::Cursor(v) => Value::Object(Map::from_iter([("cursor".into(), v.json())])),
            ParamsPick::Uri(u) => json!({ "uri": u.json() }),
            ParamsPick::Level(n) => {
                let levels = crate::protocol::LOG_LEVELS;
                let level = levels
                    .get(usize::from(*n))
                    .map_or_else(|| json!("loud"), |l| json!(l));
                json!({ "level": level })
            }
            ParamsPick::Cancel(id) => json!({ "requestId": id.json(), "reason": "fuzz" }),
            ParamsPick::Probe(probe) => json!({ "_meta": { meta::PROBE: probe.json() } }),
        };
        envelope.apply(&mut params);
        Some(params)
    }
}

impl KeyPick {
    fn name(&self) -> String {
        match self {
            KeyPick::Text => "text".into(),
            KeyPick::A => "a".into(),
            KeyPick::B => "b".into(),
            KeyPick::Dunder(n) => {
                ["__proto__", "__boom", "__class__", "__"][usize::from(n % 4)].into()
            }
            KeyPick::Meta => "_meta".into(),
            KeyPick::Other(s) => s.chars().take(16).collect(),
        }
    }
}

impl ValuePick {
    fn json(&self) -> Value {
        match self {
            ValuePick::Null => Value::Null,
            ValuePick::Bool(b) => json!(b),
            ValuePick::Int(n) => json!(n),
            ValuePick::Float(f) => {
                serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
            }
            ValuePick::Str(s) => json!(s.chars().take(64).collect::<String>()),
            ValuePick::Array(items) => {
                Value::Array(items.iter().take(8).map(|&n| n.into()).collect())
            }
            ValuePick::Object(entries) => Value::Object(
                entries
                    .iter()
                    .take(6)
                    .map(|(k, v)| (k.chars().take(16).collect(), json!(v)))
                    .collect(),
            ),
            ValuePick::Deep(depth) => {
                // `Value::Array` moves `v` in; `json!([v])` would copy it through `to_value` at
                // every level.
                let mut v = json!(0);
                for _ in 0..(depth % 64) {
                    v = Value::Array(vec![v]);
                }
                v
            }
        }
    }
}

impl UriPick {
    fn json(self) -> Value {
        match self {
            UriPick::Known => json!("mcpspec://reference/readme"),
            UriPick::Unknown => json!("file:///no/such"),
            UriPick::Empty => json!(""),
            UriPick::NotAString => json!(["uri"]),
        }
    }
}

impl ProbePick {
    fn json(self) -> Value {
        match self {
            ProbePick::Refuse(n) => {
                let codes = [
                    code::INVALID_REQUEST,
                    code::INVALID_PARAMS,
                    code::INTERNAL_ERROR,
                    code::METHOD_NOT_FOUND,
                ];
                json!({"refuse": {"code": codes[usize::from(n % 4)], "message": "probe"}})
            }
            ProbePick::Rewrite(m) => json!({"rewrite": {"method": m.name()}}),
            ProbePick::RewriteParams => json!({"rewrite": {"params": {"name": "echo"}}}),
            ProbePick::Answer => json!({"answer": {"answered": true}}),
            ProbePick::NotAnObject => json!(["refuse"]),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::wire::Message;

    /// [`Owed`] through the server's own codec: what [`owed`] must agree with.
    fn owed_by_decode(line: &[u8], faults: &Faults) -> Owed {
        let of = |inbound| match inbound {
            Inbound::ParseError(_) => Owed::Reply(Value::Null),
            Inbound::Invalid { id, .. } => Owed::Reply(id),
            Inbound::Message(Message::Request { id, method, .. }) => Owed::Answer {
                id: id.as_json().clone(),
                method,
            },
            Inbound::Batch(_)
            | Inbound::DroppedNotification(_)
            | Inbound::Message(Message::Notification { .. } | Message::Response { .. }) => {
                Owed::Nothing
            }
        };
        match wire::decode(line, faults) {
            Inbound::Batch(items) => Owed::Batch(
                items
                    .into_iter()
                    .filter_map(|item| match of(wire::classify(item, faults)) {
                        Owed::Reply(id) | Owed::Answer { id, .. } => Some(id),
                        _ => None,
                    })
                    .collect(),
            ),
            inbound => of(inbound),
        }
    }

    fn lines_of(input: &[u8]) -> impl Iterator<Item = &[u8]> {
        input.split(|&b| b == b'\n')
    }

    #[test]
    fn the_judge_reads_input_lines_as_the_codec_classifies_them() {
        let deep = |depth: usize| format!("{}0{}", "[".repeat(depth), "]".repeat(depth));
        let crafted: Vec<String> = vec![
            String::new(),
            "{oops".into(),
            "42".into(),
            "\"text\"".into(),
            "null".into(),
            "[]".into(),
            "[1,{},{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]".into(),
            "[{\"id\":\"a\",\"method\":7},{\"id\":1.5,\"method\":\"m\"},{\"id\":null,\"method\":\"m\"}]".into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.into(),
            r#"{"jsonrpc":"2.0","id":"x","method":"ping","params":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":-4,"method":"ping","params":[1]}"#.into(),
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#.into(),
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#.into(),
            r#"{"jsonrpc":2,"id":1,"method":"ping"}"#.into(),
            r#"{"id":1,"method":"ping"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
            r#"{"jsonrpc":"1.0","method":"n"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"n","params":"p"}"#.into(),
            r#"{"jsonrpc":"2.0","method":7}"#.into(),
            r#"{"jsonrpc":"2.0","id":2,"method":{"a":1}}"#.into(),
            r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1e2,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":{"a":[]},"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":"srv-1","result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":"srv-1","error":{"code":1}}"#.into(),
            r#"{"jsonrpc":"2.0","id":"srv-1","result":{},"error":{}}"#.into(),
            r#"{"jsonrpc":"2.0","result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":5}"#.into(),
            r#"{"jsonrpc":"2.0"}"#.into(),
            r#"{}"#.into(),
            // Duplicates: the last one counts.
            r#"{"jsonrpc":"2.0","id":1,"id":true,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":true,"id":1,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","jsonrpc":"1","id":1,"method":"m"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":1,"params":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":"\u0031","me\u0074hod":"p\u00e9"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1e400}}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} trailing"#.into(),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}}}"#, deep(126)),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}}}"#, deep(127)),
            deep(200),
        ];
        let mut lines: Vec<Vec<u8>> = crafted.into_iter().map(String::into_bytes).collect();
        lines.push(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec());
        lines.push(b"\xff\xfe".to_vec());
        let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/fuzz");
        for dir in ["seeds", "regressions"] {
            for entry in std::fs::read_dir(seeds.join(dir)).unwrap() {
                let input = std::fs::read(entry.unwrap().path()).unwrap();
                lines.extend(lines_of(&input).map(<[u8]>::to_vec));
                if let Some(session) = Session::from_bytes(&input) {
                    let (_, rendered) = session.render(Faults::none());
                    lines.extend(lines_of(&rendered).map(<[u8]>::to_vec));
                }
            }
        }
        let fault_sets = [
            Faults::none(),
            Faults::none().with(Fault::NullIdAnswered),
            Faults::none().with(Fault::AcceptAnyJsonrpcVersion),
            Faults::none().with(Fault::InvalidRequestWrongCode),
        ];
        for faults in &fault_sets {
            for line in &lines {
                assert_eq!(
                    owed(line, faults),
                    owed_by_decode(line, faults),
                    "{:?} with {faults:?}",
                    String::from_utf8_lossy(line)
                );
            }
        }
    }
}
