//! The harness's integration tests, one binary (cargo's `tests/testsuite` shape): `support` is
//! compiled once, and the tests of every area share one pool of test threads. Run one area with
//! `cargo test -p mcpspec --test testsuite -- replicas::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod action;
mod auth;
mod auth_sdks;
mod book;
mod cargo_test;
mod ci;
mod cli;
mod cli_grammar;
mod cli_hostile;
mod client_cli;
mod client_fuzz;
mod client_generic;
mod client_mutation;
mod client_oauth_sdks;
mod client_python_sdk;
mod client_typescript_sdk;
mod deadlock;
mod dual_era;
mod explain_baseline;
mod feature_surface;
mod features;
mod foreign_history;
mod foreign_http_shapes;
mod foreign_replicas;
mod foreign_stream_params;
mod fuzz_corpus;
mod fuzz_false_findings;
mod fuzz_http;
mod fuzz_material;
mod fuzz_planted;
mod fuzz_props;
mod hostile;
mod html_report;
mod http_words;
mod isolation;
mod layers;
mod levels_as_worded;
mod matrix;
mod middleware;
mod mutation;
mod negotiate;
mod pool;
mod progress;
mod python_sdk;
mod python_sdk_http;
mod python_sdk_replicas;
mod reference;
mod replay;
mod replicas;
mod reports;
mod revision;
mod rust_sdk;
mod schema;
mod scorecard;
mod scripted;
mod shape_defects;
mod typescript_sdk;
mod typescript_sdk_v2;
mod yaml_bytes;
