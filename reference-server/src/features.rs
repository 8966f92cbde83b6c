//! The protocol features the eras serve, one module each: tools, resources, prompts,
//! completion, list paging, `subscriptions/listen`, logging, progress and input-required
//! results (MRTR). Each is self-contained behind a few `pub(crate)` functions (`list`, `call`,
//! `read`, `get`, ...) that take the request's [`Scope`](crate::engine::scope::Scope) or the
//! connection and return the result body; the era modules add their own envelope.
//!
//! May import: the core (`engine`), the codec (`wire`) and the ground floor (`protocol`,
//! `error`, `config`), and a sibling feature where one feature is built on another
//! (completion reads prompts and resources, tools report progress). Never an era, a transport
//! or the misbehaviour wing: their tools arrive as tool extensions (`engine::tool_extension`).

pub(crate) mod completion;
pub(crate) mod logging;
pub(crate) mod mrtr;
pub(crate) mod pagination;
pub(crate) mod progress;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod showcase;
pub(crate) mod subscriptions;
pub mod tools;
