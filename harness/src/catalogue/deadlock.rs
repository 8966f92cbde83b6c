//! `deadlock/*`: inline-initialize deadlock detection (design.md, POL-14).
//!
//! A legacy server that handles `initialize` inline (its reader parked until the middleware
//! chain returns) deadlocks if a middleware awaits a server→client request meanwhile:
//!
//! 1. Before `initialize`, `ping`: an answer proves the reader is alive (none: "not ready").
//!    The ping's window adapts to the target: the larger of `--ready-timeout` and
//!    [`STARTUP_FACTOR`] times the start-up time the runner's probe measured (POL-24), so "not
//!    ready" means not ready, not "slower to start than mcpspec guessed".
//! 2. `initialize`, answering every server→client request that arrives.
//! 3. No `initialize` response within T: another `ping`. No answer while the process lives is
//!    a stall: "deadlock" if a server→client request was seen (and answered) meanwhile,
//!    "likely deadlock" if nothing was seen (some SDKs queue the outbound request). The process
//!    ending is a "crash".

use std::time::Duration;

use super::prelude::*;
use crate::negotiation::initialize;
use mcpspec_core::transport::Liveness;

pub fn group() -> Vec<Check> {
    vec![Check {
        id: "deadlock/initialize/answers",
        requirements: &["LEG-1", "LEG-6", "POL-14"],
        level: Level::Must,
        era: Era::Legacy,
        isolation: Isolation::Fresh(Fresh::Deadlock),
        // No Need::Legacy: the runner's legacy probe gives up on a stalled `initialize`, and
        // that is exactly what this check must look at. A modern-only server skips itself.
        // Stdio only: over HTTP every request is its own exchange, so there is no parked reader.
        needs: &[Need::Stdio],
        description: "`initialize` completes, with the reader alive throughout.",
        expectation: "an InitializeResult; otherwise the verdict names the failure: not ready, \
                      deadlock, likely deadlock, crash",
        faults: &[
            "deadlock-on-initialize",
            "silent-deadlock-on-initialize",
            "crash-on-initialize",
            "slow-start",
        ],
        script: |s| Box::pin(answers(s)),
    }]
}

/// How many times the probe's measured start-up the readiness ping waits. The probe starts
/// two processes side by side; the checks then run up to `--jobs` at once, and on a loaded
/// machine the same start-up takes a few times longer. Three covers that without turning a
/// server that never starts into a long wait.
pub const STARTUP_FACTOR: u32 = 3;

/// A wait that adapts to the target (POL-24): the larger of `floor` and [`STARTUP_FACTOR`] ×
/// the start-up the probe measured, the adapted part kept within half the scenario cap. The
/// readiness window and `stdio/shutdown/exit-on-eof`'s exit window are both this.
pub fn adapted_window(
    settings: &crate::driver::Settings,
    startup: Option<Duration>,
    floor: Duration,
) -> Duration {
    let adapted = startup.map_or(Duration::ZERO, |d| d * STARTUP_FACTOR);
    floor.max(adapted.min(settings.scenario_timeout / 2))
}

/// The readiness window: the larger of `--ready-timeout` and [`STARTUP_FACTOR`] × the measured
/// start-up, kept within half the scenario cap (the rest is for `initialize` and the stall
/// probe); and the phrase that explains it in a verdict.
pub fn readiness_window(
    settings: &crate::driver::Settings,
    startup: Option<Duration>,
) -> (Duration, String) {
    let window = adapted_window(settings, startup, settings.ready_timeout);
    let why = match startup {
        Some(d) => format!(
            "the target took {} to start in the probe; the window is the larger of \
             --ready-timeout {} and {STARTUP_FACTOR} × that",
            millis_text(d),
            seconds(settings.ready_timeout)
        ),
        None => format!(
            "the probe measured no start-up time; the window is --ready-timeout {}",
            seconds(settings.ready_timeout)
        ),
    };
    (window, why)
}

fn millis_text(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// What the detection concluded.
#[allow(clippy::large_enum_variant)] // one value per check run
#[derive(Debug, Clone)]
pub enum Detection {
    /// `initialize` got a reply (result or error).
    Answered(Reply),
    /// The pre-initialize ping got no answer: the server is not ready (not a deadlock).
    NotReady(String),
    /// A server→client request was seen, then the reader stalled.
    Deadlock(String),
    /// The reader stalled with nothing seen.
    LikelyDeadlock(String),
    /// The process (or connection) ended.
    Crash(String),
    /// `initialize` is pending but the reader still answers: slow, not deadlocked.
    Slow(String),
}

/// Runs the detection on a fresh legacy connection; `client_name` goes into `clientInfo`
/// (the probe profile uses `mcpspec-probe-deadlock` to ask for the deadlock on purpose).
pub async fn detect(
    peer: &mut Peer,
    client_name: &str,
    version: &str,
    startup: Option<Duration>,
) -> Detection {
    let t = peer.settings().expect_timeout;
    // The detection tells slow from stalled with its own pings and windows (the readiness one
    // adapts to the measured start-up): no late-reply grace on top, so each verdict keeps its
    // bound.
    peer.set_late_grace(false);
    let (window, why) = readiness_window(peer.settings(), startup);
    let ready = peer.call_within(request(method::PING), window).await;
    match &ready {
        Reply::Frame(_) | Reply::Late { .. } => {}
        Reply::Closed { .. } => {
            return Detection::Crash(format!(
                "the server ended before initialize: {}",
                ready.describe()
            ));
        }
        _ => {
            return Detection::NotReady(format!(
                "not ready within {}: the pre-initialize ping got {} ({why}; a slow start, not a \
                 deadlock; see --ready-timeout)",
                seconds(window),
                ready.describe()
            ));
        }
    }
    let seen_before = peer.server_request_count();
    let reply = initialize(peer, version, client_name).await;
    match &reply {
        Reply::Frame(_) | Reply::Late { .. } => return Detection::Answered(reply),
        Reply::Closed { .. } => {
            return Detection::Crash(format!(
                "crash: the server ended during initialize: {}",
                reply.describe()
            ));
        }
        _ => {}
    }
    let probe = peer.call_within(request(method::PING), t).await;
    if let Liveness::Exited(info) = peer.wait_exit(Duration::ZERO).await {
        return Detection::Crash(format!(
            "crash: the server ended during initialize ({})",
            info.how
        ));
    }
    match probe {
        Reply::Frame(_) | Reply::Late { .. } => Detection::Slow(format!(
            "initialize got no reply within {}, though ping is still answered (slow, not a reader deadlock)",
            seconds(t)
        )),
        Reply::Closed { .. } => Detection::Crash(format!(
            "crash: the server ended during initialize: {}",
            probe.describe()
        )),
        _ if peer.server_request_count() > seen_before => {
            let m = usize::try_from(seen_before)
                .ok()
                .and_then(|i| peer.server_requests.get(i))
                .map_or_else(|| "a request".to_owned(), |f| f.text());
            Detection::Deadlock(format!(
                "deadlock: the server awaited a client reply while handling initialize (it sent {} and, \
                 answered, still stalled: no reply to initialize or to a ping within {} each)",
                crate::driver::shorten(&m, 80),
                seconds(t)
            ))
        }
        _ => Detection::LikelyDeadlock(format!(
            "likely deadlock: initialize and a following ping got no reply within {} each while the \
             process lives; no server→client request was seen (it may be queued)",
            seconds(t)
        )),
    }
}

async fn answers(s: &mut Scenario) -> Verdict {
    // Spawned now, not a warm spare: the readiness window times the start.
    let mut peer = s.connect_spawned(Era::Legacy).await?;
    let startup = s.facts().startup;
    let version = s.options().legacy_revision();
    Ok(match detect(&mut peer, "mcpspec", version, startup).await {
        Detection::Answered(r) if r.result().is_some() => {
            Outcome::pass("initialize answered; the reader stayed alive")
        }
        Detection::Answered(r) if !s.facts().legacy() && s.facts().modern() => {
            Outcome::skipped(format!(
                "the server serves no legacy handshake (initialize got {})",
                r.describe()
            ))
        }
        Detection::Answered(r) => Outcome::fail(format!("initialize got {}", r.describe())),
        Detection::NotReady(m)
        | Detection::Deadlock(m)
        | Detection::LikelyDeadlock(m)
        | Detection::Crash(m)
        | Detection::Slow(m) => Outcome::fail(m),
    })
}
