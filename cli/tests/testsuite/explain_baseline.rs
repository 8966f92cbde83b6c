//! `mcpspec explain CHECK-ID` and `mcpspec baseline --write FILE`, as a server author uses them
//! on a failing run.

use crate::support;

use assert_cmd::Command;

fn mcpspec() -> Command {
    Command::cargo_bin("mcpspec").expect("the mcpspec binary is built")
}

/// The flags of a small run the reference server fails: a tools/call result with an unknown
/// content type (SCHEMA-1).
const FAILING_RUN: &[&str] = &[
    "--fault",
    "content-unknown-type",
    "--probe-profile",
    "--allow-tool",
    "add",
    "--select",
    "schema",
    "--select",
    "jsonrpc/id",
];

#[test]
fn explain_tells_every_check_from_its_metadata() {
    for check in mcpspec_harness::catalogue::all() {
        let text = mcpspec_harness::explain::explain(&check);
        assert!(text.starts_with(check.id), "{text}");
        assert!(
            text.contains(check.description),
            "{}: description",
            check.id
        );
        assert!(
            text.contains(check.expectation),
            "{}: expectation",
            check.id
        );
        for id in check.requirements {
            match mcpspec_harness::requirements::requirement(id) {
                Some(q) => {
                    assert!(text.contains(&q.text), "{}: the text of {id}", check.id);
                    let fix = mcpspec_harness::explain::fix(id).unwrap();
                    assert!(text.contains(fix), "{}: the fix of {id}", check.id);
                }
                None => assert!(text.contains(&format!("  {id}: ")), "{}: {id}", check.id),
            }
        }
        for fault in check.faults {
            assert!(text.contains(fault), "{}: fault {fault}", check.id);
        }
    }
}

#[test]
fn explain_on_the_command_line_links_the_source() {
    let out = mcpspec()
        .args(["explain", "modern/discover/result-shape"])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("https://modelcontextprotocol.io/specification/2026-07-28/"),
        "{text}"
    );
    assert!(text.contains("what a fix usually is:"), "{text}");
    let out = mcpspec()
        .args(["explain", "no/such/check"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("no check `no/such/check`"), "{err}");
}

#[test]
fn a_written_baseline_lists_each_fail_with_its_message_and_makes_the_run_pass() {
    let dir = support::Scratch::new("baseline");
    let (baseline, json) = (dir.join("baseline.yaml"), dir.join("run.json"));
    // The run fails without a baseline.
    mcpspec()
        .arg("run")
        .args(FAILING_RUN)
        .arg("--json")
        .arg(&json)
        .assert()
        .code(1);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let fails: Vec<&serde_json::Value> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"]["kind"] == "fail")
        .collect();
    assert!(!fails.is_empty(), "the fault makes a check fail");

    // From a run: one entry per Fail, its reason the verdict's message.
    mcpspec()
        .args(["baseline", "--write"])
        .arg(&baseline)
        .args(FAILING_RUN)
        .assert()
        .code(0);
    let written = std::fs::read_to_string(&baseline).unwrap();
    let parsed = mcpspec_harness::baseline::Baseline::load(&baseline).unwrap();
    assert_eq!(parsed.entries.len(), fails.len(), "{written}");
    for fail in &fails {
        let entry = parsed
            .entries
            .iter()
            .find(|e| e.check == fail["id"].as_str().unwrap())
            .unwrap_or_else(|| panic!("no entry for {}", fail["id"]));
        assert_eq!(entry.reason, fail["outcome"]["message"].as_str().unwrap());
    }
    // The same run with it passes.
    mcpspec()
        .arg("run")
        .args(FAILING_RUN)
        .arg("--baseline")
        .arg(&baseline)
        .assert()
        .code(0);

    // From the JSON report: the same file.
    let from_json = dir.join("from-json.yaml");
    mcpspec()
        .args(["baseline", "--write"])
        .arg(&from_json)
        .arg("--from")
        .arg(&json)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&from_json).unwrap(), written);
}

/// `baseline` writes the baseline and nothing else: report flags it would drop are refused
/// (exit 2) and nothing is written, rather than exit 0 with the reports missing.
#[test]
fn baseline_refuses_report_flags_it_would_not_honour() {
    let dir = support::Scratch::new("baseline-flags");
    let (baseline, json, html) = (dir.join("b.yaml"), dir.join("r.json"), dir.join("r.html"));
    let out = mcpspec()
        .args(["baseline", "--write"])
        .arg(&baseline)
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("--json, --html belong to `mcpspec run`"),
        "{stderr}"
    );
    for file in [&baseline, &json, &html] {
        assert!(!file.exists(), "{} was written", file.display());
    }
}
