//! The `initialize` revisions (2024-11-05 .. 2025-11-25): the handshake, then a session with
//! the negotiated version. Results are plain (no `resultType`, no `_meta` serverInfo: identity
//! is in the InitializeResult).
//!
//! The handler never commits the handshake itself: it stages the negotiated version on the
//! context, and the runner commits it only if the whole chain succeeded (a vetoing middleware
//! leaves the connection uninitialized).

use serde_json::{Value, json};

use crate::config::Eras;
use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::engine::middleware::{Ctx, RpcResult};
use crate::engine::scope::Scope;
use crate::engine::tool_extension::ToolExtensions;
use crate::error::RpcError;
use crate::features::{completion, pagination, prompts, resources, tools};
use crate::protocol::{LOG_LEVELS, code, method, server_info, version};

pub(crate) async fn handle(ctx: Ctx, extensions: &ToolExtensions) -> RpcResult {
    let conn = ctx.conn.clone();
    if ctx.id.is_none() {
        return notification(&conn, &ctx);
    }
    let name = ctx.method.as_str();
    let params = ctx.params.as_ref();
    let Some(negotiated) = conn.negotiated() else {
        return match name {
            method::INITIALIZE => initialize(&conn, &ctx),
            method::PING => ping(&conn),
            _ => Err(RpcError::invalid_request(format!(
                "not initialized: send `initialize` before `{name}`"
            ))),
        };
    };
    match name {
        method::INITIALIZE => Err(RpcError::invalid_request(format!(
            "already initialized (protocol version {negotiated})"
        ))),
        method::PING => ping(&conn),
        method::TOOLS_LIST => Ok(pagination::whole(
            &conn,
            "tools",
            tools::list(&conn, extensions),
        )),
        method::TOOLS_CALL => tools::call(&Scope::new(&ctx)?, params, extensions).await,
        method::RESOURCES_LIST => Ok(pagination::whole(
            &conn,
            "resources",
            resources::list(&conn),
        )),
        method::RESOURCES_TEMPLATES_LIST => Ok(pagination::whole(
            &conn,
            "resourceTemplates",
            resources::templates(&conn),
        )),
        method::RESOURCES_READ => {
            let uri = uri_param(&conn, params, name)?;
            let contents = resources::read_as(&conn, uri).ok_or_else(|| not_found(uri))?;
            Ok(json!({ "contents": contents }))
        }
        method::PROMPTS_LIST => Ok(pagination::whole(&conn, "prompts", prompts::list())),
        method::PROMPTS_GET => prompts::get(&Scope::new(&ctx)?, params),
        method::COMPLETION_COMPLETE if completes(&negotiated) => {
            completion::complete(&Scope::new(&ctx)?, params)
        }
        method::RESOURCES_SUBSCRIBE | method::RESOURCES_UNSUBSCRIBE => {
            // Served even when not announced: that is the legacy-wrong-capabilities fault
            // (the announcement is what the fault changes).
            let uri = uri_param(&conn, params, name)?;
            if !resources::exists(uri) {
                return Err(not_found(uri));
            }
            Ok(json!({}))
        }
        method::LOGGING_SET_LEVEL => {
            let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
            match level {
                Some(level) if LOG_LEVELS.contains(&level) => Ok(json!({})),
                _ => Err(conn.params_error(format!(
                    "logging/setLevel: `level` must be one of {}",
                    LOG_LEVELS.join(", ")
                ))),
            }
        }
        _ => Err(conn.method_not_found(name)),
    }
}

fn notification(conn: &Connection, ctx: &Ctx) -> RpcResult {
    match ctx.method.as_str() {
        method::INITIALIZED => {
            if conn.mark_initialized() {
                // LEG-6: ping goes both ways; the server pings once the session is live.
                let id = conn.send_request(method::PING, None);
                if conn.has(Fault::ReuseServerRequestIds) {
                    conn.send(crate::wire::Outbound::Request {
                        id,
                        method: method::PING.into(),
                        params: None,
                    });
                }
            }
            Ok(Value::Null)
        }
        // An in-flight request is stopped; an unknown, finished or malformed one is an error
        // the runner discards unless a fault says otherwise (STDIO-5).
        method::CANCELLED => {
            crate::engine::cancellation::handle(&conn.inflight, ctx.params.as_ref())
        }
        _ => Ok(Value::Null),
    }
}

fn ping(conn: &Connection) -> RpcResult {
    if conn.has(Fault::NoPing) {
        return Err(conn.method_not_found(method::PING));
    }
    Ok(json!({}))
}

/// LEG-1, LEG-2: answers the handshake and stages the negotiated version.
fn initialize(conn: &Connection, ctx: &Ctx) -> RpcResult {
    if conn.config.eras == Eras::Modern {
        // Not reachable: a modern-only server routes everything to the modern era.
        return Err(conn.method_not_found(method::INITIALIZE));
    }
    let params = ctx.params.as_ref().and_then(Value::as_object);
    let requested = match params.and_then(|p| p.get("protocolVersion")) {
        Some(Value::String(v)) => v.as_str(),
        Some(_) => return Err(conn.params_error("initialize: `protocolVersion` must be a string")),
        None => return Err(conn.params_error("initialize: `protocolVersion` is required")),
    };
    for key in ["capabilities", "clientInfo"] {
        if params
            .and_then(|p| p.get(key))
            .is_some_and(|v| !v.is_object())
        {
            return Err(conn.params_error(format!("initialize: `{key}` must be an object")));
        }
    }
    let supported = version::LEGACY_SUPPORTED.contains(&requested);
    let answer =
        if supported {
            if conn.has(Fault::InitializeWrongVersion) {
                if requested == version::LATEST_LEGACY {
                    version::V2025_06_18
                } else {
                    version::LATEST_LEGACY
                }
            } else {
                requested
            }
        } else if conn.has(Fault::InitializeErrorOnUnknownVersion) {
            return Err(RpcError::invalid_params(format!(
                "unsupported protocol version: {requested}"
            ))
            .with_data(json!({ "supported": version::LEGACY_SUPPORTED, "requested": requested })));
        } else if conn.has(Fault::InitializeInternalErrorOnUnknownVersion) {
            return Err(RpcError::new(
                code::INTERNAL_ERROR,
                format!("cannot negotiate protocol version {requested}"),
            ));
        } else {
            // LEG-2: counter-offer the latest legacy version, not an error.
            version::LATEST_LEGACY
        };

    let mut result = json!({ "protocolVersion": answer });
    if let Some(obj) = result.as_object_mut() {
        if !conn.has(Fault::InitializeBadShape) {
            obj.insert("capabilities".into(), capabilities(conn, answer));
            let info = if conn.has(Fault::ServerInfoNoVersion) {
                json!({ "name": server_info::NAME })
            } else {
                json!({ "name": server_info::NAME, "version": server_info::VERSION })
            };
            obj.insert("serverInfo".into(), info);
        }
        obj.insert(
            "instructions".into(),
            json!(
                "A reference server for mcpspec: tools `echo`, `add` and `showcase`, \
                 resources and a template, prompts, completions."
            ),
        );
    }
    ctx.stage_negotiated(answer.to_owned());
    Ok(result)
}

fn announces_subscribe(conn: &Connection) -> bool {
    !conn.has(Fault::LegacyWrongCapabilities)
}

/// The capabilities announced for a session at `version`.
fn capabilities(conn: &Connection, version: &str) -> Value {
    let resources = if announces_subscribe(conn) {
        json!({ "subscribe": true, "listChanged": false })
    } else {
        json!({ "listChanged": false })
    };
    let tools = if conn.has(Fault::CapabilityWrongType) {
        json!(["listChanged"])
    } else {
        json!({ "listChanged": false })
    };
    let mut caps = json!({
        "tools": tools,
        "resources": resources,
        "prompts": { "listChanged": false },
        "logging": {}
    });
    if completes(version) {
        caps["completions"] = json!({});
    }
    caps
}

/// Whether revision `version` has `completion/complete` (announced as `completions` since
/// 2025-03-26).
fn completes(revision: &str) -> bool {
    revision >= version::V2025_03_26
}

fn uri_param<'a>(
    conn: &Connection,
    params: Option<&'a Value>,
    name: &str,
) -> Result<&'a str, RpcError> {
    params
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str)
        .ok_or_else(|| conn.params_error(format!("{name}: `uri` (a string) is required")))
}

/// LEG-13: the legacy resource-not-found code.
fn not_found(uri: &str) -> RpcError {
    RpcError::new(
        code::RESOURCE_NOT_FOUND_LEGACY,
        format!("resource not found: {uri}"),
    )
    .with_data(json!({ "uri": uri }))
}
