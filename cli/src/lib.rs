//! mcpspec: a conformance test harness and fuzzer for MCP (Model Context Protocol) servers and
//! clients.
//!
//! This crate is the top of the stack (`ARCHITECTURE.md` draws it): the command line
//! ([`cli`], which the `mcpspec` binary calls) on the server harness (`mcpspec-harness`), the
//! client tester (`mcpspec-client`) and the reference client (`mcpspec-reference-client`), all
//! on the core (`mcpspec-core`).
//!
//! What a user links is the façade below: the `cargo test` integration ([`testing`]) and
//! [`run`], the catalogue as a library call.

#[doc(hidden)]
pub mod check_reference;
#[doc(hidden)]
pub mod cli;

pub use mcpspec_harness::check::{Check, Need};
pub use mcpspec_harness::outcome::{Kind, Level, Outcome};
pub use mcpspec_harness::report::RunReport;
pub use mcpspec_harness::runner::{RunOptions, run};
pub use mcpspec_harness::target::Target;
pub use mcpspec_harness::testing;
