//! The open `subscriptions/listen` streams of a connection (or of several connections, shared):
//! the [`Hub`] that a list-changed or resource-updated event is delivered through, each
//! [`Subscription`] with its [`Filter`], and the [`Registration`] that removes one when its
//! listen request ends. State, not a feature: the connection holds a hub, the
//! `subscriptions/listen` feature (`features::subscriptions`) adds to it, and whatever fires an
//! event (the probe profile's triggers) delivers through it.
//!
//! Every notification delivered carries `_meta["io.modelcontextprotocol/subscriptionId"]` = the
//! listen request's id ([`tag`]), faults aside.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::config::faults::{Fault, Faults};
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

/// A `SubscriptionFilter` (parsed and honoured by `features::subscriptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) uris: Vec<String>,
}

impl Filter {
    pub(crate) fn wants(&self, list: List) -> bool {
        match list {
            List::Tools => self.tools,
            List::Prompts => self.prompts,
            List::Resources => self.resources,
        }
    }
}

/// One open subscription.
#[derive(Debug)]
pub(crate) struct Subscription {
    pub(crate) key: u64,
    /// The listen request's id, as sent.
    pub(crate) id: Value,
    pub(crate) filter: Filter,
    pub(crate) out: mpsc::UnboundedSender<Outbound>,
    /// Held back by the `listen-ack-late` fault until the first notification.
    pub(crate) pending_ack: Option<Value>,
    pub(crate) end: Option<oneshot::Sender<()>>,
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
    /// the listen request ids of the streams that got it.
    pub(crate) fn list_changed(&self, faults: &Faults, list: List) -> Vec<Value> {
        if faults.has(Fault::ListenNoListChanged) {
            return Vec::new();
        }
        let any = faults.has(Fault::ListenUnrequestedTypes);
        self.deliver(faults, |filter| {
            (any || filter.wants(list)).then(|| (list.notification(), json!({})))
        })
    }

    /// Sends `notifications/resources/updated {uri}` to the streams subscribed to `uri`;
    /// returns the listen request ids of the streams that got it.
    pub(crate) fn resource_updated(&self, faults: &Faults, uri: &str) -> Vec<Value> {
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

    /// Sends what `pick` gives each open subscription's filter; the listen request ids (as
    /// sent, whatever the stream is tagged with) of those that got something. A stream the
    /// client closed is gone from the hub once its listen request is dropped, so the ids say
    /// which closes the server has seen (the probe profile's triggers report them).
    fn deliver(
        &self,
        faults: &Faults,
        pick: impl Fn(&Filter) -> Option<(&'static str, Value)>,
    ) -> Vec<Value> {
        let mut subs = lock(&self.subs);
        let mut reached = Vec::new();
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
            reached.push(sub.id.clone());
        }
        reached
    }

    /// Registers `sub`, sending `ack` (the acknowledgement) on its stream as it joins. Both
    /// happen under the hub's lock: a client that has read the acknowledgement finds the
    /// subscription registered (an `mcpspec_end_subscriptions` racing it on another HTTP
    /// connection ends it), and no notification is delivered ahead of the acknowledgement.
    pub(crate) fn add(&self, mut sub: Subscription, ack: Option<Value>) -> u64 {
        let key = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        sub.key = key;
        let mut subs = lock(&self.subs);
        if let Some(ack) = ack {
            send(&sub.out, method::SUBSCRIPTIONS_ACKNOWLEDGED, ack);
        }
        subs.push(sub);
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
pub(crate) struct Registration {
    pub(crate) hub: Arc<Hub>,
    pub(crate) key: u64,
    pub(crate) keep: bool,
    /// `listen-cancel-ends-all`.
    pub(crate) ends_all: bool,
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

/// The subscription id on stream notifications: the listen id, its type flipped under
/// `listen-id-type-changed`.
pub(crate) fn tag(faults: &Faults, id: &Value) -> Value {
    if !faults.has(Fault::ListenIdTypeChanged) {
        return id.clone();
    }
    match id {
        Value::Number(n) => Value::String(n.to_string()),
        Value::String(s) => s.parse::<i64>().map_or(json!(0), Value::from),
        other => other.clone(),
    }
}

pub(crate) fn send(out: &mpsc::UnboundedSender<Outbound>, method_name: &str, params: Value) {
    let _ = out.send(Outbound::Notification {
        method: method_name.to_owned(),
        params: Some(params),
    });
}

/// `{"_meta": {key: value}}` merged into `params`.
pub(crate) fn with_meta(mut params: Value, key: &str, value: Value) -> Value {
    if let Some(obj) = params.as_object_mut() {
        let meta_value = obj.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta_obj) = meta_value.as_object_mut() {
            meta_obj.insert(key.to_owned(), value);
        }
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_type_flips_under_the_fault() {
        let faults = Faults::none().with(Fault::ListenIdTypeChanged);
        assert_eq!(tag(&faults, &json!(7)), json!("7"));
        assert_eq!(tag(&faults, &json!("7")), json!(7));
        assert_eq!(tag(&Faults::none(), &json!(7)), json!(7));
    }
}
