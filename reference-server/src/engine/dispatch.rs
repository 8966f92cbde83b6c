//! From a decoded message to a reply: build the [`Ctx`], run the chain, commit a staged
//! handshake, turn the outcome into at most one reply. The endpoint the chain ends in is the
//! chain's own (the eras' routing, see `crate::eras::endpoint`).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::config::Era;
use crate::config::faults::Fault;
use crate::engine::cancellation;
use crate::engine::connection::Connection;
use crate::engine::middleware::{Chain, Ctx, Next, RpcResult};
use crate::protocol::{meta, method};
use crate::wire::{Outbound, RequestId};

/// True if the message announces the modern era: `server/discover`, or a `_meta` carrying the
/// protocolVersion or clientCapabilities key.
pub(crate) fn is_modern_marked(method_name: &str, params: Option<&Value>) -> bool {
    if method_name == method::DISCOVER {
        return true;
    }
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| {
            m.contains_key(meta::PROTOCOL_VERSION) || m.contains_key(meta::CLIENT_CAPABILITIES)
        })
}

/// The context for one inbound request or notification; selects (and may lock) the era.
pub(crate) fn make_ctx(
    conn: &Arc<Connection>,
    id: Option<RequestId>,
    method_name: String,
    params: Option<Value>,
) -> Ctx {
    let marked = is_modern_marked(&method_name, params.as_ref());
    let client_meta = params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .cloned();
    let names_version = client_meta
        .as_ref()
        .is_some_and(|m| m.contains_key(meta::PROTOCOL_VERSION));
    let era = conn.select_era(marked, names_version, &method_name, id.is_some());
    let protocol_version = match era {
        Some(Era::Modern) => client_meta
            .as_ref()
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned),
        Some(Era::Legacy) => conn.negotiated(),
        None => None,
    };
    Ctx {
        method: method_name,
        params,
        id,
        protocol_version,
        era,
        client_meta,
        conn: conn.clone(),
        staged: Arc::new(Mutex::new(None)),
        stream: None,
    }
}

/// Runs one message through the chain; returns the reply to write, if any.
pub(crate) async fn run(conn: Arc<Connection>, chain: Chain, ctx: Ctx) -> Option<Outbound> {
    let id = ctx.id.clone();
    let original_method = ctx.method.clone();
    let staged = ctx.staged.clone();
    // The silent-before-initialize fault: a request that arrives before any era is chosen
    // (other than the handshake and ping) is dropped without a reply.
    let before_handshake = conn.locked_era().is_none()
        || (ctx.era == Some(Era::Legacy) && conn.negotiated().is_none());
    let silent = conn.has(Fault::SilentBeforeInitialize)
        && before_handshake
        && ctx.id.is_some()
        && ctx.era != Some(Era::Modern)
        && original_method != method::INITIALIZE
        && original_method != method::PING;
    // STDIO-4: a request cancelled while in flight is dropped and never answered (unless the
    // `reply-after-cancel` fault ignores cancellations).
    let ticket = id
        .as_ref()
        .filter(|_| !conn.has(Fault::ReplyAfterCancel))
        .map(|id| cancellation::Ticket::new(&conn.inflight, id.as_json()));
    let outcome = match ticket {
        Some(mut ticket) => tokio::select! {
            outcome = Next::start(chain).run(ctx) => outcome,
            () = ticket.cancelled() => return None,
        },
        None => Next::start(chain).run(ctx).await,
    };
    if silent {
        return None;
    }

    let negotiated = staged.lock().ok().and_then(|mut slot| slot.take());
    let reply = match &id {
        Some(id) => Some(Outbound::Reply {
            id: id.as_json().clone(),
            outcome: outcome.clone(),
        }),
        None => notification_reply(&conn, &original_method, &outcome),
    };
    // The reply goes out before anything the commit sends (e.g. the roots-before-initialized
    // fault's request), so write it here and return nothing.
    if let Some(version) = negotiated {
        if outcome.is_ok() || conn.has(Fault::VetoCommitsInitialize) {
            if let Some(reply) = reply {
                conn.send(reply);
            }
            conn.commit_legacy(version);
            return None;
        }
    }
    reply
}

/// Notifications are never answered, faults aside.
fn notification_reply(
    conn: &Connection,
    method_name: &str,
    outcome: &RpcResult,
) -> Option<Outbound> {
    let error_reply = |outcome: &RpcResult| {
        let error = match outcome {
            Err(error) => error.clone(),
            Ok(_) => crate::error::RpcError::invalid_request("notifications are not answered"),
        };
        Some(Outbound::Reply {
            id: Value::Null,
            outcome: Err(error),
        })
    };
    if conn.has(Fault::ReplyToNotifications) {
        return error_reply(outcome);
    }
    if method_name == method::INITIALIZED && conn.has(Fault::ReplyToInitialized) {
        return Some(Outbound::Reply {
            id: Value::Null,
            outcome: Ok(json!({})),
        });
    }
    if method_name == method::CANCELLED
        && outcome.is_err()
        && conn.has(Fault::AnswerInvalidCancellation)
    {
        return error_reply(outcome);
    }
    match outcome {
        Ok(answer @ Value::Object(_)) if conn.has(Fault::ProbeNotificationAnswered) => {
            Some(Outbound::Reply {
                id: Value::Null,
                outcome: Ok(answer.clone()),
            })
        }
        _ => None,
    }
}
