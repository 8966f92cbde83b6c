//! Running one case: every line sent, then a liveness probe; every reply read (bounded in time
//! and size) and judged by the [oracles](super::oracle). A case runs on a fresh connection
//! ([`run_case`]: shrinking, confirmation, replay) or on one kept across cases while the server
//! stays healthy ([`Session`]: generation, so an interpreter is not restarted per case).
//!
//! What a case obliges the server to write, and how its output is judged, is the
//! [oracle](super::oracle)'s: [`Obligations`] from the lines, a [`Judge`] fed every line read
//! back (and, over HTTP, every exchange that carried no JSON-RPC body).

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::oracle::judge::Judge;
use super::oracle::sent::Obligations;
use super::oracle::{Oracle, TransportKind, Violation};
use crate::target::{StartError, Target};
use mcpspec_core::protocol::method;
use mcpspec_core::transport::{Exchange, ExchangeBody, LineTransport, Liveness, Recv};

pub use super::oracle::PROBE_ID;

/// Bounds for one case.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// How long a reply may take (after the last line heard).
    pub reply_timeout: Duration,
    /// Extra time for a fresh server's first line (measured at start-up for commands).
    pub startup_allowance: Duration,
    /// How long to keep listening once everything expected has arrived (for late duplicates).
    pub quiet: Duration,
    /// The bound on one line the server writes.
    pub max_message: usize,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            reply_timeout: Duration::from_secs(1),
            startup_allowance: Duration::ZERO,
            quiet: Duration::from_millis(5),
            max_message: mcpspec_core::transport::DEFAULT_MAX_MESSAGE,
        }
    }
}

/// What one case did.
#[derive(Debug, Clone, Default)]
pub struct CaseResult {
    /// The most serious violation, if any.
    pub violation: Option<Violation>,
    /// Lines written to the server (probe and answers included).
    pub sent: usize,
    /// Lines the server wrote.
    pub received: usize,
    /// The server's last stderr lines, when it failed.
    pub stderr_tail: Vec<String>,
}

/// Runs one case on a fresh connection to `target` (a fresh process for a command), which
/// ends with the case.
pub async fn run_case(
    target: &Target,
    case: &[Vec<u8>],
    options: &ExecOptions,
) -> Result<CaseResult, StartError> {
    let mut transport = target.connect(options.max_message)?;
    let kind = target.kind();
    let (result, _) = run_on(&mut transport, kind, case, options, Waits::fresh(options)).await;
    transport.terminate(TERMINATE_WITHIN).await;
    Ok(result)
}

/// How long ending a server may take: a killed process is gone in milliseconds, but a loaded
/// machine may be slow to schedule its exit.
const TERMINATE_WITHIN: Duration = Duration::from_secs(2);

/// A connection kept from case to case while a stdio server stays healthy (over HTTP, where a
/// connection is only the POSTs in flight, every case gets a new one): the case's own
/// probe (`ping`, sent after its lines) is the liveness check before the next case. After a
/// crash or a hang the connection is dropped (its process killed), and after a finding the
/// fuzzer restarts it; the next case starts on another. Every case shares, those that leave state behind (a legacy
/// handshake, an open listen stream) included: whatever an earlier case left can only cause a
/// violation, and a violation seen on a shared connection counts only once a fresh connection
/// reproduces it (see [`crate::fuzz::fuzz`]).
///
/// One warm spare is kept: a connection opened (a process started) before it is needed, so an
/// interpreter's start-up overlaps the cases that run meanwhile. A connection that is done with
/// is ended in the background: the next case does not wait for its process to be gone (a
/// server behind a shell wrapper leaves zombies that only the machine's init reaps, which took
/// up to 2 s a case), and [`Session::close`] waits for every one of them.
#[derive(Debug, Default)]
pub struct Session {
    shared: Option<LineTransport>,
    spare: Option<LineTransport>,
    /// Connections being ended.
    ending: tokio::task::JoinSet<()>,
    /// Connections opened (server processes started, for a command), spares included.
    pub connections: u64,
}

impl Session {
    /// Runs `case` on the shared connection (the spare, or a new one, when there is none). The
    /// connection is kept while it stays healthy (its probe answered, its output open).
    pub async fn run(
        &mut self,
        target: &Target,
        case: &[Vec<u8>],
        options: &ExecOptions,
    ) -> Result<CaseResult, StartError> {
        // A server that has answered a probe is up: only a new connection's first case gets
        // the start-up allowance.
        let warm = ExecOptions {
            startup_allowance: Duration::ZERO,
            ..options.clone()
        };
        let (mut transport, options) = match self.shared.take() {
            Some(t) => (t, &warm),
            None => (self.fresh(target, options)?, options),
        };
        // Nothing waits for late extras once the case is complete: a stray reply shows up in
        // a later case, as a violation that must then recur on a fresh connection.
        let kind = target.kind();
        let (result, healthy) = run_on(&mut transport, kind, case, options, Waits::shared()).await;
        // Over HTTP a connection is no process, only POSTs in flight: a case's slow exchanges
        // would answer into the next case. Each case gets its own, and ending it ends them.
        if healthy && kind == TransportKind::Stdio {
            self.shared = Some(transport);
        } else {
            self.end(transport);
        }
        self.refill(target, options)?;
        Ok(result)
    }

    /// Runs `case` on a fresh connection (the warm spare), which ends with the case: how
    /// findings are confirmed and shrunk.
    pub async fn run_fresh(
        &mut self,
        target: &Target,
        case: &[Vec<u8>],
        options: &ExecOptions,
    ) -> Result<CaseResult, StartError> {
        let mut transport = self.fresh(target, options)?;
        self.refill(target, options)?;
        let kind = target.kind();
        let (result, _) = run_on(&mut transport, kind, case, options, Waits::fresh(options)).await;
        self.end(transport);
        Ok(result)
    }

    /// Ends the shared connection: the next case starts on a fresh one.
    pub async fn restart(&mut self) {
        if let Some(shared) = self.shared.take() {
            self.end(shared);
        }
    }

    /// Ends every connection (the shared one, the spare and those being ended) and waits until
    /// their servers are gone, so none outlives the run.
    pub async fn close(&mut self) {
        self.restart().await;
        if let Some(spare) = self.spare.take() {
            self.end(spare);
        }
        while self.ending.join_next().await.is_some() {}
    }

    /// Ends `transport` in the background: its process is killed now, and reaped (its group
    /// gone) by the time [`Session::close`] returns.
    fn end(&mut self, mut transport: LineTransport) {
        // Those already gone are forgotten, so a long run keeps no list of them.
        while self.ending.try_join_next().is_some() {}
        self.ending.spawn(async move {
            transport.terminate(TERMINATE_WITHIN).await;
        });
    }

    fn refill(&mut self, target: &Target, options: &ExecOptions) -> Result<(), StartError> {
        if self.spare.is_none() {
            self.spare = Some(self.connect(target, options)?);
        }
        Ok(())
    }

    /// The spare, or a new connection.
    fn fresh(
        &mut self,
        target: &Target,
        options: &ExecOptions,
    ) -> Result<LineTransport, StartError> {
        match self.spare.take() {
            Some(spare) => Ok(spare),
            None => self.connect(target, options),
        }
    }

    fn connect(
        &mut self,
        target: &Target,
        options: &ExecOptions,
    ) -> Result<LineTransport, StartError> {
        self.connections += 1;
        target.connect(options.max_message)
    }
}

/// How long a case listens once its probe is answered.
#[derive(Debug, Clone, Copy)]
struct Waits {
    /// Once everything expected came: for late extras (duplicates, replies to notifications).
    quiet: Duration,
    /// While a request is still unanswered.
    unanswered: Duration,
}

impl Waits {
    /// A fresh connection: the case is judged in full here.
    fn fresh(options: &ExecOptions) -> Self {
        Waits {
            quiet: options.quiet,
            unanswered: options.reply_timeout,
        }
    }

    /// A shared connection: no quiet period, and a short wait for replies still missing once
    /// the probe came back. Whatever this misses or blames wrongly is settled on a fresh
    /// connection, where every violation is confirmed.
    fn shared() -> Self {
        Waits {
            quiet: Duration::ZERO,
            unanswered: SHARED_UNANSWERED_WAIT,
        }
    }
}

/// On a shared connection, how long a request may stay unanswered after the probe sent after
/// it was answered.
const SHARED_UNANSWERED_WAIT: Duration = Duration::from_millis(50);

/// Runs one case on `transport`: the lines, the probe, the replies judged, listening as long
/// as `waits` says. Also says whether the connection is fit for another case (open, the probe
/// answered).
async fn run_on(
    transport: &mut LineTransport,
    kind: TransportKind,
    case: &[Vec<u8>],
    options: &ExecOptions,
    waits: Waits,
) -> (CaseResult, bool) {
    let expected = Obligations::of(case, kind);
    let mut judge = Judge::new(&expected, kind);
    let mut outcome = CaseResult::default();

    let send_deadline = Instant::now() + options.reply_timeout + options.startup_allowance;
    let probe = json!({"jsonrpc": "2.0", "id": PROBE_ID, "method": method::PING}).to_string();
    for line in case.iter().map(Vec::as_slice).chain([probe.as_bytes()]) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        // Reading while writing: a server answering a huge line before it reads the next one
        // must not be blocked by a full pipe (the deadlock would be the fuzzer's, not a hang).
        if transport.send_reading(&bytes, send_deadline).await.is_err() {
            // The server died or stopped reading: the reads below tell which.
            break;
        }
        outcome.sent += 1;
    }

    let started = Instant::now();
    let hard_stop = started + 4 * options.reply_timeout + options.startup_allowance;
    let mut deadline = started + options.reply_timeout + options.startup_allowance;
    let mut closed = false;
    loop {
        let answers = match transport.recv(deadline.min(hard_stop)).await {
            Recv::Line(bytes) => {
                outcome.received += 1;
                judge.line(bytes.strip_suffix(b"\r").unwrap_or(&bytes), None)
            }
            Recv::Exchange(Exchange { http, body }) => match body {
                ExchangeBody::Message(bytes) => {
                    outcome.received += 1;
                    judge.line(&bytes, Some(&http))
                }
                // An exchange without a JSON-RPC body (a refused connection, a bare status, an
                // error page, a body cut short): it may end the case as a reply does.
                ExchangeBody::Failed(why) => {
                    judge.refusal(Some(&http), why.as_bytes());
                    Vec::new()
                }
            },
            Recv::Overflow { limit, .. } => {
                judge.violation(
                    Oracle::OversizedOutput,
                    format!("the server wrote a message longer than {limit} bytes"),
                );
                continue;
            }
            Recv::Closed => {
                closed = true;
                break;
            }
            Recv::TimedOut => break,
        };
        for mut line in answers {
            line.push(b'\n');
            let _ = transport
                .send(&line, Instant::now() + options.reply_timeout)
                .await;
        }
        let complete = judge.complete();
        if complete && waits.quiet.is_zero() {
            break;
        }
        deadline = Instant::now()
            + if complete {
                waits.quiet
            } else if judge.probe_answered() {
                waits.unanswered.min(options.reply_timeout)
            } else {
                options.reply_timeout
            };
    }

    // Process alive? A closed output or an exit is a crash, whatever else was seen.
    let liveness = if closed {
        transport.wait_exit(Duration::from_millis(500)).await
    } else {
        transport.liveness()
    };
    let probe_answered = judge.probe_answered();
    match liveness {
        Liveness::Exited(info) => {
            let how = crate::fuzz::take_panic_message()
                .map_or(info.how.clone(), |m| format!("{} ({m})", info.how));
            judge.violation(Oracle::Crash, format!("the server exited: {how}"));
        }
        Liveness::Running if closed => {
            judge.violation(Oracle::Crash, "the server closed its output");
        }
        Liveness::Running if !probe_answered => judge.violation(
            Oracle::Hang,
            format!(
                "no reply to a `ping` sent after the case within {:.1} s{}",
                options.reply_timeout.as_secs_f64(),
                match kind {
                    TransportKind::Stdio => "; the server is running",
                    TransportKind::Http => "",
                }
            ),
        ),
        Liveness::Running => {}
    }
    let violations = judge.settle();
    if violations.iter().any(|v| v.oracle == Oracle::Crash) {
        outcome.stderr_tail = transport.stderr_tail();
    }
    let healthy = !closed && probe_answered;
    outcome.violation = violations.into_iter().min_by_key(|v| v.oracle);
    (outcome, healthy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_clean_case_on_the_embedded_server_trips_nothing() {
        let target = Target::Embedded(mcp_reference_server::Config::default());
        let case = vec![
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(),
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
            b"{oops".to_vec(),
        ];
        let result = run_case(&target, &case, &ExecOptions::default()).await;
        let result = result.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result.violation, None);
        assert_eq!(result.sent, 4);
    }
}
