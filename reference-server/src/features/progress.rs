//! Progress notifications (PROG-1): only for a request that carries `_meta.progressToken`,
//! with `progress` strictly increasing, and none after the reply. Every `tools/call` with a
//! token reports two steps (started, done); the probe tool `mcpspec_slow` one per step.

use serde_json::{Value, json};

use crate::config::faults::Fault;
use crate::engine::scope::{Scope, notify_later};
use crate::protocol::method;

/// The token the `progress-without-token` fault makes up.
const UNREQUESTED_TOKEN: &str = "mcpspec-unrequested";

/// Reports the progress of one request.
#[derive(Debug)]
pub(crate) struct Progress {
    token: Option<Value>,
    done: u64,
    total: u64,
}

impl Progress {
    /// A reporter for `total` steps; silent unless the request has a token.
    pub(crate) fn new(scope: &Scope, total: u64) -> Self {
        let token = scope.progress_token.clone().or_else(|| {
            scope
                .has(Fault::ProgressWithoutToken)
                .then(|| json!(UNREQUESTED_TOKEN))
        });
        Self {
            token,
            done: 0,
            total,
        }
    }

    /// One step done.
    pub(crate) fn step(&mut self, scope: &Scope, message: &str) {
        self.done += 1;
        if let Some(params) = self.params(scope, self.done, message) {
            scope.notify(method::PROGRESS, params);
        }
    }

    /// Called as the handler returns: under `progress-after-reply`, one more notification
    /// follows the reply.
    pub(crate) fn finish(self, scope: &Scope) {
        if scope.has(Fault::ProgressAfterReply) {
            if let Some(params) = self.params(scope, self.done + 1, "after the reply") {
                notify_later(scope.stream(), method::PROGRESS, params);
            }
        }
    }

    fn params(&self, scope: &Scope, progress: u64, message: &str) -> Option<Value> {
        let token = self.token.clone()?;
        let progress = if scope.has(Fault::ProgressNotIncreasing) {
            1
        } else {
            progress
        };
        Some(json!({
            "progressToken": token,
            "progress": progress,
            "total": self.total,
            "message": message
        }))
    }
}
