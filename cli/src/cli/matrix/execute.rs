//! Running the targets of a matrix file: each target as `mcpspec run --revision REV` (a server,
//! once per revision) or `mcpspec client` (a client, once) would run it alone, the very
//! binary in a child process, so a cell is exactly the verdict of that target run alone.
//! `--jobs` targets at once; a target that cannot be started or reached is a record of Errors
//! with the reason, and the others still run.

use std::io::Read;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcpspec_harness::outcome::Level;
use mcpspec_harness::report::RunReport;

use super::file::TargetSpec;
use super::model::{Role, SCHEMA_VERSION};
use super::record::{KIND, RevisionRun, TargetRecord};

/// The longest one run of one target may take before it is ended (its own bounds come first:
/// every check has a scenario timeout).
const RUN_CAP: Duration = Duration::from_secs(30 * 60);

/// How the targets are run.
#[derive(Debug, Clone)]
pub struct Execution {
    /// The `mcpspec` binary each target runs under.
    pub exe: PathBuf,
    /// The matrix's output folder (absolute).
    pub out: PathBuf,
    /// The matrix's revisions, newest first.
    pub revisions: Vec<String>,
    /// Targets at once.
    pub jobs: usize,
}

/// Runs `targets` (with their places in the file), `jobs` at once; their records in the same
/// order. `progress` hears each target as it ends.
pub fn run_all(
    execution: &Execution,
    targets: &[(usize, &TargetSpec)],
    progress: &(dyn Fn(&TargetRecord) + Sync),
) -> Vec<TargetRecord> {
    let next = Mutex::new(0usize);
    let done: Mutex<Vec<Option<TargetRecord>>> = Mutex::new(vec![None; targets.len()]);
    std::thread::scope(|scope| {
        for _ in 0..execution.jobs.clamp(1, targets.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap_or_else(|p| p.into_inner());
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some((index, spec)) = targets.get(i) else {
                        return;
                    };
                    let record = run_target(execution, *index, spec);
                    progress(&record);
                    done.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(record);
                }
            });
        }
    });
    done.into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// One target's record, also written to `DIR/<name>/report.json`: its runs, or Errors with
/// the reason it could not be run.
pub fn run_target(execution: &Execution, index: usize, spec: &TargetSpec) -> TargetRecord {
    let dir = execution.out.join(&spec.name);
    let mut record = judge(execution, index, spec, &dir);
    if let Err(e) = write_record(&record, &dir.join("report.json")) {
        record.error.get_or_insert(e);
    }
    record
}

fn judge(execution: &Execution, index: usize, spec: &TargetSpec, dir: &Path) -> TargetRecord {
    let mut record = TargetRecord {
        schema_version: SCHEMA_VERSION,
        kind: KIND.to_owned(),
        index,
        matrix_revisions: execution.revisions.clone(),
        name: spec.name.clone(),
        label: spec.label.clone(),
        role: spec.role,
        error: None,
        runs: Default::default(),
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        return errored(
            record,
            spec,
            &format!("cannot create {}: {e}", dir.display()),
        );
    }
    match spec.role {
        Role::Server => {
            let started = match spec.start.is_empty() {
                true => None,
                false => match Started::start(spec, dir) {
                    Ok(s) => Some(s),
                    Err(reason) => return errored(record, spec, &reason),
                },
            };
            for rev in &spec.revisions {
                let (run, error) = run_server(execution, spec, rev);
                record.runs.insert(rev.clone(), run);
                if record.error.is_none() {
                    record.error = error;
                }
            }
            drop(started);
        }
        Role::Client => {
            let (run, error) = run_client(execution, spec);
            record.error = error;
            for rev in &spec.revisions {
                record.runs.insert(rev.clone(), client_at(&run, rev));
            }
        }
    }
    record
}

/// Writes `record` as JSON to `path`.
pub fn write_record(record: &TargetRecord, path: &Path) -> Result<(), String> {
    let text = serde_json::to_string_pretty(record).map_err(|e| e.to_string())? + "\n";
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The record of a target that could not be run at all: every check, at every revision, an
/// Error with `reason`.
fn errored(mut record: TargetRecord, spec: &TargetSpec, reason: &str) -> TargetRecord {
    let checks = all_checks(spec.role);
    for rev in &spec.revisions {
        record
            .runs
            .insert(rev.clone(), RevisionRun::errors(&checks, reason));
    }
    record.error = Some(reason.to_owned());
    record
}

/// Every check of a role's catalogue: (id, requirements, level).
pub fn all_checks(role: Role) -> Vec<(String, Vec<String>, Level)> {
    let strings = |reqs: &[&str]| reqs.iter().map(|r| (*r).to_owned()).collect();
    match role {
        Role::Server => mcpspec_harness::catalogue::all()
            .iter()
            .map(|c| (c.id.to_owned(), strings(c.requirements), c.level))
            .collect(),
        Role::Client => mcpspec_client::checks::all()
            .iter()
            .map(|c| (c.id.to_owned(), strings(c.requirements), c.level))
            .collect(),
    }
}

/// The files one run writes, under `DIR/<name>/<sub>/`, and their paths relative to `DIR`.
struct RunFiles {
    dir: PathBuf,
    relative: String,
}

impl RunFiles {
    fn new(execution: &Execution, spec: &TargetSpec, sub: &str) -> Result<Self, String> {
        let dir = execution.out.join(&spec.name).join(sub);
        // A run of an earlier matrix into the same folder must not leave transcripts behind.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(RunFiles {
            dir,
            relative: format!("{}/{sub}", spec.name),
        })
    }

    /// The run writes its JSON report and transcripts; its HTML page is rendered from the
    /// JSON afterwards (as `mcpspec report RUN.json --html` does): `run --html` would also ask
    /// the target for the version-negotiation matrix, processes the matrix's own columns make
    /// needless (5 s of a 9.5 s run against the Python SDK).
    fn args(&self) -> Vec<String> {
        let path = |f: &str| self.dir.join(f).display().to_string();
        vec![
            "--json".into(),
            path("report.json"),
            "--transcripts".into(),
            path("transcripts"),
        ]
    }

    /// The verdicts of the run that wrote here, and the error that kept it from being judged.
    fn read(&self, status: Result<i32, String>, all: Role) -> (RevisionRun, Option<String>) {
        let log = std::fs::read_to_string(self.dir.join("run.log")).unwrap_or_default();
        let last_line = log
            .lines()
            .rev()
            .find(|l| l.starts_with("mcpspec:"))
            .or_else(|| log.lines().rev().find(|l| !l.trim().is_empty()))
            .unwrap_or("")
            .to_owned();
        let report = std::fs::read_to_string(self.dir.join("report.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<RunReport>(&t).ok());
        match (status, report) {
            (Ok(code @ (0 | 1 | 3)), Some(report)) => {
                let html = self.dir.join("report.html");
                let page = mcpspec_harness::report::Format::Html.render(&report);
                if let Err(e) = std::fs::write(&html, page) {
                    let reason = format!("cannot write {}: {e}", html.display());
                    return (RevisionRun::errors(&all_checks(all), &reason), Some(reason));
                }
                let run = RevisionRun::from_report(
                    &report,
                    Some(format!("{}/report.html", self.relative)),
                    Some(format!("{}/transcripts", self.relative)),
                );
                let error = report.target_failure.clone().or_else(|| {
                    (code == 3).then(|| format!("the target could not be tested: {last_line}"))
                });
                (run, error)
            }
            (Ok(code), _) => {
                let reason = format!("mcpspec exited with {code}: {last_line}");
                (RevisionRun::errors(&all_checks(all), &reason), Some(reason))
            }
            (Err(reason), _) => (RevisionRun::errors(&all_checks(all), &reason), Some(reason)),
        }
    }
}

/// `mcpspec run --revision REV` against the target.
fn run_server(
    execution: &Execution,
    spec: &TargetSpec,
    rev: &str,
) -> (RevisionRun, Option<String>) {
    let files = match RunFiles::new(execution, spec, rev) {
        Ok(f) => f,
        Err(e) => return (RevisionRun::errors(&all_checks(Role::Server), &e), Some(e)),
    };
    let mut args: Vec<String> = vec!["run".into(), "--color".into(), "never".into()];
    args.extend(["--revision".into(), rev.to_owned()]);
    args.extend(files.args());
    for tool in &spec.allow_tools {
        args.extend(["--allow-tool".into(), tool.clone()]);
    }
    if spec.probe_profile {
        args.push("--probe-profile".into());
    }
    if let Some(var) = &spec.bearer_env {
        args.extend(["--bearer-env".into(), var.clone()]);
    }
    match &spec.url {
        Some(url) => args.extend(["--url".into(), url.clone()]),
        None => {
            args.push("--".into());
            args.extend(spec.command.iter().cloned());
        }
    }
    let status = run_logged(&execution.exe, &args, &spec.cwd, &files.dir.join("run.log"));
    files.read(status, Role::Server)
}

/// `mcpspec client` against the client: once, whatever the revisions.
fn run_client(execution: &Execution, spec: &TargetSpec) -> (RevisionRun, Option<String>) {
    let files = match RunFiles::new(execution, spec, "client") {
        Ok(f) => f,
        Err(e) => return (RevisionRun::errors(&all_checks(Role::Client), &e), Some(e)),
    };
    let mut args: Vec<String> = vec!["client".into(), "--color".into(), "never".into()];
    if let Some(transport) = &spec.transport {
        args.extend(["--transport".into(), transport.clone()]);
    }
    args.extend(files.args());
    args.push("--".into());
    args.extend(spec.command.iter().cloned());
    let status = run_logged(&execution.exe, &args, &spec.cwd, &files.dir.join("run.log"));
    files.read(status, Role::Client)
}

/// A client's verdicts at `rev`: the client tester lets the client choose its revision within
/// each era (its legacy peers answer the version the client asks for), so a check counts at
/// every revision where a requirement it cites applies; one citing no client requirement
/// counts at each.
fn client_at(run: &RevisionRun, rev: &str) -> RevisionRun {
    let catalogue = mcpspec_harness::requirements::client_catalogue();
    RevisionRun {
        report: run.report.clone(),
        transcripts: run.transcripts.clone(),
        not_served: run.not_served.clone(),
        verdicts: run
            .verdicts
            .iter()
            .filter(|v| {
                let known: Vec<_> = v
                    .requirements
                    .iter()
                    .filter_map(|r| catalogue.get(r))
                    .collect();
                known.is_empty() || known.iter().any(|r| r.applies_at(rev))
            })
            .cloned()
            .collect(),
    }
}

/// Runs `exe args` in `cwd`, its output into `log`, ended after [`RUN_CAP`]; its exit code.
fn run_logged(exe: &Path, args: &[String], cwd: &Path, log: &Path) -> Result<i32, String> {
    let file =
        std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err);
    group(&mut cmd);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let deadline = Instant::now() + RUN_CAP;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status.code().unwrap_or(-1)),
            Ok(None) if Instant::now() >= deadline => {
                end(&mut child);
                return Err(format!(
                    "the run did not end within {} s and was ended",
                    RUN_CAP.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("cannot wait for the run: {e}")),
        }
    }
}

fn group(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
}

/// Ends `child` and every process it started (its group).
fn end(child: &mut Child) {
    mcpspec_core::transport::kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

/// A target's `start` command, running until dropped.
struct Started {
    child: Child,
}

impl Started {
    /// Starts `spec.start` and waits until its URL accepts connections.
    fn start(spec: &TargetSpec, dir: &Path) -> Result<Self, String> {
        let url = spec.url.as_deref().unwrap_or_default();
        let shown = spec.start.join(" ");
        let (program, rest) = spec
            .start
            .split_first()
            .ok_or_else(|| "`start` is empty".to_owned())?;
        let log_path = dir.join("start.log");
        let log = std::fs::File::create(&log_path)
            .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
        let err = log.try_clone().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(program);
        cmd.args(rest)
            .current_dir(&spec.cwd)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err);
        group(&mut cmd);
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start `{shown}`: {e}"))?;
        let mut started = Started { child };
        let address =
            host_port(url).ok_or_else(|| format!("cannot read a host and port in {url}"))?;
        let deadline = Instant::now() + spec.ready_timeout;
        loop {
            if let Ok(Some(status)) = started.child.try_wait() {
                let mut tail = String::new();
                let _ =
                    std::fs::File::open(&log_path).and_then(|mut f| f.read_to_string(&mut tail));
                let last = tail
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                return Err(format!(
                    "`{shown}` ended ({status}) before {url} accepted connections: {last}"
                ));
            }
            let ready = address
                .to_socket_addrs()
                .ok()
                .into_iter()
                .flatten()
                .any(|a| TcpStream::connect_timeout(&a, Duration::from_millis(200)).is_ok());
            if ready {
                return Ok(started);
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{url} did not accept connections within {} s of starting `{shown}`",
                    spec.ready_timeout.as_secs_f64()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        end(&mut self.child);
    }
}

/// `host:port` of an `http://` URL (port 80 when none is given).
fn host_port(url: &str) -> Option<String> {
    let rest = url.strip_prefix("http://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.is_empty() {
        return None;
    }
    Some(
        if authority
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gives_its_host_and_port() {
        assert_eq!(
            host_port("http://127.0.0.1:8123/mcp").as_deref(),
            Some("127.0.0.1:8123")
        );
        assert_eq!(
            host_port("http://localhost/mcp").as_deref(),
            Some("localhost:80")
        );
        assert_eq!(host_port("https://x/mcp"), None);
    }
}
