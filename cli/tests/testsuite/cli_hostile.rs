//! No argument makes mcpspec panic: every subcommand of the built binary, run with generated
//! hostile values for its flags (negative, zero, NaN, infinities, 1e300, empty, not numbers,
//! very long, odd unicode), exits 0, 1, 2 or 3 and never prints "panicked".
//!
//! Each invocation gets one or two hostile flags; the others are absent or hold a cheap valid
//! value, so that a hostile value the parser accepts (a tiny timeout, an odd `--skip`) really
//! runs: `run` selects one small check of the embedded server, `fuzz` runs one case, and every
//! path a flag writes lies in a temporary directory the commands run in.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use assert_cmd::Command;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// What a flag takes, for choosing its hostile and its valid values.
#[derive(Debug, Clone, Copy)]
enum FlagKind {
    /// A duration in seconds.
    Secs,
    /// A count that must be at least 1.
    Count,
    /// Any u64.
    Seed,
    /// A free string (a selection, a tool name).
    Text,
    /// A file or directory mcpspec writes.
    Written,
    /// A file mcpspec reads.
    Read,
    Url,
    Shard,
    Fault,
    Eras,
    /// A flag without a value.
    Switch,
}

/// The flags of each subcommand (target flags included).
const RUN: &[(&str, FlagKind)] = &[
    ("--select", FlagKind::Text),
    ("--skip", FlagKind::Text),
    ("--shard", FlagKind::Shard),
    ("--strict", FlagKind::Switch),
    ("--timeout", FlagKind::Secs),
    ("--ready-timeout", FlagKind::Secs),
    ("--scenario-timeout", FlagKind::Secs),
    ("--max-message", FlagKind::Count),
    ("--jobs", FlagKind::Count),
    ("--json", FlagKind::Written),
    ("--junit", FlagKind::Written),
    ("--markdown", FlagKind::Written),
    ("--transcripts", FlagKind::Written),
    ("--html", FlagKind::Written),
    ("--baseline", FlagKind::Read),
    ("--allow-tool", FlagKind::Text),
    ("--probe-profile", FlagKind::Switch),
    ("--max-items", FlagKind::Count),
    ("--color", FlagKind::Text),
    ("--url", FlagKind::Url),
    ("--fault", FlagKind::Fault),
    ("--eras", FlagKind::Eras),
];
const NEGOTIATE: &[(&str, FlagKind)] = &[
    ("--json", FlagKind::Written),
    ("--color", FlagKind::Text),
    ("--expect", FlagKind::Read),
    ("--timeout", FlagKind::Secs),
    ("--url", FlagKind::Url),
    ("--fault", FlagKind::Fault),
    ("--eras", FlagKind::Eras),
];
const FUZZ: &[(&str, FlagKind)] = &[
    ("--seed", FlagKind::Seed),
    ("--cases", FlagKind::Count),
    ("--time", FlagKind::Secs),
    ("--out", FlagKind::Written),
    ("--timeout", FlagKind::Secs),
    ("--shrink-time", FlagKind::Secs),
    ("--max-findings", FlagKind::Count),
    ("--seeds", FlagKind::Read),
    ("--max-message", FlagKind::Count),
    ("--json", FlagKind::Written),
    ("--url", FlagKind::Url),
    ("--fault", FlagKind::Fault),
    ("--eras", FlagKind::Eras),
];
const REPLAY: &[(&str, FlagKind)] = &[
    ("--timeout", FlagKind::Secs),
    ("--target-mismatch-ok", FlagKind::Switch),
    ("--url", FlagKind::Url),
    ("--fault", FlagKind::Fault),
    ("--eras", FlagKind::Eras),
];
const LIST: &[(&str, FlagKind)] = &[("--json", FlagKind::Written)];
const COVERAGE: &[(&str, FlagKind)] = &[
    ("--json", FlagKind::Written),
    ("--markdown", FlagKind::Written),
];

/// The directory every invocation runs in (relative paths and default outputs land there),
/// with a small reproducer, `finding.jsonl`, for `replay`.
fn base() -> &'static Path {
    static BASE: OnceLock<PathBuf> = OnceLock::new();
    BASE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("mcpspec-hostile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("finding.jsonl"),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
        )
        .unwrap();
        std::fs::write(dir.join("not-yaml.txt"), "{[: \u{0}\n").unwrap();
        dir
    })
}

/// Strings no flag should make sense of.
fn garbage() -> BoxedStrategy<String> {
    prop_oneof![
        Just(String::new()),
        Just(" ".to_owned()),
        Just("-".to_owned()),
        Just("--".to_owned()),
        Just("\u{202e}\u{0301}\u{fffd}".to_owned()),
        Just("٣".to_owned()),
        Just("🦀".repeat(300)),
        Just("9".repeat(5000)),
        Just("a".repeat(70_000)),
        "\\PC{0,24}",
    ]
    .boxed()
}

fn hostile(kind: FlagKind) -> BoxedStrategy<String> {
    let numbers = prop_oneof![
        Just("0".to_owned()),
        Just("-0".to_owned()),
        Just("-1".to_owned()),
        Just("NaN".to_owned()),
        Just("inf".to_owned()),
        Just("-inf".to_owned()),
        Just("infinity".to_owned()),
        Just("1e300".to_owned()),
        Just("-1e300".to_owned()),
        Just("1e-300".to_owned()),
        Just("86400.001".to_owned()),
        Just("0x10".to_owned()),
        Just("1.5".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("18446744073709551615".to_owned()),
        (-1e300f64..-1e-300).prop_map(|x| x.to_string()),
        (86_400.5f64..1e300).prop_map(|x| x.to_string()),
        // Positive but below a nanosecond: a duration that would round to zero.
        (1e-300f64..1e-10).prop_map(|x| x.to_string()),
        any::<i64>().prop_map(|x| x.to_string()),
    ];
    match kind {
        FlagKind::Secs | FlagKind::Count | FlagKind::Seed => {
            prop_oneof![3 => numbers, 1 => garbage()].boxed()
        }
        FlagKind::Text | FlagKind::Fault | FlagKind::Eras | FlagKind::Shard => prop_oneof![
            2 => garbage(),
            1 => numbers,
            1 => Just("0/0".to_owned()),
            1 => Just("1/18446744073709551615".to_owned()),
            1 => Just("both\u{7f}".to_owned()),
        ]
        .boxed(),
        // Names inside the temporary directory only: mcpspec writes there.
        FlagKind::Written => prop_oneof![
            Just(String::new()),
            Just("finding.jsonl/x".to_owned()),
            Just("-".to_owned()),
            Just("n".repeat(300)),
            "[a-zA-Z\u{e9}\u{202e} ]{1,12}",
        ]
        .prop_map(|name| in_base(&name))
        .boxed(),
        FlagKind::Read => prop_oneof![
            Just(String::new()),
            Just(in_base("missing.yaml")),
            Just(in_base("not-yaml.txt")),
            Just(in_base("finding.jsonl")),
            Just(base().display().to_string()),
            Just(in_base(&"n".repeat(300))),
        ]
        .boxed(),
        // URLs refused when parsed only: nothing that reaches beyond this machine, and no
        // unreachable one either (it is judged only after the transport's own timeouts).
        FlagKind::Url => prop_oneof![
            Just("http://".to_owned()),
            Just("HTTP://127.0.0.1:1/".to_owned()),
            Just("https://127.0.0.1:1/".to_owned()),
            Just("ftp://127.0.0.1/".to_owned()),
            garbage().prop_filter("not a URL", |s| !s.starts_with("http")),
        ]
        .boxed(),
        FlagKind::Switch => Just(String::new()).boxed(),
    }
}

/// Cheap valid values of the flag `name` (a run with them takes well under a second); none for
/// a URL or a file read.
fn valid(name: &str, kind: FlagKind) -> Option<BoxedStrategy<String>> {
    let s = |v: &[&str]| {
        proptest::sample::select(v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>()).boxed()
    };
    Some(match kind {
        FlagKind::Url | FlagKind::Read => return None,
        FlagKind::Secs => s(&["0.2", "1", "2"]),
        FlagKind::Count => s(&["1", "2", "4096"]),
        FlagKind::Seed => any::<u64>().prop_map(|x| x.to_string()).boxed(),
        FlagKind::Text => s(&["jsonrpc/parse-error", "RPC-5", "add"]),
        FlagKind::Written => Just(in_base(&format!("valid{name}"))).boxed(),
        FlagKind::Shard => s(&["1/1", "2/2"]),
        FlagKind::Fault => s(&["reply-twice"]),
        FlagKind::Eras => s(&["both", "modern", "legacy"]),
        FlagKind::Switch => Just(String::new()).boxed(),
    })
}

fn in_base(name: &str) -> String {
    base().join(name).display().to_string()
}

/// The flags of one invocation, each with its value (none for a switch): one or two hostile,
/// the rest absent or valid.
fn flags(
    table: &'static [(&'static str, FlagKind)],
) -> impl Strategy<Value = Vec<(String, Option<String>)>> {
    let valid: Vec<_> = table
        .iter()
        .map(|(name, kind)| match valid(name, *kind) {
            Some(v) => prop::option::weighted(0.3, v).boxed(),
            None => Just(None).boxed(),
        })
        .collect();
    let one_hostile = (0..table.len()).prop_flat_map(move |i| (Just(i), hostile(table[i].1)));
    (valid, prop::collection::vec(one_hostile, 1..=2)).prop_map(move |(valid, hostile)| {
        let valid = valid
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| Some((i, v?)))
            .filter(|(i, _)| !hostile.iter().any(|(h, _)| h == i));
        valid
            .chain(hostile.iter().cloned())
            .map(|(i, value)| {
                let (name, kind) = table[i];
                let value = (!matches!(kind, FlagKind::Switch)).then_some(value);
                (name.to_owned(), value)
            })
            .collect()
    })
}

/// Runs `mcpspec` with `leading` arguments, the `defaults` the flags do not name, and the
/// flags; asserts an exit code of 0 to 3 and no panic.
fn survives(
    leading: &[&str],
    defaults: &[(&str, &str)],
    flags: &[(String, Option<String>)],
) -> Result<(), TestCaseError> {
    let mut args: Vec<String> = leading.iter().map(|a| (*a).to_owned()).collect();
    for (name, value) in defaults {
        if !flags.iter().any(|(n, _)| n == name) {
            args.push((*name).to_owned());
            args.push((*value).to_owned());
        }
    }
    for (name, value) in flags {
        args.push(name.clone());
        args.extend(value.clone());
    }
    let shown = args
        .iter()
        .map(|a| format!("{:?}", shorten(a)))
        .collect::<Vec<_>>()
        .join(" ");
    let output = Command::cargo_bin("mcpspec")
        .expect("the mcpspec binary is built")
        .current_dir(base())
        .args(&args)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code();
    prop_assert!(
        matches!(code, Some(0..=3)),
        "mcpspec {shown} exited {code:?}: {}",
        shorten(&stderr)
    );
    prop_assert!(
        !stderr.contains("panicked"),
        "mcpspec {shown} panicked: {}",
        shorten(&stderr)
    );
    Ok(())
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(300).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

proptest! {
    #![proptest_config(Config { cases: 10, failure_persistence: None, ..Config::default() })]

    #[test]
    fn run_survives_hostile_flags(flags in flags(RUN)) {
        survives(&["run", "--select", "jsonrpc/parse-error"], &[], &flags)?;
    }

    #[test]
    fn fuzz_survives_hostile_flags(flags in flags(FUZZ)) {
        let out = in_base("fuzz-out");
        let defaults = [("--cases", "1"), ("--time", "1"), ("--shrink-time", "1"), ("--out", &out)];
        survives(&["fuzz"], &defaults, &flags)?;
    }
}

proptest! {
    #![proptest_config(Config { cases: 8, failure_persistence: None, ..Config::default() })]

    #[test]
    fn negotiate_survives_hostile_flags(flags in flags(NEGOTIATE)) {
        survives(&["negotiate"], &[], &flags)?;
    }

    #[test]
    fn replay_survives_hostile_flags(
        file in prop_oneof![Just("finding.jsonl".to_owned()), hostile(FlagKind::Read)],
        flags in flags(REPLAY),
    ) {
        survives(&["replay", &file], &[], &flags)?;
    }
}

proptest! {
    #![proptest_config(Config { cases: 3, failure_persistence: None, ..Config::default() })]

    #[test]
    fn list_and_coverage_survive_hostile_flags(
        list in flags(LIST),
        coverage in flags(COVERAGE),
        extra in garbage(),
    ) {
        survives(&["list"], &[], &list)?;
        survives(&["coverage"], &[], &coverage)?;
        // A stray value where none is taken.
        survives(&["list", "--json", &extra], &[], &[])?;
    }

    #[test]
    fn explain_report_and_baseline_survive_hostile_arguments(
        id in garbage(),
        file in hostile(FlagKind::Read),
        out in hostile(FlagKind::Written),
    ) {
        survives(&["explain", &id], &[], &[])?;
        survives(&["report", &file, "--html", &out], &[], &[])?;
        survives(&["baseline", "--write", &out, "--from", &file], &[], &[])?;
    }
}
