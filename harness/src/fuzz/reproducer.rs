//! Reproducers: the exact lines of a minimal failing case, one per line (JSONL when every line
//! is JSON; a mutated line is kept byte for byte), so `server < finding.jsonl` feeds the server
//! the same input. Two sidecars sit next to it: `.txt`, the human summary, and `.target.json`,
//! the [`Record`] of what the finding was made on (the target, the seed, the timeout, the
//! mcpspec version), which `mcpspec replay FILE` replays on unless told otherwise.
//!
//! ```text
//! finding-1-crash.jsonl        the lines sent, byte for byte
//! finding-1-crash.txt          the summary, ending in the replay command
//! finding-1-crash.target.json  {"mcpspec_version": "0.1.0", "seed": 3, "oracle": "crash",
//!                               "target": {"kind": "command", "program": "./my-server",
//!                                          "args": ["--flag"], "cwd": "/home/me/src"},
//!                               "timeout_secs": 1.0, "max_message": 4194304}
//! ```
//!
//! The target is one of `{"kind": "command", "program", "args", "cwd", "env"?}`,
//! `{"kind": "url", "url"}` or `{"kind": "embedded", "faults": [..], "eras"}`.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_reference_server as reference;
use serde::{Deserialize, Serialize};

use super::{Finding, FuzzOptions, Oracle};
use crate::cli_values::{duration_from_secs, format_seconds};
use crate::target::{Target, TargetArgs};

/// `replay`'s `--timeout` when neither the command line nor a record names one.
pub const DEFAULT_REPLAY_TIMEOUT: Duration = Duration::from_secs(2);

/// Writes `finding` into `dir` as `finding-N-<oracle>.jsonl`, with the `.target.json` record
/// and the `.txt` summary; sets the finding's reproducer path and replay command; returns the
/// path.
pub fn write(dir: &Path, n: usize, finding: &mut Finding, record: &Record) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!(
        "finding-{n}-{}.jsonl",
        finding.violation.oracle.id()
    ));
    let mut bytes = Vec::new();
    for line in &finding.case {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    std::fs::write(&path, bytes)?;
    let json = serde_json::to_string_pretty(record).map_err(io::Error::other)?;
    std::fs::write(record_path(&path), json + "\n")?;
    finding.replay = Some(record.replay_command(&path));
    finding.reproducer = Some(path.clone());
    // What the server said may echo a credential (auth::redact).
    let summary = finding.summary() + "\n";
    std::fs::write(
        path.with_extension("txt"),
        mcpspec_core::redact::text(&summary).as_bytes(),
    )?;
    Ok(path)
}

/// Reads a reproducer: its lines, without terminators (a trailing `\r` is kept: it was sent).
pub fn read(path: &Path) -> io::Result<Vec<Vec<u8>>> {
    let bytes = std::fs::read(path)?;
    Ok(split_lines(&bytes))
}

/// Where the record of the reproducer at `path` is: `finding-1-crash.target.json` next to
/// `finding-1-crash.jsonl`.
pub fn record_path(path: &Path) -> PathBuf {
    path.with_extension("target.json")
}

/// The record next to the reproducer at `path`; `None` when there is none (a reproducer from
/// an older mcpspec, or lines written by hand).
pub fn read_record(path: &Path) -> Result<Option<Record>, String> {
    let file = record_path(path);
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))
}

/// Splits bytes into lines; a final line without a newline counts, an empty tail does not.
pub fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        lines.pop();
    }
    lines
}

/// What a finding was made on and with: the `.target.json` next to its reproducer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The mcpspec that made the finding (`CARGO_PKG_VERSION`).
    pub mcpspec_version: String,
    /// The generator seed of the run (`fuzz --seed`).
    pub seed: u64,
    /// The oracle the reproducer trips.
    pub oracle: String,
    pub target: RecordedTarget,
    /// How long a reply could take (`fuzz --timeout`), in seconds.
    pub timeout_secs: f64,
    /// The bound on one line from the server (`fuzz --max-message`).
    pub max_message: usize,
}

/// The target of a [`Record`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RecordedTarget {
    /// A stdio server: the program, its arguments, the directory it ran in and any variables
    /// set for it.
    Command {
        program: String,
        args: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        env: Vec<(String, String)>,
    },
    /// A streamable HTTP endpoint.
    Url { url: String },
    /// The embedded reference server: its faults (by name, sorted) and eras mode.
    Embedded { faults: Vec<String>, eras: String },
}

impl Record {
    /// The record of a finding of `oracle` made on `target` with `options`.
    pub fn new(target: &Target, options: &FuzzOptions, oracle: Oracle) -> Self {
        Record {
            mcpspec_version: env!("CARGO_PKG_VERSION").to_owned(),
            seed: options.seed,
            oracle: oracle.id().to_owned(),
            target: RecordedTarget::of(target),
            timeout_secs: options.exec.reply_timeout.as_secs_f64(),
            max_message: options.exec.max_message,
        }
    }

    /// The recorded reply timeout; an error for a value no flag would accept.
    pub fn timeout(&self) -> Result<Duration, String> {
        duration_from_secs(self.timeout_secs).map_err(|e| format!("timeout_secs {e}"))
    }

    /// The command that replays the reproducer at `file` on the recorded target, shell-quoted
    /// so it runs as printed: `mcpspec replay FILE [--timeout SECS]` followed by
    /// `--fault F.. --eras M` (embedded, when not the defaults), `--url U`, or `-- CMD ARGS`.
    pub fn replay_command(&self, file: &Path) -> String {
        let mut words: Vec<String> = Vec::new();
        if let RecordedTarget::Command { env, .. } = &self.target {
            if !env.is_empty() {
                words.push("env".into());
                words.extend(env.iter().map(|(k, v)| shell_quote(&format!("{k}={v}"))));
            }
        }
        words.push("mcpspec".into());
        words.push("replay".into());
        words.push(shell_quote(&file.display().to_string()));
        if let Ok(t) = self.timeout() {
            if t != DEFAULT_REPLAY_TIMEOUT {
                words.push("--timeout".into());
                words.push(format_seconds(t));
            }
        }
        let args = self.target.as_args();
        for fault in &args.fault {
            words.push("--fault".into());
            words.push(shell_quote(fault));
        }
        if let Some(eras) = &args.eras {
            words.push("--eras".into());
            words.push(shell_quote(eras));
        }
        for url in &args.url {
            words.push("--url".into());
            words.push(shell_quote(url));
        }
        if !args.command.is_empty() {
            words.push("--".into());
            words.extend(args.command.iter().map(|w| shell_quote(w)));
        }
        words.join(" ")
    }
}

impl RecordedTarget {
    /// How `target` is recorded. A command's working directory is its own or, when it has
    /// none, mcpspec's (which it inherits).
    pub fn of(target: &Target) -> Self {
        match target {
            Target::Embedded(config) => {
                let mut faults: Vec<String> =
                    config.faults.iter().map(|f| f.name().to_owned()).collect();
                faults.sort();
                let eras = match config.eras {
                    reference::Eras::Both => "both",
                    reference::Eras::Modern => "modern",
                    reference::Eras::Legacy => "legacy",
                };
                RecordedTarget::Embedded {
                    faults,
                    eras: eras.into(),
                }
            }
            Target::Url(endpoint) => RecordedTarget::Url {
                url: endpoint.url(),
            },
            Target::Command {
                program,
                args,
                env,
                cwd,
            } => RecordedTarget::Command {
                program: program.clone(),
                args: args.clone(),
                cwd: cwd
                    .clone()
                    .or_else(|| std::env::current_dir().ok())
                    .and_then(|d| d.to_str().map(str::to_owned)),
                env: env.clone(),
            },
        }
    }

    /// The target to replay on: a command runs in its recorded directory (a relative program
    /// path, `./my-server`, is taken from there too).
    pub fn target(&self) -> Result<Target, String> {
        match self {
            RecordedTarget::Command {
                program,
                args,
                cwd,
                env,
            } => Ok(Target::Command {
                program: self.program_path().unwrap_or_else(|| program.clone()),
                args: args.clone(),
                env: env.clone(),
                cwd: cwd.as_ref().map(PathBuf::from),
            }),
            RecordedTarget::Url { .. } | RecordedTarget::Embedded { .. } => {
                self.as_args().target(false)
            }
        }
    }

    /// Whether `self` and `other` name the same server: the same program (a relative path
    /// resolved in its directory) and arguments, the same URL, or the same faults and eras.
    /// A command's directory and variables are not compared.
    pub fn same_server(&self, other: &RecordedTarget) -> bool {
        match (self, other) {
            (
                RecordedTarget::Command {
                    program: p,
                    args: a,
                    ..
                },
                RecordedTarget::Command {
                    program: q,
                    args: b,
                    ..
                },
            ) => {
                a == b
                    && self.program_path().unwrap_or_else(|| p.clone())
                        == other.program_path().unwrap_or_else(|| q.clone())
            }
            (
                RecordedTarget::Embedded { faults: f, eras: e },
                RecordedTarget::Embedded { faults: g, eras: h },
            ) => {
                let set =
                    |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
                e == h && set(f) == set(g)
            }
            _ => self == other,
        }
    }

    /// The command-line arguments that name this target (a command's directory and variables
    /// have none).
    pub fn as_args(&self) -> TargetArgs {
        match self {
            RecordedTarget::Command { program, args, .. } => TargetArgs {
                command: std::iter::once(program.clone())
                    .chain(args.iter().cloned())
                    .collect(),
                ..TargetArgs::default()
            },
            RecordedTarget::Url { url } => TargetArgs {
                url: vec![url.clone()],
                ..TargetArgs::default()
            },
            RecordedTarget::Embedded { faults, eras } => TargetArgs {
                fault: faults.clone(),
                eras: (eras != "both").then(|| eras.clone()),
                ..TargetArgs::default()
            },
        }
    }

    /// A relative program path with a directory part (`./my-server`, `bin/server`), made
    /// absolute in the recorded directory; `None` for a bare name looked up in `PATH`, an
    /// absolute path, or no recorded directory.
    fn program_path(&self) -> Option<String> {
        let RecordedTarget::Command {
            program,
            cwd: Some(cwd),
            ..
        } = self
        else {
            return None;
        };
        let path = Path::new(program);
        if path.is_absolute() || !program.contains('/') {
            return None;
        }
        Path::new(cwd).join(path).to_str().map(str::to_owned)
    }
}

/// `word` as one POSIX shell word: as is when it holds only characters no shell treats
/// specially, else in single quotes (a `'` inside becomes `'\''`).
pub fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The reproducer path a summary names, for tests and scripts.
pub fn reproducer_in(summary: &str) -> Option<&Path> {
    let start = summary.find("Reproducer: ")? + "Reproducer: ".len();
    let rest = &summary[start..];
    let end = rest.find(" (`")?;
    Some(Path::new(&rest[..end]))
}

/// The replay command a summary prints (shell-quoted, as it runs), for tests and scripts.
pub fn replay_command_in(summary: &str) -> Option<&str> {
    let start = summary.find("Reproducer: ")?;
    let rest = &summary[start..];
    let open = rest.find(" (`")? + " (`".len();
    let rest = &rest[open..];
    let close = rest.find("`).")?;
    Some(&rest[..close])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_the_transport() {
        assert_eq!(split_lines(b""), Vec::<Vec<u8>>::new());
        assert_eq!(split_lines(b"a\n"), vec![b"a".to_vec()]);
        assert_eq!(
            split_lines(b"a\n\nb"),
            vec![b"a".to_vec(), vec![], b"b".to_vec()]
        );
    }

    fn record(target: RecordedTarget, timeout_secs: f64) -> Record {
        Record {
            mcpspec_version: "0.1.0".into(),
            seed: 3,
            oracle: "crash".into(),
            target,
            timeout_secs,
            max_message: 1024,
        }
    }

    fn command(program: &str, args: &[&str], cwd: &str) -> RecordedTarget {
        RecordedTarget::Command {
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            cwd: Some(cwd.into()),
            env: Vec::new(),
        }
    }

    #[test]
    fn quotes_only_what_a_shell_would_read_differently() {
        assert_eq!(
            shell_quote("out/finding-1-crash.jsonl"),
            "out/finding-1-crash.jsonl"
        );
        assert_eq!(shell_quote("--fault=x"), "--fault=x");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$HOME*;`x`"), "'$HOME*;`x`'");
        assert_eq!(shell_quote("~/x"), "'~/x'");
        assert_eq!(shell_quote("é"), "'é'");
    }

    #[test]
    fn the_replay_command_names_the_recorded_target() {
        let file = Path::new("out dir/finding-1-crash.jsonl");
        let embedded = RecordedTarget::Embedded {
            faults: vec!["reply-twice".into(), "hang-on-negative-id".into()],
            eras: "modern".into(),
        };
        assert_eq!(
            record(embedded, 0.3).replay_command(file),
            "mcpspec replay 'out dir/finding-1-crash.jsonl' --timeout 0.3 \
             --fault reply-twice --fault hang-on-negative-id --eras modern"
        );
        let default = RecordedTarget::Embedded {
            faults: vec![],
            eras: "both".into(),
        };
        assert_eq!(
            record(default, 2.0).replay_command(Path::new("f.jsonl")),
            "mcpspec replay f.jsonl"
        );
        let url = RecordedTarget::Url {
            url: "http://127.0.0.1:8000/mcp".into(),
        };
        assert_eq!(
            record(url, 1.0).replay_command(Path::new("f.jsonl")),
            "mcpspec replay f.jsonl --timeout 1 --url http://127.0.0.1:8000/mcp"
        );
        let mut cmd = command("python", &["server.py", "--name", "a b"], "/src");
        if let RecordedTarget::Command { env, .. } = &mut cmd {
            env.push(("LOG".into(), "x y".into()));
        }
        assert_eq!(
            record(cmd, 2.0).replay_command(Path::new("f.jsonl")),
            "env 'LOG=x y' mcpspec replay f.jsonl -- python server.py --name 'a b'"
        );
    }

    #[test]
    fn a_record_reads_back_as_written() {
        for target in [
            command("./server", &["--fault", "x"], "/src"),
            RecordedTarget::Url {
                url: "http://127.0.0.1:1/mcp".into(),
            },
            RecordedTarget::Embedded {
                faults: vec!["reply-twice".into()],
                eras: "both".into(),
            },
        ] {
            let r = record(target, 0.3);
            let json = serde_json::to_string_pretty(&r).unwrap();
            let back: Record = serde_json::from_str(&json).unwrap();
            assert_eq!(back, r);
            assert_eq!(back.timeout(), Ok(Duration::from_millis(300)));
        }
        let json = serde_json::to_value(record(command("s", &[], "/d"), 1.0)).unwrap();
        assert_eq!(json["target"]["kind"], "command");
        assert_eq!(json["target"]["program"], "s");
        assert_eq!(json["mcpspec_version"], "0.1.0");
        assert_eq!(json["seed"], 3);
    }

    #[test]
    fn a_recorded_target_is_rebuilt_and_compared() {
        let target = Target::embedded();
        let recorded = RecordedTarget::of(&target);
        assert_eq!(
            recorded,
            RecordedTarget::Embedded {
                faults: vec![],
                eras: "both".into()
            }
        );
        assert_eq!(recorded.target().unwrap().describe(), target.describe());
        // A relative program is resolved in its directory, for running and for comparing.
        let here = command("./server", &["-v"], "/src");
        let Target::Command { program, cwd, .. } = here.target().unwrap() else {
            panic!("a command")
        };
        assert_eq!(program, "/src/./server");
        assert_eq!(cwd, Some(PathBuf::from("/src")));
        assert!(here.same_server(&command("/src/./server", &["-v"], "/elsewhere")));
        assert!(!here.same_server(&command("./server", &["-v"], "/elsewhere")));
        assert!(!here.same_server(&command("./server", &[], "/src")));
        assert!(command("python", &["s.py"], "/a").same_server(&command(
            "python",
            &["s.py"],
            "/b"
        )));
        assert!(!here.same_server(&recorded));
        let faulty = RecordedTarget::Embedded {
            faults: vec!["reply-twice".into()],
            eras: "both".into(),
        };
        assert!(!faulty.same_server(&recorded));
        let bad = RecordedTarget::Embedded {
            faults: vec!["no-such-fault".into()],
            eras: "both".into(),
        };
        assert!(bad.target().is_err());
    }
}
