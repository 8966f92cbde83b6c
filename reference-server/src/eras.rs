//! The two eras: [`modern`] (2026-07-28, a `_meta` envelope on every request) and [`legacy`]
//! (the `initialize` handshake revisions). Each owns method lookup, validation and result
//! stamping for its era and calls the features for the bodies.
//!
//! May import: the features, the core (`engine`), the codec (`wire`) and the ground floor
//! (`protocol`, `error`, `config`). Never a transport or the crate root.

pub(crate) mod legacy;
pub(crate) mod modern;
