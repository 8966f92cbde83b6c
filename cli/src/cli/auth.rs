//! `mcpspec auth issuer`: the built-in test issuer ([`issuer`]) as a command, serving on
//! 127.0.0.1 until Ctrl-C. The first line on stdout is its URL (what a server under test is told
//! to trust, and what `run --auth-issuer` takes); the keys stay in `--keys DIR`, so a server
//! configured once keeps verifying tokens across restarts of the issuer.

use std::path::PathBuf;
use std::sync::Arc;

use mcpspec_harness::auth::issuer;
use mcpspec_harness::output::{errln, outln};

use super::shared::exit;

/// `mcpspec auth …`.
#[derive(clap::Args, Debug)]
pub struct AuthCommand {
    #[command(subcommand)]
    pub command: AuthSubcommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum AuthSubcommand {
    /// Serve the built-in test issuer (authorization server metadata, a JWKS, tokens) on
    /// 127.0.0.1, for servers under test to verify the tokens mcpspec mints.
    Issuer(IssuerArgs),
}

#[derive(clap::Args, Debug)]
pub struct IssuerArgs {
    /// The directory of the issuer's keys (made, with the keys, when absent).
    #[arg(long, value_name = "DIR", default_value = "mcpspec-out/issuer")]
    pub keys: PathBuf,
    /// The port on 127.0.0.1 (0: any free port). Fix it so a server under test is configured
    /// once.
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
}

/// Runs `mcpspec auth …`; the exit code (0 after Ctrl-C, 2 for a usage or start problem).
pub fn main(args: AuthCommand) -> u8 {
    match args.command {
        AuthSubcommand::Issuer(args) => issuer(&args),
    }
}

fn issuer(args: &IssuerArgs) -> u8 {
    let keys = match issuer::Keys::load_or_create(&args.keys) {
        Ok(keys) => Arc::new(keys),
        Err(e) => {
            errln!("mcpspec: {e}");
            return exit::USAGE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            errln!("mcpspec: cannot start the async runtime: {e}");
            return exit::USAGE;
        }
    };
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await {
            Ok(l) => l,
            Err(e) => {
                errln!("mcpspec: cannot listen on 127.0.0.1:{}: {e}", args.port);
                return exit::USAGE;
            }
        };
        let handle = match issuer::http::spawn(keys.clone(), listener) {
            Ok(h) => h,
            Err(e) => {
                errln!("mcpspec: cannot serve the issuer: {e}");
                return exit::USAGE;
            }
        };
        if let Err(e) = keys.record_url(handle.url()) {
            errln!("mcpspec: {e}");
            return exit::USAGE;
        }
        outln!("{}", handle.url());
        errln!(
            "mcpspec auth issuer: serving at {url} (keys in {dir}, key id {kid}); JWKS at \
             {url}/jwks.json; Ctrl-C stops it",
            url = handle.url(),
            dir = args.keys.display(),
            kid = keys.kid()
        );
        wait_for_stop().await;
        drop(handle);
        exit::OK
    })
}

/// Ctrl-C, or SIGTERM where there is one.
async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
