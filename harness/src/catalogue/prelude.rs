//! What a check needs, in one import (`use super::prelude::*;`): the check's shape, the driver
//! that speaks for it (peer, frame builders, replies), outcomes, and the protocol's named
//! constants. The helpers the areas share are in [`super::support`].

pub use crate::check::{Check, Facts, Fresh, Isolation, Need, Scenario, Verdict};
pub use crate::driver::{
    Exchange, Incoming, Peer, Reply, notification, preview, raw, request, seconds, shorten,
};
pub use crate::outcome::{Era, Level, Outcome, Problems};
pub use mcpspec_core::protocol::{code, meta, method, names, string_array, tool, version};
pub use mcpspec_core::wire::Frame;
