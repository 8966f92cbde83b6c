//! Per-request logging (2026-07-28): a request opts in with `_meta["io.modelcontextprotocol/
//! logLevel"]`; without it no `notifications/message` is sent for it (LOG-1); with it, only
//! messages at or above the level, on that request's stream, before its reply (LOG-2). An
//! unrecognized level is -32602 (META-6). Every modern request with a level gets a `debug`
//! line when it is handled and an `info` line when it is done (`subscriptions/listen`
//! excepted: nothing but subscription notifications goes on a listen stream, SUB-4); the probe
//! tool `mcpspec_log_demo` logs once at every level.

use serde_json::{Value, json};

use crate::config::faults::Fault;
use crate::engine::scope::{Level, Scope, notify_later};
use crate::protocol::method;

/// The logger name on every message.
pub const LOGGER: &str = "mcp-reference-server";

impl Scope {
    /// Logs `data` at `level` for this request, if it asked for that level.
    pub(crate) fn log(&self, level: Level, data: Value) {
        let wanted = match self.log_level {
            None => self.has(Fault::LogWithoutLevel),
            Some(threshold) => level >= threshold || self.has(Fault::LogBelowLevel),
        };
        if wanted {
            self.notify(method::MESSAGE, message(level, data));
        }
    }

    /// The `debug` line at the start of a modern request.
    pub(crate) fn log_start(&self, method_name: &str) {
        if method_name != method::SUBSCRIPTIONS_LISTEN {
            self.log(Level::DEBUG, json!(format!("handling {method_name}")));
        }
    }

    /// The `info` line before the reply (and, under `log-after-reply`, one after it).
    pub(crate) fn log_done(&self, method_name: &str) {
        if method_name == method::SUBSCRIPTIONS_LISTEN {
            return;
        }
        self.log(Level::INFO, json!(format!("{method_name} done")));
        if self.log_level.is_some() && self.has(Fault::LogAfterReply) {
            let late = message(
                Level::INFO,
                json!(format!(
                    "{method_name}: after the reply (log-after-reply fault)"
                )),
            );
            notify_later(self.stream(), method::MESSAGE, late);
        }
    }
}

fn message(level: Level, data: Value) -> Value {
    json!({ "level": level.as_str(), "logger": LOGGER, "data": data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_like_syslog() {
        let debug = Level::parse("debug");
        let warning = Level::parse("warning");
        let emergency = Level::parse("emergency");
        assert!(debug < warning && warning < emergency);
        assert_eq!(Level::parse("verbose"), None);
        assert_eq!(Level::all().count(), 8);
        assert_eq!(Level::INFO.as_str(), "info");
    }
}
