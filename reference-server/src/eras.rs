//! The two eras: [`modern`] (2026-07-28, a `_meta` envelope on every request) and [`legacy`]
//! (the `initialize` handshake revisions). Each owns method lookup, validation and result
//! stamping for its era and calls the features for the bodies.
//!
//! May import: the features, the core (`engine`), the codec (`wire`) and the ground floor
//! (`protocol`, `error`, `config`). Never a transport, the misbehaviour wing or the crate root:
//! the tools they add arrive with the endpoint's tool extensions.

pub(crate) mod legacy;
pub(crate) mod modern;

use crate::config::Era;
use crate::engine::middleware::{Ctx, RpcResult};
use crate::engine::tool_extension::ToolExtensions;
use crate::error::RpcError;
use crate::protocol::method;

/// The innermost link: route by era to lookup, validation, handler. `extensions` are the server's
/// tool extensions, which the crate root supplies and `features::tools` consults.
pub(crate) async fn endpoint(ctx: Ctx, extensions: ToolExtensions) -> RpcResult {
    match ctx.era {
        Some(Era::Modern) => modern::handle(ctx, &extensions).await,
        Some(Era::Legacy) => legacy::handle(ctx, &extensions).await,
        None => undecided(ctx, &extensions).await,
    }
}

/// A both-eras connection before any era is chosen: the message has no modern envelope and is
/// not `initialize`. `ping` is answered (clients may ping before the handshake); any other
/// request gets -32602, which is right for both readings: a modern request missing `_meta`
/// (META-1) and a legacy request before `initialize` (any error, POL-18).
async fn undecided(ctx: Ctx, extensions: &ToolExtensions) -> RpcResult {
    if ctx.id.is_none() || ctx.method == method::PING {
        return legacy::handle(ctx, extensions).await;
    }
    Err(RpcError::invalid_params(format!(
        "`{}` without the 2026-07-28 `params._meta` envelope, before any `initialize`: \
         modern requests need `_meta` with protocolVersion and clientCapabilities; legacy \
         clients must `initialize` first",
        ctx.method
    )))
}
