//! The probe-profile tools that let a black-box harness fire the 2026-07-28 features, a
//! [`ToolExtension`] the crate root supplies only with `--probe-profile` (listed and callable
//! then only, like `mcpspec_probe_log`; POL-12):
//!
//! | tool | arguments | does |
//! |---|---|---|
//! | `mcpspec_trigger_list_changed` | `list?`: tools, prompts or resources | `notifications/<list>/list_changed` (all three without `list`) to the listen streams that asked for it |
//! | `mcpspec_trigger_resource_updated` | `uri` | `notifications/resources/updated` to the streams subscribed to `uri` |
//!
//! (Both triggers answer with how many notifications went out, `delivered`, and the listen
//! request id of the stream each went to, `listenIds`: a client that closed a stream over HTTP
//! learns from them when the server has seen the close.)
//! | `mcpspec_end_subscriptions` | | ends every listen stream with its completion result |
//! | `mcpspec_slow` | `steps?` (3, ≤ 100), `delay_ms?` (100, ≤ 10 000) | sleeps per step; progress and an `info` log line per step |
//! | `mcpspec_log_demo` | | one log message at every level |
//! | `mcpspec_confirm` | `message?` | needs an elicitation (MRTR): input_required, then the answer |
//!
//! Each is served whole: `mcpspec_slow` reports its own progress, the others none.

use serde_json::{Map, Value, json};

use crate::config::Era;
use crate::config::faults::Fault;
use crate::engine::hub::List;
use crate::engine::scope::{Level, Scope};
use crate::engine::tool_extension::{ToolExtension, ToolFuture};
use crate::error::RpcError;
use crate::features::mrtr;
use crate::features::progress::Progress;

pub const TRIGGER_LIST_CHANGED: &str = "mcpspec_trigger_list_changed";
pub const TRIGGER_RESOURCE_UPDATED: &str = "mcpspec_trigger_resource_updated";
pub const END_SUBSCRIPTIONS: &str = "mcpspec_end_subscriptions";
pub const SLOW: &str = "mcpspec_slow";
pub const LOG_DEMO: &str = "mcpspec_log_demo";
pub const CONFIRM: &str = "mcpspec_confirm";

/// Every probe tool, in listing order.
const NAMES: [&str; 6] = [
    TRIGGER_LIST_CHANGED,
    TRIGGER_RESOURCE_UPDATED,
    END_SUBSCRIPTIONS,
    SLOW,
    LOG_DEMO,
    CONFIRM,
];

const MAX_STEPS: u64 = 100;
const MAX_DELAY_MS: u64 = 10_000;

/// The probe-profile tool definitions (after `mcpspec_probe_log`), in a fixed order.
fn list() -> Vec<Value> {
    let object = |properties: Value, required: &[&str]| json!({ "type": "object", "properties": properties, "required": required });
    vec![
        json!({
            "name": TRIGGER_LIST_CHANGED,
            "description": "mcpspec probe profile: sends list_changed to the listen streams that asked for it.",
            "inputSchema": object(json!({ "list": { "type": "string", "enum": ["tools", "prompts", "resources"] } }), &[])
        }),
        json!({
            "name": TRIGGER_RESOURCE_UPDATED,
            "description": "mcpspec probe profile: sends resources/updated to the streams subscribed to `uri`.",
            "inputSchema": object(json!({ "uri": { "type": "string" } }), &["uri"])
        }),
        json!({
            "name": END_SUBSCRIPTIONS,
            "description": "mcpspec probe profile: ends the listen stream whose request id is `listenId` (every one without it) with its completion result.",
            "inputSchema": object(json!({ "listenId": { "type": ["string", "integer"] } }), &[])
        }),
        json!({
            "name": SLOW,
            "description": "mcpspec probe profile: takes `steps` steps of `delay_ms`, reporting progress.",
            "inputSchema": object(json!({
                "steps": { "type": "integer", "minimum": 1, "maximum": MAX_STEPS },
                "delay_ms": { "type": "integer", "minimum": 0, "maximum": MAX_DELAY_MS }
            }), &[])
        }),
        json!({
            "name": LOG_DEMO,
            "description": "mcpspec probe profile: logs one message at every level.",
            "inputSchema": object(json!({}), &[])
        }),
        json!({
            "name": CONFIRM,
            "description": "mcpspec probe profile: asks the user to confirm (an input-required result).",
            "inputSchema": object(json!({ "message": { "type": "string" } }), &[])
        }),
    ]
}

/// The probe profile's tools.
pub(crate) struct ProbeTools;

impl ToolExtension for ProbeTools {
    fn list(&self) -> Vec<Value> {
        list()
    }

    fn serve<'a>(
        &'a self,
        scope: &'a Scope,
        name: &'a str,
        params: Option<&'a Value>,
    ) -> Option<ToolFuture<'a>> {
        NAMES
            .contains(&name)
            .then(|| Box::pin(call(scope, name, params)) as ToolFuture<'a>)
    }
}

/// `tools/call` of one of the probe tools.
async fn call(scope: &Scope, name: &str, params: Option<&Value>) -> Result<Value, RpcError> {
    let empty = Map::new();
    let args = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let hub = &scope.conn.subscriptions;
    let faults = &scope.conn.config.faults;
    match name {
        TRIGGER_LIST_CHANGED => {
            let lists = match args.get("list") {
                None => List::ALL.to_vec(),
                Some(list) => match list.as_str().and_then(List::parse) {
                    Some(list) => vec![list],
                    None => {
                        return Ok(error_result("`list` must be tools, prompts or resources"));
                    }
                },
            };
            let reached = lists
                .into_iter()
                .flat_map(|l| hub.list_changed(faults, l))
                .collect();
            Ok(delivered(reached))
        }
        TRIGGER_RESOURCE_UPDATED => {
            let Some(uri) = args.get("uri").and_then(Value::as_str) else {
                return Ok(error_result("`uri` (a string) is required"));
            };
            Ok(delivered(hub.resource_updated(faults, uri)))
        }
        END_SUBSCRIPTIONS => {
            let ended = hub.end(faults, args.get("listenId"));
            Ok(counted("ended", ended))
        }
        SLOW => slow(scope, args).await,
        LOG_DEMO => {
            for level in Level::all() {
                scope.log(level, json!(format!("a {} message", level.as_str())));
            }
            Ok(text_result("logged one message at every level"))
        }
        CONFIRM => confirm(scope, params, args),
        // Not reached: `serve` passes only the names above.
        _ => Err(RpcError::invalid_params(format!("unknown tool: {name}"))),
    }
}

async fn slow(scope: &Scope, args: &Map<String, Value>) -> Result<Value, RpcError> {
    let number = |key: &str, default: u64, max: u64| match args.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= max)
            .ok_or_else(|| format!("`{key}` must be an integer from 0 to {max}")),
    };
    let (steps, delay) = match (
        number("steps", 3, MAX_STEPS),
        number("delay_ms", 100, MAX_DELAY_MS),
    ) {
        (Ok(steps), Ok(delay)) if steps > 0 => (steps, delay),
        (Err(e), _) | (_, Err(e)) => return Ok(error_result(&e)),
        _ => return Ok(error_result("`steps` must be at least 1")),
    };
    let mut progress = Progress::new(scope, steps);
    for step in 1..=steps {
        tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        scope.log(Level::INFO, json!(format!("step {step} of {steps}")));
        progress.step(scope, &format!("step {step} of {steps}"));
    }
    progress.finish(scope);
    Ok(text_result(&format!("done after {steps} steps")))
}

/// MRTR: asks for a confirmation by elicitation (and the roots, if the request declares
/// `roots`), then answers with what the client said.
fn confirm(
    scope: &Scope,
    params: Option<&Value>,
    args: &Map<String, Value>,
) -> Result<Value, RpcError> {
    if scope.era != Some(Era::Modern) {
        return Ok(error_result("mcpspec_confirm needs the 2026-07-28 era"));
    }
    if !scope.declares("elicitation") && !scope.has(Fault::InputRequestsUndeclaredCapability) {
        return Err(mrtr::missing_capability(
            scope,
            json!({ "elicitation": {} }),
        ));
    }
    let round = match params.and_then(|p| p.get("requestState")) {
        None | Some(Value::Null) => 0,
        Some(Value::String(state)) => {
            let payload = mrtr::open(scope, state)?;
            if payload.get("tool").and_then(Value::as_str) != Some(CONFIRM) {
                return Err(RpcError::invalid_params(
                    "`requestState` belongs to another request",
                ));
            }
            payload.get("round").and_then(Value::as_u64).unwrap_or(0)
        }
        Some(_) => return Err(RpcError::invalid_params("`requestState` must be a string")),
    };
    let empty = Map::new();
    let responses = match params.and_then(|p| p.get("inputResponses")) {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(responses)) => responses,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "`inputResponses` must be an object",
            ));
        }
    };
    let message = args
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("Go ahead?");
    let mut needed = Map::new();
    needed.insert("confirm".into(), mrtr::elicit_confirmation(scope, message));
    if scope.declares("roots") {
        needed.insert("roots".into(), mrtr::list_roots());
    }
    let missing: Map<String, Value> = needed
        .into_iter()
        .filter(|(key, _)| !responses.contains_key(key))
        .collect();
    if !missing.is_empty() {
        if !responses.is_empty() && scope.has(Fault::MissingInputResponsesError) {
            return Err(RpcError::invalid_params("missing input responses"));
        }
        let state = json!({ "tool": CONFIRM, "round": round + 1 });
        return Ok(mrtr::input_required(scope, missing, &state));
    }
    let elicited = &responses["confirm"];
    let Some(action) = elicited.get("action").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params(
            "`inputResponses.confirm` must be an ElicitResult (with `action`)",
        ));
    };
    let confirmed =
        action == "accept" && elicited.pointer("/content/confirm") == Some(&json!(true));
    let mut text = if confirmed {
        "confirmed".to_owned()
    } else {
        format!("not confirmed ({action})")
    };
    if let Some(roots) = responses
        .get("roots")
        .and_then(|r| r.get("roots"))
        .and_then(Value::as_array)
    {
        text.push_str(&format!("; {} root(s)", roots.len()));
    }
    Ok(text_result(&text))
}

fn text_result(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }] })
}

fn counted(key: &str, n: usize) -> Value {
    json!({
        "content": [{ "type": "text", "text": format!("{key}: {n}") }],
        "structuredContent": { key: n }
    })
}

/// A trigger's result: how many notifications went out, and the listen request id of the
/// stream each went to.
fn delivered(listen_ids: Vec<Value>) -> Value {
    let n = listen_ids.len();
    json!({
        "content": [{ "type": "text", "text": format!("delivered: {n}") }],
        "structuredContent": { "delivered": n, "listenIds": listen_ids }
    })
}

fn error_result(message: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": message }], "isError": true })
}
