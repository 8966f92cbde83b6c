//! Several instances of one server (POL-22): what the `stateless/*` checks send the steps of a
//! flow to, in a fixed round-robin order (A, B, C, …), as a plain L4/L7 balancer would.
//!
//! - `--replicas N -- CMD` and `--replicas N` (the embedded reference server): every connection
//!   is a new instance, a process in its own group (or an in-memory server sharing nothing with
//!   the others), so a check's N connections are N instances, and stopping one kills it.
//! - `--url U1 --url U2 …`: one instance per endpoint; mcpspec did not start them and never
//!   stops one (the failover checks are skipped).
//! - `--replicas N --spawn-http 'CMD --port {port}'`: mcpspec starts N processes (`sh -c`, each
//!   its own process group) on free loopback ports, waits until each answers at
//!   `http://127.0.0.1:PORT/mcp`, and ends them with the run (dropping [`Replicas`] kills them
//!   on every exit path). A failover check starts one more from the same command to lose.

use std::time::Duration;

use crate::target::{StartError, Target};
use crate::transport::ServerHandle;

/// The most instances one run may name.
pub const MAX_INSTANCES: usize = 16;

/// How long a spawned HTTP instance may take to accept connections.
const SPAWN_READY: Duration = Duration::from_secs(30);

/// What the command line asked for (plain data, before anything starts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplicaSpec {
    /// N instances of the run's own target (a stdio command or the embedded server).
    Copies(usize),
    /// Given HTTP endpoints, one instance each.
    Urls(Vec<String>),
    /// N HTTP instances mcpspec starts from a command with `{port}` in it.
    SpawnHttp { command: String, count: usize },
}

/// The instances of a run.
#[derive(Debug)]
pub struct Replicas {
    instances: Vec<Target>,
    kind: Kind,
    /// The processes `--spawn-http` started: killed (with their groups) when dropped.
    spawned: Vec<ServerHandle>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// Each connection is its own instance.
    PerConnection,
    /// Endpoints mcpspec did not start.
    Given,
    /// Endpoints mcpspec started from this command.
    Spawned(String),
}

/// An instance started for one check only (to be lost), with its process.
#[derive(Debug)]
pub struct Extra {
    pub target: Target,
    pub process: ServerHandle,
}

/// The letter an instance is called by in transcripts and verdicts: A, B, C, …
pub fn label(index: usize) -> String {
    u8::try_from(index).ok().filter(|i| *i < 26).map_or_else(
        || format!("#{}", index + 1),
        |i| char::from(b'A' + i).to_string(),
    )
}

impl Replicas {
    /// Starts (or names) the instances `spec` asks for; `target` is the run's own target.
    pub async fn start(spec: &ReplicaSpec, target: &Target) -> Result<Replicas, StartError> {
        match spec {
            ReplicaSpec::Copies(n) => Ok(Replicas {
                instances: vec![target.clone(); *n],
                kind: Kind::PerConnection,
                spawned: Vec::new(),
            }),
            ReplicaSpec::Urls(urls) => Ok(Replicas {
                // Each instance carries the run's credentials (instances of one deployment).
                instances: urls
                    .iter()
                    .map(|u| {
                        Target::url(u)
                            .map(|t| t.with_credentials(target.credentials()))
                            .map_err(StartError::new)
                    })
                    .collect::<Result<_, _>>()?,
                kind: Kind::Given,
                spawned: Vec::new(),
            }),
            ReplicaSpec::SpawnHttp { command, count } => {
                let mut replicas = Replicas {
                    instances: Vec::new(),
                    kind: Kind::Spawned(command.clone()),
                    spawned: Vec::new(),
                };
                // Started together, waited for together: an interpreter's start overlaps.
                let mut starting = Vec::new();
                for _ in 0..*count {
                    starting.push(spawn_http(command)?);
                }
                let mut failed = None;
                for (port, mut process) in starting {
                    if failed.is_none() {
                        match wait_ready(port, &mut process).await {
                            Ok(target) => replicas.instances.push(target),
                            Err(e) => failed = Some(e),
                        }
                    }
                    replicas.spawned.push(process);
                }
                match failed {
                    None => Ok(replicas),
                    // The ones that started are ended, and waited for, before the run stops.
                    Some(e) => {
                        replicas.shutdown().await;
                        Err(e)
                    }
                }
            }
        }
    }

    /// How many instances there are.
    pub fn count(&self) -> usize {
        self.instances.len()
    }

    /// Instance `index`'s target (round robin past the last).
    pub fn target(&self, index: usize) -> &Target {
        &self.instances[index % self.instances.len()]
    }

    /// The run's main target: the first spawned endpoint, or `target` itself.
    pub fn primary(&self, target: Target) -> Target {
        match self.kind {
            Kind::Spawned(_) | Kind::Given => self.instances.first().cloned().unwrap_or(target),
            Kind::PerConnection => target,
        }
    }

    /// Whether stopping a connection's server stops its instance (stdio, embedded).
    pub fn per_connection(&self) -> bool {
        self.kind == Kind::PerConnection
    }

    /// Why mcpspec cannot lose an instance on purpose, if it cannot.
    pub fn cannot_stop(&self) -> Option<&'static str> {
        (self.kind == Kind::Given).then_some(
            "mcpspec did not start these instances (--url) and does not stop them; use \
             --spawn-http or --replicas N -- CMD",
        )
    }

    /// One more instance from the `--spawn-http` command, for a check that loses it.
    pub async fn spawn_extra(&self) -> Result<Option<Extra>, StartError> {
        let Kind::Spawned(command) = &self.kind else {
            return Ok(None);
        };
        let (port, mut process) = spawn_http(command)?;
        let target = wait_ready(port, &mut process).await?;
        Ok(Some(Extra { target, process }))
    }

    /// A one-line description for reports.
    pub fn describe(&self) -> String {
        let n = self.count();
        match &self.kind {
            Kind::PerConnection => format!("{n} instances (one process or in-memory server each)"),
            Kind::Given => format!("{n} instances (--url)"),
            Kind::Spawned(_) => format!("{n} instances (--spawn-http)"),
        }
    }

    /// Ends every process mcpspec started and waits until each is gone.
    pub async fn shutdown(&mut self) {
        for process in &mut self.spawned {
            process.terminate(Duration::from_secs(2)).await;
        }
    }
}

/// Starts `command` (with `{port}` replaced by a free loopback port) in its own process group.
fn spawn_http(command: &str) -> Result<(u16, ServerHandle), StartError> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| StartError::new(format!("cannot find a free loopback port: {e}")))?
        .port();
    let line = command.replace("{port}", &port.to_string());
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(&line)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let child = cmd
        .spawn()
        .map_err(|e| StartError::new(format!("cannot start `{line}`: {e}")))?;
    crate::target::count_start(child.id());
    Ok((port, ServerHandle::process(child)))
}

/// Waits until the instance on `port` accepts connections and answers first contact; a start
/// failure if it exits first or takes longer than [`SPAWN_READY`].
async fn wait_ready(port: u16, process: &mut ServerHandle) -> Result<Target, StartError> {
    let url = format!("http://127.0.0.1:{port}/mcp");
    let deadline = tokio::time::Instant::now() + SPAWN_READY;
    loop {
        if let crate::transport::Liveness::Exited(info) = process.poll_exit() {
            process.stderr_settled(Duration::from_millis(500)).await;
            let tail = process.stderr_tail().join("\n");
            return Err(StartError::new(format!(
                "the --spawn-http instance for {url} exited before it answered ({}); its \
                 stderr: {tail}",
                info.how
            )));
        }
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(StartError::new(format!(
                "the --spawn-http instance for {url} did not accept connections within {}",
                crate::text::seconds(SPAWN_READY)
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let target = Target::url(&url).map_err(StartError::new)?;
    crate::preflight::preflight(&target, crate::transport::DEFAULT_MAX_MESSAGE).await?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_are_lettered() {
        assert_eq!(label(0), "A");
        assert_eq!(label(2), "C");
        assert_eq!(label(26), "#27");
    }
}
