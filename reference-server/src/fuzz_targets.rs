//! Entry points for the cargo-fuzz targets (`fuzz/`) and the property tests; not a stable API.
//! They drive the whole server through the crate root ([`crate::serve_stream`]), so they stand
//! above every other module, like `main.rs`; no module of the crate uses them.
//!
//! Two inputs drive the server, both in memory and bounded in wall time:
//!
//! - [`dispatch_invariants`]: raw bytes, served as newline-delimited input (decode + dispatch);
//! - [`structured_invariants`]: bytes read through [`arbitrary`] as a [`Session`] of typed
//!   messages (era selection, the `_meta` envelope ladder, the legacy handshake, probe
//!   directives, tool calls with odd arguments), rendered to lines and served.
//!
//! Both check the server's invariants on what it wrote ([`check_output`]): it did not panic or
//! stall; every output line is one JSON value; every request got exactly one reply with its id
//! and every unparseable or invalid line one error; notifications and client responses got
//! none; error codes are ones this server may emit; server->client requests only follow a
//! successful legacy handshake; a legacy session never gets a DiscoverResult. The `fuzz_*`
//! functions panic on a violation, which is what a fuzz target reports.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::faults::{Fault, Faults};
use crate::config::{Config, Eras};
use crate::protocol::{code, meta, method, version};
use crate::wire::{self, Inbound, Message};

/// The wall-time bound on one serve: a stall past it is a finding.
const SERVE_LIMIT: Duration = Duration::from_secs(5);
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

/// Serves `input` (then EOF) and returns everything written, bounded by 5 s of wall time. A
/// panic in the server is re-raised here.
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

/// Serves `input` (then EOF) on a fresh current-thread runtime; never panics itself.
pub fn serve(config: Config, input: &[u8]) -> std::io::Result<Served> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    Ok(runtime.block_on(async {
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
    }))
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

/// The raw-bytes target: serves `data` with the default config (plus [`env_faults`]) and
/// checks the invariants.
pub fn dispatch_invariants(data: &[u8]) -> Result<(), String> {
    let config = Config {
        faults: env_faults(),
        ..Config::default()
    };
    serve_and_check(config, data)
}

/// [`dispatch_invariants`], panicking on a violation (the cargo-fuzz target).
pub fn fuzz_dispatch(data: &[u8]) {
    if let Err(violation) = dispatch_invariants(data) {
        panic!("invariant violated: {violation}");
    }
}

/// The structure-aware target: `data` read as a [`Session`], rendered, served, checked.
/// Input that does not make a session is not an error.
pub fn structured_invariants(data: &[u8]) -> Result<(), String> {
    let Ok(session) = Session::arbitrary_take_rest(Unstructured::new(data)) else {
        return Ok(());
    };
    let (config, input) = session.render(env_faults());
    serve_and_check(config, &input)
}

/// [`structured_invariants`], panicking on a violation (the cargo-fuzz target).
pub fn fuzz_structured(data: &[u8]) {
    if let Err(violation) = structured_invariants(data) {
        panic!("invariant violated: {violation}");
    }
}

/// Serves `input` and checks the invariants on the output.
pub fn serve_and_check(config: Config, input: &[u8]) -> Result<(), String> {
    let served = serve(config.clone(), input).map_err(|e| format!("no runtime: {e}"))?;
    if let Some(message) = served.panicked {
        return Err(format!("the server panicked: {message}"));
    }
    if served.stalled {
        return Err("the server stalled (no EOF within 5 s)".into());
    }
    check_output(&config, input, &served.output)
}

/// What one input line obliges the server to write.
#[derive(Debug, Default)]
struct Expected {
    /// Reply count per id (`null` included) that must be met exactly.
    required: HashMap<String, usize>,
    /// Replies per id that may additionally come (batch elements and their invalid wrapper).
    optional: HashMap<String, usize>,
    /// Methods of the requests per id, to check era rules on their replies.
    methods: HashMap<String, Vec<String>>,
}

/// Checks what the server wrote against what it was sent (see the module doc).
pub fn check_output(config: &Config, input: &[u8], output: &[u8]) -> Result<(), String> {
    let expected = expectations(config, input);
    let text = std::str::from_utf8(output).map_err(|e| format!("output is not UTF-8: {e}"))?;
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut legacy_session = false;
    for line in text.lines() {
        let value: Value = serde_json::from_str(line)
            .map_err(|e| format!("output line is not JSON ({e}): {line:?}"))?;
        let replies = match value {
            Value::Array(items) => items,
            other => vec![other],
        };
        for reply in replies {
            let Value::Object(obj) = &reply else {
                return Err(format!("output is not an object: {reply}"));
            };
            if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
                return Err(format!("output without `jsonrpc: \"2.0\"`: {reply}"));
            }
            if obj.contains_key("method") {
                // A server->client request or notification.
                if obj.contains_key("id") && !legacy_session {
                    return Err(format!(
                        "server->client request outside a legacy session: {reply}"
                    ));
                }
                continue;
            }
            let id = obj.get("id").cloned().unwrap_or(Value::Null);
            let key = id.to_string();
            *seen.entry(key.clone()).or_default() += 1;
            match (obj.get("result"), obj.get("error")) {
                (Some(result), None) => {
                    let methods = expected.methods.get(&key).map(Vec::as_slice);
                    let methods = methods.unwrap_or_default();
                    if methods.iter().any(|m| m == method::INITIALIZE)
                        && result.get("protocolVersion").is_some()
                    {
                        legacy_session = true;
                    }
                    if legacy_session
                        && methods.iter().all(|m| m == method::DISCOVER)
                        && result.get("supportedVersions").is_some()
                    {
                        return Err(format!("a DiscoverResult in a legacy session: {reply}"));
                    }
                }
                (None, Some(error)) => {
                    let code = error.get("code").and_then(Value::as_i64);
                    if !code.is_some_and(allowed_code) {
                        return Err(format!("error code not in the allowed set: {reply}"));
                    }
                }
                _ => {
                    return Err(format!(
                        "a reply needs exactly one of result/error: {reply}"
                    ));
                }
            }
        }
    }
    for (key, &want) in &expected.required {
        let got = seen.get(key).copied().unwrap_or(0);
        let extra = expected.optional.get(key).copied().unwrap_or(0);
        if got < want || got > want + extra {
            return Err(format!(
                "id {key}: {got} replies, expected {want}{}",
                if extra > 0 {
                    format!(" (up to {})", want + extra)
                } else {
                    String::new()
                }
            ));
        }
    }
    for (key, &got) in &seen {
        if !expected.required.contains_key(key) {
            let extra = expected.optional.get(key).copied().unwrap_or(0);
            if got > extra {
                return Err(format!(
                    "{got} replies with id {key}, which no request carried"
                ));
            }
        }
    }
    Ok(())
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

fn expectations(config: &Config, input: &[u8]) -> Expected {
    let mut e = Expected::default();
    let null = Value::Null.to_string();
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if input.ends_with(b"\n") {
        lines.pop();
    }
    for line in lines {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if line.len() > crate::protocol::MAX_LINE {
            *e.required.entry(null.clone()).or_default() += 1;
            continue;
        }
        match wire::decode(line, &config.faults) {
            Inbound::ParseError(_) => *e.required.entry(null.clone()).or_default() += 1,
            Inbound::Invalid { id, .. } => *e.required.entry(id.to_string()).or_default() += 1,
            Inbound::Batch(items) => {
                // Rejected whole (one null-id error) or answered element by element.
                *e.optional.entry(null.clone()).or_default() += 1;
                for item in items {
                    let key = match wire::classify(item, &config.faults) {
                        Inbound::Invalid { id, .. } => id.to_string(),
                        Inbound::Message(Message::Request { id, .. }) => id.to_string(),
                        _ => continue,
                    };
                    *e.optional.entry(key).or_default() += 1;
                }
            }
            Inbound::Message(Message::Request { id, method, .. }) => {
                let key = id.to_string();
                *e.required.entry(key.clone()).or_default() += 1;
                e.methods.entry(key).or_default().push(method);
            }
            Inbound::DroppedNotification(_)
            | Inbound::Message(Message::Notification { .. } | Message::Response { .. }) => {}
        }
    }
    e
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
        value.to_string().into_bytes()
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
            ParamsPick::Cursor(v) => json!({ "cursor": v.json() }),
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
            ValuePick::Array(items) => json!(items.iter().take(8).collect::<Vec<_>>()),
            ValuePick::Object(entries) => Value::Object(
                entries
                    .iter()
                    .take(6)
                    .map(|(k, v)| (k.chars().take(16).collect(), json!(v)))
                    .collect(),
            ),
            ValuePick::Deep(depth) => {
                let mut v = json!(0);
                for _ in 0..(depth % 64) {
                    v = json!([v]);
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
