//! Connection state that only faults read: the modern era keeps none (META-3, LIST-1), so
//! each field here exists to break that on purpose.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::{Map, Value};

#[derive(Debug)]
pub(crate) struct FaultState {
    /// `list-varies-per-connection`: a random number per connection.
    nonce: u64,
    /// `list-order-random`: `tools/list` calls served so far.
    list_calls: AtomicU64,
    /// `capability-from-previous-request`: every capability declared so far.
    capabilities: Mutex<Map<String, Value>>,
    /// `version-pinned-on-first-use`: a request naming 2026-07-28 was accepted.
    served_modern: AtomicBool,
}

impl Default for FaultState {
    fn default() -> Self {
        Self {
            nonce: RandomState::new().hash_one(0u8) % 1_000_000,
            list_calls: AtomicU64::new(0),
            capabilities: Mutex::new(Map::new()),
            served_modern: AtomicBool::new(false),
        }
    }
}

impl FaultState {
    pub(crate) fn nonce(&self) -> u64 {
        self.nonce
    }

    /// Counts a `tools/list` call; true on every other one (the second, fourth, ...).
    pub(crate) fn odd_list_call(&self) -> bool {
        self.list_calls.fetch_add(1, Ordering::Relaxed) % 2 == 1
    }

    /// Whether the connection has accepted a request naming a modern version it serves.
    pub(crate) fn served_modern(&self) -> bool {
        self.served_modern.load(Ordering::Relaxed)
    }

    pub(crate) fn mark_served_modern(&self) {
        self.served_modern.store(true, Ordering::Relaxed);
    }

    /// This request's capabilities merged with every earlier request's (the META-3 fault).
    pub(crate) fn remember_capabilities(&self, declared: Map<String, Value>) -> Map<String, Value> {
        let mut seen = self
            .capabilities
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (key, value) in declared {
            seen.insert(key, value);
        }
        seen.clone()
    }
}
