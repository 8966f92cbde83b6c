//! The client under test as a process: spawned in its own process group with the scenario's
//! environment, its stdout and stderr drained (the last lines kept), waited for up to the
//! timeout, and its whole group killed on every way out (the peer relays it started included).

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use crate::observation::ClientEnd;

/// Lines of stdout and stderr kept for the report.
const TAIL: usize = 20;
/// The longest line kept, in bytes.
const LINE_MAX: usize = 500;
/// How long the group may take to go once killed.
const GONE_WAIT: Duration = Duration::from_secs(2);
/// How long what the client started (a stdio peer relay) may take to end on its own once the
/// client has exited: the relay still forwards the client's last bytes, then ends when mcpspec
/// closes the connection.
const SETTLE: Duration = Duration::from_millis(500);

/// One running client.
pub struct ClientProcess {
    child: Child,
    /// The process group it leads (its pid at spawn).
    group: Option<u32>,
    tail: Arc<Mutex<VecDeque<String>>>,
    drains: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for ClientProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientProcess")
            .field("group", &self.group)
            .finish_non_exhaustive()
    }
}

impl ClientProcess {
    /// Spawns `command` (program and arguments) with `last` appended and `env` added.
    pub fn spawn(command: &[String], last: &str, env: &[(String, String)]) -> Result<Self, String> {
        let Some((program, args)) = command.split_first() else {
            return Err("no client command given".into());
        };
        let mut cmd = Command::new(program);
        cmd.args(args)
            .arg(last)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd.spawn().map_err(|e| format!("`{program}`: {e}"))?;
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let mut drains = Vec::new();
        if let Some(out) = child.stdout.take() {
            drains.push(tokio::spawn(drain(out, "stdout", tail.clone())));
        }
        if let Some(err) = child.stderr.take() {
            drains.push(tokio::spawn(drain(err, "stderr", tail.clone())));
        }
        Ok(Self {
            group: child.id(),
            child,
            tail,
            drains,
        })
    }

    /// Waits for the client to end, at most `timeout`; then its group is killed either way.
    pub async fn wait(&mut self, timeout: Duration) -> ClientEnd {
        let end = match tokio::time::timeout(timeout, self.child.wait()).await {
            Ok(Ok(status)) => end_of(status),
            Ok(Err(e)) => ClientEnd::NotStarted(format!("waiting for it failed: {e}")),
            Err(_) => ClientEnd::TimedOut(timeout),
        };
        if !matches!(end, ClientEnd::TimedOut(_)) {
            if let Some(pid) = self.group {
                mcpspec_core::transport::wait_group_gone(pid, tokio::time::Instant::now() + SETTLE)
                    .await;
            }
        }
        self.kill().await;
        // What it wrote last arrives once the pipes close (bounded: the group is gone).
        for d in self.drains.drain(..) {
            let _ = tokio::time::timeout(Duration::from_millis(200), d).await;
        }
        end
    }

    /// The last lines the client wrote (stdout and stderr, each line marked).
    pub fn tail(&self) -> Vec<String> {
        self.tail
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Kills the whole group and waits (bounded) until it is gone.
    async fn kill(&mut self) {
        let Some(pid) = self.group.take() else {
            return;
        };
        kill_group(pid);
        let _ = self.child.start_kill();
        let deadline = tokio::time::Instant::now() + GONE_WAIT;
        let _ = tokio::time::timeout_at(deadline, self.child.wait()).await;
        mcpspec_core::transport::wait_group_gone(pid, deadline).await;
    }
}

impl Drop for ClientProcess {
    fn drop(&mut self) {
        if let Some(pid) = self.group.take() {
            kill_group(pid);
        }
        for d in &self.drains {
            d.abort();
        }
    }
}

fn end_of(status: std::process::ExitStatus) -> ClientEnd {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return ClientEnd::Signaled(sig);
        }
    }
    ClientEnd::Exited(status.code().unwrap_or(-1))
}

#[cfg(unix)]
fn kill_group(pid: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    // Group 1 would be "every process we may signal": never a spawned client's group.
    if let Some(group) = i32::try_from(pid)
        .ok()
        .filter(|&p| p > 1)
        .and_then(Pid::from_raw)
    {
        let _ = kill_process_group(group, Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

/// Reads `from` to its end, keeping the last [`TAIL`] lines (each cut at [`LINE_MAX`]).
async fn drain(
    mut from: impl AsyncRead + Unpin,
    what: &'static str,
    tail: Arc<Mutex<VecDeque<String>>>,
) {
    let mut chunk = [0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    let push = |line: &mut Vec<u8>| {
        let text = format!("{what}: {}", String::from_utf8_lossy(line).trim_end());
        line.clear();
        if let Ok(mut t) = tail.lock() {
            if t.len() == TAIL {
                t.pop_front();
            }
            t.push_back(text);
        }
    };
    loop {
        let n = match from.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &chunk[..n] {
            if b == b'\n' {
                push(&mut line);
            } else if line.len() < LINE_MAX {
                line.push(b);
            }
        }
    }
    if !line.is_empty() {
        push(&mut line);
    }
}
