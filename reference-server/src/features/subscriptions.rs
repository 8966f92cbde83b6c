//! `subscriptions/listen` (2026-07-28): a long-lived request whose stream carries the
//! notifications the client opted in to.
//!
//! - The first message for a subscription is `notifications/subscriptions/acknowledged` with
//!   `params.notifications` = the honoured subset of the filter: the list-changed flags that
//!   are `true` (tools, prompts and resources all support `listChanged`) and the
//!   `resourceSubscriptions` URIs of resources that exist (SUB-1).
//! - Every notification on the stream, the acknowledgement included, carries
//!   `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's id, with its
//!   JSON type (SUB-2); only requested types are sent, `resources/updated` only for honoured
//!   URIs (SUB-3); nothing else (no log, no progress) goes on it (SUB-4).
//! - The client ends it with `notifications/cancelled {requestId: <listen id>}` on stdio, or
//!   by closing the stream on HTTP (the future is dropped): nothing more is sent (SUB-7).
//!   The server ends it with the completion result `{resultType: "complete", _meta:
//!   {subscriptionId}}` as the listen request's reply (SUB-6, POL-9); it never sends
//!   `notifications/cancelled` (SUB-9).
//! - Subscriptions are independent: each has its own filter and stream.
//!
//! Events come from the probe-profile tools `mcpspec_trigger_list_changed {list?}`,
//! `mcpspec_trigger_resource_updated {uri}` and `mcpspec_end_subscriptions`; they are
//! delivered synchronously, so on stdio a trigger's notifications precede its reply.
//!
//! For a transport with one stream per request (HTTP): the listen request's notifications go
//! where its [`crate::Ctx`] streams them (`Ctx::stream_to`), and a hub shared between
//! connections (`Connection::with_subscriptions`) lets a trigger on one POST reach a listen
//! stream on another. The hub, its subscriptions and their filters are core state
//! ([`crate::engine::hub`]); this module reads a filter from the request and serves the listen
//! request.

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::config::faults::Fault;
use crate::engine::hub::{Filter, Registration, Subscription, send, tag, with_meta};
use crate::engine::scope::Scope;
use crate::error::RpcError;
use crate::features::resources;
use crate::protocol::{meta, method};

/// A filter as the request states it, and what this server honours of it.
impl Filter {
    fn parse(value: Option<&Value>) -> Result<Filter, RpcError> {
        let Some(obj) = value.and_then(Value::as_object) else {
            return Err(RpcError::invalid_params(
                "subscriptions/listen: `notifications` (a SubscriptionFilter object) is required",
            ));
        };
        let flag = |key: &str| match obj.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(RpcError::invalid_params(format!(
                "subscriptions/listen: `notifications.{key}` must be a boolean"
            ))),
        };
        let uris = match obj.get("resourceSubscriptions") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|u| u.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    RpcError::invalid_params(
                        "subscriptions/listen: `resourceSubscriptions` must be an array of strings",
                    )
                })?,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "subscriptions/listen: `resourceSubscriptions` must be an array of strings",
                ));
            }
        };
        Ok(Filter {
            tools: flag("toolsListChanged")?,
            prompts: flag("promptsListChanged")?,
            resources: flag("resourcesListChanged")?,
            uris,
        })
    }

    /// What this server honours of a requested filter.
    fn honoured(&self) -> Filter {
        let mut uris: Vec<String> = Vec::new();
        for uri in &self.uris {
            if resources::read(uri).is_some() && !uris.contains(uri) {
                uris.push(uri.clone());
            }
        }
        Filter {
            uris,
            ..self.clone()
        }
    }

    fn to_json(&self) -> Value {
        let mut obj = Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                obj.insert(key.into(), Value::Bool(true));
            }
        }
        if !self.uris.is_empty() {
            obj.insert("resourceSubscriptions".into(), json!(self.uris));
        }
        Value::Object(obj)
    }
}

/// `subscriptions/listen`: acknowledges, then streams until the server ends it (the reply is
/// the completion result) or the client cancels it (the future is dropped, no reply).
pub(crate) async fn listen(scope: &Scope, params: Option<&Value>) -> Result<Value, RpcError> {
    let Some(id) = scope.id.clone() else {
        return Err(RpcError::invalid_request(
            "subscriptions/listen is a request",
        ));
    };
    let filter = Filter::parse(params.and_then(|p| p.get("notifications")))?.honoured();
    let faults = &scope.conn.config.faults;
    let out = scope.stream();
    let ack = with_meta(
        json!({ "notifications": filter.to_json() }),
        meta::SUBSCRIPTION_ID,
        tag(faults, &id),
    );
    let (mut pending_ack, mut ack_now) = (None, None);
    if faults.has(Fault::ListenAckLate) {
        pending_ack = Some(ack);
    } else if !faults.has(Fault::ListenNoAck) {
        ack_now = Some(ack);
    }
    let log_on_stream = faults.has(Fault::ListenLogOnStream).then(|| out.clone());
    let (end_tx, end_rx) = oneshot::channel();
    let hub = scope.conn.subscriptions.clone();
    // Registered as it is acknowledged, never after (see `Hub::add`).
    let key = hub.add(
        Subscription {
            key: 0,
            id: id.clone(),
            filter,
            out,
            pending_ack,
            end: Some(end_tx),
        },
        ack_now,
    );
    if let Some(out) = log_on_stream {
        let log = json!({
            "level": "info",
            "logger": crate::features::logging::LOGGER,
            "data": "listening (listen-log-on-stream fault)"
        });
        send(
            &out,
            method::MESSAGE,
            with_meta(log, meta::SUBSCRIPTION_ID, tag(faults, &id)),
        );
    }
    let _registration = Registration {
        hub,
        key,
        keep: faults.has(Fault::ListenAfterCancel),
        ends_all: faults.has(Fault::ListenCancelEndsAll),
    };
    if end_rx.await.is_err() {
        // Ended without a completion result (`listen-no-teardown`): silent from now on.
        std::future::pending::<()>().await;
    }
    Ok(json!({ "_meta": { meta::SUBSCRIPTION_ID: id } }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honoured_filter_keeps_true_flags_and_existing_uris() {
        let requested = Filter::parse(Some(&json!({
            "toolsListChanged": true,
            "promptsListChanged": false,
            "resourceSubscriptions": [resources::README_URI, "mcpspec://nowhere"]
        })))
        .unwrap();
        assert_eq!(
            requested.honoured().to_json(),
            json!({"toolsListChanged": true, "resourceSubscriptions": [resources::README_URI]})
        );
        assert!(Filter::parse(Some(&json!({"toolsListChanged": "yes"}))).is_err());
        assert!(Filter::parse(None).is_err());
    }
}
