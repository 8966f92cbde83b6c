//! Cancellation of in-flight requests (STDIO-4, STDIO-5). Every request is registered by id
//! while its chain runs ([`Ticket`]); `notifications/cancelled {requestId}` for a registered
//! id drops the request's future, so nothing more is sent for it, reply included. Cancelling
//! a `subscriptions/listen` request is how a stdio client tears its stream down (SUB-7). A
//! cancellation for an unknown, finished or malformed request is an error the runner discards
//! (it is never answered, faults aside).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::error::RpcError;

/// The requests being handled on one connection, by id.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    next: AtomicU64,
    /// id (JSON text, so `1` and `"1"` differ) -> (registration serial, cancel switch).
    map: Mutex<HashMap<String, (u64, oneshot::Sender<()>)>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Registry {
    /// Cancels the request `id` if it is in flight; false if there is none.
    pub(crate) fn cancel(&self, id: &Value) -> bool {
        match lock(&self.map).remove(&id.to_string()) {
            Some((_, switch)) => switch.send(()).is_ok(),
            None => false,
        }
    }
}

/// One request's registration; unregisters on drop.
#[derive(Debug)]
pub(crate) struct Ticket {
    registry: Arc<Registry>,
    key: String,
    serial: u64,
    cancelled: oneshot::Receiver<()>,
}

impl Ticket {
    pub(crate) fn new(registry: &Arc<Registry>, id: &Value) -> Self {
        let serial = registry.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let key = id.to_string();
        // A duplicate id in flight: the newer request is the one a cancellation reaches.
        lock(&registry.map).insert(key.clone(), (serial, tx));
        Self {
            registry: registry.clone(),
            key,
            serial,
            cancelled: rx,
        }
    }

    /// Completes when the client cancels this request.
    pub(crate) async fn cancelled(&mut self) {
        if (&mut self.cancelled).await.is_err() {
            // Superseded by a newer request with the same id: never cancelled through us.
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut map = lock(&self.registry.map);
        if map.get(&self.key).is_some_and(|(s, _)| *s == self.serial) {
            map.remove(&self.key);
        }
    }
}

/// `notifications/cancelled` (both eras): stops the named in-flight request.
pub(crate) fn handle(inflight: &Registry, params: Option<&Value>) -> Result<Value, RpcError> {
    let id = params
        .and_then(|p| p.get("requestId"))
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64());
    match id {
        Some(id) if inflight.cancel(id) => Ok(Value::Null),
        Some(_) => Err(RpcError::invalid_params(
            "notifications/cancelled: no such request in flight",
        )),
        None => Err(RpcError::invalid_params(
            "notifications/cancelled: `requestId` (a string or an integer) is required",
        )),
    }
}
