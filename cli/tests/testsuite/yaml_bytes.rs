//! The YAML files mcpspec writes, byte for byte: transcripts (`--transcripts DIR`) and
//! baselines. Users commit and diff them, so the YAML crate behind `mcpspec_harness::yaml` must not
//! change a byte. Each snapshot starts with the text's exact length (insta ignores trailing
//! blank lines) and holds the text as written:
//!
//! - every check's transcript against the embedded reference server (normalised as the
//!   transcript snapshots are), and those with schema violations under a fault;
//! - a hand-built transcript of every event kind whose strings and numbers are the ones YAML
//!   emitters quote, escape or fold differently (`yes`, `1.0`, `2026-07-28`, `: `, `#`, control
//!   characters, non-ASCII, long lines, edge floats);
//! - every baseline of `fixtures/baselines/`, parsed and written back.

use crate::support;

use mcpspec_core::transcript::{Entry, Event};
use mcpspec_harness::catalogue;
use serde_json::json;

fn assert_bytes(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(support::repo_root().join("snapshots/yaml"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, format!("{} bytes\n{text}", text.len())));
}

/// One document per check, under a `# id` line, in catalogue order.
fn transcripts_yaml(report: &mcpspec::RunReport) -> String {
    let mut out = String::new();
    for r in &report.results {
        let form = support::snapshot_form(&r.transcript);
        out.push_str(&format!("# {}\n", r.id));
        out.push_str(&mcpspec_harness::yaml::to_string(&form).expect("a transcript is YAML"));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reference_transcripts_are_byte_stable() {
    let report = support::run(
        mcpspec::Target::embedded(),
        &catalogue::all(),
        support::options(),
    )
    .await;
    assert_bytes("reference-transcripts", &transcripts_yaml(&report));

    // A discover result without `serverInfo.version` breaks the schema in every check that
    // reads one; only those transcripts are pinned here.
    let mut report = support::run(
        support::reference_with(&["server-info-no-version"]),
        &catalogue::all(),
        support::options(),
    )
    .await;
    report.results.retain(|r| {
        r.transcript
            .iter()
            .any(|e| matches!(e.event, Event::SchemaViolations { .. }))
    });
    assert!(
        !report.results.is_empty(),
        "the fault must produce schema violations to pin their form"
    );
    assert_bytes("schema-violation-transcripts", &transcripts_yaml(&report));
}

/// Strings a YAML emitter must quote (they would read back as another type), escape or may
/// fold, in values and in keys.
const AWKWARD: &[&str] = &[
    "",
    " leading space",
    "trailing space ",
    "yes",
    "No",
    "null",
    "~",
    "true",
    "1.0",
    "0x1F",
    "1e3",
    ".inf",
    "2026-07-28",
    "a: b",
    "# not a comment",
    "- not a list",
    "multi\nline\n",
    "tab\there",
    "nul\u{0}bell\u{7}esc\u{1b}",
    "é ü 日本語 😀",
    "\u{feff}bom",
    "'single' and \"double\"",
    "back\\slash",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}",
    "[1, 2]",
    "&anchor *alias !tag %directive @at `tick`",
    "a line of exactly eighty characters, to see where an emitter folds a long scalar..",
];

fn awkward_transcript() -> Vec<Entry> {
    let long = "x".repeat(300);
    let object: serde_json::Map<String, serde_json::Value> = AWKWARD
        .iter()
        .map(|s| ((*s).to_owned(), json!(s)))
        .collect();
    let message = json!({
        "jsonrpc": "2.0",
        "id": 9007199254740993u64,
        "result": {
            "strings": AWKWARD,
            "keys": object,
            "numbers": [0, -1, u64::MAX, i64::MIN, 1.5, -0.0, 1e300, 2.5e-8, 0.1],
            "empty": {"object": {}, "array": [], "string": ""},
            "nested": [[[]], [{}], [null, true, false]],
            "long": long,
        }
    });
    let events = vec![
        Event::Connect {
            target: "python server.py --flag 'quoted arg'".into(),
        },
        Event::Send {
            message: json!({"jsonrpc": "2.0", "id": "1", "method": "tools/call"}),
        },
        Event::SendRaw {
            text: "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": 42}\n".into(),
        },
        Event::Recv {
            message,
            http_status: Some(200),
        },
        Event::RecvLarge {
            bytes: 4_194_305,
            text: "{\"jsonrpc\":\"2.0\",\"result\":{\"data\":\"AAAA".into(),
            http_status: None,
        },
        Event::RecvInvalid {
            text: "Traceback (most recent call last):\n  File \"x.py\", line 1".into(),
            error: "expected value at line 1 column 1".into(),
            http_status: Some(500),
        },
        Event::Answer {
            message: json!({"jsonrpc": "2.0", "id": 0, "result": {}}),
        },
        Event::Timeout {
            waited_ms: 2000,
            waiting_for: "the reply to id 2".into(),
        },
        Event::Overflow { limit: 4_194_304 },
        Event::Closed,
        Event::CloseInput,
        Event::Exit {
            how: "exit status: 1".into(),
        },
        Event::SendFailed {
            error: "Broken pipe (os error 32)".into(),
        },
        Event::Note {
            text: "drained 2 messages (attributed to this check, not judged): yes: no".into(),
        },
        Event::Dropped {
            events: 3,
            bytes: 262_145,
        },
    ];
    events
        .into_iter()
        .enumerate()
        .map(|(i, event)| Entry {
            seq: i as u32 + 1,
            conn: 1 + (i as u32 % 2),
            // Time offsets are left out, as the snapshot form leaves them out of recorded
            // transcripts: they differ from run to run.
            at_ms: None,
            instance: None,
            event,
        })
        .collect()
}

#[test]
fn awkward_values_are_byte_stable() {
    let text = mcpspec_harness::yaml::to_string(&awkward_transcript()).expect("serializes");
    assert_bytes("awkward-transcript", &text);
}

#[test]
fn baselines_are_byte_stable() {
    let dir = support::repo_root().join("fixtures/baselines");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/baselines")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "{names:?}");
    // A client's baseline (`client-*.yaml`) names `mcpspec client`'s checks.
    let client: Vec<&str> = mcpspec_client::checks::all().iter().map(|c| c.id).collect();
    let mut out = String::new();
    for name in names {
        let path = dir.join(&name);
        let baseline = if name.starts_with("client-") {
            mcpspec_harness::baseline::Baseline::load_for(&path, &client)
        } else {
            mcpspec_harness::baseline::Baseline::load(&path)
        }
        .expect("loads");
        assert!(!baseline.entries.is_empty(), "{name}");
        out.push_str(&format!("# {name}\n"));
        out.push_str(&mcpspec_harness::yaml::to_string(&baseline).expect("serializes"));
    }
    assert_bytes("baselines", &out);
}
