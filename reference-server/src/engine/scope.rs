//! What a handler knows of the one request it serves (2026-07-28, META-3): its id, where its
//! notifications go, and the opt-ins of its own `_meta` (log level, progress token, client
//! capabilities). Nothing here is read from earlier requests or from the connection.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::config::Era;
use crate::config::faults::Fault;
use crate::engine::connection::Connection;
use crate::engine::middleware::Ctx;
use crate::error::RpcError;
use crate::protocol::{LOG_LEVELS, meta};
use crate::wire::Outbound;

/// One request's view of the world.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub(crate) conn: Arc<Connection>,
    pub(crate) era: Option<Era>,
    /// The JSON-RPC id, as sent (`None` for a notification).
    pub(crate) id: Option<Value>,
    /// `io.modelcontextprotocol/logLevel`; `None`: no `notifications/message` (LOG-1).
    pub(crate) log_level: Option<Level>,
    /// `_meta.progressToken`; `None`: no `notifications/progress` (PROG-1).
    pub(crate) progress_token: Option<Value>,
    /// `io.modelcontextprotocol/clientCapabilities` of this request (empty when absent).
    pub(crate) client_capabilities: Map<String, Value>,
    out: mpsc::UnboundedSender<Outbound>,
}

impl Scope {
    /// The scope of `ctx`. Modern: an unrecognized log level is -32602 (META-6).
    pub(crate) fn new(ctx: &Ctx) -> Result<Self, RpcError> {
        let conn = ctx.conn.clone();
        let empty = Map::new();
        let meta_obj = ctx.client_meta.as_ref().unwrap_or(&empty);
        let modern = ctx.era == Some(Era::Modern);
        let log_level = if modern {
            requested_level(&conn, meta_obj.get(meta::LOG_LEVEL))?
        } else {
            None
        };
        let progress_token = meta_obj
            .get(meta::PROGRESS_TOKEN)
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .cloned();
        let mut client_capabilities = meta_obj
            .get(meta::CLIENT_CAPABILITIES)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if modern && conn.has(Fault::CapabilityFromPreviousRequest) {
            client_capabilities = conn.fault_state.remember_capabilities(client_capabilities);
        }
        Ok(Self {
            era: ctx.era,
            id: ctx.id.as_ref().map(|id| id.as_json().clone()),
            log_level,
            progress_token,
            client_capabilities,
            out: ctx.stream.clone().unwrap_or_else(|| conn.outbound()),
            conn,
        })
    }

    pub(crate) fn has(&self, fault: Fault) -> bool {
        self.conn.has(fault)
    }

    /// Sends a notification on this request's stream.
    pub(crate) fn notify(&self, method: &str, params: Value) {
        // The receiver only goes away when the request's stream or the connection ended.
        let _ = self.out.send(Outbound::Notification {
            method: method.to_owned(),
            params: Some(params),
        });
    }

    /// This request's stream, for messages sent later (a listen subscription, a fault's
    /// message after the reply).
    pub(crate) fn stream(&self) -> mpsc::UnboundedSender<Outbound> {
        self.out.clone()
    }

    /// Whether this request declared the client capability `name`.
    pub(crate) fn declares(&self, name: &str) -> bool {
        self.client_capabilities.contains_key(name)
    }
}

/// A syslog severity; ordered `debug` (lowest) .. `emergency`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Level(usize);

impl Level {
    pub(crate) const DEBUG: Level = Level(0);
    pub(crate) const INFO: Level = Level(1);

    pub(crate) fn parse(name: &str) -> Option<Level> {
        LOG_LEVELS.iter().position(|l| *l == name).map(Level)
    }

    pub(crate) fn as_str(self) -> &'static str {
        LOG_LEVELS.get(self.0).copied().unwrap_or("debug")
    }

    /// Every level, lowest first.
    pub(crate) fn all() -> impl Iterator<Item = Level> {
        (0..LOG_LEVELS.len()).map(Level)
    }
}

/// The level a request asked for (META-6: anything but a known level name is -32602).
pub(crate) fn requested_level(
    conn: &Connection,
    value: Option<&Value>,
) -> Result<Option<Level>, RpcError> {
    let Some(value) = value else { return Ok(None) };
    match value.as_str().and_then(Level::parse) {
        Some(level) => Ok(Some(level)),
        None if conn.has(Fault::InvalidLogLevelAccepted) => Ok(None),
        None => Err(RpcError::invalid_params(format!(
            "`_meta[\"io.modelcontextprotocol/logLevel\"]` must be one of {}, got {value}",
            LOG_LEVELS.join(", ")
        ))),
    }
}

/// A notification on `out`, sent later than its request (used by the `*-after-reply` faults).
pub(crate) fn notify_later(out: mpsc::UnboundedSender<Outbound>, method: &str, params: Value) {
    let method = method.to_owned();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let _ = out.send(Outbound::Notification {
            method,
            params: Some(params),
        });
    });
}
