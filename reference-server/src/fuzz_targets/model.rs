//! The structure-aware target's input: a [`Session`] of typed messages read from fuzz bytes
//! with [`arbitrary`], rendered to lines.

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Value, json};

use crate::config::faults::Faults;
use crate::config::{Config, Eras};
use crate::protocol::{code, meta, method, version};

/// The most steps one structured session renders.
pub(super) const MAX_STEPS: usize = 24;

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

pub(super) fn message(id: Option<Value>, method: &str, params: Option<Value>) -> Value {
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
