//! The machinery of the hostile-target suite: the targets (`fixtures/hostile/hostile.py` over
//! stdio or HTTP), one bounded run of the real `mcpspec` binary with its peak RSS sampled, and
//! the expectations every test states.
//!
//! A run:
//! 1. spawns `mcpspec` with stdout and stderr captured (the first and last 256 KiB of each);
//! 2. every 20 ms (every 1 ms for the first 300 ms) reads `VmHWM`/`VmRSS` from
//!    `/proc/<pid>/status`, then polls for its exit (sampling before reaping, so the pid read
//!    is always mcpspec's);
//! 3. kills it if it outlives its kill timer or its RSS passes [`RSS_KILL`] (the test then
//!    fails, naming why);
//! 4. scans `/proc/*/cmdline` for the target's marker argument for up to 2 s, then kills and
//!    names whatever of the target is still alive.
//!
//! An expectation that is not met does not stop the test: every gap is collected, and the
//! failure prints them all with the exit code, wall time, peak RSS and the tail of the output.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const MIB: u64 = 1024 * 1024;
/// The bound on mcpspec's resident memory against any target.
pub const RSS_BOUND: u64 = 64 * MIB;
/// A wall-time bound on a run: the window, what mcpspec's own waits can add up to with the
/// run's flags (a scenario cap, a start-up allowance), plus the slack, room for a loaded
/// 2-core machine. Only the slack is stretched by `MCPSPEC_TEST_TIME_SCALE`: the window is
/// mcpspec's claim, the slack the machine's.
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    /// The window's fixed part (scenario caps, reply waits).
    window: Duration,
    /// How many start-up allowances of a new process the window also holds (the probe, the
    /// pool's qualification): mcpspec's own default, read from it, not restated here.
    start_ups: u32,
    slack: Duration,
}

impl Bound {
    pub const fn secs(window: u64, slack: u64) -> Self {
        Bound {
            window: Duration::from_secs(window),
            start_ups: 0,
            slack: Duration::from_secs(slack),
        }
    }

    /// The same bound with `n` start-up allowances in its window.
    pub const fn and_start_ups(mut self, n: u32) -> Self {
        self.start_ups = n;
        self
    }

    /// mcpspec's window: the fixed part and the start-up allowances.
    pub fn window(self) -> Duration {
        self.window + mcpspec_harness::driver::Settings::default().startup_timeout * self.start_ups
    }

    /// The bound on this machine: the window plus the scaled slack.
    pub fn limit(self) -> Duration {
        self.window() + crate::support::scaled(self.slack)
    }
}

/// The cause is known as soon as the target starts (or fails to): "within 1 s of the cause
/// being known".
pub const AT_ONCE: Bound = Bound::secs(1, 4);
/// A target that never produces a JSON-RPC message: the probe waits out the start-up
/// allowance.
pub const NO_MESSAGE: Bound = Bound::secs(0, 20).and_start_ups(1);
/// Floods: the run ends within checks × scenario cap / jobs (5 × 5 s / 2, rounded up) plus the
/// probe's start-up allowance.
pub const FLOOD: Bound = Bound::secs(13, 37).and_start_ups(1);
/// The flags every `run` gets: short waits and a small scenario cap.
pub const QUICK: &[&str] = &["--timeout", "1", "--scenario-timeout", "5"];

/// Bytes kept of each end of a stream.
const KEEP: usize = 256 * 1024;
const SAMPLE_EVERY: Duration = Duration::from_millis(20);
/// For the first [`FAST_SAMPLING`] the sampler reads every millisecond, so that a run over in
/// a few milliseconds still shows its memory.
const FAST_SAMPLE_EVERY: Duration = Duration::from_millis(1);
const FAST_SAMPLING: Duration = Duration::from_millis(300);
/// A run whose RSS passes this is killed at once: the machine is protected, the test fails.
pub const RSS_KILL: u64 = 1024 * MIB;
/// How long the target's processes may take to disappear after mcpspec exits.
const SURVIVOR_GRACE: Duration = Duration::from_secs(2);

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `fixtures/hostile/hostile.py`.
pub fn script() -> PathBuf {
    repo_root().join("fixtures/hostile/hostile.py")
}

/// A marker no other process carries: the test's name, this process and the clock.
pub fn marker(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("hostile-{name}-{}-{nanos}", std::process::id())
}

/// What mcpspec is pointed at.
#[derive(Debug)]
pub enum Target {
    /// `-- python3 hostile.py stdio MODE --marker M ARGS…`
    Stdio { args: Vec<String>, marker: String },
    /// `--url URL`; the server (if any) is the test's, stopped by [`Expect::server_stopped`].
    Url { url: String },
    /// `-- PROGRAM`: a command that cannot be started.
    Program { program: String, marker: String },
}

impl Target {
    /// A stdio mode of hostile.py with extra arguments.
    pub fn stdio(name: &str, mode_args: &[&str]) -> Self {
        let marker = marker(name);
        let mut args = vec![
            crate::support::python3().to_string(),
            script().display().to_string(),
            "stdio".into(),
        ];
        args.extend(mode_args.iter().map(|s| s.to_string()));
        args.extend(["--marker".into(), marker.clone()]);
        Target::Stdio { args, marker }
    }

    fn marker(&self) -> Option<&str> {
        match self {
            Target::Stdio { marker, .. } | Target::Program { marker, .. } => Some(marker),
            Target::Url { .. } => None,
        }
    }

    /// What the output is searched without: a port or a marker may contain "302" or "500".
    fn redactions(&self) -> Vec<String> {
        match self {
            Target::Url { url } => vec![url.clone()],
            Target::Stdio { marker, .. } | Target::Program { marker, .. } => vec![marker.clone()],
        }
    }

    fn args(&self) -> Vec<String> {
        match self {
            Target::Stdio { args, .. } => std::iter::once("--".to_string())
                .chain(args.iter().cloned())
                .collect(),
            Target::Url { url, .. } => vec!["--url".into(), url.clone()],
            Target::Program { program, .. } => vec!["--".into(), program.clone()],
        }
    }
}

/// An HTTP mode of hostile.py on 127.0.0.1 and a free port; killed when dropped.
#[derive(Debug)]
pub struct HttpServer {
    child: Child,
    pub port: u16,
    pub marker: String,
}

impl HttpServer {
    pub fn start(name: &str, mode: &str, extra: &[&str]) -> Self {
        let marker = marker(name);
        let mut command = Command::new(crate::support::python3());
        command
            .arg(script())
            .args(["http", mode, "--port", "0", "--marker", &marker])
            .args(extra);
        let (child, port) =
            crate::support::spawn_announcing_port(command, &format!("hostile.py http {mode}"));
        HttpServer {
            child,
            port,
            marker,
        }
    }

    /// The endpoint, as a target.
    pub fn target(&self) -> Target {
        Target::Url {
            url: format!("http://127.0.0.1:{}/mcp", self.port),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
pub fn refused_target() -> Target {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let port = listener.local_addr().expect("a local address").port();
    drop(listener);
    Target::Url {
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// A command that does not exist.
pub fn unstartable_target(name: &str) -> Target {
    let marker = marker(name);
    Target::Program {
        program: format!("/nonexistent/{marker}/mcp-server"),
        marker,
    }
}

/// One end of a captured stream: the first and last [`KEEP`] bytes.
#[derive(Debug, Default)]
pub struct Captured {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    pub total: u64,
}

impl Captured {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = KEEP.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend(rest);
        while self.tail.len() > KEEP {
            self.tail.pop_front();
        }
    }

    /// The kept text (lossy UTF-8), with a marker where bytes were dropped.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let kept = (self.head.len() + self.tail.len()) as u64;
        if kept < self.total {
            text.push_str(&format!("\n[… {} bytes not kept …]\n", self.total - kept));
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        text.push_str(&String::from_utf8_lossy(&tail));
        text
    }
}

fn capture(mut stream: impl Read + Send + 'static) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut captured = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => captured.push(&buf[..n]),
            }
        }
        let _ = tx.send(captured);
    });
    rx
}

/// What one run of mcpspec did.
#[derive(Debug)]
pub struct Observed {
    pub name: String,
    pub command: String,
    pub status: Option<ExitStatus>,
    pub wall: Duration,
    /// Peak resident set size in bytes (the largest `VmHWM`/`VmRSS` seen).
    pub peak_rss: u64,
    pub stdout: String,
    pub stderr: String,
    /// Why the test killed mcpspec, if it did.
    pub killed: Option<String>,
    /// Processes of the target still alive after mcpspec exited (they have been killed).
    pub survivors: Vec<String>,
    /// The `--json` report of a `run`, when one was written.
    pub report: Option<serde_json::Value>,
    /// The `--out` directory of a `fuzz`.
    pub out_dir: Option<PathBuf>,
    /// Strings replaced by `<target>` before the output is searched.
    pub redactions: Vec<String>,
}

/// A scratch directory for one run.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(marker(&format!("scratch-{name}")));
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// `mcpspec run FLAGS… TARGET` with a JSON report; killed after `kill_after`.
pub fn run(name: &str, flags: &[&str], target: &Target, kill_after: Duration) -> Observed {
    let dir = scratch(name);
    let json = dir.join("report.json");
    let mut args: Vec<String> = vec!["run".into()];
    args.extend(flags.iter().map(|s| s.to_string()));
    args.extend(["--json".into(), json.display().to_string()]);
    args.extend(target.args());
    let mut observed = mcpspec(name, &args, target, kill_after);
    // A report is read only if it is of a sane size (a flood's transcript must not make the
    // test itself the process that runs out of memory).
    let sane = std::fs::metadata(&json).is_ok_and(|m| m.len() < 64 * MIB);
    observed.report = sane
        .then(|| std::fs::read_to_string(&json).ok())
        .flatten()
        .and_then(|t| serde_json::from_str(&t).ok());
    let _ = std::fs::remove_dir_all(&dir);
    observed
}

/// `mcpspec negotiate TARGET`; killed after `kill_after`.
pub fn negotiate(name: &str, target: &Target, kill_after: Duration) -> Observed {
    let mut args: Vec<String> = vec!["negotiate".into()];
    args.extend(target.args());
    mcpspec(name, &args, target, kill_after)
}

/// `mcpspec fuzz --time SECS --out DIR TARGET`; killed after `kill_after`. The directory is
/// left for [`Expect::no_finding_written`] and removed by it.
pub fn fuzz(name: &str, secs: &str, target: &Target, kill_after: Duration) -> Observed {
    let dir = scratch(name).join("out");
    let mut args: Vec<String> = vec!["fuzz".into(), "--time".into(), secs.into()];
    args.extend(["--seed".into(), "1".into(), "--out".into()]);
    args.push(dir.display().to_string());
    args.extend(target.args());
    let mut observed = mcpspec(name, &args, target, kill_after);
    observed.out_dir = Some(dir);
    observed
}

/// Runs the mcpspec binary with `args`, sampling its RSS, killing it after `kill_after`, then
/// reaping whatever process still carries the target's marker.
fn mcpspec(name: &str, args: &[String], target: &Target, kill_after: Duration) -> Observed {
    let command = format!("mcpspec {}", args.join(" "));
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpspec"))
        .args(args)
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mcpspec binary starts");
    let out = capture(child.stdout.take().expect("stdout is piped"));
    let err = capture(child.stderr.take().expect("stderr is piped"));
    let pid = child.id();
    let mut peak_rss = 0;
    let mut killed = None;
    let status = loop {
        // Sample first: until try_wait reaps it, the pid is mcpspec's (or its zombie's).
        peak_rss = peak_rss.max(rss_of(pid));
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        if started.elapsed() > kill_after {
            killed = Some(format!(
                "it was still running after {} s",
                kill_after.as_secs()
            ));
        } else if peak_rss > RSS_KILL {
            killed = Some(format!(
                "its RSS passed {} MiB after {:.1} s",
                RSS_KILL / MIB,
                started.elapsed().as_secs_f64()
            ));
        }
        if killed.is_some() {
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(if started.elapsed() < FAST_SAMPLING {
            FAST_SAMPLE_EVERY
        } else {
            SAMPLE_EVERY
        });
    };
    let wall = started.elapsed();
    let collect = |rx: mpsc::Receiver<Captured>| {
        rx.recv_timeout(Duration::from_secs(5))
            .map(|c| c.text())
            .unwrap_or_else(|_| "[the stream was still open 5 s after mcpspec exited]".into())
    };
    let (stdout, stderr) = (collect(out), collect(err));
    let survivors = target.marker().map(reap_survivors).unwrap_or_default();
    Observed {
        name: name.into(),
        command,
        status,
        wall,
        peak_rss,
        stdout,
        stderr,
        killed,
        survivors,
        report: None,
        out_dir: None,
        redactions: target.redactions(),
    }
}

/// The larger of `VmHWM` and `VmRSS` of `pid`, in bytes; 0 if unreadable, or if `pid` has not
/// yet become mcpspec (between spawn and exec it still shares this test's memory).
fn rss_of(pid: u32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    if !status.lines().any(|l| l == "Name:\tmcpspec") {
        return 0;
    }
    status
        .lines()
        .filter(|l| l.starts_with("VmHWM:") || l.starts_with("VmRSS:"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .max()
        .unwrap_or(0)
        * 1024
}

/// Processes (other than this one) whose command line contains `marker`: "pid: cmdline".
fn carrying(marker: &str) -> Vec<(u32, String)> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter_map(|pid| {
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
            cmdline
                .contains(marker)
                .then(|| (pid, cmdline.trim().to_string()))
        })
        .collect()
}

/// Waits up to [`SURVIVOR_GRACE`] for every process carrying `marker` to end; kills and names
/// the ones that did not. "Ended" means three scans 50 ms apart found none: a process in the
/// middle of an `exec` (python3 may be a shim script) can be missing from a single scan.
pub fn reap_survivors(marker: &str) -> Vec<String> {
    let deadline = Instant::now() + SURVIVOR_GRACE;
    let mut clean_scans = 0;
    loop {
        let alive = carrying(marker);
        if alive.is_empty() {
            clean_scans += 1;
            if clean_scans == 3 {
                return Vec::new();
            }
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        clean_scans = 0;
        if Instant::now() > deadline {
            for (pid, _) in &alive {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stderr(Stdio::null())
                    .status();
            }
            return alive
                .into_iter()
                .map(|(pid, cmd)| format!("pid {pid}: {cmd}"))
                .collect();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The expectations on one run; [`Expect::finish`] fails the test with every unmet one.
#[derive(Debug)]
pub struct Expect<'a> {
    observed: &'a Observed,
    gaps: Vec<String>,
    /// The phrases the verdict is looked for by (for the summary line).
    phrases: Vec<String>,
}

pub fn expect(observed: &Observed) -> Expect<'_> {
    Expect {
        observed,
        gaps: Vec::new(),
        phrases: Vec::new(),
    }
}

impl Expect<'_> {
    fn text(&self) -> String {
        let mut text = format!("{}\n{}", self.observed.stdout, self.observed.stderr);
        for r in &self.observed.redactions {
            text = text.replace(r.as_str(), "<target>");
        }
        text
    }

    /// The exit code is `want`.
    pub fn code(self, want: i32) -> Self {
        self.code_in(&[want])
    }

    /// The exit code is one of `allowed`.
    pub fn code_in(mut self, allowed: &[i32]) -> Self {
        let code = self.observed.status.and_then(|s| s.code());
        if !code.is_some_and(|c| allowed.contains(&c)) {
            self.gaps.push(format!(
                "exit code: expected {}, got {}",
                allowed
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(" or "),
                describe_status(self.observed.status)
            ));
        }
        self
    }

    /// The run took less than `bound`'s window plus its (scaled) slack.
    pub fn within(mut self, bound: Bound) -> Self {
        let limit = bound.limit();
        if self.observed.wall >= limit {
            self.gaps.push(format!(
                "wall time: expected < {:.2} s (window {:.2} s + slack {:.2} s × {} {}), took {:.2} s",
                limit.as_secs_f64(),
                bound.window().as_secs_f64(),
                bound.slack.as_secs_f64(),
                crate::support::TIME_SCALE_VAR,
                crate::support::time_scale(),
                self.observed.wall.as_secs_f64()
            ));
        }
        self
    }

    /// mcpspec's peak RSS stayed below `bound` bytes.
    pub fn rss_below(mut self, bound: u64) -> Self {
        if self.observed.peak_rss >= bound {
            self.gaps.push(format!(
                "peak RSS: expected < {:.1} MiB, got {:.1} MiB",
                bound as f64 / MIB as f64,
                self.observed.peak_rss as f64 / MIB as f64
            ));
        }
        self
    }

    /// stdout or stderr contains every phrase (case-insensitive).
    pub fn says(mut self, phrases: &[&str]) -> Self {
        let text = self.text().to_lowercase();
        self.phrases.extend(phrases.iter().map(|p| p.to_string()));
        for p in phrases {
            if !text.contains(&p.to_lowercase()) {
                self.gaps.push(format!("the output does not say {p:?}"));
            }
        }
        self
    }

    /// stdout or stderr contains at least one of the phrases (case-insensitive).
    pub fn says_one_of(mut self, phrases: &[&str]) -> Self {
        let text = self.text().to_lowercase();
        self.phrases.extend(phrases.iter().map(|p| p.to_string()));
        if !phrases.iter().any(|p| text.contains(&p.to_lowercase())) {
            self.gaps
                .push(format!("the output says none of {phrases:?}"));
        }
        self
    }

    /// One line names the cause (contains every phrase), and the whole output is at most
    /// `max_lines` non-empty lines (a banner, the cause, the target's stderr tail): no table,
    /// no list of failures, no second verdict.
    pub fn one_line_naming(mut self, phrases: &[&str], max_lines: usize) -> Self {
        let text = self.text();
        self.phrases.extend(phrases.iter().map(|p| p.to_string()));
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let names = |l: &&str| {
            let l = l.to_lowercase();
            phrases.iter().all(|p| l.contains(&p.to_lowercase()))
        };
        if !lines.iter().any(names) {
            self.gaps
                .push(format!("no line of the output says all of {phrases:?}"));
        }
        if lines.len() > max_lines {
            self.gaps.push(format!(
                "expected at most {max_lines} line(s) of output, got {}",
                lines.len()
            ));
        }
        self
    }

    /// The verdict of check `id` in the JSON report contains every phrase (case-insensitive).
    pub fn verdict_of(mut self, id: &str, phrases: &[&str]) -> Self {
        self.phrases.extend(phrases.iter().map(|p| p.to_string()));
        let Some(message) = self.verdict(id) else {
            self.gaps
                .push(format!("no verdict of {id} in the JSON report"));
            return self;
        };
        let lower = message.to_lowercase();
        for p in phrases {
            if !lower.contains(&p.to_lowercase()) {
                self.gaps
                    .push(format!("the verdict of {id} does not say {p:?}: {message}"));
            }
        }
        self
    }

    /// Some check's verdict contains at least one of the phrases (case-insensitive).
    pub fn some_verdict_one_of(mut self, phrases: &[&str]) -> Self {
        self.phrases.extend(phrases.iter().map(|p| p.to_string()));
        let found = self.verdicts().iter().any(|(_, m)| {
            let m = m.to_lowercase();
            phrases.iter().any(|p| m.contains(&p.to_lowercase()))
        });
        if !found {
            self.gaps
                .push(format!("no check's verdict says any of {phrases:?}"));
        }
        self
    }

    /// No verdict other than a pass contains `phrase` (case-insensitive): a cause must not be
    /// reported as something else ("timed out", "no reply within").
    pub fn no_verdict_says(mut self, phrase: &str) -> Self {
        let lower = phrase.to_lowercase();
        for (id, m) in self.verdicts() {
            if !m.starts_with("pass:") && m.to_lowercase().contains(&lower) {
                self.gaps
                    .push(format!("the verdict of {id} says {phrase:?}: {m}"));
            }
        }
        self
    }

    /// Stops the test's HTTP server and checks that none of its processes is left.
    pub fn server_stopped(mut self, mut server: HttpServer) -> Self {
        let _ = server.child.kill();
        let _ = server.child.wait();
        for s in reap_survivors(&server.marker) {
            self.gaps
                .push(format!("a process of the HTTP target survived: {s}"));
        }
        self
    }

    /// `mcpspec fuzz` wrote nothing into its `--out` directory.
    pub fn no_finding_written(mut self) -> Self {
        if let Some(dir) = &self.observed.out_dir {
            let files = files_under(dir);
            if !files.is_empty() {
                self.gaps.push(format!(
                    "fuzz wrote {} file(s): {}",
                    files.len(),
                    files
                        .iter()
                        .map(|f| f.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if let Some(parent) = dir.parent() {
                let _ = std::fs::remove_dir_all(parent);
            }
        }
        self
    }

    fn verdicts(&self) -> Vec<(String, String)> {
        let Some(results) = self
            .observed
            .report
            .as_ref()
            .and_then(|r| r["results"].as_array())
        else {
            return Vec::new();
        };
        results
            .iter()
            .map(|r| {
                let mut message = format!(
                    "{}: {}",
                    r["outcome"]["kind"].as_str().unwrap_or("?"),
                    r["outcome"]["message"].as_str().unwrap_or("")
                );
                for redact in &self.observed.redactions {
                    message = message.replace(redact.as_str(), "<target>");
                }
                (r["id"].as_str().unwrap_or("?").to_string(), message)
            })
            .collect()
    }

    fn verdict(&self, id: &str) -> Option<String> {
        self.verdicts()
            .into_iter()
            .find(|(i, _)| i == id)
            .map(|(_, m)| m)
    }

    /// Checks what every run must do (end by itself, no panic, no surviving target process),
    /// prints the summary line, and fails with every gap.
    pub fn finish(mut self) {
        let o = self.observed;
        if let Some(why) = &o.killed {
            self.gaps.insert(
                0,
                format!("mcpspec did not end by itself: the test killed it ({why})"),
            );
        }
        if o.status.and_then(|s| s.code()) == Some(101) || self.text().contains("panicked") {
            self.gaps.push("mcpspec panicked".into());
        }
        for s in &o.survivors {
            self.gaps
                .push(format!("a process of the target survived mcpspec: {s}"));
        }
        let verdict = self.relevant_line();
        let exit = match &o.killed {
            Some(why) => format!("killed: {why}"),
            None => describe_status(o.status),
        };
        eprintln!(
            "HOSTILE | {} | {} | exit {} | {:.2} s | {:.1} MiB | {}",
            o.name,
            if self.gaps.is_empty() { "pass" } else { "FAIL" },
            exit,
            o.wall.as_secs_f64(),
            o.peak_rss as f64 / MIB as f64,
            verdict
        );
        if self.gaps.is_empty() {
            return;
        }
        panic!(
            "{}: {} gap(s)\n  - {}\n\ncommand: {}\nexit: {}\nwall: {:.2} s\npeak RSS: {:.1} MiB\n\
             relevant line: {}\n\n--- stdout (tail) ---\n{}\n--- stderr (tail) ---\n{}",
            o.name,
            self.gaps.len(),
            self.gaps.join("\n  - "),
            o.command,
            describe_status(o.status),
            o.wall.as_secs_f64(),
            o.peak_rss as f64 / MIB as f64,
            verdict,
            tail(&o.stdout, 40),
            tail(&o.stderr, 40),
        );
    }

    /// The line of the output that best shows the verdict: one containing an expected phrase,
    /// else mcpspec's own error line, else the first check that did not pass, else the summary.
    fn relevant_line(&self) -> String {
        let text = self.text();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let phrase_line = lines.iter().find(|l| {
            let l = l.to_lowercase();
            self.phrases.iter().any(|p| l.contains(&p.to_lowercase()))
        });
        let pick = phrase_line
            .or_else(|| {
                lines
                    .iter()
                    .rev()
                    .find(|l| l.starts_with("mcpspec:") || l.starts_with("mcpspec fuzz:"))
            })
            .or_else(|| {
                lines.iter().find(|l| {
                    ["FAIL ", "ERROR ", "NON-STRICT ", "SKIP "]
                        .iter()
                        .any(|k| l.starts_with(k))
                })
            })
            .or_else(|| lines.iter().find(|l| l.starts_with("a dual-era client")))
            .or_else(|| lines.iter().find(|l| l.contains(" checks: ")))
            .or_else(|| lines.iter().find(|l| !l.is_empty()));
        pick.map(|l| clip(l, 240)).unwrap_or_default()
    }
}

fn describe_status(status: Option<ExitStatus>) -> String {
    match status {
        None => "unknown".into(),
        Some(s) => match s.code() {
            Some(c) => c.to_string(),
            None => {
                use std::os::unix::process::ExitStatusExt;
                format!("signal {}", s.signal().unwrap_or(0))
            }
        },
    }
}

fn clip(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_string();
    }
    let cut: String = line.chars().take(max).collect();
    format!("{cut}…")
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|l| clip(l, 300))
        .collect::<Vec<_>>()
        .join("\n")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .flat_map(|e| {
            let path = e.path();
            if path.is_dir() {
                files_under(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}
