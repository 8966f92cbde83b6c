//! One grammar for every subcommand (issue 20, part 1): each report flag takes a path or `-`
//! for stdout (never a file named `-`), at most one report takes stdout, the old switch forms
//! still work with a deprecation note, `--timeout` and `--max-message` have one default
//! everywhere, `--color` and `NO_COLOR` decide colour, and `mcpspec completions` prints
//! scripts a shell can use.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// A fresh, empty directory for one test to run mcpspec in.
fn scratch(name: &str) -> support::Scratch {
    support::Scratch::new(&format!("grammar-{name}"))
}

/// Runs mcpspec in `dir` without NO_COLOR or CI from the caller's environment.
fn mcpspec(dir: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("mcpspec")
        .unwrap()
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CI")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every report flag of every subcommand, given `-`: the report is stdout (and nothing else
/// is), no file named `-` appears, and the exit code is the command's own.
#[test]
fn dash_sends_each_report_to_stdout_on_every_subcommand() {
    let dir = scratch("dash");
    let run = ["run", "--select", "jsonrpc/parse-error"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        ([&run[..], &["--json", "-"]].concat(), "json"),
        ([&run[..], &["--junit", "-"]].concat(), "xml"),
        ([&run[..], &["--markdown", "-"]].concat(), "markdown"),
        (vec!["negotiate", "--json", "-"], "json"),
        (vec!["list", "--json", "-"], "json"),
        (vec!["coverage", "--json", "-"], "json"),
        (vec!["coverage", "--markdown", "-"], "markdown"),
        (
            vec![
                "fuzz", "--cases", "3", "--time", "20", "--out", "out", "--json", "-",
            ],
            "json",
        ),
    ];
    for (args, kind) in cases {
        let out = mcpspec(&dir, &args);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        match kind {
            "json" => {
                serde_json::from_str::<serde_json::Value>(&stdout)
                    .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {stdout}"));
            }
            "xml" => assert!(stdout.starts_with("<?xml"), "{args:?}: {stdout}"),
            _ => assert!(
                stdout.starts_with("## ") || stdout.starts_with("# "),
                "{args:?}: {stdout}"
            ),
        }
        assert!(!dir.join("-").exists(), "{args:?} wrote a file named -");
    }
    let fuzz = mcpspec(
        &dir,
        &[
            "fuzz", "--seed", "1", "--cases", "3", "--time", "20", "--out", "out", "--json", "-",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&fuzz.stdout).unwrap();
    assert_eq!(report["seed"], 1);
    assert_eq!(report["stats"]["cases"], 3, "{report}");
    assert_eq!(report["findings"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every report flag given a path writes that file, and stdout keeps its usual output.
#[test]
fn a_path_writes_the_file_and_stdout_keeps_the_console() {
    let dir = scratch("path");
    let out = mcpspec(
        &dir,
        &[
            "run",
            "--select",
            "jsonrpc/parse-error",
            "--json",
            "r.json",
            "--junit",
            "r.xml",
            "--markdown",
            "r.md",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("PASS"),
        "the console report: {}",
        text(&out.stdout)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(report["results"].as_array().map(Vec::len), Some(3));
    assert!(
        std::fs::read_to_string(dir.join("r.xml"))
            .unwrap()
            .starts_with("<?xml")
    );
    assert!(
        std::fs::read_to_string(dir.join("r.md"))
            .unwrap()
            .contains("|")
    );

    for (args, file, table) in [
        (vec!["negotiate", "--json", "m.json"], "m.json", "requested"),
        (vec!["list", "--json", "l.json"], "l.json", "checks"),
        (
            vec!["coverage", "--json", "c.json"],
            "c.json",
            "requirement",
        ),
        (
            vec!["coverage", "--markdown", "c.md"],
            "c.md",
            "requirement",
        ),
    ] {
        let out = mcpspec(&dir, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            text(&out.stdout).to_lowercase().contains(table),
            "{args:?}: the usual output stays on stdout: {}",
            text(&out.stdout)
        );
        let written = std::fs::read_to_string(dir.join(file)).unwrap();
        if file.ends_with(".json") {
            serde_json::from_str::<serde_json::Value>(&written).unwrap();
        } else {
            assert!(written.starts_with("## "), "{written}");
        }
    }
    let negotiated = std::fs::read_to_string(dir.join("m.json")).unwrap();
    let out = mcpspec(&dir, &["negotiate", "--expect", "m.json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the written matrix is what --expect reads: {negotiated}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_reports_on_stdout_are_a_usage_error() {
    let dir = scratch("two");
    for args in [
        vec!["run", "--json", "-", "--junit", "-"],
        vec!["run", "--markdown", "-", "--json", "-"],
        vec!["coverage", "--json", "-", "--markdown", "-"],
    ] {
        let out = mcpspec(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains("only one report can go to stdout"),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing ran");
    }
    let out = mcpspec(&dir, &["run", "--json", ""]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--json"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `negotiate --json` (and `list --json`, `coverage --json`/`--markdown`) without a value still
/// print to stdout, with a deprecation note on stderr; `negotiate --json -- CMD` still takes
/// the command after `--`.
#[test]
fn the_old_switch_forms_still_work_with_a_note() {
    let dir = scratch("old");
    for args in [
        vec!["negotiate", "--json"],
        vec!["negotiate", "--json", "--eras", "legacy"],
        vec!["list", "--json"],
        vec!["coverage", "--json"],
    ] {
        let out = mcpspec(&dir, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let err = text(&out.stderr);
        assert!(
            err.contains("`--json` without a value is deprecated; write `--json -`"),
            "{args:?}: {err}"
        );
    }
    let out = mcpspec(&dir, &["coverage", "--markdown"]);
    assert!(text(&out.stdout).starts_with("## "));
    assert!(text(&out.stderr).contains("`--markdown` without a value is deprecated"));

    let reference = reference_binary();
    let out = mcpspec(
        &dir,
        &["negotiate", "--json", "--", reference.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let matrix: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(matrix.to_string().contains("served"), "{matrix}");
    assert!(!dir.join("-").exists() && !dir.join("--").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `[default: …]` that `--help` shows for `flag` of `subcommand`.
fn default_of(subcommand: &str, flag: &str) -> String {
    let out = mcpspec(&std::env::temp_dir(), &[subcommand, "--help"]);
    let help = text(&out.stdout);
    let at = help
        .find(&format!("{flag} <"))
        .unwrap_or_else(|| panic!("{subcommand} has no {flag}: {help}"));
    let rest = &help[at..];
    let next_flag = rest[2..].find("\n  -").map_or(rest.len(), |i| i + 2);
    let block = &rest[..next_flag];
    let start = block
        .find("[default: ")
        .unwrap_or_else(|| panic!("{subcommand} {flag} shows no default: {block}"));
    let value = &block[start + 10..];
    value[..value.find(']').unwrap()].to_owned()
}

#[test]
fn a_flag_has_the_same_default_everywhere() {
    for subcommand in ["run", "negotiate", "fuzz"] {
        assert_eq!(
            default_of(subcommand, "--timeout"),
            "2",
            "{subcommand} --timeout"
        );
    }
    for subcommand in ["run", "fuzz"] {
        assert_eq!(
            default_of(subcommand, "--max-message"),
            "4194304",
            "{subcommand} --max-message"
        );
    }
    let replay = text(&mcpspec(&std::env::temp_dir(), &["replay", "--help"]).stdout);
    assert!(
        replay.contains("else 2)"),
        "replay's documented fallback: {replay}"
    );
    for subcommand in [
        "run",
        "negotiate",
        "fuzz",
        "list",
        "coverage",
        "replay",
        "completions",
    ] {
        assert_eq!(
            default_of(subcommand, "--color"),
            "auto",
            "{subcommand} --color"
        );
    }
}

/// `--color always` colours even a pipe and wins over NO_COLOR; `never` and `auto` on a pipe
/// do not; NO_COLOR stops nothing that `always` asks for; a bad value is a usage error.
#[test]
fn color_follows_the_flag_then_no_color() {
    let dir = scratch("color");
    let run = |color: Option<&str>, no_color: Option<&str>| {
        let mut cmd = Command::cargo_bin("mcpspec").unwrap();
        cmd.current_dir(&dir).env_remove("NO_COLOR");
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        cmd.args(["run", "--select", "jsonrpc/parse-error"]);
        if let Some(c) = color {
            cmd.args(["--color", c]);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        text(&out.stdout).contains("\x1b[")
    };
    assert!(run(Some("always"), None));
    assert!(
        run(Some("always"), Some("1")),
        "--color always wins over NO_COLOR"
    );
    assert!(!run(Some("never"), None));
    assert!(!run(Some("auto"), None), "a pipe is not a terminal");
    assert!(!run(None, None));
    assert!(!run(None, Some("1")));
    let out = mcpspec(&dir, &["list", "--color", "sometimes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--color"),
        "{}",
        text(&out.stderr)
    );
    // A global flag: before or after the subcommand.
    assert_eq!(
        mcpspec(&dir, &["--color", "never", "list"]).status.code(),
        Some(0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What bash offers after `words` with the cursor on the last one, from the script
/// `mcpspec completions bash` prints.
fn bash_completes(script: &Path, words: &[&str]) -> Vec<String> {
    let line = words.join(" ");
    let program = format!(
        r#"source "$1"; COMP_WORDS=({line}); COMP_CWORD={cword}; COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; _mcpspec mcpspec "{cur}" "{prev}"; printf '%s\n' "${{COMPREPLY[@]}}""#,
        cword = words.len() - 1,
        cur = words[words.len() - 1],
        prev = words[words.len() - 2],
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &program, "bash"])
        .arg(script)
        .output()
        .unwrap();
    assert!(out.status.success(), "bash: {}", text(&out.stderr));
    text(&out.stdout).lines().map(str::to_owned).collect()
}

#[test]
fn completions_print_scripts_the_shells_use() {
    let dir = scratch("completions");
    let bash = mcpspec(&dir, &["completions", "bash"]);
    assert_eq!(bash.status.code(), Some(0));
    let script = dir.join("mcpspec.bash");
    std::fs::write(&script, &bash.stdout).unwrap();
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(syntax.status.success(), "{}", text(&syntax.stderr));
    let subcommands = bash_completes(&script, &["mcpspec", "ne"]);
    assert_eq!(subcommands, ["negotiate"]);
    let flags = bash_completes(&script, &["mcpspec", "run", "--ju"]);
    assert_eq!(flags, ["--junit"]);
    let colors = bash_completes(&script, &["mcpspec", "list", "--color", ""]);
    assert_eq!(colors, ["auto", "always", "never"]);

    let zsh = text(&mcpspec(&dir, &["completions", "zsh"]).stdout);
    assert!(zsh.starts_with("#compdef mcpspec"), "{zsh}");
    let fish = text(&mcpspec(&dir, &["completions", "fish"]).stdout);
    for script in [&zsh, &fish] {
        for word in [
            "negotiate",
            "coverage",
            "completions",
            "junit",
            "max-message",
            "never",
        ] {
            assert!(script.contains(word), "{word} missing");
        }
    }
    assert!(fish.contains("complete -c mcpspec"), "{fish}");
    let out = mcpspec(&dir, &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `mcp-reference-server` binary next to this test's executable.
fn reference_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("mcp-reference-server");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p mcp-reference-server`",
        bin.display()
    );
    bin
}
