//! The server behind a transport: a child process in its own process group, or an in-memory
//! task. Either way it is ended when the handle is dropped, on every exit path.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::task::JoinHandle;

/// How many stderr lines are kept for the report.
const STDERR_TAIL: usize = 50;
/// Longest stderr line kept, in bytes.
const STDERR_LINE_MAX: usize = 1000;

/// How a server ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// "exit status 0", "signal 9", "task returned an error: …", …
    pub how: String,
    /// Whether it ended cleanly (status 0 / task returned Ok).
    pub success: bool,
}

/// Whether the server is still running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Liveness {
    Running,
    Exited(ExitInfo),
}

/// Owns the running server.
pub enum ServerHandle {
    Process {
        child: Child,
        /// The process group the child leads (its pid at spawn): still killed after the child
        /// itself was reaped, so grandchildren holding its pipes do not survive.
        group: Option<u32>,
        stderr: Arc<Mutex<VecDeque<String>>>,
        /// The task collecting stderr; it ends at stderr's EOF.
        collector: Option<JoinHandle<()>>,
    },
    Task {
        task: Option<JoinHandle<std::io::Result<()>>>,
        exited: Option<ExitInfo>,
    },
    /// A server mcpspec did not start (an HTTP URL): never killed, always "running".
    Remote,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerHandle::Process { child, .. } => write!(f, "Process(pid {:?})", child.id()),
            ServerHandle::Task { .. } => write!(f, "Task"),
            ServerHandle::Remote => write!(f, "Remote"),
        }
    }
}

impl ServerHandle {
    /// Wraps a spawned child whose stderr is piped; collects the stderr tail in the background.
    pub fn process(mut child: Child) -> Self {
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let collector = child
            .stderr
            .take()
            .map(|err| tokio::spawn(collect_stderr(err, stderr.clone())));
        ServerHandle::Process {
            group: child.id(),
            child,
            stderr,
            collector,
        }
    }

    pub fn remote() -> Self {
        ServerHandle::Remote
    }

    pub fn task(task: JoinHandle<std::io::Result<()>>) -> Self {
        ServerHandle::Task {
            task: Some(task),
            exited: None,
        }
    }

    pub async fn wait_exit(&mut self, within: Duration) -> Liveness {
        match self {
            ServerHandle::Process { child, .. } => {
                match tokio::time::timeout(within, child.wait()).await {
                    Ok(Ok(status)) => Liveness::Exited(exit_info(status)),
                    Ok(Err(e)) => Liveness::Exited(ExitInfo {
                        how: e.to_string(),
                        success: false,
                    }),
                    Err(_) => Liveness::Running,
                }
            }
            ServerHandle::Remote => {
                tokio::time::sleep(within).await;
                Liveness::Running
            }
            ServerHandle::Task { task, exited } => {
                if let Some(info) = exited {
                    return Liveness::Exited(info.clone());
                }
                let Some(handle) = task.as_mut() else {
                    return Liveness::Running;
                };
                match tokio::time::timeout(within, handle).await {
                    Ok(joined) => {
                        let info = task_exit(joined);
                        *exited = Some(info.clone());
                        *task = None;
                        Liveness::Exited(info)
                    }
                    Err(_) => Liveness::Running,
                }
            }
        }
    }

    /// Ends the server and waits (up to `within`) until it is gone: the process group killed and
    /// the child reaped, or the task aborted. Dropping the handle kills too, but without waiting,
    /// so a run that ends right after a drop could leave a dying process behind for a moment.
    pub async fn terminate(&mut self, within: Duration) {
        match self {
            ServerHandle::Process { child, group, .. } => {
                let pid = group.take();
                if let Some(pid) = pid {
                    kill_group(pid);
                }
                let _ = child.start_kill();
                let deadline = tokio::time::Instant::now() + within;
                let _ = tokio::time::timeout_at(deadline, child.wait()).await;
                // A server started through a shell that did not exec it (`--spawn-http`'s
                // `sh -c`) is a grandchild: killed with the group, but reaped by init, a few ms
                // later. Gone means the whole group is gone.
                if let Some(pid) = pid {
                    wait_group_gone(pid, deadline).await;
                }
            }
            ServerHandle::Task { task, exited } => {
                if let Some(t) = task.take() {
                    t.abort();
                    let _ = tokio::time::timeout(within, t).await;
                    exited.get_or_insert(ExitInfo {
                        how: "the in-memory server was ended".into(),
                        success: false,
                    });
                }
            }
            ServerHandle::Remote => {}
        }
    }

    pub fn poll_exit(&mut self) -> Liveness {
        match self {
            ServerHandle::Process { child, .. } => match child.try_wait() {
                Ok(Some(status)) => Liveness::Exited(exit_info(status)),
                Ok(None) => Liveness::Running,
                Err(e) => Liveness::Exited(ExitInfo {
                    how: e.to_string(),
                    success: false,
                }),
            },
            ServerHandle::Remote => Liveness::Running,
            ServerHandle::Task { task, exited } => {
                if let Some(info) = exited {
                    return Liveness::Exited(info.clone());
                }
                match task {
                    Some(h) if h.is_finished() => Liveness::Exited(ExitInfo {
                        how: "task finished".into(),
                        success: true,
                    }),
                    _ => Liveness::Running,
                }
            }
        }
    }

    /// Waits up to `within` for the server's stderr to reach its end, so a tail read after an
    /// exit holds the last lines the server wrote.
    pub async fn stderr_settled(&mut self, within: Duration) {
        if let ServerHandle::Process {
            collector: Some(task),
            ..
        } = self
        {
            if tokio::time::timeout(within, task).await.is_ok() {
                if let ServerHandle::Process { collector, .. } = self {
                    *collector = None;
                }
            }
        }
    }

    pub fn stderr_tail(&self) -> Vec<String> {
        match self {
            ServerHandle::Process { stderr, .. } => stderr
                .lock()
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default(),
            ServerHandle::Task { .. } | ServerHandle::Remote => Vec::new(),
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        match self {
            ServerHandle::Process {
                child,
                collector,
                group,
                ..
            } => {
                if let Some(task) = collector.take() {
                    task.abort();
                }
                // The child leads its own process group: end the whole group, so grandchildren
                // (a shell wrapper, a Python interpreter) do not outlive the check.
                if let Some(pid) = *group {
                    kill_group(pid);
                }
                let _ = child.start_kill();
            }
            ServerHandle::Task { task, .. } => {
                if let Some(t) = task.take() {
                    t.abort();
                }
            }
            ServerHandle::Remote => {}
        }
    }
}

/// Kills every process of group `pid` (a child started with `process_group(0)` leads its own
/// group), what it started included.
#[cfg(unix)]
pub fn kill_group(pid: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    // Group 1 would mean "every process we may signal": never a spawned server's group.
    let group = i32::try_from(pid)
        .ok()
        .filter(|&p| p > 1)
        .and_then(Pid::from_raw);
    if let Some(group) = group {
        // A stale group id only makes it fail with ESRCH: nothing to do then.
        let _ = kill_process_group(group, Signal::KILL);
    }
}

#[cfg(not(unix))]
pub fn kill_group(_pid: u32) {}

/// Waits until no process is left in group `pid`, or `deadline`.
pub async fn wait_group_gone(pid: u32, deadline: tokio::time::Instant) {
    while group_exists(pid) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Whether any process (a zombie included) is left in group `pid`.
#[cfg(unix)]
fn group_exists(pid: u32) -> bool {
    use rustix::process::{Pid, test_kill_process_group};
    let group = i32::try_from(pid)
        .ok()
        .filter(|&p| p > 1)
        .and_then(Pid::from_raw);
    group.is_some_and(|g| test_kill_process_group(g).is_ok())
}

#[cfg(not(unix))]
fn group_exists(_pid: u32) -> bool {
    false
}

fn exit_info(status: std::process::ExitStatus) -> ExitInfo {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return ExitInfo {
                how: format!("killed by signal {sig}"),
                success: false,
            };
        }
    }
    match status.code() {
        Some(c) => ExitInfo {
            how: format!("exit status {c}"),
            success: c == 0,
        },
        None => ExitInfo {
            how: "exited".into(),
            success: false,
        },
    }
}

fn task_exit(joined: Result<std::io::Result<()>, tokio::task::JoinError>) -> ExitInfo {
    match joined {
        Ok(Ok(())) => ExitInfo {
            how: "server returned".into(),
            success: true,
        },
        Ok(Err(e)) => ExitInfo {
            how: format!("server failed: {e}"),
            success: false,
        },
        Err(e) if e.is_panic() => ExitInfo {
            how: "server panicked".into(),
            success: false,
        },
        Err(_) => ExitInfo {
            how: "server task cancelled".into(),
            success: false,
        },
    }
}

async fn collect_stderr(mut err: impl AsyncRead + Unpin, tail: Arc<Mutex<VecDeque<String>>>) {
    // Read in chunks and keep at most STDERR_LINE_MAX bytes of any line: a child that writes an
    // endless stderr line must not grow our memory.
    let mut chunk = [0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    let push = |line: &mut Vec<u8>| {
        let text = String::from_utf8_lossy(line).trim_end().to_owned();
        line.clear();
        if let Ok(mut t) = tail.lock() {
            if t.len() == STDERR_TAIL {
                t.pop_front();
            }
            t.push_back(text);
        }
    };
    loop {
        let n = match err.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &chunk[..n] {
            if b == b'\n' {
                push(&mut line);
            } else if line.len() < STDERR_LINE_MAX {
                line.push(b);
            }
        }
    }
    if !line.is_empty() {
        push(&mut line);
    }
}
