//! The tool-extension interface: tools that a part above the core adds to `tools/list` and
//! `tools/call` without the tools feature importing it. The crate root builds the set for a
//! server from its configuration (the probe profile's tools from the misbehaviour wing, the
//! HTTP transport's `route` tool) and hands it to the eras' endpoint, which passes it on to
//! `features::tools`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::engine::scope::Scope;
use crate::error::RpcError;

/// A boxed `tools/call` that borrows its request.
pub(crate) type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, RpcError>> + Send + 'a>>;

/// Tools added to the built-in ones. Both calls return `None` for a name the extension does
/// not own.
pub(crate) trait ToolExtension: Send + Sync {
    /// The definitions added to `tools/list`, after the built-in tools, in a fixed order.
    fn list(&self) -> Vec<Value>;

    /// A tool served whole (its own arguments, result and progress), consulted before the
    /// built-in tools.
    fn serve<'a>(
        &'a self,
        _scope: &'a Scope,
        _name: &'a str,
        _params: Option<&'a Value>,
    ) -> Option<ToolFuture<'a>> {
        None
    }

    /// A plain tool: its arguments in, its text or a tool error out, validated, reported with
    /// progress and wrapped in a CallToolResult like the built-in tools.
    fn run(&self, _name: &str, _args: &Map<String, Value>) -> Option<Result<String, String>> {
        None
    }
}

/// The extensions of one server, in listing order.
#[derive(Clone, Default)]
pub(crate) struct ToolExtensions(Arc<[Box<dyn ToolExtension>]>);

impl fmt::Debug for ToolExtensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolExtensions({})", self.0.len())
    }
}

impl ToolExtensions {
    pub(crate) fn new(extensions: Vec<Box<dyn ToolExtension>>) -> Self {
        Self(extensions.into())
    }

    /// Every extension's definitions, in order.
    pub(crate) fn list(&self) -> Vec<Value> {
        self.0.iter().flat_map(|e| e.list()).collect()
    }

    /// The first extension that serves `name` whole.
    pub(crate) fn serve<'a>(
        &'a self,
        scope: &'a Scope,
        name: &'a str,
        params: Option<&'a Value>,
    ) -> Option<ToolFuture<'a>> {
        self.0.iter().find_map(|e| e.serve(scope, name, params))
    }

    /// The first extension's plain tool `name`, run.
    pub(crate) fn run(
        &self,
        name: &str,
        args: &Map<String, Value>,
    ) -> Option<Result<String, String>> {
        self.0.iter().find_map(|e| e.run(name, args))
    }
}
