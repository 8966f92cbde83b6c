//! The 2026-07-28 era: stateless, every request carries its own `_meta` envelope. Order of
//! checks: method lookup (-32601), envelope (-32602), version (-32022), handler; every result
//! is stamped with `resultType` and serverInfo.

use serde_json::{Map, Value, json};

use crate::config::Eras;
use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::engine::middleware::{Ctx, RpcResult};
use crate::engine::scope::Scope;
use crate::engine::tool_extension::ToolExtensions;
use crate::error::RpcError;
use crate::features::{completion, mrtr, pagination, prompts, resources, subscriptions, tools};
use crate::protocol::{cache, code, meta, method, server_info, version};

pub(crate) async fn handle(ctx: Ctx, extensions: &ToolExtensions) -> RpcResult {
    let conn = ctx.conn.clone();
    if ctx.id.is_none() {
        return notification(&ctx);
    }
    let name = ctx.method.as_str();
    if name == method::INITIALIZE {
        return Err(initialize_error(&conn));
    }
    let removed = method::REMOVED_IN_MODERN.contains(&name);
    let known = matches!(
        name,
        method::TOOLS_LIST
            | method::TOOLS_CALL
            | method::RESOURCES_LIST
            | method::RESOURCES_READ
            | method::RESOURCES_TEMPLATES_LIST
            | method::PROMPTS_LIST
            | method::PROMPTS_GET
            | method::COMPLETION_COMPLETE
            | method::SUBSCRIPTIONS_LISTEN
    ) || (name == method::DISCOVER && !conn.has(Fault::NoDiscover))
        || (removed && conn.has(Fault::ServeRemovedMethods));
    if !known {
        return Err(conn.method_not_found(name));
    }

    let envelope_exempt = conn.has(Fault::EnvelopeOptional)
        || (name == method::DISCOVER && conn.has(Fault::DiscoverIgnoresEnvelope))
        || (conn.has(Fault::EnvelopeLessServedAsModern)
            && !conn.over_http()
            && ctx.protocol_version.is_none());
    check_envelope(&conn, ctx.params.as_ref(), envelope_exempt)?;

    if name == method::DISCOVER {
        conn.mark_discovered();
    } else if conn.has(Fault::RequireDiscoverFirst) && !conn.discovered() {
        return Err(RpcError::invalid_request(
            "send server/discover first (require-discover-first fault)",
        ));
    }

    // Everything below reads this request only (META-3); a bad log level is -32602 (META-6).
    let scope = Scope::new(&ctx)?;
    scope.log_start(name);
    let result = respond(&scope, name, ctx.params.as_ref(), extensions).await?;
    scope.log_done(name);
    Ok(stamp(&conn, result))
}

/// The handler of a known, validated modern request.
async fn respond(
    scope: &Scope,
    name: &str,
    params: Option<&Value>,
    extensions: &ToolExtensions,
) -> RpcResult {
    let conn = &scope.conn;
    let page = pagination::PAGE_SIZE;
    Ok(match name {
        method::DISCOVER => discover(conn),
        method::TOOLS_LIST => {
            if conn.has(Fault::ModernSendsPing) {
                conn.send_request(method::PING, None);
            }
            if conn.has(Fault::InputRequiredOnList) {
                let state = json!({ "method": name });
                return Ok(mrtr::input_required(scope, serde_json::Map::new(), &state));
            }
            let tools = pagination::tools(scope, tools::list(conn, extensions));
            pagination::page(scope, params, "tools", tools, None)?
        }
        method::TOOLS_CALL => tools::call(scope, params, extensions).await?,
        method::RESOURCES_LIST => {
            let resources = resources::list(conn);
            pagination::page(scope, params, "resources", resources, Some(page))?
        }
        method::RESOURCES_TEMPLATES_LIST => {
            let templates = resources::templates(conn);
            pagination::page(scope, params, "resourceTemplates", templates, Some(page))?
        }
        method::RESOURCES_READ => {
            let uri = params
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
                .ok_or_else(|| conn.params_error("resources/read: `uri` (a string) is required"))?;
            // FEAT-1: a missing resource is -32602 in this era (never -32002), never a result.
            let contents = match resources::read_as(conn, uri) {
                Some(contents) => contents,
                None if conn.has(Fault::ResourceNotFoundEmptyContents) => Vec::new(),
                None => {
                    let code = if conn.has(Fault::ResourceNotFound32002) {
                        code::RESOURCE_NOT_FOUND_LEGACY
                    } else {
                        code::INVALID_PARAMS
                    };
                    return Err(RpcError::new(code, format!("resource not found: {uri}"))
                        .with_data(json!({ "uri": uri })));
                }
            };
            let result = json!({ "contents": contents });
            if conn.has(Fault::CacheHintsMissingOnRead) {
                result
            } else {
                cacheable(conn, result)
            }
        }
        method::PROMPTS_LIST => {
            pagination::page(scope, params, "prompts", prompts::list(), Some(page))?
        }
        method::PROMPTS_GET => prompts::get(scope, params)?,
        method::COMPLETION_COMPLETE => completion::complete(scope, params)?,
        method::SUBSCRIPTIONS_LISTEN => subscriptions::listen(scope, params).await?,
        // Only reached under `serve-removed-methods`.
        _ => json!({}),
    })
}

/// Modern notifications are ignored, but `notifications/cancelled` stops an in-flight request;
/// an invalid cancellation is an error the runner discards (STDIO-5).
fn notification(ctx: &Ctx) -> RpcResult {
    if ctx.method == method::CANCELLED {
        return crate::engine::cancellation::handle(&ctx.conn.inflight, ctx.params.as_ref());
    }
    Ok(Value::Null)
}

/// `initialize` is removed in 2026-07-28: -32601, naming the supported versions (VER-5).
fn initialize_error(conn: &Connection) -> RpcError {
    if conn.has(Fault::ModernInitializeInternalError) {
        return RpcError::internal("initialize failed (modern-initialize-internal-error fault)");
    }
    let error = conn.method_not_found(method::INITIALIZE);
    if conn.has(Fault::ModernInitializeNoVersions) && conn.config.eras == Eras::Modern {
        return error;
    }
    error.with_data(json!({ "supported": version::MODERN_SUPPORTED }))
}

/// META-1, META-2, VER-1: the per-request `_meta` envelope and its version.
fn check_envelope(conn: &Connection, params: Option<&Value>, exempt: bool) -> Result<(), RpcError> {
    let empty = Map::new();
    let meta_obj = match params.and_then(|p| p.get("_meta")) {
        Some(Value::Object(m)) => m,
        Some(_) => return Err(RpcError::invalid_params("`params._meta` must be an object")),
        None if exempt => &empty,
        None => {
            return Err(RpcError::invalid_params(
                "missing `params._meta` (2026-07-28 envelope)",
            ));
        }
    };
    if !exempt {
        for key in [meta::PROTOCOL_VERSION, meta::CLIENT_CAPABILITIES] {
            if !meta_obj.contains_key(key) {
                return Err(RpcError::invalid_params(format!(
                    "missing `_meta[\"{key}\"]`"
                )));
            }
        }
    }
    if let Some(caps) = meta_obj.get(meta::CLIENT_CAPABILITIES) {
        if !caps.is_object() {
            return Err(RpcError::invalid_params(format!(
                "`_meta[\"{}\"]` must be an object",
                meta::CLIENT_CAPABILITIES
            )));
        }
    }
    if conn.has(Fault::RequireClientInfo) && !meta_obj.contains_key(meta::CLIENT_INFO) {
        return Err(RpcError::invalid_params(format!(
            "missing `_meta[\"{}\"]` (require-client-info fault)",
            meta::CLIENT_INFO
        )));
    }
    match meta_obj.get(meta::PROTOCOL_VERSION) {
        None => Ok(()),
        Some(Value::String(requested)) => {
            let pinned =
                conn.has(Fault::VersionPinnedOnFirstUse) && conn.fault_state.served_modern();
            if version::MODERN_SUPPORTED.contains(&requested.as_str()) {
                conn.fault_state.mark_served_modern();
                Ok(())
            } else if pinned || conn.has(Fault::AcceptUnknownVersion) {
                Ok(())
            } else {
                Err(unsupported_version(conn, requested))
            }
        }
        Some(_) => Err(RpcError::invalid_params(format!(
            "`_meta[\"{}\"]` must be a string",
            meta::PROTOCOL_VERSION
        ))),
    }
}

/// -32022 UnsupportedProtocolVersion with `data.supported` and `data.requested`.
fn unsupported_version(conn: &Connection, requested: &str) -> RpcError {
    let code = if conn.has(Fault::VersionErrorWrongCode) {
        code::INVALID_PARAMS
    } else if conn.has(Fault::VersionErrorDraftCode) {
        code::DRAFT_UNSUPPORTED_VERSION
    } else {
        code::UNSUPPORTED_PROTOCOL_VERSION
    };
    let data = if conn.has(Fault::VersionErrorBadData) {
        json!({ "supported": [version::MODERN, version::BOGUS] })
    } else {
        json!({ "supported": version::MODERN_SUPPORTED, "requested": requested })
    };
    RpcError::new(code, format!("unsupported protocol version: {requested}")).with_data(data)
}

/// The capabilities advertised match what is served (DISC-6, LOG-3), faults aside.
fn discover(conn: &Connection) -> Value {
    let mut capabilities = Map::new();
    if conn.has(Fault::CapabilityWrongType) {
        capabilities.insert("tools".into(), json!(["listChanged"]));
    } else if !conn.has(Fault::UndeclaredTools) {
        capabilities.insert("tools".into(), json!({ "listChanged": true }));
    }
    capabilities.insert(
        "resources".into(),
        json!({ "subscribe": true, "listChanged": true }),
    );
    if !conn.has(Fault::UndeclaredPrompts) {
        capabilities.insert("prompts".into(), json!({ "listChanged": true }));
    }
    if !conn.has(Fault::NoLoggingCapability) {
        capabilities.insert("logging".into(), json!({}));
    }
    capabilities.insert("completions".into(), json!({}));
    if conn.has(Fault::InstanceDrift) {
        capabilities.insert(
            "experimental".into(),
            json!({ "dev.mcpspec/instance": { "id": format!("{:016x}", conn.config.instance) } }),
        );
    }
    let mut result = Map::new();
    if !conn.has(Fault::DiscoverBadShape) {
        result.insert("supportedVersions".into(), json!(version::MODERN_SUPPORTED));
        result.insert("capabilities".into(), Value::Object(capabilities));
    }
    result.insert(
        "instructions".into(),
        json!(
            "A reference server for mcpspec: tools `echo` and `add`, resources, prompts, \
             completions, subscriptions/listen, per-request logging."
        ),
    );
    if conn.has(Fault::DiscoverNoCacheHints) {
        Value::Object(result)
    } else {
        cacheable(conn, Value::Object(result))
    }
}

/// Adds the cache hints (CACHE-1).
fn cacheable(conn: &Connection, mut result: Value) -> Value {
    if let Some(obj) = result.as_object_mut() {
        obj.insert(
            "ttlMs".into(),
            json!(crate::features::pagination::ttl_ms(conn)),
        );
        obj.insert("cacheScope".into(), json!(cache::SCOPE));
    }
    result
}

/// Stamps a modern result: `resultType` (RPC-6) and serverInfo in `_meta` (META-5, DISC-5).
pub(crate) fn stamp(conn: &Connection, mut result: Value) -> Value {
    let Some(obj) = result.as_object_mut() else {
        return result;
    };
    if !conn.has(Fault::NoResultType) {
        // A handler's own `resultType` (input_required) stands.
        obj.entry("resultType").or_insert_with(|| json!("complete"));
    }
    let info = if conn.has(Fault::ServerInfoNoVersion) {
        json!({ "name": server_info::NAME })
    } else {
        json!({ "name": server_info::NAME, "version": server_info::VERSION })
    };
    if conn.has(Fault::ServerInfoTopLevel) {
        obj.insert("serverInfo".into(), info);
    } else {
        let meta_value = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta_obj) = meta_value.as_object_mut() {
            meta_obj.insert(meta::SERVER_INFO.into(), info);
        }
    }
    result
}
