//! The peer a scenario serves: the reference server with the scenario's eras and middleware
//! (`behaviour.rs`), over streamable HTTP with the recording hook (`http.rs`) or over stdio
//! through the relay listener and its tee (`stdio.rs`); injections (`inject.rs`) on either.
//!
//! Owns `peer/`. Builds on the reference server's public API only (its `Server`, middleware
//! and endpoint hook), with these switches: the scenario's eras, and for a lenient scenario the
//! reference faults that make it serve requests without the envelope or the 2026-07-28 HTTP
//! headers (as the official suite's mocks do).

pub mod behaviour;
pub mod http;
pub mod inject;
pub mod stdio;

use std::path::Path;
use std::sync::Arc;

use mcp_reference_server::{Config, Fault, Faults, HttpHandle, HttpOptions, Server};

use crate::observation::Log;
use crate::scenario::{Behaviour, Scenario, Transport};
use inject::Injector;

/// A running peer; dropping it stops it (and ends every connection).
#[derive(Debug)]
pub enum Peer {
    Http(HttpHandle),
    Stdio(stdio::StdioPeer),
}

/// The reference faults a lenient peer runs with: what makes it serve requests the official
/// suite's mocks serve.
const LENIENT: &[Fault] = &[
    Fault::EnvelopeOptional,
    Fault::HttpMissingVersionHeaderAccepted,
    Fault::HttpHeaderMismatchAccepted,
];

impl Peer {
    /// Starts `scenario`'s peer on `transport`, recording into `log`; `injector` replaces
    /// replies (the robustness scenario's own, or a fuzz case's).
    pub async fn start(
        scenario: &'static Scenario,
        transport: Transport,
        log: Log,
        injector: Option<Arc<dyn Injector>>,
        max_message: usize,
    ) -> std::io::Result<Peer> {
        let injector = injector.or_else(|| {
            scenario
                .has(Behaviour::UnexpectedMessages)
                .then(|| Arc::new(behaviour::Unexpected::default()) as Arc<dyn Injector>)
        });
        let faults: Faults = if scenario.has(Behaviour::Lenient) {
            LENIENT.iter().copied().collect()
        } else {
            Faults::none()
        };
        let mut config = Config {
            faults,
            eras: scenario.eras,
            ..Config::default()
        };
        if transport == Transport::Http {
            config.http = HttpOptions {
                hook: Some(http::Hook::new(scenario, log.clone(), injector.clone())),
                ..HttpOptions::default()
            };
        }
        let server = Server::new(config).with_middleware(behaviour::middleware(
            behaviour::State::new(scenario, transport),
        ));
        Ok(match transport {
            Transport::Http => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                Peer::Http(server.spawn_http(listener)?)
            }
            Transport::Stdio => {
                Peer::Stdio(stdio::StdioPeer::start(server, log, injector, max_message).await?)
            }
        })
    }

    /// The client's last argument: the peer's URL, or the command that starts the stdio peer
    /// (`program client peer ADDR TOKEN`, quoted for a shell).
    pub fn argument(&self, program: &Path) -> String {
        match self {
            Peer::Http(handle) => handle.url(),
            Peer::Stdio(p) => std::iter::once(program.display().to_string())
                .chain(crate::relay::arguments(p.addr, &p.token))
                .map(|w| mcpspec_harness::fuzz::reproducer::shell_quote(&w))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// Stops the peer: the HTTP server shut down (bounded), the stdio connections closed.
    pub async fn stop(self) {
        match self {
            Peer::Http(handle) => {
                let _ = handle.shutdown().await;
            }
            Peer::Stdio(p) => drop(p),
        }
    }
}
