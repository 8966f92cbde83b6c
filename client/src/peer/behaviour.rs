//! The scenario's middleware: what the peer does beyond the reference server's eras, written
//! with the chain's four powers (refuse, answer, rewrite, observe).
//!
//! On every peer: `add_numbers` is listed first (a copy of the reference `add`) and served as
//! `add` (the `tools_call` operation calls it). Then, as the scenario says: discover and
//! version refusals (stdio; over HTTP the hook gives them, as they come before the chain
//! there), the `initialize` result's version rewritten, server→client requests before
//! `tools/list`, and the official MRTR tools (any other tool the client calls in that scenario
//! answers input_required too, so a client that knows nothing of the scenario is judged).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_reference_server::protocol::{code, meta, method};
use mcp_reference_server::{Ctx, Middleware, Next, RpcError, RpcResult, from_fn};
use serde_json::{Value, json};

use crate::peer::inject::{Injection, Injector};
use crate::scenario::{
    Behaviour, DiscoverAnswer, MODERN_ONLY, SAMPLING, STRAY_ID, Scenario, TOOL, Transport,
    UNKNOWN_METHOD, UNKNOWN_NOTIFICATION,
};

/// How long the peer waits for the client's reply to each of its requests.
pub const SERVER_REQUEST_WAIT: Duration = Duration::from_secs(3);

/// The reference tool `add_numbers` stands for.
const ADD: &str = mcp_reference_server::tools::ADD;
/// The reference tool the MRTR tools' final answers come from.
const ECHO: &str = mcp_reference_server::tools::ECHO;

/// The MRTR tools of the official scenario.
pub const ECHO_STATE: &str = "test_mrtr_echo_state";
pub const NO_STATE: &str = "test_mrtr_no_state";
pub const UNRELATED: &str = "test_mrtr_unrelated";
pub const NO_RESULT_TYPE: &str = "test_mrtr_no_result_type";

/// The `requestState` of `test_mrtr_echo_state`: JSON text whose number (`1.50`), escapes and
/// key order do not survive being parsed and written again, so only an exact echo matches.
pub const REQUEST_STATE: &str =
    "{\"v\":1,\"n\":1.50,\"nonce\":\"mcpspec-7f3a\",\"s\":\"caf\\u00e9 \u{2028}\"}";

/// What the middleware shares across the scenario's messages.
#[derive(Debug)]
pub struct State {
    pub scenario: &'static Scenario,
    pub transport: Transport,
    /// Requests seen by the chain (for "the first request").
    requests: AtomicUsize,
    /// Whether the server requests were asked already (once per scenario).
    asked: Mutex<bool>,
    /// The MRTR scenario: how many times each tool other than the official four was called.
    calls: Mutex<HashMap<String, usize>>,
}

impl State {
    pub fn new(scenario: &'static Scenario, transport: Transport) -> Arc<Self> {
        Arc::new(Self {
            scenario,
            transport,
            requests: AtomicUsize::new(0),
            asked: Mutex::new(false),
            calls: Mutex::default(),
        })
    }
}

/// The middleware for `state`'s scenario.
pub fn middleware(state: Arc<State>) -> Middleware {
    from_fn("mcpspec-client-scenario", move |ctx, next| {
        let state = state.clone();
        async move { handle(&state, ctx, next).await }
    })
}

/// -32022 listing `supported`, naming what the request asked for.
pub fn version_error(supported: &[&str], requested: Option<&str>) -> RpcError {
    RpcError::new(
        code::UNSUPPORTED_PROTOCOL_VERSION,
        "unsupported protocol version",
    )
    .with_data(json!({
        "supported": supported,
        "requested": requested.unwrap_or_default(),
    }))
}

/// The version a request asks for: its `_meta` version, or `initialize`'s `protocolVersion`.
pub fn requested_version(m: &str, params: Option<&Value>) -> Option<String> {
    let p = params?;
    let v = if m == method::INITIALIZE {
        p.get("protocolVersion")
    } else {
        p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
    };
    v.and_then(Value::as_str).map(str::to_owned)
}

async fn handle(state: &State, mut ctx: Ctx, next: Next) -> RpcResult {
    let scenario = state.scenario;
    let request = ctx.id.is_some();
    if request && state.transport == Transport::Stdio {
        let first = state.requests.fetch_add(1, Ordering::Relaxed) == 0;
        let requested = requested_version(&ctx.method, ctx.params.as_ref());
        if scenario.has(Behaviour::VersionErrorAlways)
            || (first && scenario.has(Behaviour::VersionErrorOnFirst))
        {
            return Err(version_error(MODERN_ONLY, requested.as_deref()));
        }
        if ctx.method == method::DISCOVER {
            match scenario.discover() {
                Some(DiscoverAnswer::MethodNotFound) => {
                    return Err(RpcError::new(
                        code::METHOD_NOT_FOUND,
                        "method not found: server/discover",
                    ));
                }
                Some(DiscoverAnswer::VersionError(supported)) => {
                    return Err(version_error(supported, requested.as_deref()));
                }
                Some(DiscoverAnswer::HttpStatus(_)) | None => {}
            }
        }
    }
    if ctx.method == method::INITIALIZE {
        if let Some(v) = scenario.behaviours.iter().find_map(|b| match b {
            Behaviour::InitializeAnswers(v) => Some(*v),
            _ => None,
        }) {
            return next.run(ctx).await.map(|mut result| {
                result["protocolVersion"] = Value::from(v);
                result
            });
        }
    }
    if scenario.has(Behaviour::RequestState) {
        if let Some(answer) = request_state(state, &mut ctx) {
            return answer;
        }
    } else if scenario.has(Behaviour::ServerRequests) && ctx.method == method::TOOLS_LIST {
        ask_the_client(state, &ctx).await;
    }
    if ctx.method == method::TOOLS_CALL && tool_name(&ctx) == Some(TOOL) {
        set_tool_name(&mut ctx, ADD);
    }
    let listing = ctx.method == method::TOOLS_LIST;
    let mrtr = scenario.has(Behaviour::RequestState);
    let result = next.run(ctx).await?;
    Ok(if listing {
        list_tools(result, mrtr)
    } else {
        result
    })
}

fn tool_name(ctx: &Ctx) -> Option<&str> {
    ctx.params.as_ref()?.get("name")?.as_str()
}

fn set_tool_name(ctx: &mut Ctx, name: &str) {
    if let Some(Value::Object(p)) = ctx.params.as_mut() {
        p.insert("name".into(), Value::from(name));
    }
}

/// The tool list the peer shows: `add_numbers` first, then the reference tools; the MRTR
/// scenario's four tools instead.
fn list_tools(mut result: Value, mrtr: bool) -> Value {
    let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
        return result;
    };
    if mrtr {
        let empty = json!({"type": "object", "properties": {}});
        *tools = [ECHO_STATE, NO_STATE, UNRELATED, NO_RESULT_TYPE]
            .iter()
            .map(|name| {
                json!({"name": name, "description": "mcpspec MRTR scenario tool", "inputSchema": empty})
            })
            .collect();
        return result;
    }
    let add = tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(ADD))
        .cloned();
    if let Some(mut alias) = add {
        alias["name"] = Value::from(TOOL);
        alias["description"] = Value::from("Add two numbers together");
        tools.insert(0, alias);
    }
    result
}

/// The MRTR scenario's `tools/call`. The official tools: an InputRequiredResult on the first
/// call of `test_mrtr_echo_state` (with [`REQUEST_STATE`]) and `test_mrtr_no_state` (without),
/// a complete result (the reference `echo`'s, stamped) on their retries and for
/// `test_mrtr_unrelated` and `test_mrtr_no_result_type`. (The official suite's mock answers the
/// last one without `resultType`, which a 2026-07-28 server MUST send: mcpspec's peer judges
/// clients, not how they take a server's defect, so it stamps it as the schema requires.)
/// Any other tool: the first call gets the InputRequiredResult with [`REQUEST_STATE`], the
/// second (its retry) one without a `requestState`, later ones the complete result; so a client
/// that calls whatever tool is listed first is judged too.
///
/// The input requests are only of a kind the request declared in its `clientCapabilities`
/// (MRTR-3; the official mock asks for elicitation whatever was declared): an elicitation, else
/// a sampling request, else `roots/list`, else none. Without one an InputRequiredResult carries
/// only its `requestState`, and the one without state cannot be sent (it would carry nothing):
/// the call completes instead. `None`: the request goes on down the chain (a `tools/call` that
/// completes rewritten to the reference `echo`).
fn request_state(state: &State, ctx: &mut Ctx) -> Option<RpcResult> {
    if ctx.method != method::TOOLS_CALL {
        return None;
    }
    let name = tool_name(ctx)?.to_owned();
    let has = |key: &str| ctx.params.as_ref().is_some_and(|p| p.get(key).is_some());
    let retry = has("inputResponses") || has("requestState");
    let inputs = input_requests(
        ctx.client_meta
            .as_ref()
            .and_then(|m| m.get(meta::CLIENT_CAPABILITIES)),
    );
    let call = || {
        state
            .calls
            .lock()
            .map(|mut calls| {
                let n = calls.entry(name.clone()).or_default();
                *n += 1;
                *n
            })
            .unwrap_or(usize::MAX)
    };
    if let Some(with_state) = input_required(&name, retry, inputs.is_some(), call) {
        let mut result = json!({"resultType": "input_required"});
        if let Some(inputs) = inputs {
            result["inputRequests"] = inputs;
        }
        if with_state {
            result["requestState"] = Value::from(REQUEST_STATE);
        }
        return Some(Ok(result));
    }
    if let Some(Value::Object(p)) = ctx.params.as_mut() {
        p.insert("name".into(), Value::from(ECHO));
        p.insert("arguments".into(), json!({"text": format!("{name}: done")}));
        p.remove("inputResponses");
        p.remove("requestState");
    }
    None
}

/// Whether the MRTR peer answers a call of tool `name` with an InputRequiredResult, and if so
/// whether with a `requestState` (see [`request_state`]): `retry` when the call carries
/// `inputResponses` or a `requestState`, `inputs` when the client declared a kind of input the
/// peer can ask for, `call` counting the calls of a tool other than the official four (1, 2, …).
fn input_required(
    name: &str,
    retry: bool,
    inputs: bool,
    call: impl FnOnce() -> usize,
) -> Option<bool> {
    match name {
        ECHO_STATE if !retry => Some(true),
        NO_STATE if !retry && inputs => Some(false),
        ECHO_STATE | NO_STATE | UNRELATED | NO_RESULT_TYPE => None,
        _ => match call() {
            1 => Some(true),
            2 if inputs => Some(false),
            _ => None,
        },
    }
}

/// The `inputRequests` the MRTR peer may send a client whose `clientCapabilities` are
/// `declared` (see [`request_state`]).
fn input_requests(declared: Option<&Value>) -> Option<Value> {
    let has = |capability: &str| {
        declared
            .and_then(|c| c.get(capability))
            .is_some_and(|c| !c.is_null())
    };
    let (key, request) = if has("elicitation") {
        (
            "confirm",
            json!({
                "method": method::ELICITATION_CREATE,
                "params": {
                    "message": "Please confirm to continue",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"confirmed": {"type": "boolean"}}
                    }
                }
            }),
        )
    } else if has("sampling") {
        (
            "sample",
            json!({
                "method": SAMPLING,
                "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello."}}],
                    "maxTokens": 16
                }
            }),
        )
    } else if has("roots") {
        ("roots", json!({"method": method::ROOTS_LIST}))
    } else {
        return None;
    };
    Some(json!({ key: request }))
}

/// Asks the client `ping`, `roots/list`, `sampling/createMessage`, `elicitation/create` and an
/// unknown method (once per scenario, legacy only), each answered or given up on within
/// [`SERVER_REQUEST_WAIT`]. The replies are judged from the wire, not here.
async fn ask_the_client(state: &State, ctx: &Ctx) {
    {
        let Ok(mut asked) = state.asked.lock() else {
            return;
        };
        if *asked || ctx.era != Some(mcp_reference_server::Era::Legacy) {
            return;
        }
        *asked = true;
    }
    let client = ctx.client();
    let ask = |m: &'static str, params: Option<Value>| {
        let client = client.clone();
        async move {
            let _ = tokio::time::timeout(SERVER_REQUEST_WAIT, client.request(m, params)).await;
        }
    };
    tokio::join!(
        ask(method::PING, None),
        ask(method::ROOTS_LIST, None),
        ask(
            SAMPLING,
            Some(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello."}}],
                "maxTokens": 16
            }))
        ),
        ask(
            method::ELICITATION_CREATE,
            Some(json!({
                "message": "Confirm to continue?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"confirmed": {"type": "boolean"}}
                }
            }))
        ),
        ask(UNKNOWN_METHOD, None),
    );
}

/// The `robustness/unexpected-messages` injection: before the reply to the client's first
/// `tools/call` (whatever tool it names), or to its first request after `tools/list` when that
/// is something else, an unknown notification, a reply to an id never used, and a line that is
/// not JSON-RPC. Once.
#[derive(Debug, Default)]
pub struct Unexpected {
    state: Mutex<UnexpectedState>,
}

#[derive(Debug, Default)]
struct UnexpectedState {
    /// Whether the reply to a `tools/list` went out.
    listed: bool,
    done: bool,
}

impl Injector for Unexpected {
    fn touches(&self, _n: usize, request: &Value) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        let m = request.get("method").and_then(Value::as_str);
        if m == Some(method::TOOLS_LIST) {
            state.listed = true;
            return false;
        }
        !state.done && (m == Some(method::TOOLS_CALL) || state.listed)
    }

    fn inject(&self, _n: usize, _request: &Value, reply: Vec<Vec<u8>>) -> Injection {
        if let Ok(mut state) = self.state.lock() {
            state.done = true;
        }
        let mut messages = vec![
            json!({"jsonrpc": "2.0", "method": UNKNOWN_NOTIFICATION, "params": {"x": [1, {"y": null}]}})
                .to_string()
                .into_bytes(),
            json!({"jsonrpc": "2.0", "id": STRAY_ID, "result": {"content": []}})
                .to_string()
                .into_bytes(),
            b"mcpspec: this line is not JSON-RPC".to_vec(),
        ];
        messages.extend(reply);
        Injection::Messages(messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_requests_are_only_of_a_declared_kind() {
        let kinds = |declared: Value| {
            input_requests(Some(&declared))
                .and_then(|r| r.as_object().cloned())
                .map(|r| {
                    r.values()
                        .filter_map(|v| v.get("method").and_then(Value::as_str))
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
        };
        assert_eq!(kinds(json!({})), None);
        assert_eq!(kinds(json!({"elicitation": null})), None);
        assert_eq!(
            kinds(json!({"elicitation": {}, "roots": {}})),
            Some(vec![method::ELICITATION_CREATE.to_owned()])
        );
        assert_eq!(
            kinds(json!({"sampling": {}})),
            Some(vec![SAMPLING.to_owned()])
        );
        assert_eq!(
            kinds(json!({"roots": {}})),
            Some(vec![method::ROOTS_LIST.to_owned()])
        );
        assert_eq!(input_requests(None), None);
    }

    #[test]
    fn official_tools_keep_their_answers_and_any_other_tool_gets_both_rounds() {
        let never = || -> usize { panic!("an official tool is not counted") };
        assert_eq!(input_required(ECHO_STATE, false, true, never), Some(true));
        assert_eq!(input_required(ECHO_STATE, false, false, never), Some(true));
        assert_eq!(input_required(ECHO_STATE, true, true, never), None);
        assert_eq!(input_required(NO_STATE, false, true, never), Some(false));
        // Without a declared kind of input it would carry nothing: it completes.
        assert_eq!(input_required(NO_STATE, false, false, never), None);
        assert_eq!(input_required(NO_STATE, true, true, never), None);
        assert_eq!(input_required(UNRELATED, false, true, never), None);
        assert_eq!(input_required(NO_RESULT_TYPE, false, true, never), None);
        assert_eq!(input_required("add_numbers", false, true, || 1), Some(true));
        assert_eq!(input_required("add_numbers", true, true, || 2), Some(false));
        assert_eq!(input_required("add_numbers", true, false, || 2), None);
        assert_eq!(input_required("add_numbers", true, true, || 3), None);
    }

    #[test]
    fn the_unexpected_messages_go_before_the_first_call_or_the_request_after_the_listing() {
        let call = json!({"method": method::TOOLS_CALL, "params": {"name": "whatever"}});
        let list = json!({"method": method::TOOLS_LIST});
        let other = json!({"method": "resources/list"});
        let first = Unexpected::default();
        assert!(!first.touches(0, &other));
        assert!(first.touches(1, &call));
        let _ = first.inject(1, &call, vec![b"{}".to_vec()]);
        assert!(!first.touches(2, &call), "once");
        let listed = Unexpected::default();
        assert!(!listed.touches(0, &list));
        assert!(listed.touches(1, &other));
    }
}
