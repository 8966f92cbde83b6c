//! The mcpspec probe profile (`--probe-profile`): a middleware a black-box harness can steer
//! through the request `_meta` key `dev.mcpspec/probe`, and that logs what it observes.
//!
//! - `{"refuse": {"code": C, "message": M, "data"?: D}}`: that error, `next` not called;
//! - `{"rewrite": {"method"?: S, "params"?: {..}}}`: `next` gets the new method and/or the given
//!   top-level params keys over the originals (`_meta` kept);
//! - `{"answer": {..}}`: that object is the result, verbatim (nothing stamped), `next` not
//!   called;
//! - a legacy `initialize` with `clientInfo.name` `mcpspec-probe-veto`: refused with -32600;
//!   `mcpspec-probe-deadlock`: awaits a server->client `ping` inside the chain (the inline
//!   handler deadlocks, as documented);
//! - every request and notification that reaches the probe is logged
//!   `{method, kind, id, outcome: "ok" | "error <code>"}` after it completes; the tool
//!   `mcpspec_probe_log` returns the log (its own call is not in it yet).

use serde_json::{Map, Value, json};

use crate::config::Era;
use crate::config::faults::Fault;
use crate::engine::middleware::{Ctx, Middleware, Next, RpcResult, from_fn};
use crate::eras::modern;
use crate::error::RpcError;
use crate::protocol::{code, meta, method};

/// The name of the probe middleware on the list.
pub const PROBE: &str = "probe";
/// `clientInfo.name` of an `initialize` the probe refuses.
pub const VETO_CLIENT: &str = "mcpspec-probe-veto";
/// `clientInfo.name` of an `initialize` during which the probe awaits a client reply.
pub const DEADLOCK_CLIENT: &str = "mcpspec-probe-deadlock";

pub fn probe_middleware() -> Middleware {
    from_fn(PROBE, probe)
}

async fn probe(ctx: Ctx, next: Next) -> RpcResult {
    let conn = ctx.conn.clone();
    let entry = json!({
        "method": ctx.method,
        "kind": ctx.kind().as_str(),
        "id": ctx.id.as_ref().map_or(Value::Null, |id| id.as_json().clone()),
    });
    let is_notification = ctx.id.is_none();
    let outcome = steer(ctx, next).await;

    let blind = conn.has(Fault::ProbeLogBlind);
    if !(blind && is_notification) {
        let status = match &outcome {
            Err(error) if !blind => format!("error {}", error.code),
            _ => "ok".to_owned(),
        };
        let mut entry = entry;
        if let Some(obj) = entry.as_object_mut() {
            obj.insert("outcome".into(), json!(status));
        }
        conn.log_probe(entry);
    }
    outcome
}

async fn steer(mut ctx: Ctx, next: Next) -> RpcResult {
    let conn = ctx.conn.clone();
    if ctx.method == method::INITIALIZE && ctx.era == Some(Era::Legacy) {
        match client_name(&ctx).as_deref() {
            Some(VETO_CLIENT) => {
                if conn.has(Fault::VetoCommitsInitialize) {
                    // The bug: the handshake runs (and commits) before the veto is applied.
                    let _ = next.run(ctx).await;
                }
                return Err(RpcError::invalid_request(
                    "initialize vetoed by the probe middleware",
                ));
            }
            Some(DEADLOCK_CLIENT) => {
                // Deliberate: while `initialize` is handled the reader is parked, so this
                // reply is never read (the documented inline-initialize deadlock).
                let _ = ctx.client().request(method::PING, None).await;
            }
            _ => {}
        }
    }
    let Some(directive) = ctx
        .client_meta
        .as_ref()
        .and_then(|m| m.get(meta::PROBE))
        .cloned()
    else {
        return next.run(ctx).await;
    };
    let Some((verb, arg)) = directive.as_object().and_then(single_entry) else {
        return Err(bad_directive(
            "expected an object with one of refuse, rewrite, answer",
        ));
    };
    match verb.as_str() {
        "refuse" => {
            let error = refusal(&arg)?;
            if conn.has(Fault::ProbeRefuseIgnored) {
                return next.run(ctx).await;
            }
            if conn.has(Fault::ProbeRefuseCloses) {
                conn.request_exit();
            }
            Err(error)
        }
        "rewrite" => {
            let Some(rewrite) = arg.as_object() else {
                return Err(bad_directive("`rewrite` must be an object"));
            };
            if !conn.has(Fault::ProbeRewriteIgnored) {
                apply_rewrite(&mut ctx, rewrite)?;
            }
            next.run(ctx).await
        }
        "answer" => {
            if conn.has(Fault::ProbeAnswerStamped) && ctx.era == Some(Era::Modern) {
                return Ok(modern::stamp(&conn, arg));
            }
            Ok(arg)
        }
        other => Err(bad_directive(&format!("unknown directive `{other}`"))),
    }
}

fn client_name(ctx: &Ctx) -> Option<String> {
    ctx.params
        .as_ref()?
        .get("clientInfo")?
        .get("name")?
        .as_str()
        .map(str::to_owned)
}

fn single_entry(obj: &Map<String, Value>) -> Option<(String, Value)> {
    let mut entries = obj.iter();
    let (key, value) = entries.next()?;
    entries
        .next()
        .is_none()
        .then(|| (key.clone(), value.clone()))
}

fn refusal(arg: &Value) -> Result<RpcError, RpcError> {
    let code = arg.get("code").and_then(Value::as_i64);
    let message = arg.get("message").and_then(Value::as_str);
    match (code, message) {
        (Some(code), Some(message)) => {
            let mut error = RpcError::new(code, message);
            error.data = arg.get("data").cloned();
            Ok(error)
        }
        _ => Err(bad_directive(
            "`refuse` needs an integer `code` and a string `message`",
        )),
    }
}

fn apply_rewrite(ctx: &mut Ctx, rewrite: &Map<String, Value>) -> Result<(), RpcError> {
    match rewrite.get("method") {
        None => {}
        Some(Value::String(new_method)) => ctx.method = new_method.clone(),
        Some(_) => return Err(bad_directive("`rewrite.method` must be a string")),
    }
    match rewrite.get("params") {
        None => {}
        Some(Value::Object(overrides)) => {
            let mut params = match ctx.params.take() {
                Some(Value::Object(params)) => params,
                _ => Map::new(),
            };
            for (key, value) in overrides {
                // `_meta` is kept: it carries the envelope and this very directive.
                if key != "_meta" {
                    params.insert(key.clone(), value.clone());
                }
            }
            ctx.params = Some(Value::Object(params));
        }
        Some(_) => return Err(bad_directive("`rewrite.params` must be an object")),
    }
    Ok(())
}

fn bad_directive(detail: &str) -> RpcError {
    RpcError::new(
        code::INVALID_PARAMS,
        format!("bad `{}` directive: {detail}", meta::PROBE),
    )
}
