//! `negotiation/*`: what a dual-era client experiences — a modern server is not sent down the
//! fallback, a -32022 naming a mutual version leads to a retry (not a fallback), and a server
//! that serves the legacy handshake is reached by the fallback.

use super::prelude::*;
use crate::negotiation::{Client, Path, discover_step, fallback_step};

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "negotiation/modern-server-stays-modern",
            requirements: &["DISC-1", "STDIO-7", "VER-6"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A dual-era client probes server/discover at 2026-07-28.",
            expectation: "it ends modern, through discover, without falling back to initialize",
            faults: &["no-discover"],
            script: |s| Box::pin(modern_stays_modern(s)),
        },
        Check {
            id: "negotiation/retry-after-32022",
            requirements: &["VER-1", "VER-3"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A client whose newest version is 2099-01-01 (then 2026-07-28) probes discover.",
            expectation: "-32022 names 2026-07-28, the client retries with it and ends modern",
            faults: &["version-error-wrong-code", "version-error-draft-code"],
            script: |s| Box::pin(retry_after_32022(s)),
        },
        Check {
            id: "negotiation/legacy-reached-by-fallback",
            requirements: &["LEG-1", "STDIO-7", "VER-6"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "A client with no modern version in common with the server.",
            expectation: "discover does not succeed, the client falls back to initialize on a \
                          fresh connection and ends legacy",
            faults: &["crash-on-initialize"],
            script: |s| Box::pin(legacy_by_fallback(s)),
        },
    ]
}

/// Negotiation as a dual-era client does it: its modern half on the check's (shared)
/// connection, since a stateless server answers `server/discover` alike on any process, and
/// its fallback on a fresh connection (POL-8).
async fn run(s: &mut Scenario, client: Client) -> Result<crate::negotiation::Negotiation, Outcome> {
    let mut peer = s.connect().await?;
    let because = match discover_step(&mut peer, &client).await {
        Ok(done) => return Ok(done),
        Err(because) => because,
    };
    drop(peer);
    let mut legacy = s.connect_as(Era::Legacy).await?;
    Ok(fallback_step(&mut legacy, &client, because).await)
}

async fn modern_stays_modern(s: &mut Scenario) -> Verdict {
    let n = run(s, Client::default()).await?;
    Ok(match n.path {
        Path::Discover if n.era == "modern" => {
            Outcome::pass(format!("modern at {}", n.version.as_deref().unwrap_or("?")))
        }
        other => Outcome::fail(format!(
            "a dual-era client ended {} via {other:?}: a modern server was sent down the fallback",
            n.era
        )),
    })
}

async fn retry_after_32022(s: &mut Scenario) -> Verdict {
    let client = Client {
        modern: vec![version::UNKNOWN.into(), version::MODERN.into()],
        ..Client::default()
    };
    let n = run(s, client).await?;
    Ok(match n.path {
        Path::RetriedAfter32022 { .. } => {
            Outcome::pass("-32022 named a mutual version; the retry was served")
        }
        Path::Discover => Outcome::fail(format!(
            "server/discover at {} was served as if supported",
            version::UNKNOWN
        )),
        other => Outcome::fail(format!(
            "the error to {} was not a recognisable -32022 with data.supported, so the client \
             did not retry: {other:?}",
            version::UNKNOWN
        )),
    })
}

async fn legacy_by_fallback(s: &mut Scenario) -> Verdict {
    let client = Client {
        modern: vec![version::UNKNOWN.into()],
        ..Client::default()
    };
    let n = run(s, client).await?;
    Ok(match n.path {
        Path::LegacyFallback { because } if n.era == "legacy" => Outcome::pass(format!(
            "fell back ({because}) and ended legacy at {}",
            n.version.as_deref().unwrap_or("?")
        )),
        other => Outcome::fail(format!(
            "the fallback did not reach the legacy era: {other:?}"
        )),
    })
}
