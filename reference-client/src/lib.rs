//! The reference client (`mcpspec-reference-client`): an MCP client with fault switches, what
//! every `mcpspec client` check is proven against, as the reference server proves the server
//! checks.
//!
//! ```text
//! env MCP_CONFORMANCE_SCENARIO / _PROTOCOL_VERSION / _CONTEXT / _TRANSPORT, last argument
//!   --> link.rs       stdio child (the harness's stdio transport) or HTTP (its HTTP/1.1 client)
//!   --> session.rs    negotiation (discover, -32022 retry, fallback to initialize), requests
//!                     built with the driver's builders and read with the wire codec, server
//!                     requests answered, HTTP sessions (GET stream, 404 -> new session, DELETE)
//!   --> oauth.rs      on 401/403 from the endpoint: discovery, registration, PKCE, tokens
//!   --> operations.rs the scenario's operation (tools_call, request-metadata, MRTR)
//!   exit 0 when the operation completed, 1 with the reason on stderr otherwise
//! ```
//!
//! It is built from the harness's client-side code (`driver` builders, `wire`, `transport`,
//! `protocol`) and nothing of `client/`, which tests it: the checks read its messages with
//! their own rules and the reference server's constants, so a bug here is not a bug there too.
//! The crate `mcpspec-reference-client`; it does not depend on `mcpspec-client` (cargo holds
//! that). Its binary is `mcpspec-reference-client`, built by the `mcpspec` package for the tests.
//!
//! Faults (`--fault NAME`, `faults.rs`) each break one client requirement, so the mutation test
//! can show every client check failing.

pub mod faults;
mod link;
mod oauth;
mod operations;
mod session;

use clap::Parser;

pub use faults::{Fault, Faults};
use session::Session;

/// The environment it reads (the official conformance suite's names).
mod env {
    pub const SCENARIO: &str = "MCP_CONFORMANCE_SCENARIO";
    pub const PROTOCOL_VERSION: &str = "MCP_CONFORMANCE_PROTOCOL_VERSION";
    pub const CONTEXT: &str = "MCP_CONFORMANCE_CONTEXT";
    pub const TRANSPORT: &str = "MCP_CONFORMANCE_TRANSPORT";
}

/// `mcpspec-reference-client [--fault NAME]… PEER`.
#[derive(Debug, Parser)]
#[command(
    name = "mcpspec-reference-client",
    version,
    about = "The reference MCP client of mcpspec's own tests, with fault switches"
)]
struct Cli {
    /// Turn on a fault (repeatable); see --list-faults.
    #[arg(long = "fault", value_name = "NAME")]
    faults: Vec<Fault>,
    /// Print `name<TAB>description` for every fault and exit.
    #[arg(long)]
    list_faults: bool,
    /// The server: its URL, or (with MCP_CONFORMANCE_TRANSPORT=stdio) a command line that
    /// starts it.
    #[arg(required_unless_present = "list_faults")]
    peer: Option<String>,
}

/// The binary's main: the exit code.
pub fn main() -> u8 {
    let cli = Cli::parse();
    if cli.list_faults {
        for f in Fault::ALL {
            println!("{}\t{}", f.name(), f.description());
        }
        return 0;
    }
    let Some(peer) = cli.peer else {
        return 2;
    };
    let faults: Faults = cli.faults.into_iter().collect();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpspec-reference-client: {e}");
            return 1;
        }
    };
    match runtime.block_on(run(&peer, faults)) {
        Ok(()) => 0,
        Err(why) => {
            eprintln!("mcpspec-reference-client: {why}");
            1
        }
    }
}

/// Connects to `peer`, performs the scenario's operation, and ends the session.
async fn run(peer: &str, faults: Faults) -> Result<(), String> {
    let stdio = std::env::var(env::TRANSPORT).is_ok_and(|t| t == "stdio");
    let link = link::Link::open(peer, stdio, mcpspec_core::transport::DEFAULT_MAX_MESSAGE)?;
    let context = context();
    let mut session = Session::new(link, faults.clone());
    if !stdio {
        let context = oauth::Context::from_json(context.as_ref());
        session = session.with_authorizer(oauth::Authorizer::new(peer, faults, context));
    }
    let preferred = std::env::var(env::PROTOCOL_VERSION).ok();
    let operation = operation(context.as_ref());
    let outcome = async {
        session.connect(preferred.as_deref()).await?;
        match operation.as_str() {
            "request-metadata" => operations::request_metadata(&mut session).await,
            "sep-2322-client-request-state" => operations::request_state(&mut session).await,
            _ => operations::tools_call(&mut session).await,
        }
    }
    .await;
    session.close().await;
    outcome.map_err(|e| e.to_string())
}

/// The scenario's context (`MCP_CONFORMANCE_CONTEXT`), when it is JSON.
fn context() -> Option<serde_json::Value> {
    std::env::var(env::CONTEXT)
        .ok()
        .and_then(|c| serde_json::from_str::<serde_json::Value>(&c).ok())
}

/// The operation to perform: the context's `operation`, else the scenario's name.
fn operation(context: Option<&serde_json::Value>) -> String {
    let from_context = context.and_then(|c| c.get("operation")?.as_str().map(str::to_owned));
    from_context
        .or_else(|| std::env::var(env::SCENARIO).ok())
        .unwrap_or_default()
}
