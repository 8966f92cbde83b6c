//! The deliberate-misbehaviour wing, kept apart from the part that must be right: the fault
//! middlewares and the probe profile ([`probe`]: its middleware; [`probe_tools`]: the tools
//! that let a black-box harness fire features). The cargo-fuzz entry points (`crate::fuzz_targets`)
//! drive the whole server through the crate root, so they stand above it, beside `main.rs`.
//!
//! The switches themselves ([`Fault`](crate::config::faults::Fault)) are configuration on the
//! ground floor: the rest of the server consults them through the one narrow interface
//! `Faults::has`, and never imports this wing. Only the crate root does, when it builds a
//! server: it puts [`middleware`] in the chain and supplies the probe tools to the tools
//! feature as a tool extension (`engine::tool_extension`).
//!
//! The wing stands above the eras and the features, below the crate root. May import: the
//! eras (the probe stamps its answers as the modern era does), the features, the core
//! (`engine`), the codec (`wire`) and the ground floor (`protocol`, `error`, `config`). Never a
//! transport or the crate root.

pub mod probe;
pub(crate) mod probe_tools;

use crate::config::Config;
use crate::config::faults::Fault;
use crate::engine::middleware::{Ctx, Middleware, Next, RpcResult, from_fn};
use crate::protocol::method;

/// The wing's middlewares for `config`, outermost first: the probe (with the probe profile),
/// then the fault middlewares (`deadlock-on-initialize`, `silent-deadlock-on-initialize`).
pub(crate) fn middleware(config: &Config) -> Vec<Middleware> {
    let mut middleware = Vec::new();
    if config.probe_profile {
        middleware.push(probe::probe_middleware());
    }
    if config.faults.has(Fault::DeadlockOnInitialize) {
        middleware.push(from_fn(
            "fault:deadlock-on-initialize",
            deadlock_on_initialize,
        ));
    }
    if config.faults.has(Fault::SilentDeadlockOnInitialize) {
        middleware.push(from_fn(
            "fault:silent-deadlock-on-initialize",
            silent_deadlock_on_initialize,
        ));
    }
    middleware
}

/// `deadlock-on-initialize`: awaits a client reply during `initialize`, which is inline.
async fn deadlock_on_initialize(ctx: Ctx, next: Next) -> RpcResult {
    if ctx.method == method::INITIALIZE {
        let _ = ctx.client().request(method::PING, None).await;
    }
    next.run(ctx).await
}

/// `silent-deadlock-on-initialize`: like an SDK that queues the outbound request behind the
/// reply it is waiting to finish: the `ping` is never written, and the wait never ends.
async fn silent_deadlock_on_initialize(ctx: Ctx, next: Next) -> RpcResult {
    if ctx.method == method::INITIALIZE {
        std::future::pending::<()>().await;
    }
    next.run(ctx).await
}
