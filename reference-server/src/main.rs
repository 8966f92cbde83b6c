//! `mcp-reference-server [--fault NAME]... [--eras modern|legacy|both] [--probe-profile]
//! [--list-faults] [--http ADDR [--allow-origin O]... [--allow-host H]... [--max-body N]
//! [--sse] [--header-tool] [--auth-issuer URL [--auth-resource URL]]] [--sealing-key N]`:
//! serves MCP over stdio, or streamable HTTP at
//! `http://ADDR/mcp` with `--http` (the bound address goes to stderr as
//! `listening on http://ADDR/mcp`; port 0 picks a free port). Nothing but MCP messages on stdout; logs on stderr
//! (`RUST_LOG`, default `warn`). Bad arguments: one line on stderr, exit 2. A crash fault:
//! exit 1.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use mcp_reference_server::{Config, Eras, Fault, Faults, HttpOptions, serve_http, serve_stream};

/// A dual-era MCP reference server with fault switches (stdio).
#[derive(Debug, Parser)]
#[command(name = "mcp-reference-server", version)]
struct Cli {
    /// Turn on a fault (repeatable); see --list-faults.
    #[arg(long = "fault", value_name = "NAME")]
    faults: Vec<Fault>,
    /// The protocol eras served.
    #[arg(long, value_name = "modern|legacy|both", default_value = "both")]
    eras: Eras,
    /// Install the mcpspec probe-profile middleware and its tools (`mcpspec_probe_log`, the
    /// feature triggers).
    #[arg(long)]
    probe_profile: bool,
    /// Print `name<TAB>description` for every fault and exit.
    #[arg(long)]
    list_faults: bool,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:0).
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// HTTP: an Origin accepted besides loopback ones (repeatable), e.g. https://app.example.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// HTTP: a Host accepted besides loopback ones (repeatable), `host` or `host:port`.
    #[arg(long = "allow-host", value_name = "HOST")]
    allow_hosts: Vec<String>,
    /// HTTP: the request body limit in bytes (413 beyond).
    #[arg(long, value_name = "BYTES", default_value_t = mcp_reference_server::http::DEFAULT_MAX_BODY)]
    max_body: usize,
    /// HTTP: answer every request as an SSE stream (text/event-stream).
    #[arg(long)]
    sse: bool,
    /// List the `route` tool, whose arguments carry `x-mcp-header` annotations.
    #[arg(long)]
    header_tool: bool,
    /// HTTP: authorization mode. Every request needs a bearer JWT from the issuer at URL (whose
    /// metadata names the JWKS trusted), with `aud` the server's URL and the scope it needs
    /// (`mcp:read`; `mcp:tools` for tools/call).
    #[arg(long, value_name = "URL", requires = "http")]
    auth_issuer: Option<String>,
    /// HTTP, with --auth-issuer: the server's canonical URL (default http://ADDR/mcp).
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    auth_resource: Option<String>,
    /// The key `requestState` is sealed with: instances given the same key accept each other's
    /// states (SCALE-1).
    #[arg(long, value_name = "N", default_value_t = mcp_reference_server::config::DEFAULT_SEALING_KEY)]
    sealing_key: u64,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            eprintln!(
                "mcp-reference-server: {}",
                first.strip_prefix("error: ").unwrap_or(first)
            );
            return ExitCode::from(2);
        }
    };
    if cli.list_faults {
        for fault in Fault::ALL {
            println!("{}\t{}", fault.name(), fault.description());
        }
        return ExitCode::SUCCESS;
    }

    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();

    let config = Config {
        faults: cli.faults.into_iter().collect::<Faults>(),
        eras: cli.eras,
        probe_profile: cli.probe_profile,
        http: HttpOptions {
            allowed_origins: cli.allow_origins,
            allowed_hosts: cli.allow_hosts,
            max_body: cli.max_body,
            sse: cli.sse,
            header_tool: cli.header_tool,
            auth: cli
                .auth_issuer
                .map(|issuer| mcp_reference_server::config::AuthOptions {
                    issuer,
                    resource: cli.auth_resource,
                }),
            ..HttpOptions::default()
        },
        sealing_key: cli.sealing_key,
        ..Config::default()
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-reference-server: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = match cli.http {
        Some(addr) => runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            serve_http(config, listener).await
        }),
        None => runtime.block_on(serve_stream(
            config,
            tokio::io::stdin(),
            tokio::io::stdout(),
        )),
    };
    // Exit without waiting for the blocking stdin reader thread (STDIO-6: exit promptly).
    let code = match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("mcp-reference-server: {e}");
            1
        }
    };
    std::process::exit(code);
}
