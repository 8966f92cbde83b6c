//! `mcpspec run` with no target: the embedded reference server with its probe profile on, over
//! stdio (in memory, through the server's stdio framing) and over streamable HTTP on a loopback
//! port it binds itself, so every check that can run against it does.
//!
//! The checks that need HTTP (`Need::Http`) run over HTTP, the `stateless/*` checks on three
//! in-memory instances (`--replicas N`: N), every other check over stdio, each exactly once; the
//! reports become one, each result naming the transport it ran on. The `auth/*` checks judge a
//! protected server: a second HTTP instance that trusts the built-in test issuer, served on
//! loopback beside it for the run, whose tokens the run sends (`--auth-issuer`), so they run
//! instead of being skipped as "the server is open".
//! May import the runner, the target, the report and the test issuer; nothing imports it but
//! the command line.

use std::sync::Arc;
use std::time::Instant;

use mcp_reference_server as reference;

use crate::check::{Check, Need};
use crate::report::{CheckResult, RunReport};
use crate::runner::{RunOptions, run_observed};
use crate::target::{StartError, Target};

/// The transport names a default run's results carry.
pub const STDIO: &str = "stdio";
pub const HTTP: &str = "http";

/// Runs `checks` against the reference server configured by `config` over both transports (see
/// the module doc); one report, in `checks` order.
pub async fn run_both(
    config: reference::Config,
    checks: &[Check],
    mut options: RunOptions,
    observe: &(dyn Fn(&CheckResult) + Sync),
) -> Result<RunReport, StartError> {
    let started = Instant::now();
    // `--replicas N` sets how many in-memory instances the stateless/* checks get; the other
    // checks run on one.
    let copies = match options.replicas.take() {
        Some(crate::replicas::ReplicaSpec::Copies(n)) => n,
        _ => INSTANCES,
    };
    let (over_http, over_stdio): (Vec<Check>, Vec<Check>) = checks
        .iter()
        .partition(|check| check.needs.contains(&Need::Http));
    let (protected_checks, over_http): (Vec<Check>, Vec<Check>) = over_http
        .into_iter()
        .partition(|check| check.id.starts_with(AUTH_PREFIX));
    // The stateless/* checks run on three independent in-memory instances (POL-22).
    let (across_instances, over_stdio): (Vec<Check>, Vec<Check>) = over_stdio
        .into_iter()
        .partition(|check| check.needs.contains(&Need::Replicas));
    let stdio_target = Target::Embedded(config.clone());
    // The HTTP server is bound before either run starts; the two runs go side by side, each
    // with `--jobs` checks at once (in memory and on loopback: no process per check, POL-24).
    let http_server = if over_http.is_empty() {
        None
    } else {
        Some(
            reference::spawn_http(config.clone(), loopback().await?).map_err(|e| {
                StartError::new(format!("cannot start the embedded HTTP server: {e}"))
            })?,
        )
    };
    let protected = if protected_checks.is_empty() {
        None
    } else {
        Some(Protected::start(config.clone()).await?)
    };
    let stdio_run = async {
        if over_stdio.is_empty() {
            return Ok(None);
        }
        run_observed(stdio_target.clone(), &over_stdio, options.clone(), observe)
            .await
            .map(Some)
    };
    let http_run = async {
        let Some(server) = &http_server else {
            return Ok(None);
        };
        let target = Target::url(&server.url()).map_err(StartError::new)?;
        run_observed(target, &over_http, options.clone(), observe)
            .await
            .map(Some)
    };
    let protected_run = async {
        let Some(protected) = &protected else {
            return Ok(None);
        };
        run_observed(
            protected.target.clone(),
            &protected_checks,
            options.clone(),
            observe,
        )
        .await
        .map(Some)
    };
    let instances_run = async {
        if across_instances.is_empty() {
            return Ok(None);
        }
        let mut options = options.clone();
        options.replicas = Some(crate::replicas::ReplicaSpec::Copies(copies));
        run_observed(stdio_target.clone(), &across_instances, options, observe)
            .await
            .map(Some)
    };
    let (stdio, http, protected_report, instances) =
        tokio::join!(stdio_run, http_run, protected_run, instances_run);
    // Stops each server and ends its SSE streams; one that does not stop within 2 s is aborted
    // when its handle drops.
    if let Some(server) = http_server {
        let _ = server.shutdown().await;
    }
    if let Some(protected) = protected {
        let _ = protected.server.shutdown().await;
    }
    let (stdio, http, protected_report, instances) = (stdio?, http?, protected_report?, instances?);
    let ran_across = instances.is_some();
    let mut report = merge(
        &stdio_target,
        checks,
        [stdio, instances],
        [http, protected_report],
        started,
    );
    report.revision = options.checks.revision.map(str::to_owned);
    if ran_across {
        report.instances = Some(copies);
    }
    Ok(report)
}

/// How many instances the no-target run gives the `stateless/*` checks without `--replicas N`.
const INSTANCES: usize = 3;

/// The checks that judge a protected server (`catalogue/auth.rs`).
const AUTH_PREFIX: &str = "auth/";

/// The protected instance of the reference server and the test issuer it trusts, both on
/// loopback for the run; the target carries the issuer's token for it.
struct Protected {
    target: Target,
    server: reference::HttpHandle,
    /// Serves the issuer's metadata and keys while the checks run; dropped with the run.
    _issuer: crate::auth::issuer::http::IssuerHandle,
}

impl Protected {
    async fn start(mut config: reference::Config) -> Result<Self, StartError> {
        let keys = crate::auth::issuer::Keys::ephemeral().map_err(StartError::new)?;
        let issuer = crate::auth::issuer::http::spawn(Arc::new(keys), loopback().await?)
            .map_err(|e| StartError::new(format!("cannot start the built-in test issuer: {e}")))?;
        config.http.auth = Some(reference::config::AuthOptions {
            issuer: issuer.url().to_owned(),
            resource: None,
        });
        let server = reference::spawn_http(config, loopback().await?).map_err(|e| {
            StartError::new(format!("cannot start the embedded protected server: {e}"))
        })?;
        let url = server.url();
        let args = crate::auth::AuthArgs {
            auth_issuer: Some(issuer.url().to_owned()),
            ..Default::default()
        };
        // Minting the run's token asks the issuer over HTTP, and waits for it.
        let minted = {
            let url = url.clone();
            tokio::task::spawn_blocking(move || args.credentials(&url))
                .await
                .map_err(|e| StartError::new(format!("minting a token failed: {e}")))?
                .map_err(StartError::new)?
        };
        let target = Target::url(&url)
            .map_err(StartError::new)?
            .with_credentials(minted.map(crate::auth::Credentials::into_shared));
        Ok(Protected {
            target,
            server,
            _issuer: issuer,
        })
    }
}

/// A listener on a free loopback port.
async fn loopback() -> Result<tokio::net::TcpListener, StartError> {
    tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| StartError::new(format!("cannot bind a loopback port: {e}")))
}

/// One report of the runs: results in `checks` order, each tagged with its transport; the
/// negotiation of the stdio run (the same server answers each), processes summed.
fn merge(
    target: &Target,
    checks: &[Check],
    stdio: [Option<RunReport>; 2],
    http: [Option<RunReport>; 2],
    started: Instant,
) -> RunReport {
    let mut results: Vec<CheckResult> = Vec::with_capacity(checks.len());
    let mut negotiated = None;
    let mut target_failure = None;
    let mut processes: Option<crate::report::Processes> = None;
    let [stdio, instances] = stdio;
    let [http, protected] = http;
    for (report, transport) in [
        (stdio, STDIO),
        (instances, STDIO),
        (http, HTTP),
        (protected, HTTP),
    ] {
        let Some(report) = report else { continue };
        negotiated.get_or_insert(report.negotiated);
        if target_failure.is_none() {
            target_failure = report
                .target_failure
                .map(|why| format!("over {transport}: {why}"));
        }
        if let Some(p) = report.processes {
            match &mut processes {
                Some(sum) => sum.add(p),
                None => processes = Some(p),
            }
        }
        results.extend(report.results.into_iter().map(|mut r| {
            r.transport = Some(transport.into());
            r
        }));
    }
    let position = |id: &str| checks.iter().position(|c| c.id == id);
    results.sort_by_key(|r| position(&r.id));
    let negotiated = negotiated
        .unwrap_or_else(|| crate::report::Negotiated::from_facts(&crate::check::Facts::default()));
    let mut report = RunReport::new(target, negotiated, results, started.elapsed());
    report.transport = format!("{STDIO} + {HTTP}");
    report.target_failure = target_failure;
    report.processes = processes;
    report
}
