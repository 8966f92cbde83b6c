//! proptest strategies for fuzz cases: a [`Case`] is a short sequence of lines, each a
//! structured JSON-RPC message (valid envelopes with odd params, broken envelopes, wrong types,
//! huge and deep values, unicode edge cases, ids of every size and of the wrong type,
//! notifications that look like requests, client responses, batches) or a mutated seed line.
//! Every id in a case is distinct ([`ids`]), so a reply names the line it answers. Over HTTP,
//! the values the transport mirrors into headers stay ones HTTP can carry
//! ([`headers::clean`]), except in [`malformed_header`] lines, built malformed on purpose.
//! Everything shrinks: a failing case shrinks to fewer lines and simpler values.

pub mod ids;

use std::sync::Arc;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value, json};

use super::headers;
use mcpspec_core::protocol::{meta, method, version};

/// One fuzz case: the lines sent to the server, in order (no newlines inside a line).
pub type Case = Vec<Vec<u8>>;

/// The most lines one generated case has.
pub const MAX_LINES: usize = 6;

/// A tool name no server has: calls to it exercise the unknown-tool path safely.
pub const NONEXISTENT_TOOL: &str = "mcpspec-nonexistent-tool-7f3a";

/// What the generator draws from besides its own vocabulary: seed lines, and what the server
/// itself offers (read from its lists before fuzzing), so cases reach the server's real code.
#[derive(Debug, Clone, Default)]
pub struct Material {
    /// Seed lines (one message each) to mutate.
    pub seeds: Vec<Vec<u8>>,
    /// Tools a case may call by name: those `--allow-tool` names, with their argument names.
    pub tools: Vec<Tool>,
    /// Tools the server lists that the user did not allow: a generated call to one is renamed
    /// to [`NONEXISTENT_TOOL`] before it is sent (POL-12: no tool is called unasked).
    pub forbidden_tools: Vec<String>,
    /// Whether the server's tool list was read. When it was not, every plausible tool name
    /// that was not allowed is renamed, since any of them might be real.
    pub tools_known: bool,
    /// Resource URIs the server lists.
    pub resource_uris: Vec<String>,
    /// Prompt names the server lists.
    pub prompt_names: Vec<String>,
    /// Whether the target is reached over HTTP: header values stay carriable, and
    /// [`malformed_header`] lines are drawn.
    pub http: bool,
}

/// A tool a case may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    pub name: String,
    /// The property names of its `inputSchema`.
    pub arguments: Vec<String>,
}

impl Material {
    /// Material that may call the named tools (argument names unknown) and knows of no other
    /// tool: for servers whose tools are known in advance, like the reference server's.
    pub fn calling(names: &[&str]) -> Material {
        Material {
            tools: names
                .iter()
                .map(|n| Tool {
                    name: (*n).to_owned(),
                    arguments: Vec::new(),
                })
                .collect(),
            tools_known: true,
            ..Material::default()
        }
    }

    /// Whether `name` may be sent as a `tools/call` name.
    pub fn may_call(&self, name: &str) -> bool {
        if name == NONEXISTENT_TOOL || self.tools.iter().any(|t| t.name == name) {
            return true;
        }
        if self.tools_known {
            return !self.forbidden_tools.iter().any(|t| t == name);
        }
        // Unknown list: a name that cannot be a tool's (empty, control characters, very long)
        // is safe to send; anything else might be one.
        name.is_empty() || name.len() > 128 || name.chars().any(char::is_control)
    }

    /// `line` with every `tools/call` to a tool it may not call renamed (batches included);
    /// lines that are not JSON are left as they are.
    pub fn guard(&self, line: Vec<u8>) -> Vec<u8> {
        // A `tools/call` method name is either spelled out or written with escapes: a line
        // with neither cannot call a tool, and most lines are spared a parse.
        if memchr::memmem::find(&line, method::TOOLS_CALL.as_bytes()).is_none()
            && memchr::memchr(b'\\', &line).is_none()
        {
            return line;
        }
        let Ok(mut value) = serde_json::from_slice::<Value>(&line) else {
            return line;
        };
        if self.rename_forbidden(&mut value) {
            value.to_string().into_bytes()
        } else {
            line
        }
    }

    fn rename_forbidden(&self, value: &mut Value) -> bool {
        match value {
            Value::Array(items) => {
                // Every element is guarded (no short cut once one was renamed).
                let mut changed = false;
                for item in items {
                    changed |= self.rename_forbidden(item);
                }
                changed
            }
            Value::Object(obj) => {
                if obj.get("method").and_then(Value::as_str) != Some(method::TOOLS_CALL) {
                    return false;
                }
                let name = obj.get_mut("params").and_then(|p| p.get_mut("name"));
                match name {
                    Some(Value::String(n)) if !self.may_call(n) => {
                        *n = NONEXISTENT_TOOL.into();
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }
}

/// Keys fuzzers like: MCP's own, JSON's traps (`__proto__`), and plain ones.
const KEYS: &[&str] = &[
    "name",
    "arguments",
    "text",
    "a",
    "b",
    "cursor",
    "uri",
    "level",
    "requestId",
    "_meta",
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "__proto__",
    "constructor",
    "__class__",
    "",
    "\u{0}",
    "é",
    "🦀",
];

/// Strings that break naive code: empty, NUL, BOM, lone surrogate escapes' neighbours,
/// combining marks, right-to-left, astral plane, line separators, overlong-looking text.
const STRINGS: &[&str] = &[
    "",
    "\u{0}",
    "\u{feff}",
    "\u{d7ff}\u{e000}",
    "e\u{301}\u{301}\u{301}",
    "\u{202e}abc",
    "🦀\u{1f600}",
    "\u{2028}\u{2029}",
    "\\u0000",
    "%s%n",
    "../../etc/passwd",
    "null",
    "2026-07-28",
];

const METHODS: &[&str] = &[
    method::DISCOVER,
    method::INITIALIZE,
    method::INITIALIZED,
    method::PING,
    method::TOOLS_LIST,
    method::TOOLS_CALL,
    method::RESOURCES_LIST,
    "resources/read",
    "resources/templates/list",
    method::RESOURCES_SUBSCRIBE,
    method::RESOURCES_UNSUBSCRIBE,
    method::LOGGING_SET_LEVEL,
    "prompts/list",
    "prompts/get",
    "completion/complete",
    method::CANCELLED,
    "notifications/progress",
    "notifications/roots/list_changed",
    method::NONEXISTENT,
    "",
    "tools/call/",
    "TOOLS/LIST",
    "rpc.discover",
];

/// The strategy for whole cases, drawing on `material`; every line passes
/// [`Material::guard`], and the case's ids are made distinct ([`ids::distinct`]).
pub fn case(material: Arc<Material>) -> impl Strategy<Value = Case> {
    let guard = material.clone();
    vec(line(&material), 1..=MAX_LINES).prop_map(move |lines| {
        ids::distinct(
            lines
                .into_iter()
                .map(|l| raw_numbers(guard.guard(l)))
                .collect(),
        )
    })
}

/// One line.
pub fn line(m: &Arc<Material>) -> BoxedStrategy<Vec<u8>> {
    let json_line = |s: BoxedStrategy<Value>| s.prop_map(|v| v.to_string().into_bytes());
    let seeded = if m.seeds.is_empty() {
        json_line(request(m)).boxed()
    } else {
        mutated_seed(Arc::new(m.seeds.clone())).boxed()
    };
    let lines = prop_oneof![
        6 => json_line(request(m)),
        2 => json_line(tool_call(m)),
        2 => json_line(notification(m)),
        1 => json_line(bad_envelope(m)),
        1 => json_line(client_response()),
        1 => json_line(batch(m)),
        2 => seeded,
        1 => huge_or_deep(m),
    ];
    if !m.http {
        return lines.boxed();
    }
    prop_oneof![
        MALFORMED_HEADER_ODDS => lines.prop_map(headers::clean),
        1 => malformed_header(m),
    ]
    .boxed()
}

/// Over HTTP, one line in this many plus one is a [`malformed_header`] line.
const MALFORMED_HEADER_ODDS: u32 = 39;

/// Control characters an HTTP header cannot carry (not CR or LF: those would split the request
/// itself, which is no MCP question).
const CONTROLS: &[char] = &['\u{0}', '\u{1}', '\u{8}', '\u{b}', '\u{1b}', '\u{7f}'];

/// A modern request whose mirrored header value (the version, the method, or a `tools/call`
/// name) holds a control character: a malformed HTTP request, built on purpose, that a server's
/// HTTP layer may refuse before any MCP code reads it (HTTP targets only; the oracle allows
/// the refusal, see [`headers`]).
pub fn malformed_header(m: &Material) -> BoxedStrategy<Vec<u8>> {
    (
        request(m),
        select(CONTROLS),
        0u8..3,
        any::<proptest::sample::Index>(),
    )
        .prop_map(|(mut message, control, which, at)| {
            let inserted = |s: &str| {
                let mut chars: Vec<char> = s.chars().collect();
                chars.insert(at.index(chars.len() + 1), control);
                chars.into_iter().collect::<String>()
            };
            let Value::Object(obj) = &mut message else {
                return message.to_string().into_bytes();
            };
            let mut meta = modern_meta();
            if which == 0 {
                meta[meta::PROTOCOL_VERSION] = inserted(version::MODERN).into();
            }
            let params = obj.entry("params").or_insert_with(|| json!({}));
            if !params.is_object() {
                *params = json!({});
            }
            params["_meta"] = meta;
            match which {
                0 => {}
                1 => {
                    let m = obj.get("method").and_then(Value::as_str).unwrap_or("ping");
                    let m = inserted(m);
                    obj.insert("method".into(), m.into());
                }
                _ => {
                    obj.insert("method".into(), method::TOOLS_CALL.into());
                    if let Some(p) = obj.get_mut("params") {
                        p["name"] = inserted(NONEXISTENT_TOOL).into();
                    }
                }
            }
            message.to_string().into_bytes()
        })
        .boxed()
}

/// Stands for a number JSON can write but [`Value`] cannot hold (an integer past 64 bits) until
/// the line is rendered: `"<marker>DIGITS"` becomes `DIGITS` ([`raw_numbers`]).
const RAW_NUMBER: &str = "\u{1}mcpspec-raw-number:";

/// A number written as `digits`, past what [`Value`] holds.
fn raw_number(digits: &str) -> Value {
    Value::from(format!("{RAW_NUMBER}{digits}"))
}

/// [`RAW_NUMBER`] as JSON text writes it, up to its digits.
const RAW_NUMBER_JSON: &[u8] = br#""\u0001mcpspec-raw-number:"#;

/// `line` with every [`raw_number`] written as the number it stands for.
fn raw_numbers(line: Vec<u8>) -> Vec<u8> {
    let open = RAW_NUMBER_JSON;
    if memchr::memmem::find(&line, open).is_none() {
        return line;
    }
    let mut out = Vec::with_capacity(line.len());
    let mut rest = &line[..];
    while let Some(at) = memchr::memmem::find(rest, open) {
        let digits = &rest[at + open.len()..];
        let Some(end) = memchr::memchr(b'"', digits) else {
            break;
        };
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(&digits[..end]);
        rest = &digits[end + 1..];
    }
    out.extend_from_slice(rest);
    out
}

/// A name from `names`, when there are any, else `fallback`.
fn one_of(names: &[String], fallback: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    if names.is_empty() {
        fallback
    } else {
        prop_oneof![
            3 => select(names.to_vec()).prop_map(Value::from),
            1 => fallback,
        ]
        .boxed()
    }
}

/// A `tools/call` name: an allowed tool's, the nonexistent one, or any value.
fn tool_name(m: &Material) -> BoxedStrategy<Value> {
    let names: Vec<String> = m.tools.iter().map(|t| t.name.clone()).collect();
    let known = one_of(&names, Just(Value::from(NONEXISTENT_TOOL)).boxed());
    prop_oneof![3 => known, 1 => value()].boxed()
}

/// An argument key: an allowed tool's argument names among the usual keys.
fn argument_key(m: &Material) -> BoxedStrategy<String> {
    let mut names: Vec<String> = m.tools.iter().flat_map(|t| t.arguments.clone()).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        key()
    } else {
        prop_oneof![2 => select(names), 2 => key()].boxed()
    }
}

/// Request ids: small integers and strings, every size and spelling JSON allows (past 64 bits,
/// negative, an exponent, negative zero), and the wrong types. A case's ids are made distinct
/// afterwards ([`ids`]), so the small spaces do not make replies ambiguous.
pub fn id() -> BoxedStrategy<Value> {
    prop_oneof![
        6 => (0i64..4).prop_map(Value::from),
        2 => (-3i64..0).prop_map(Value::from),
        3 => (0u8..4).prop_map(|n| json!(format!("r{n}"))),
        1 => (0u8..4).prop_map(|n| json!(n.to_string())),
        1 => Just(Value::Null),
        1 => Just(json!(1.5)),
        1 => Just(json!(true)),
        1 => Just(json!({"id": 1})),
        1 => Just(json!(i64::MAX)),
        1 => Just(json!(u64::MAX)),
        1 => Just(json!(1e21)),
        1 => Just(json!(-0.0)),
        1 => Just(raw_number("340282366920938463463374607431768211457")),
        1 => Just(raw_number("-18446744073709551617")),
        1 => select(STRINGS).prop_map(Value::from),
    ]
    .boxed()
}

/// Strings matching `regex`, the regex compiled once (a `&str` used as a strategy compiles it
/// again for every value it generates).
fn pattern(regex: &str) -> proptest::string::RegexGeneratorStrategy<String> {
    proptest::string::string_regex(regex).unwrap_or_else(|e| panic!("bad pattern {regex}: {e}"))
}

pub fn method_name() -> BoxedStrategy<String> {
    prop_oneof![
        8 => select(METHODS).prop_map(str::to_owned),
        1 => pattern("[a-z/]{0,12}"),
        1 => any::<String>(),
    ]
    .boxed()
}

/// A JSON string value: plain, edge-case, arbitrary unicode.
pub fn string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => pattern("[a-z0-9_]{0,8}"),
        2 => select(STRINGS).prop_map(str::to_owned),
        1 => any::<String>(),
    ]
    .boxed()
}

pub fn key() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(KEYS).prop_map(str::to_owned),
        1 => pattern("[a-z_]{1,8}"),
        1 => any::<String>(),
    ]
    .boxed()
}

/// Any JSON value, shallow and small by default.
pub fn value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop_oneof![
            Just(0i64),
            Just(-1),
            Just(i64::MIN),
            Just(i64::MAX),
            any::<i64>()
        ]
        .prop_map(Value::from),
        prop_oneof![
            Just(0.5f64),
            Just(-0.0),
            Just(1e308),
            Just(5e-324),
            any::<f64>()
        ]
        .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        string().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((key(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

/// The `_meta` envelope ladder: absent, not an object, empty, version only, the full modern
/// envelope at a known, unknown or malformed version.
pub fn envelope() -> BoxedStrategy<Option<Value>> {
    let version = prop_oneof![
        6 => Just(json!(version::MODERN)),
        1 => select(&version::LEGACY[..]).prop_map(Value::from),
        1 => Just(json!(version::UNKNOWN)),
        1 => Just(json!(version::MALFORMED)),
        1 => Just(json!(20260728)),
    ];
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(json!("meta"))),
        1 => Just(Some(json!({}))),
        1 => version.clone().prop_map(|v| Some(json!({ meta::PROTOCOL_VERSION: v }))),
        6 => (version, any::<bool>()).prop_map(|(v, info)| {
            let mut m = json!({ meta::PROTOCOL_VERSION: v, meta::CLIENT_CAPABILITIES: {} });
            if info {
                m[meta::CLIENT_INFO] = json!({"name": "mcpspec-fuzz", "version": "0"});
            }
            Some(m)
        }),
    ]
    .boxed()
}

/// Params shaped for the methods (tool calls, cursors, uris, handshakes, cancellations), or
/// anything at all.
pub fn params(m: &Material) -> BoxedStrategy<Option<Value>> {
    let arguments = prop_oneof![
        4 => vec((argument_key(m), value()), 0..4)
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        1 => value(),
    ];
    let named = prop_oneof![2 => tool_name(m), 1 => one_of(&m.prompt_names, value())];
    let shaped = prop_oneof![
        4 => (named, arguments).prop_map(|(name, args)| json!({"name": name, "arguments": args})),
        2 => value().prop_map(|c| json!({ "cursor": c })),
        1 => one_of(&m.resource_uris, value()).prop_map(|u| json!({ "uri": u })),
        1 => value().prop_map(|l| json!({ "level": l })),
        1 => id().prop_map(|r| json!({ "requestId": r, "reason": "fuzz" })),
        1 => (value(), value()).prop_map(|(v, caps)| json!({
            "protocolVersion": v,
            "capabilities": caps,
            "clientInfo": {"name": "mcpspec-fuzz", "version": "0"},
        })),
        2 => vec((key(), value()), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
    ];
    prop_oneof![
        2 => Just(None),
        8 => shaped.prop_map(Some),
        1 => value().prop_map(Some),
    ]
    .boxed()
}

fn with_envelope(params: Option<Value>, envelope: Option<Value>) -> Option<Value> {
    let Some(meta) = envelope else {
        return params;
    };
    let mut params = params.unwrap_or_else(|| json!({}));
    if let Value::Object(obj) = &mut params {
        obj.insert("_meta".into(), meta);
    }
    Some(params)
}

fn message(id: Option<Value>, method: String, params: Option<Value>) -> Value {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), "2.0".into());
    if let Some(id) = id {
        obj.insert("id".into(), id);
    }
    obj.insert("method".into(), method.into());
    if let Some(p) = params {
        obj.insert("params".into(), p);
    }
    Value::Object(obj)
}

/// A request with a valid envelope (the params and ids are where the trouble is).
pub fn request(m: &Material) -> BoxedStrategy<Value> {
    (id(), method_name(), params(m), envelope())
        .prop_map(|(id, m, p, e)| message(Some(id), m, with_envelope(p, e)))
        .boxed()
}

/// A `tools/call` request: the method where servers run the most code on client input.
pub fn tool_call(m: &Material) -> BoxedStrategy<Value> {
    let name = tool_name(m);
    let argument = prop_oneof![
        2 => value(),
        1 => vec(value(), 0..3).prop_map(Value::Array),
    ];
    let arguments = vec((argument_key(m), argument), 0..4)
        .prop_map(|kv| json!(kv.into_iter().collect::<Map<_, _>>()));
    (id(), name, arguments, envelope())
        .prop_map(|(id, name, args, e)| {
            let params = json!({"name": name, "arguments": args});
            message(
                Some(id),
                method::TOOLS_CALL.into(),
                with_envelope(Some(params), e),
            )
        })
        .boxed()
}

/// A notification, often one that looks like a request (a request method, request params).
pub fn notification(m: &Material) -> BoxedStrategy<Value> {
    (method_name(), params(m), envelope())
        .prop_map(|(m, p, e)| message(None, m, with_envelope(p, e)))
        .boxed()
}

/// A message with one envelope defect: `jsonrpc` wrong or missing, `method` not a string,
/// `params` not structured, both `result` and `error`, nothing to classify.
pub fn bad_envelope(m: &Material) -> BoxedStrategy<Value> {
    (id(), request(m), 0u8..7)
        .prop_map(|(id, mut m, defect)| {
            if let Value::Object(obj) = &mut m {
                match defect {
                    0 => {
                        obj.insert("jsonrpc".into(), json!("1.0"));
                    }
                    1 => {
                        obj.remove("jsonrpc");
                    }
                    2 => {
                        obj.insert("jsonrpc".into(), json!(2.0));
                    }
                    3 => {
                        obj.insert("method".into(), json!(7));
                    }
                    4 => {
                        obj.insert("params".into(), json!("params"));
                    }
                    5 => {
                        obj.remove("method");
                        obj.insert("result".into(), json!({}));
                        obj.insert("error".into(), json!({"code": 1, "message": "x"}));
                    }
                    _ => {
                        obj.remove("method");
                        obj.insert("id".into(), id);
                    }
                }
            }
            m
        })
        .boxed()
}

/// A response from the client (to a server request that may not exist).
pub fn client_response() -> BoxedStrategy<Value> {
    (id(), any::<bool>(), value())
        .prop_map(|(id, ok, v)| {
            if ok {
                json!({"jsonrpc": "2.0", "id": id, "result": v})
            } else {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "no"}})
            }
        })
        .boxed()
}

/// A JSON array of messages (empty included).
pub fn batch(m: &Material) -> BoxedStrategy<Value> {
    vec(prop_oneof![request(m), notification(m)], 0..3)
        .prop_map(Value::Array)
        .boxed()
}

/// Huge strings, long arrays and nesting past common recursion limits.
pub fn huge_or_deep(m: &Material) -> BoxedStrategy<Vec<u8>> {
    // A huge argument for the first allowed tool (its first argument), else the nonexistent one.
    let (tool, argument) = m.tools.first().map_or_else(
        || (NONEXISTENT_TOOL.to_owned(), "text".to_owned()),
        |t| {
            let argument = t
                .arguments
                .first()
                .cloned()
                .unwrap_or_else(|| "text".into());
            (t.name.clone(), argument)
        },
    );
    prop_oneof![
        (1usize..200_000).prop_map(move |n| {
            // Rendered around a marker that the text then replaces: serializing (escaping)
            // hundreds of kilobytes of `x` for every case would cost more than sending them.
            let rendered = message(
                Some(json!(1)),
                method::TOOLS_CALL.into(),
                with_envelope(
                    Some(json!({"name": tool, "arguments": { argument.as_str(): HUGE_MARKER }})),
                    Some(modern_meta()),
                ),
            )
            .to_string();
            let marker = Value::from(HUGE_MARKER).to_string();
            rendered
                .replacen(&marker, &format!("\"{}\"", "x".repeat(n)), 1)
                .into_bytes()
        }),
        (1usize..5_000).prop_map(|depth| {
            let mut s =
                String::from(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"#);
            s.push_str(&"[".repeat(depth));
            s.push_str(&"]".repeat(depth));
            s.push_str("}}");
            s.into_bytes()
        }),
        (1usize..50_000).prop_map(|n| {
            let items = vec![Value::from(0); n];
            message(
                Some(json!(2)),
                method::TOOLS_LIST.into(),
                Some(json!({"cursor": items})),
            )
            .to_string()
            .into_bytes()
        }),
    ]
    .boxed()
}

/// Stands for the huge text in [`huge_or_deep`] until it is rendered; no name or key has it.
const HUGE_MARKER: &str = "\u{1}mcpspec-huge-text\u{1}";

fn modern_meta() -> Value {
    json!({ meta::PROTOCOL_VERSION: version::MODERN, meta::CLIENT_CAPABILITIES: {} })
}

/// A seed line, verbatim or mutated: truncated, a byte flipped, a token spliced in.
pub fn mutated_seed(seeds: Arc<Vec<Vec<u8>>>) -> impl Strategy<Value = Vec<u8>> {
    let n = seeds.len();
    (0..n, 0u8..5, any::<usize>(), any::<u8>(), select(TOKENS)).prop_map(
        move |(i, how, at, byte, token)| {
            let mut line = seeds[i].clone();
            let at = if line.is_empty() { 0 } else { at % line.len() };
            match how {
                0 => {}
                1 => line.truncate(at),
                2 => {
                    if let Some(b) = line.get_mut(at) {
                        *b ^= byte.max(1);
                    }
                }
                3 => {
                    line.splice(at..at, token.bytes());
                }
                _ => {
                    let tail = line.split_off(at);
                    line.extend_from_slice(token.as_bytes());
                    line.extend(tail.iter().skip(token.len().min(tail.len())));
                }
            }
            line.retain(|&b| b != b'\n');
            line
        },
    )
}

/// Fragments spliced into seed lines.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "-1",
    "1e999",
    "\\u0000",
    "\\ud800",
    "\u{0}",
    "\u{feff}",
    "\"__proto__\":[]",
    "\r",
];

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    /// The huge `tools/call` is rendered around a marker: the bytes must be those of the
    /// message serialized with its text in place, and tools that may not be called stay so.
    #[test]
    fn huge_text_renders_as_the_message_would() {
        let material = Material {
            tools: vec![Tool {
                name: "echo".into(),
                arguments: vec!["text".into()],
            }],
            tools_known: true,
            ..Material::default()
        };
        let mut runner = TestRunner::deterministic();
        let strategy = huge_or_deep(&material);
        let mut checked = 0;
        for _ in 0..300 {
            let line = strategy.new_tree(&mut runner).map(|t| t.current());
            let Ok(line) = line else { continue };
            // Deep nesting is past serde_json's recursion limit: not the arm under test.
            let Ok(value) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            let Some(text) = value
                .pointer("/params/arguments/text")
                .and_then(Value::as_str)
            else {
                continue;
            };
            assert!(!text.is_empty() && text.bytes().all(|b| b == b'x'));
            let expected = message(
                Some(json!(1)),
                method::TOOLS_CALL.into(),
                with_envelope(
                    Some(json!({"name": "echo", "arguments": { "text": text }})),
                    Some(modern_meta()),
                ),
            )
            .to_string();
            assert_eq!(line, expected.into_bytes());
            checked += 1;
        }
        assert!(checked > 10, "only {checked} huge texts generated");
    }

    #[test]
    fn the_guard_renames_forbidden_calls_however_spelled() {
        let material = Material {
            forbidden_tools: vec!["rm".into()],
            tools_known: true,
            ..Material::default()
        };
        let plain = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm"}}"#;
        let escaped = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"rm"}}"#;
        for line in [plain.to_vec(), escaped.to_vec()] {
            let guarded = material.guard(line);
            let value: Value = serde_json::from_slice(&guarded).unwrap_or_default();
            assert_eq!(value["params"]["name"], NONEXISTENT_TOOL);
        }
        let other = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_vec();
        assert_eq!(material.guard(other.clone()), other);
    }

    #[test]
    fn raw_numbers_are_written_as_numbers() {
        let line = json!({"id": raw_number("340282366920938463463374607431768211457"),
                          "params": {"requestId": raw_number("-18446744073709551617")}})
        .to_string()
        .into_bytes();
        let out = String::from_utf8(raw_numbers(line)).unwrap_or_default();
        assert_eq!(
            out,
            r#"{"id":340282366920938463463374607431768211457,"params":{"requestId":-18446744073709551617}}"#
        );
    }

    #[test]
    fn over_http_only_malformed_header_lines_carry_uncarriable_headers() {
        let material = Arc::new(Material {
            seeds: vec![br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_vec()],
            http: true,
            ..Material::default()
        });
        let mut runner = TestRunner::deterministic();
        let (mut malformed, mut lines) = (0, 0);
        for _ in 0..400 {
            let line = line(&material).new_tree(&mut runner).map(|t| t.current());
            let Ok(line) = line else { continue };
            lines += 1;
            malformed += usize::from(headers::malformed(&line));
        }
        // About one line in forty, and only those: the rest were cleaned.
        assert!((2..40).contains(&malformed), "{malformed} of {lines}");
        let mut runner = TestRunner::deterministic();
        for _ in 0..50 {
            let line = malformed_header(&material)
                .new_tree(&mut runner)
                .map(|t| t.current());
            let line = line.unwrap_or_default();
            assert!(
                headers::malformed(&line),
                "{}",
                String::from_utf8_lossy(&line)
            );
        }
    }

    #[test]
    fn lines_have_no_newlines() {
        let material = Arc::new(Material {
            seeds: vec![br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec()],
            ..Material::default()
        });
        let mut runner = TestRunner::deterministic();
        let strategy = case(material);
        for _ in 0..200 {
            let case = strategy
                .new_tree(&mut runner)
                .map_err(|e| e.to_string())
                .unwrap_or_else(|e| panic!("{e}"))
                .current();
            assert!((1..=MAX_LINES).contains(&case.len()));
            assert!(case.iter().all(|l| !l.contains(&b'\n')));
        }
    }
}
