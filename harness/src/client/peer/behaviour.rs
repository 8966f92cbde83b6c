//! The scenario's middleware: what the peer does beyond the reference server's eras, written
//! with the chain's four powers (refuse, answer, rewrite, observe).
//!
//! On every peer: `add_numbers` is listed first (a copy of the reference `add`) and served as
//! `add` (the `tools_call` operation calls it). Then, as the scenario says: discover and
//! version refusals (stdio; over HTTP the hook gives them, as they come before the chain
//! there), the `initialize` result's version rewritten, server→client requests before
//! `tools/list`, and the official MRTR tools.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_reference_server::protocol::{code, method};
use mcp_reference_server::{Ctx, Middleware, Next, RpcError, RpcResult, from_fn};
use serde_json::{Value, json};

use crate::client::peer::inject::{Injection, Injector};
use crate::client::scenario::{
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
}

impl State {
    pub fn new(scenario: &'static Scenario, transport: Transport) -> Arc<Self> {
        Arc::new(Self {
            scenario,
            transport,
            requests: AtomicUsize::new(0),
            asked: Mutex::new(false),
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
        if let Some(answer) = request_state(&mut ctx) {
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

/// The MRTR scenario's `tools/call`: an InputRequiredResult on the first call of
/// `test_mrtr_echo_state` (with [`REQUEST_STATE`]) and `test_mrtr_no_state` (without), a
/// complete result (the reference `echo`'s, stamped) on their retries and for
/// `test_mrtr_unrelated` and `test_mrtr_no_result_type`. (The official suite's mock answers the
/// last one without `resultType`, which a 2026-07-28 server MUST send: mcpspec's peer judges
/// clients, not how they take a server's defect, so it stamps it as the schema requires.)
/// `None`: not one of them (the request goes on down the chain).
fn request_state(ctx: &mut Ctx) -> Option<RpcResult> {
    if ctx.method != method::TOOLS_CALL {
        return None;
    }
    let name = tool_name(ctx)?.to_owned();
    let retry = ctx
        .params
        .as_ref()
        .is_some_and(|p| p.get("inputResponses").is_some());
    let input_required = |state: Option<&str>| {
        let mut result = json!({
            "resultType": "input_required",
            "inputRequests": {
                "confirm": {
                    "method": method::ELICITATION_CREATE,
                    "params": {
                        "message": "Please confirm to continue",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"confirmed": {"type": "boolean"}}
                        }
                    }
                }
            }
        });
        if let Some(state) = state {
            result["requestState"] = Value::from(state);
        }
        Some(Ok(result))
    };
    match name.as_str() {
        ECHO_STATE if !retry => input_required(Some(REQUEST_STATE)),
        NO_STATE if !retry => input_required(None),
        ECHO_STATE | NO_STATE | UNRELATED | NO_RESULT_TYPE => {
            if let Some(Value::Object(p)) = ctx.params.as_mut() {
                p.insert("name".into(), Value::from(ECHO));
                p.insert("arguments".into(), json!({"text": format!("{name}: done")}));
                p.remove("inputResponses");
                p.remove("requestState");
            }
            None
        }
        _ => None,
    }
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

/// The `robustness/unexpected-messages` injection: before the reply to the first `tools/call`,
/// an unknown notification, a reply to an id never used, and a line that is not JSON-RPC.
#[derive(Debug, Default)]
pub struct Unexpected {
    done: Mutex<bool>,
}

impl Injector for Unexpected {
    fn touches(&self, _n: usize, request: &Value) -> bool {
        request.get("method").and_then(Value::as_str) == Some(method::TOOLS_CALL)
            && self.done.lock().is_ok_and(|done| !*done)
    }

    fn inject(&self, _n: usize, _request: &Value, reply: Vec<Vec<u8>>) -> Injection {
        if let Ok(mut done) = self.done.lock() {
            *done = true;
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
