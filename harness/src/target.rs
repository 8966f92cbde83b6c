//! Targets: what mcpspec tests. A command spawned over stdio (in its own process group), or the
//! embedded reference server running in memory.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_reference_server as reference;

use mcpspec_core::transport::{LineReader, LineTransport, ServerHandle};

tokio::task_local! {
    /// The run's record of servers started (see [`counting_starts`]).
    static STARTED: Arc<Started>;
}

/// The servers a run started: how many (the run summary's "processes started"), and the process
/// groups of those that are processes, so that the run can end only once every one is gone.
#[derive(Debug, Default)]
pub struct Started {
    count: AtomicUsize,
    groups: std::sync::Mutex<Vec<u32>>,
}

impl Started {
    /// How many servers were started (processes and in-memory servers).
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// Waits, up to `within`, until no process of any group started is left (a dropped server
    /// is killed at once but reaped a moment later; a shell's child, later still).
    pub async fn wait_gone(&self, within: std::time::Duration) {
        let groups = self.groups.lock().map(|g| g.clone()).unwrap_or_default();
        let deadline = tokio::time::Instant::now() + within;
        for group in groups {
            mcpspec_core::transport::wait_group_gone(group, deadline).await;
        }
    }
}

/// Runs `f` with every server [`Target::connect`] starts in it (a process, or an in-memory
/// server) recorded in `started`. Tasks spawned inside must be wrapped again.
pub fn counting_starts<F: std::future::Future>(
    started: Arc<Started>,
    f: F,
) -> impl std::future::Future<Output = F::Output> {
    STARTED.scope(started, f)
}

/// Records one server started; `group`: the process group it leads, if it is a process.
pub(crate) fn count_start(group: Option<u32>) {
    let _ = STARTED.try_with(|s| {
        s.count.fetch_add(1, Ordering::Relaxed);
        if let (Some(group), Ok(mut groups)) = (group, s.groups.lock()) {
            groups.push(group);
        }
    });
}

/// The transport a target is reached over (and a fuzz oracle rule is stated for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// Newline-delimited JSON on a process's stdio (or the embedded server's pipe).
    Stdio,
    /// Streamable HTTP.
    Http,
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TransportKind::Stdio => "over stdio",
            TransportKind::Http => "over HTTP",
        })
    }
}

/// A server to test.
#[derive(Debug, Clone)]
pub enum Target {
    /// The reference server, in this process, over an in-memory pipe.
    Embedded(reference::Config),
    /// Any stdio server: a program and its arguments.
    Command {
        program: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint (`http://host:port/path`).
    Url(mcpspec_core::transport::http::client::Endpoint),
}

/// The target could not be started or reached (exit code 3): one message naming the cause,
/// with the tail of the server's stderr when there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StartError {
    pub message: String,
}

impl StartError {
    pub fn new(message: impl Into<String>) -> Self {
        StartError {
            message: message.into(),
        }
    }

    fn spawn(program: &str, source: &std::io::Error) -> Self {
        StartError::new(format!("cannot start `{program}`: {source}"))
    }
}

impl Target {
    /// The embedded reference server with default settings.
    pub fn embedded() -> Self {
        Target::Embedded(reference::Config::default())
    }

    /// A stdio command.
    pub fn command(program: impl Into<String>) -> Self {
        Target::Command {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
        }
    }

    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        if let Target::Command { args, .. } = &mut self {
            args.push(arg.into());
        }
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, more: I) -> Self {
        if let Target::Command { args, .. } = &mut self {
            args.extend(more.into_iter().map(Into::into));
        }
        self
    }

    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Target::Command { env, .. } = &mut self {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// One line naming the target, for reports.
    pub fn describe(&self) -> String {
        match self {
            Target::Embedded(config) => {
                let mut notes: Vec<String> = Vec::new();
                match config.eras {
                    reference::Eras::Both => {}
                    reference::Eras::Modern => notes.push("eras: modern".into()),
                    reference::Eras::Legacy => notes.push("eras: legacy".into()),
                }
                let faults: Vec<_> = config.faults.iter().map(|f| f.name()).collect();
                if !faults.is_empty() {
                    notes.push(format!("faults: {}", faults.join(", ")));
                }
                if config.probe_profile {
                    notes.push("probe profile".into());
                }
                if notes.is_empty() {
                    "embedded reference server".into()
                } else {
                    format!("embedded reference server ({})", notes.join("; "))
                }
            }
            Target::Url(e) => e.url(),
            Target::Command { program, args, .. } => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// The transport name for reports.
    pub fn transport_name(&self) -> &'static str {
        match self {
            Target::Embedded(_) => "in-memory",
            Target::Command { .. } => "stdio",
            Target::Url(_) => "http",
        }
    }

    /// A streamable HTTP target.
    pub fn url(url: &str) -> Result<Self, String> {
        mcpspec_core::transport::http::client::Endpoint::parse(url).map(Target::Url)
    }

    /// The same target, every request to it carrying `credentials` (an HTTP target; others
    /// are left as they are: a stdio server takes credentials from its environment).
    pub fn with_credentials(
        self,
        credentials: Option<Arc<dyn mcpspec_core::transport::http::client::Credentials>>,
    ) -> Self {
        match self {
            Target::Url(endpoint) => Target::Url(endpoint.with_credentials(credentials)),
            target @ (Target::Embedded(_) | Target::Command { .. }) => target,
        }
    }

    /// The credentials its requests carry, when it is an HTTP target that has some.
    pub fn credentials(
        &self,
    ) -> Option<Arc<dyn mcpspec_core::transport::http::client::Credentials>> {
        match self {
            Target::Url(endpoint) => endpoint.credentials.clone(),
            Target::Embedded(_) | Target::Command { .. } => None,
        }
    }

    /// The transport the target is reached over. Code whose behaviour depends on the transport
    /// matches this exhaustively (never with a wildcard), so that a new transport is a compile
    /// error everywhere it must be answered.
    pub fn kind(&self) -> TransportKind {
        match self {
            // The embedded server is read the same way as a process: line by line.
            Target::Embedded(_) | Target::Command { .. } => TransportKind::Stdio,
            Target::Url(_) => TransportKind::Http,
        }
    }

    /// Starts a fresh server and returns the byte transport to it.
    pub fn connect(&self, max_message: usize) -> Result<LineTransport, StartError> {
        match self {
            Target::Url(endpoint) => Ok(mcpspec_core::transport::http::connect(
                endpoint.clone(),
                max_message,
            )),
            Target::Embedded(config) => {
                // Two pipes: client→server (the server's stdin) and server→client (its stdout).
                let (client_out, server_in) = tokio::io::duplex(256 * 1024);
                let (server_out, client_in) = tokio::io::duplex(256 * 1024);
                count_start(None);
                let task = tokio::spawn(reference::serve_stream(
                    config.clone(),
                    server_in,
                    server_out,
                ));
                Ok(LineTransport::new(
                    Box::new(client_out),
                    LineReader::new(Box::new(client_in), max_message),
                    ServerHandle::task(task),
                ))
            }
            Target::Command {
                program,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(program);
                cmd.args(args)
                    .envs(env.iter().map(|(k, v)| (k, v)))
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .kill_on_drop(true);
                #[cfg(unix)]
                cmd.process_group(0);
                if let Some(dir) = cwd {
                    cmd.current_dir(dir);
                }
                let mut child = cmd
                    .spawn()
                    .map_err(|source| StartError::spawn(program, &source))?;
                count_start(child.id());
                let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                    return Err(StartError::spawn(
                        program,
                        &std::io::Error::other("stdio pipes were not created"),
                    ));
                };
                Ok(LineTransport::new(
                    Box::new(stdin),
                    LineReader::new(Box::new(stdout), max_message),
                    ServerHandle::process(child),
                ))
            }
        }
    }
}

/// The command-line description of a target, shared by `run`, `negotiate`, `fuzz` and
/// `replay`: a URL, a command after `--`, or (neither) the embedded reference server with
/// faults and an eras mode.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TargetArgs {
    /// A streamable HTTP server (`http://127.0.0.1:PORT/mcp`) instead of a command. `run` takes
    /// several: instances of one deployment (POL-22).
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Vec<String>,
    /// Embedded reference server only: switch on a fault. Repeatable.
    #[arg(long, value_name = "NAME")]
    pub fault: Vec<String>,
    /// Embedded reference server only: which eras it serves (modern, legacy, both).
    #[arg(long, value_name = "MODE")]
    pub eras: Option<String>,
    /// The server command and its arguments, after `--` (default: the embedded reference
    /// server).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Credentials for an HTTP target (`--header`, `--bearer*`, `--auth-issuer`).
    #[command(flatten)]
    pub auth: crate::auth::AuthArgs,
}

impl TargetArgs {
    /// As [`TargetArgs::target`], taking several `--url`s as instances of one server: the
    /// first is the target, and all of them the instances (POL-22).
    pub fn target_and_urls(&self, probe_profile: bool) -> Result<(Target, Vec<String>), String> {
        match self.url.as_slice() {
            [first, _, ..] => {
                if !self.fault.is_empty() || self.eras.is_some() {
                    return Err(
                        "--fault and --eras apply to the embedded reference server only".into(),
                    );
                }
                Ok((self.authorize(Target::url(first)?)?, self.url.clone()))
            }
            _ => Ok((self.target(probe_profile)?, Vec::new())),
        }
    }

    /// No target flags, only these credentials (the `cargo test` builder's).
    pub fn default_with_auth(auth: crate::auth::AuthArgs) -> Self {
        TargetArgs {
            auth,
            ..TargetArgs::default()
        }
    }

    /// `target` with the credentials the flags give: only an HTTP target takes them.
    pub fn authorize(&self, target: Target) -> Result<Target, String> {
        if self.auth.is_empty() {
            return Ok(target);
        }
        let Target::Url(endpoint) = &target else {
            return Err(
                "--header, --bearer, --bearer-env, --bearer-command and --auth-issuer apply to \
                 HTTP targets (--url): a stdio server takes its credentials from its environment"
                    .into(),
            );
        };
        let credentials = self.auth.credentials(&endpoint.url())?;
        Ok(target.with_credentials(credentials.map(crate::auth::Credentials::into_shared)))
    }

    /// The target these arguments name; `probe_profile` switches the embedded server's probe
    /// profile on. A one-line error for a usage mistake.
    pub fn target(&self, probe_profile: bool) -> Result<Target, String> {
        let embedded_only = !self.fault.is_empty() || self.eras.is_some();
        if self.url.len() > 1 {
            return Err("several --url (instances of one server) are for `mcpspec run`".into());
        }
        if let Some(url) = self.url.first() {
            if embedded_only {
                return Err(
                    "--fault and --eras apply to the embedded reference server only".into(),
                );
            }
            return self.authorize(Target::url(url)?);
        }
        if let Some((program, rest)) = self.command.split_first() {
            if embedded_only {
                return Err(
                    "--fault and --eras apply to the embedded reference server only".into(),
                );
            }
            return self.authorize(Target::command(program.clone()).args(rest.iter().cloned()));
        }
        let mut config = reference::Config {
            probe_profile,
            ..reference::Config::default()
        };
        for name in &self.fault {
            let fault: reference::Fault = name.parse().map_err(|e| format!("{e}"))?;
            config.faults = std::mem::take(&mut config.faults).with(fault);
        }
        config.eras = match self.eras.as_deref() {
            None | Some("both") => reference::Eras::Both,
            Some("modern") => reference::Eras::Modern,
            Some("legacy") => reference::Eras::Legacy,
            Some(other) => {
                return Err(format!(
                    "--eras takes modern, legacy or both, not `{other}`"
                ));
            }
        };
        self.authorize(Target::Embedded(config))
    }
}
