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
//! where its [`crate::Ctx`] streams them (`Ctx::stream_to`), and a [`Hub`] shared between
//! connections (`Connection::with_subscriptions`) lets a trigger on one POST reach a listen
//! stream on another.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::config::faults::Fault;
use crate::config::faults::Faults;
use crate::engine::scope::{Scope, with_meta};
use crate::error::RpcError;
use crate::features::resources;
use crate::protocol::{meta, method};
use crate::wire::Outbound;

/// Which list a list-changed trigger names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    Tools,
    Prompts,
    Resources,
}

impl List {
    pub(crate) const ALL: [List; 3] = [List::Tools, List::Prompts, List::Resources];

    pub(crate) fn parse(name: &str) -> Option<List> {
        match name {
            "tools" => Some(List::Tools),
            "prompts" => Some(List::Prompts),
            "resources" => Some(List::Resources),
            _ => None,
        }
    }

    fn notification(self) -> &'static str {
        match self {
            List::Tools => method::TOOLS_LIST_CHANGED,
            List::Prompts => method::PROMPTS_LIST_CHANGED,
            List::Resources => method::RESOURCES_LIST_CHANGED,
        }
    }
}

/// A `SubscriptionFilter`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

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

    fn wants(&self, list: List) -> bool {
        match list {
            List::Tools => self.tools,
            List::Prompts => self.prompts,
            List::Resources => self.resources,
        }
    }
}

/// One open subscription.
#[derive(Debug)]
struct Subscription {
    key: u64,
    /// The listen request's id, as sent.
    id: Value,
    filter: Filter,
    out: mpsc::UnboundedSender<Outbound>,
    /// Held back by the `listen-ack-late` fault until the first notification.
    pending_ack: Option<Value>,
    end: Option<oneshot::Sender<()>>,
}

/// The open subscriptions of a connection (or of several, shared).
#[derive(Debug, Default)]
pub struct Hub {
    next: AtomicU64,
    subs: Mutex<Vec<Subscription>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Hub {
    /// Sends `notifications/<list>/list_changed` to the streams that asked for it; returns
    /// how many got it.
    pub(crate) fn list_changed(&self, faults: &Faults, list: List) -> usize {
        if faults.has(Fault::ListenNoListChanged) {
            return 0;
        }
        let any = faults.has(Fault::ListenUnrequestedTypes);
        self.deliver(faults, |filter| {
            (any || filter.wants(list)).then(|| (list.notification(), json!({})))
        })
    }

    /// Sends `notifications/resources/updated {uri}` to the streams subscribed to `uri`.
    pub(crate) fn resource_updated(&self, faults: &Faults, uri: &str) -> usize {
        let any = faults.has(Fault::ListenUnrequestedTypes);
        self.deliver(faults, |filter| {
            (any || filter.uris.iter().any(|u| u == uri))
                .then(|| (method::RESOURCES_UPDATED, json!({ "uri": uri })))
        })
    }

    /// Ends the subscription of listen request `id` (every one without an id: on a shared HTTP
    /// server that would end other clients' streams too); each listen request gets its
    /// completion result. Returns how many there were.
    pub(crate) fn end(&self, faults: &Faults, id: Option<&Value>) -> usize {
        let ended: Vec<Subscription> = {
            let mut subs = lock(&self.subs);
            let (ended, kept) = std::mem::take(&mut *subs)
                .into_iter()
                .partition(|s| id.is_none_or(|id| s.id == *id));
            *subs = kept;
            ended
        };
        let n = ended.len();
        for mut sub in ended {
            if let Some(end) = sub.end.take() {
                if !faults.has(Fault::ListenNoTeardown) {
                    let _ = end.send(());
                }
                // Dropped unsent under `listen-no-teardown`: the stream just goes quiet.
            }
        }
        n
    }

    fn deliver(
        &self,
        faults: &Faults,
        pick: impl Fn(&Filter) -> Option<(&'static str, Value)>,
    ) -> usize {
        let mut subs = lock(&self.subs);
        let mut n = 0;
        for sub in subs.iter_mut() {
            let Some((name, params)) = pick(&sub.filter) else {
                continue;
            };
            let tag = if faults.has(Fault::ListenWrongSubscriptionId) {
                json!(format!("sub-{}", sub.key))
            } else {
                tag(faults, &sub.id)
            };
            send(
                &sub.out,
                name,
                with_meta(params, meta::SUBSCRIPTION_ID, tag),
            );
            if let Some(ack) = sub.pending_ack.take() {
                send(&sub.out, method::SUBSCRIPTIONS_ACKNOWLEDGED, ack);
            }
            n += 1;
        }
        n
    }

    fn add(&self, mut sub: Subscription) -> u64 {
        let key = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        sub.key = key;
        lock(&self.subs).push(sub);
        key
    }

    /// Removes one subscription; whether it was still open.
    fn remove(&self, key: u64) -> bool {
        let mut subs = lock(&self.subs);
        let before = subs.len();
        subs.retain(|s| s.key != key);
        subs.len() < before
    }

    /// Drops every subscription without a completion result (`listen-cancel-ends-all`): their
    /// streams go quiet.
    fn drop_all(&self) {
        lock(&self.subs).clear();
    }
}

/// Removes a subscription when its listen request ends or is dropped (client cancellation).
struct Registration {
    hub: Arc<Hub>,
    key: u64,
    keep: bool,
    /// `listen-cancel-ends-all`.
    ends_all: bool,
}

impl Drop for Registration {
    fn drop(&mut self) {
        // `listen-after-cancel`: a cancelled stream stays subscribed.
        if !self.keep {
            let cancelled = self.hub.remove(self.key);
            // `listen-cancel-ends-all`: a client cancellation takes every other stream with it.
            if cancelled && self.ends_all {
                self.hub.drop_all();
            }
        }
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
    let mut pending_ack = None;
    if faults.has(Fault::ListenAckLate) {
        pending_ack = Some(ack);
    } else if !faults.has(Fault::ListenNoAck) {
        send(&out, method::SUBSCRIPTIONS_ACKNOWLEDGED, ack);
    }
    if faults.has(Fault::ListenLogOnStream) {
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
    let (end_tx, end_rx) = oneshot::channel();
    let hub = scope.conn.subscriptions.clone();
    let key = hub.add(Subscription {
        key: 0,
        id: id.clone(),
        filter,
        out,
        pending_ack,
        end: Some(end_tx),
    });
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

/// The subscription id on stream notifications: the listen id, its type flipped under
/// `listen-id-type-changed`.
fn tag(faults: &Faults, id: &Value) -> Value {
    if !faults.has(Fault::ListenIdTypeChanged) {
        return id.clone();
    }
    match id {
        Value::Number(n) => Value::String(n.to_string()),
        Value::String(s) => s.parse::<i64>().map_or(json!(0), Value::from),
        other => other.clone(),
    }
}

fn send(out: &mpsc::UnboundedSender<Outbound>, method_name: &str, params: Value) {
    let _ = out.send(Outbound::Notification {
        method: method_name.to_owned(),
        params: Some(params),
    });
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

    #[test]
    fn id_type_flips_under_the_fault() {
        let faults = Faults::none().with(Fault::ListenIdTypeChanged);
        assert_eq!(tag(&faults, &json!(7)), json!("7"));
        assert_eq!(tag(&faults, &json!("7")), json!(7));
        assert_eq!(tag(&Faults::none(), &json!(7)), json!(7));
    }
}
