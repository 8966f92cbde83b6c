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
pub mod oauth;
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
    /// The MCP server, and the authorization server of a protected peer.
    Http(HttpHandle, Option<HttpHandle>),
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
        let chain = |config| {
            Server::new(config).with_middleware(behaviour::middleware(behaviour::State::new(
                scenario, transport,
            )))
        };
        if transport == Transport::Stdio {
            let server = chain(config);
            return Ok(Peer::Stdio(
                stdio::StdioPeer::start(server, log, injector, max_message).await?,
            ));
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let recorder = http::Hook::new(scenario, log.clone(), injector);
        let Some(protection) = scenario.protection() else {
            config.http = HttpOptions {
                hook: Some(recorder),
                ..HttpOptions::default()
            };
            return Ok(Peer::Http(chain(config).spawn_http(listener)?, None));
        };
        // A protected peer: the authorization server on a second origin, both hooked.
        let auth_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let urls = oauth::Urls {
            mcp_origin: format!("http://{}", listener.local_addr()?),
            auth_origin: format!("http://{}", auth_listener.local_addr()?),
        };
        let state = oauth::AuthState::new(*protection, urls, log.clone());
        config.http = HttpOptions {
            hook: Some(oauth::ProtectedHook::new(
                recorder,
                state.clone(),
                log.clone(),
            )),
            max_body: crate::scenario::protection::MAX_BODY,
            ..HttpOptions::default()
        };
        let auth_config = Config {
            http: HttpOptions {
                hook: Some(oauth::AuthServerHook::new(state, log)),
                max_body: crate::scenario::protection::MAX_BODY,
                ..HttpOptions::default()
            },
            ..Config::default()
        };
        let auth = Server::new(auth_config).spawn_http(auth_listener)?;
        Ok(Peer::Http(chain(config).spawn_http(listener)?, Some(auth)))
    }

    /// The client's last argument: the peer's URL, or the command that starts the stdio peer
    /// (`program client peer ADDR TOKEN`, quoted for a shell).
    pub fn argument(&self, program: &Path) -> String {
        match self {
            Peer::Http(handle, _) => handle.url(),
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
            Peer::Http(handle, auth) => {
                let _ = handle.shutdown().await;
                if let Some(auth) = auth {
                    let _ = auth.shutdown().await;
                }
            }
            Peer::Stdio(p) => drop(p),
        }
    }
}
