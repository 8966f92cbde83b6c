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
use mcpspec_core::transport::ServerHandle;

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
                for start in starting {
                    if failed.is_some() {
                        replicas.spawned.push(start.process);
                        continue;
                    }
                    match start_ready(command, start).await {
                        Ok((target, process)) => {
                            replicas.instances.push(target);
                            replicas.spawned.push(process);
                        }
                        Err(e) => failed = Some(e),
                    }
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
        let (target, process) = start_ready(command, spawn_http(command)?).await?;
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

/// How many fresh ports one instance may try: a port picked free can be taken by another
/// process before the instance binds it (CI runs many servers at once).
const PORT_ATTEMPTS: usize = 3;

/// One `--spawn-http` process on its way up.
#[derive(Debug)]
struct Starting {
    port: u16,
    /// The process group mcpspec started (its leader's pid).
    group: Option<u32>,
    process: ServerHandle,
}

/// Starts `command` (with `{port}` replaced by a free loopback port) in its own process group.
fn spawn_http(command: &str) -> Result<Starting, StartError> {
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
    let group = child.id();
    crate::target::count_start(group);
    Ok(Starting {
        port,
        group,
        process: ServerHandle::process(child),
    })
}

/// Waits for `start` to answer; when its port turns out to be served by another process (it
/// was taken between the pick and the instance's bind), ends it and starts the command again
/// on a fresh port, at most [`PORT_ATTEMPTS`] times in all.
async fn start_ready(
    command: &str,
    mut start: Starting,
) -> Result<(Target, ServerHandle), StartError> {
    let mut attempt = 1;
    loop {
        match wait_ready(&mut start).await {
            Ok(target) => return Ok((target, start.process)),
            Err(Ready::Failed(e)) => {
                start.process.terminate(Duration::from_secs(2)).await;
                return Err(e);
            }
            Err(Ready::PortTaken(why)) => {
                start.process.terminate(Duration::from_secs(2)).await;
                if attempt == PORT_ATTEMPTS {
                    return Err(StartError::new(format!(
                        "{why} ({PORT_ATTEMPTS} ports tried)"
                    )));
                }
                attempt += 1;
                start = spawn_http(command)?;
            }
        }
    }
}

/// Why an instance is not ready.
#[derive(Debug)]
enum Ready {
    Failed(StartError),
    /// Another process serves the instance's port; a fresh port may do.
    PortTaken(String),
}

/// Waits until the instance on its port accepts connections and answers first contact; a
/// start failure if it exits first or takes longer than [`SPAWN_READY`]. What answers must be
/// the instance mcpspec started: a server of another process on that port would be judged in
/// its place (where the kernel tells who listens).
async fn wait_ready(start: &mut Starting) -> Result<Target, Ready> {
    let port = start.port;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let deadline = tokio::time::Instant::now() + SPAWN_READY;
    loop {
        if let mcpspec_core::transport::Liveness::Exited(info) = start.process.poll_exit() {
            start
                .process
                .stderr_settled(Duration::from_millis(500))
                .await;
            let tail = start.process.stderr_tail().join("\n");
            return Err(Ready::Failed(StartError::new(format!(
                "the --spawn-http instance for {url} exited before it answered ({}); its \
                 stderr: {tail}",
                info.how
            ))));
        }
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            match listener::served_by_group(port, start.group) {
                listener::Owner::Group | listener::Owner::Unknown => break,
                // The instance may still be starting (or about to fail its bind): the port is
                // not its own, so it is started again elsewhere.
                listener::Owner::Other => {
                    return Err(Ready::PortTaken(format!(
                        "port {port} picked for a --spawn-http instance was taken by another \
                         process before the instance bound it"
                    )));
                }
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Ready::Failed(StartError::new(format!(
                "the --spawn-http instance for {url} did not accept connections within {}",
                mcpspec_core::text::seconds(SPAWN_READY)
            ))));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let target = Target::url(&url).map_err(|e| Ready::Failed(StartError::new(e)))?;
    crate::preflight::preflight(&target, mcpspec_core::transport::DEFAULT_MAX_MESSAGE)
        .await
        .map_err(Ready::Failed)?;
    Ok(target)
}

/// Who listens on a loopback port, read from the kernel's socket tables (Linux `/proc`).
mod listener {
    /// The answer for one port and one process group.
    #[derive(Debug, PartialEq, Eq)]
    pub(super) enum Owner {
        /// A process of the group, or a descendant of one (a server that forks a worker into
        /// a session of its own), holds the listening socket.
        Group,
        /// The listening socket belongs to no process of the group.
        Other,
        /// The system does not say (not Linux, `/proc` unreadable, no group).
        Unknown,
    }

    pub(super) fn served_by_group(port: u16, group: Option<u32>) -> Owner {
        #[cfg(target_os = "linux")]
        if let Some(group) = group {
            return linux::owner(port, group);
        }
        let _ = (port, group);
        Owner::Unknown
    }

    #[cfg(target_os = "linux")]
    mod linux {
        use super::Owner;
        use std::collections::{BTreeMap, BTreeSet};

        pub(super) fn owner(port: u16, group: u32) -> Owner {
            let mut inodes = BTreeSet::new();
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                if let Ok(text) = std::fs::read_to_string(table) {
                    inodes.extend(listening_inodes(&text, port));
                }
            }
            if inodes.is_empty() {
                return Owner::Unknown;
            }
            let Ok(procs) = std::fs::read_dir("/proc") else {
                return Owner::Unknown;
            };
            // Every process: its parent and its group.
            let mut table = BTreeMap::new();
            for entry in procs.flatten() {
                let name = entry.file_name();
                let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                if let Some(ids) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .and_then(|stat| parent_and_group(&stat))
                {
                    table.insert(pid, ids);
                }
            }
            // The parent links first (in memory), the file descriptors only of those.
            if table
                .keys()
                .filter(|pid| of_group(**pid, group, &table))
                .any(|pid| holds_any(*pid, &inodes))
            {
                Owner::Group
            } else {
                Owner::Other
            }
        }

        /// Whether `pid` is in `group` or descends from a process that is (parent links,
        /// bounded by the table's size so that a loop in a stale snapshot ends).
        pub(super) fn of_group(pid: u32, group: u32, table: &BTreeMap<u32, (u32, u32)>) -> bool {
            let mut at = pid;
            for _ in 0..=table.len() {
                match table.get(&at) {
                    Some(&(_, g)) if g == group => return true,
                    Some(&(parent, _)) if parent > 1 => at = parent,
                    _ => return false,
                }
            }
            false
        }

        /// The inodes of the sockets listening on `port` in one `/proc/net/tcp*` table.
        pub(super) fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
            const LISTEN: &str = "0A";
            table
                .lines()
                .skip(1)
                .filter_map(|line| {
                    let fields: Vec<&str> = line.split_whitespace().collect();
                    let local_port = fields.get(1)?.rsplit(':').next()?;
                    let listening = *fields.get(3)? == LISTEN;
                    (listening && u16::from_str_radix(local_port, 16).ok()? == port)
                        .then(|| fields.get(9)?.parse().ok())
                        .flatten()
                })
                .collect()
        }

        /// Fields 4 and 5 of `/proc/PID/stat`, the parent and the process group, read after the
        /// command name (which may hold spaces).
        pub(super) fn parent_and_group(stat: &str) -> Option<(u32, u32)> {
            let rest = &stat[stat.rfind(')')? + 1..];
            let mut fields = rest.split_whitespace().skip(1);
            Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
        }

        fn holds_any(pid: u32, inodes: &BTreeSet<u64>) -> bool {
            let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
                return false;
            };
            fds.flatten().any(|fd| {
                std::fs::read_link(fd.path()).is_ok_and(|link| {
                    link.to_str()
                        .and_then(|l| l.strip_prefix("socket:[")?.strip_suffix(']'))
                        .and_then(|n| n.parse::<u64>().ok())
                        .is_some_and(|inode| inodes.contains(&inode))
                })
            })
        }
    }

    #[cfg(all(test, target_os = "linux"))]
    mod tests {
        use super::linux::{listening_inodes, of_group, parent_and_group};
        use super::*;
        use std::collections::BTreeMap;

        #[test]
        fn a_listening_row_is_read_by_port_and_state() {
            let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
                \x20  0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0\n\
                \x20  1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0 100 0 0 10 0\n";
            assert_eq!(listening_inodes(table, 8080), vec![4242]);
            assert!(listening_inodes(table, 8081).is_empty());
        }

        #[test]
        fn the_group_is_read_after_a_name_with_spaces() {
            assert_eq!(parent_and_group("77 (a b) c) S 1 77 77 0"), Some((1, 77)));
            assert_eq!(parent_and_group("78 (a b) c) S 77 78 77 0"), Some((77, 78)));
        }

        /// A worker forked into a group (or session) of its own still belongs to the instance
        /// whose process started it; an unrelated process does not, nor does one whose line
        /// of parents reaches init without meeting the group.
        #[test]
        fn a_descendant_of_the_group_is_the_group() {
            // pid -> (parent, group): the instance 100 (group 100), its worker 101 in group
            // 101, the worker's child 102; an unrelated 200 under init; a parent loop.
            let table = BTreeMap::from([
                (100, (1, 100)),
                (101, (100, 101)),
                (102, (101, 101)),
                (200, (1, 200)),
                (300, (301, 300)),
                (301, (300, 301)),
            ]);
            assert!(of_group(100, 100, &table));
            assert!(of_group(101, 100, &table));
            assert!(of_group(102, 100, &table));
            assert!(!of_group(200, 100, &table));
            assert!(!of_group(300, 100, &table));
            assert!(!of_group(999, 100, &table));
        }

        #[test]
        fn a_listener_belongs_to_the_group_that_holds_it() {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = l.local_addr().unwrap().port();
            let own_group = std::fs::read_to_string("/proc/self/stat")
                .ok()
                .and_then(|s| parent_and_group(&s))
                .map(|(_, group)| group)
                .unwrap();
            assert_eq!(served_by_group(port, Some(own_group)), Owner::Group);
            // A group with no process in it (pid 0 leads none).
            assert_eq!(served_by_group(port, Some(0)), Owner::Other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The race CI hit: the port picked for an instance is served by another process (here,
    /// this one) while the instance is still starting; the instance is not taken for it.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_port_served_by_another_process_is_not_the_instance() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let mut cmd = tokio::process::Command::new("sleep");
        cmd.arg("30").kill_on_drop(true).process_group(0);
        let child = cmd.spawn().unwrap();
        let mut start = Starting {
            port,
            group: child.id(),
            process: ServerHandle::process(child),
        };
        match wait_ready(&mut start).await {
            Err(Ready::PortTaken(why)) => assert!(why.contains(&port.to_string()), "{why}"),
            other => panic!("the other process's port was taken for the instance: {other:?}"),
        }
        start.process.terminate(Duration::from_secs(2)).await;
    }

    #[test]
    fn instances_are_lettered() {
        assert_eq!(label(0), "A");
        assert_eq!(label(2), "C");
        assert_eq!(label(26), "#27");
    }
}
