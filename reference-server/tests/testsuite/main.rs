//! The reference server's integration tests, one binary (cargo's `tests/testsuite` shape):
//! `support` is compiled once. Run one area with
//! `cargo test -p mcp-reference-server --test testsuite -- faults::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod auth;
mod binary;
mod faults;
mod features;
mod fuzz_targets;
mod http;
mod http_hook;
mod legacy;
mod middleware;
mod modern;
