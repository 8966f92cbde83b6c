//! The era probe: what the target serves, learnt as a dual-era client learns it (a modern
//! `server/discover` and a legacy `initialize`), bounded by the probe cap.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::check::Facts;
use crate::driver::{Peer, Settings, request};
use crate::negotiation::{Client, negotiate};
use crate::outcome::Era;
use crate::target::{StartError, Target};
use mcpspec_core::protocol::method;

/// Learns what the target serves: dual-era negotiation as a client does it, a modern
/// `server/discover` and a legacy `initialize`, each on a fresh connection.
/// The two probes run side by side when `jobs` allows two target processes at once, one after
/// the other otherwise (POL-24).
pub async fn probe(
    target: &Target,
    settings: &Arc<Settings>,
    jobs: usize,
    legacy_revision: &str,
) -> Result<Facts, StartError> {
    let rec = mcpspec_core::transcript::Recorder::default();
    let legacy_rec = mcpspec_core::transcript::Recorder::default();
    let client = Client {
        legacy: legacy_revision.to_owned(),
        ..Client::default()
    };
    // The two probes use separate connections; run them side by side, each under a cap, so a
    // server that floods or stalls cannot hold the run before its first check.
    let cap = settings.scenario_timeout + settings.startup_timeout;
    let modern = capped(cap, negotiate(target, settings, &client, &rec));
    let legacy = capped(
        cap,
        probe_legacy(target, settings, &legacy_rec, legacy_revision),
    );
    let (negotiation, legacy) = if jobs >= 2 {
        tokio::join!(modern, legacy)
    } else {
        let modern = modern.await;
        (modern, legacy.await)
    };
    let heard_rpc = received_rpc(&rec) || received_rpc(&legacy_rec);
    let heard_any = received_any(&rec) || received_any(&legacy_rec);
    let (negotiation, legacy) = match (negotiation, legacy) {
        (Err(e), _) | (_, Err(e)) if e.message.starts_with(PROBE_CAP) && !heard_any => {
            return Err(StartError::new(format!(
                "the target never produced a JSON-RPC message: {}",
                e.message
            )));
        }
        other => other,
    };
    let (negotiation, (initialize_seen, initialize, initialize_refused, startup)) =
        (negotiation?, legacy?);
    let mut facts = Facts {
        initialize,
        initialize_seen,
        initialize_refused,
        startup,
        ..Facts::default()
    };
    match &negotiation.discover {
        Some(result) => {
            facts.discover = Some(result.clone());
            facts.discover_seen = "a DiscoverResult".into();
        }
        None if heard_rpc => probe_broken_modern(target, settings, &mut facts).await?,
        None => {
            let because = match &negotiation.path {
                crate::negotiation::Path::Unreachable { because } => because.clone(),
                other => other.to_string(),
            };
            facts.discover_seen = because.clone();
            let opening = if heard_any {
                "the target never answered a request (it wrote only notifications or \
                 server→client requests)"
            } else {
                "the target never produced a JSON-RPC message"
            };
            facts.never_mcp = Some(format!(
                "{opening}: {because}; a legacy ping and initialize got {}",
                facts.initialize_seen
            ));
        }
    }
    facts.negotiation = Some(negotiation);
    Ok(facts)
}

/// Whether a transcript shows the server speaking JSON-RPC at all, however badly: a valid
/// message, any JSON (a wrong `jsonrpc` member, a bad id), a JSON fragment (a message broken
/// over lines), or an HTTP 4xx (a transport-level refusal an MCP endpoint may give). Silence,
/// plain text, HTML pages, redirects, 5xx pages and bodies cut short are not.
fn received_rpc(rec: &mcpspec_core::transcript::Recorder) -> bool {
    use mcpspec_core::transcript::Event;
    rec.entries().iter().any(|e| match &e.event {
        // A notification or a server→client request is not an answer.
        Event::Recv { message, .. } => message.get("method").is_none(),
        Event::RecvLarge { .. } => true,
        // A line too deep, not UTF-8 or over the bound is a reply mcpspec cannot read: a server
        // that sends nothing else gives the checks nothing to judge.
        Event::RecvInvalid { error, .. }
            if ["nested ", "not UTF-8", "longer than the "]
                .iter()
                .any(|p| error.starts_with(p)) =>
        {
            false
        }
        Event::RecvInvalid {
            text, http_status, ..
        } => {
            text.trim_start().starts_with(['{', '['])
                || http_status.is_some_and(|s| (400..500).contains(&s))
        }
        _ => false,
    })
}

const PROBE_CAP: &str = "the version probe (server/discover, initialize) got no answer within";

/// Whether a transcript holds any valid JSON-RPC message from the server (a notification too).
fn received_any(rec: &mcpspec_core::transcript::Recorder) -> bool {
    use mcpspec_core::transcript::Event;
    rec.entries()
        .iter()
        .any(|e| matches!(e.event, Event::Recv { .. } | Event::RecvLarge { .. }))
}

/// Runs a probe step under `cap`; past it the step counts as unanswered.
async fn capped<T>(
    cap: std::time::Duration,
    step: impl std::future::Future<Output = Result<T, StartError>>,
) -> Result<T, StartError> {
    match tokio::time::timeout(cap, step).await {
        Ok(r) => r,
        Err(_) => Err(StartError::new(format!(
            "{PROBE_CAP} {}",
            mcpspec_core::text::seconds(cap)
        ))),
    }
}

/// A legacy handshake on a fresh connection: a ping first (it gets the start-up allowance),
/// then `initialize` asking for `revision`, waited for no longer than one expected message (a server that stalls
/// in `initialize` is the deadlock check's business, not the probe's).
async fn probe_legacy(
    target: &Target,
    settings: &Arc<Settings>,
    rec: &mcpspec_core::transcript::Recorder,
    revision: &str,
) -> Result<(String, Option<Value>, bool, Option<Duration>), StartError> {
    let started = Instant::now();
    let transport = target.connect(settings.max_message)?;
    let mut peer = Peer::new(transport, rec.clone(), 0, Era::Legacy, settings.clone());
    // The start-up time: spawn to the first answer (POL-24, the deadlock check's window), on
    // the clock of the windows it sets (tokio's, as every deadline of the driver).
    let startup = peer
        .call(request(method::PING))
        .await
        .answered()
        .map(|_| started.elapsed());
    let reply = initialize_within(&mut peer, settings.expect_timeout, revision).await;
    let result = reply
        .result()
        .filter(|r| r.get("protocolVersion").is_some())
        .cloned();
    Ok((reply.describe(), result, reply.error().is_some(), startup))
}

async fn initialize_within(
    peer: &mut Peer,
    wait: std::time::Duration,
    revision: &str,
) -> crate::driver::Reply {
    let out = request(method::INITIALIZE)
        .bare()
        .param("protocolVersion", serde_json::json!(revision))
        .param("capabilities", serde_json::json!({}))
        .param(
            "clientInfo",
            serde_json::json!({"name": "mcpspec", "version": env!("CARGO_PKG_VERSION")}),
        );
    peer.call_within(out, wait).await
}

/// Discover did not produce a DiscoverResult. A server that serves 2026-07-28 but breaks
/// discover (or the framing of its replies) is still modern: its checks must run and say
/// what is wrong, not be skipped.
async fn probe_broken_modern(
    target: &Target,
    settings: &Arc<Settings>,
    facts: &mut Facts,
) -> Result<(), StartError> {
    let transport = target.connect(settings.max_message)?;
    let mut peer = Peer::new(
        transport,
        Default::default(),
        1,
        Era::Modern,
        settings.clone(),
    );
    let reply = peer.call(request(method::DISCOVER)).await;
    facts.discover_seen = reply.describe();
    if let Some(result) = reply
        .frame()
        .and_then(|f| f.json.as_ref())
        .and_then(|j| j.get("result"))
    {
        if result.get("supportedVersions").is_some() {
            facts.discover = Some(result.clone());
            return Ok(());
        }
    }
    let list = peer.call(request(method::TOOLS_LIST)).await;
    if list.result().is_some_and(|r| r.get("resultType").is_some()) {
        facts.discover = Some(Value::Object(Default::default()));
        facts
            .discover_seen
            .push_str("; a modern tools/list was served");
    }
    Ok(())
}
