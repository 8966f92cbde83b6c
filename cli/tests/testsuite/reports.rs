//! The renderers over a fixed, hand-built [`RunReport`] (one check of every kind, a baselined
//! failure and a stale baseline entry; durations fixed): JUnit, Markdown, JSON and the console
//! are golden files under `snapshots/reports/`, and the JUnit XML is parsed back with an
//! independent XML reader to show it is well-formed and its counts match.

use crate::support;

use std::collections::BTreeMap;

use mcpspec::RunReport;
use mcpspec_harness::outcome::{Kind, Level, Outcome};
use mcpspec_harness::report::{CheckResult, Negotiated, Summary};
use quick_xml::events::Event;

fn result(id: &str, reqs: &[&str], level: Level, outcome: Outcome, ms: u64) -> CheckResult {
    CheckResult {
        id: id.into(),
        requirements: reqs.iter().map(|r| (*r).to_owned()).collect(),
        level,
        outcome,
        duration_ms: ms,
        transcript_path: None,
        baseline_reason: None,
        transport: None,
        transcript: vec![],
        prefix: None,
        confirmed: None,
        group: None,
    }
}

/// Every outcome kind once, plus a baselined Fail and a stale baseline entry.
fn fixed_report() -> RunReport {
    let mut baselined = result(
        "jsonrpc/batch/rejected",
        &["RPC-10", "POL-4"],
        Level::Must,
        Outcome::fail("a batch got 2 replies"),
        7,
    );
    baselined.baseline_reason = Some("the server answers batches | known".into());
    let results = vec![
        result(
            "jsonrpc/parse-error/replies-32700",
            &["RPC-5", "POL-3"],
            Level::Must,
            Outcome::pass("error -32700"),
            12,
        ),
        result(
            "jsonrpc/result-type/present",
            &["RPC-6", "POL-16"],
            Level::Must,
            Outcome::fail("server/discover: the result has no resultType (RPC-6)"),
            5,
        ),
        baselined,
        result(
            "jsonrpc/error-code/reserved-range",
            &["RPC-7", "POL-15"],
            Level::Should,
            Outcome::non_strict("error code -32010 is in -32000..-32019"),
            3,
        ),
        result(
            "modern/discover/result-shape",
            &["DISC-1"],
            Level::Must,
            Outcome::pass("a DiscoverResult"),
            4,
        ),
        result(
            "modern/discover/server-info",
            &["DISC-1"],
            Level::Policy,
            Outcome::info("serverInfo present: <name & \"version\">"),
            2,
        ),
        result(
            "tools/call/echo",
            &["FEAT-1", "POL-12"],
            Level::Must,
            Outcome::skipped("needs --allow-tool NAME"),
            0,
        ),
        result(
            "stdio/process/exits-on-eof",
            &["STDIO-5"],
            Level::Must,
            Outcome::error("timed out: the scenario did not finish within its 15 s cap"),
            15000,
        ),
    ];
    let mut report = RunReport {
        schema_version: mcpspec_harness::report::SCHEMA_VERSION,
        mcpspec_version: "0.0.0-test".into(),
        target: "./my-server --flag".into(),
        transport: "stdio".into(),
        negotiated: Negotiated {
            era: "modern".into(),
            version: Some("2026-07-28".into()),
            versions: vec!["2026-07-28".into()],
            path: "server/discover probe: a DiscoverResult".into(),
        },
        results,
        target_failure: None,
        processes: None,
        negotiation_matrix: None,
        instances: None,
        client: None,
        revision: None,
        not_served: None,
        summary: Summary {
            stale: vec!["modern/discover/result-shape".into()],
            ..Summary::default()
        },
        duration_ms: 15033,
    };
    report.summarize();
    report
}

fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(support::repo_root().join("snapshots/reports"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

#[test]
fn the_fixed_report_has_one_of_everything() {
    let r = fixed_report();
    let s = &r.summary;
    assert_eq!(
        (s.pass, s.non_strict, s.fail, s.info, s.skipped, s.error),
        (2, 1, 2, 1, 1, 1)
    );
    assert_eq!(s.unexpected, 2, "the baselined Fail is expected");
    assert!(!r.passed());
}

#[test]
fn junit_golden() {
    let xml = fixed_report().to_junit();
    snapshot_settings().bind(|| insta::assert_snapshot!("junit", xml));
}

#[test]
fn markdown_golden() {
    let md = fixed_report().to_markdown();
    snapshot_settings().bind(|| insta::assert_snapshot!("markdown", md));
}

#[test]
fn json_golden() {
    let json = fixed_report().to_json();
    snapshot_settings().bind(|| insta::assert_snapshot!("json", json));
}

#[test]
fn console_golden() {
    let text = fixed_report().to_console(false);
    snapshot_settings().bind(|| insta::assert_snapshot!("console", text));
}

/// What a JUnit reader sees: per suite, its declared counts and the counted children.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

#[test]
fn junit_parses_back_with_matching_counts() {
    let report = fixed_report();
    let xml = report.to_junit();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut declared: BTreeMap<String, Counts> = BTreeMap::new();
    let mut counted: BTreeMap<String, Counts> = BTreeMap::new();
    let mut root: Option<Counts> = None;
    let mut suite = String::new();
    let mut cases: Vec<(String, String)> = Vec::new();
    let mut depth = 0usize;
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let (start, is_empty) = match &event {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            Event::End(_) => {
                depth -= 1;
                (None, false)
            }
            Event::Eof => break,
            _ => (None, false),
        };
        let Some(e) = start else { continue };
        if !is_empty {
            depth += 1;
        }
        let attr = |name: &str| -> Option<String> {
            e.attributes()
                .map(|a| a.expect("well-formed attribute"))
                .find(|a| a.key.as_ref() == name.as_bytes())
                .map(|a| {
                    let raw = String::from_utf8_lossy(&a.value).into_owned();
                    quick_xml::escape::unescape(&raw)
                        .expect("valid escapes")
                        .into_owned()
                })
        };
        let num = |name: &str| attr(name).map_or(0, |v| v.parse::<usize>().expect("a count"));
        match e.name().as_ref() {
            b"testsuites" => {
                root = Some(Counts {
                    tests: num("tests"),
                    failures: num("failures"),
                    errors: num("errors"),
                    skipped: num("skipped"),
                })
            }
            b"testsuite" => {
                suite = attr("name").expect("a suite name");
                declared.insert(
                    suite.clone(),
                    Counts {
                        tests: num("tests"),
                        failures: num("failures"),
                        errors: num("errors"),
                        skipped: num("skipped"),
                    },
                );
            }
            b"testcase" => {
                let name = attr("name").expect("a test case name");
                assert_eq!(attr("classname").as_deref(), Some(suite.as_str()));
                assert!(attr("time").is_some(), "{name} has a time");
                counted.entry(suite.clone()).or_default().tests += 1;
                cases.push((name, String::new()));
            }
            kind @ (b"failure" | b"error" | b"skipped") => {
                let c = counted.entry(suite.clone()).or_default();
                match kind {
                    b"failure" => c.failures += 1,
                    b"error" => c.errors += 1,
                    _ => c.skipped += 1,
                }
                if let Some(last) = cases.last_mut() {
                    last.1 = String::from_utf8_lossy(kind).into_owned();
                }
            }
            _ => {}
        }
    }
    assert_eq!(depth, 0, "every element is closed");
    assert_eq!(declared, counted, "each suite's counts match its children");
    let root = root.expect("a <testsuites> root");
    assert_eq!(root.tests, report.results.len());
    // Unlisted Fail and the stale entry are failures; the baselined Fail and the skip are
    // skipped; the Error is an error.
    assert_eq!((root.failures, root.errors, root.skipped), (2, 1, 2));
    let status: BTreeMap<_, _> = cases.into_iter().collect();
    assert_eq!(status["jsonrpc/result-type/present"], "failure");
    assert_eq!(status["modern/discover/result-shape"], "failure", "stale");
    assert_eq!(status["jsonrpc/batch/rejected"], "skipped", "baselined");
    assert_eq!(status["stdio/process/exits-on-eof"], "error");
    assert_eq!(
        status["jsonrpc/error-code/reserved-range"], "",
        "NonStrict passes"
    );
    assert_eq!(status["modern/discover/server-info"], "", "Info passes");
}

#[test]
fn junit_of_a_real_run_parses_with_quick_junit_counts() {
    let report = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(support::run(
            support::reference_with(&["no-result-type"]),
            &mcpspec_harness::catalogue::all(),
            support::quick_options(),
        ));
    let xml = report.to_junit();
    let root = quick_junit::Report::deserialize_from_str(&xml).expect("quick-junit reads it back");
    assert_eq!(root.tests, report.summary.total);
    assert_eq!(root.failures, report.summary.fail);
    assert_eq!(root.errors, report.summary.error);
    assert!(report.summary.fail >= 1);
    assert!(matches!(
        report
            .result("jsonrpc/result-type/present")
            .map(|r| r.outcome.kind),
        Some(Kind::Fail)
    ));
}

/// A run across three instances (POL-22): the console opens the `stateless/*` group with the
/// instance count and its counts, and the Markdown has a section for it with every outcome.
#[test]
fn stateless_outcomes_are_grouped_with_the_instance_count() {
    let results = vec![
        result(
            "jsonrpc/parse-error/replies-32700",
            &["RPC-5"],
            Level::Must,
            Outcome::pass("error -32700"),
            1,
        ),
        result(
            "stateless/pagination/round-robin",
            &["SCALE-1", "POL-22"],
            Level::Must,
            Outcome::fail(
                "prompts/list: the cursor instance A issued was not accepted by instance B",
            ),
            3,
        ),
        result(
            "stateless/agreement/instances-agree",
            &["SCALE-2", "POL-22"],
            Level::Should,
            Outcome::pass("3 instances agree"),
            2,
        ),
    ];
    let mut report = RunReport::new(
        &mcpspec::Target::embedded(),
        Negotiated {
            era: "modern".into(),
            version: Some("2026-07-28".into()),
            versions: vec!["2026-07-28".into()],
            path: "server/discover probe: a DiscoverResult".into(),
        },
        results,
        std::time::Duration::from_millis(6),
    );
    report.instances = Some(3);
    let console = report.to_console(false);
    assert!(
        console.contains("\nstateless/* across 3 instances (POL-22): 1 pass, 1 fail\n"),
        "{console}"
    );
    let heading = console.find("stateless/* across").unwrap();
    assert!(heading > console.find("jsonrpc/parse-error").unwrap());
    assert!(heading < console.find("\nstateless/pagination\n").unwrap());
    let markdown = report.to_markdown();
    let section = markdown
        .split("### Statelessness across 3 instances (POL-22)")
        .nth(1)
        .expect("a stateless section");
    assert!(section.contains("`stateless/pagination/round-robin` | ❌ FAIL | SCALE-1, POL-22"));
    assert!(section.contains("`stateless/agreement/instances-agree` | PASS"));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["instances"], 3);
}

/// The feature surface's checks (POL-31) are listed under "Features", item by item: each item
/// with its own verdict and message, a failing one with the reply it rests on.
#[test]
fn feature_checks_are_listed_item_by_item() {
    use mcpspec_harness::outcome::{Evidence, Judged};
    let judged = |item: &str, kind: Kind, message: &str, entry: u32| Judged {
        item: item.into(),
        kind,
        message: message.into(),
        evidence: Some(Evidence {
            entry,
            conn: 1,
            instance: None,
            quote: format!("reply {entry}"),
        }),
    };
    let items = vec![
        judged("resource x://a", Kind::Pass, "1 item(s): text", 4),
        judged(
            "resource x://b",
            Kind::Fail,
            "contents[0] has both `text` and `blob`",
            6,
        ),
    ];
    let read = result(
        "resources/read/listed",
        &["FEAT-4", "POL-31"],
        Level::Must,
        Outcome::fail("1 of 2 resources fail (FEAT-4): resource x://b: …").with_items(items),
        3,
    );
    let other = result(
        "jsonrpc/id/integer-echoed",
        &["RPC-2"],
        Level::Must,
        Outcome::pass("4242"),
        1,
    );
    let report = RunReport::new(
        &mcpspec::Target::embedded(),
        Negotiated {
            era: "modern".into(),
            version: Some("2026-07-28".into()),
            versions: vec!["2026-07-28".into()],
            path: "server/discover probe: a DiscoverResult".into(),
        },
        vec![other, read],
        std::time::Duration::from_millis(4),
    );
    let markdown = report.to_markdown();
    let features = markdown
        .split("### Features")
        .nth(1)
        .expect("a Features section");
    assert!(
        features.contains("| `resources/read/listed` | resource x://a | PASS | 1 item(s): text |")
    );
    assert!(features.contains(
        "| `resources/read/listed` | resource x://b | ❌ FAIL | contents[0] has both `text` and \
         `blob` [judged: transcript entry 6 (connection 1): reply 6] |"
    ));
    assert!(!features.contains("jsonrpc/id"), "{features}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["results"][1]["outcome"]["items"][1]["kind"], "fail");
    let html = mcpspec_harness::report::html::render(&report);
    let section = html
        .split("<section class=\"area features\" id=\"features\"><h2>Features</h2>")
        .nth(1)
        .expect("a Features section");
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("<h3>resources/read</h3>"), "{section}");
    assert!(section.contains("<code>resource x://b</code>"), "{section}");
    assert!(
        section.contains("<a href=\"#resources.read.listed-1-6\">entry 6</a>"),
        "{section}"
    );
    assert!(!section.contains("jsonrpc/id"), "{section}");
}

/// `docs/report.schema.json`, compiled.
fn report_schema() -> (serde_json::Value, jsonschema::Validator) {
    let path = support::repo_root().join("docs/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    (schema, validator)
}

fn assert_valid(validator: &jsonschema::Validator, report: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

/// The JSON schema of the report names this mcpspec's version of the report and every outcome
/// kind in its one spelling, and the reports mcpspec writes are valid under it: the fixed one,
/// and a real run's with its transcripts, negotiation matrix and process counts.
#[test]
fn the_json_schema_of_the_report_matches_what_mcpspec_writes() {
    let (schema, validator) = report_schema();
    assert_eq!(
        schema["properties"]["schema_version"]["const"],
        mcpspec_harness::report::SCHEMA_VERSION
    );
    let keys: Vec<&str> = Kind::ALL.iter().map(|k| k.key()).collect();
    assert_eq!(schema["$defs"]["kind"]["enum"], serde_json::json!(keys));
    for key in &keys {
        assert!(
            schema["$defs"]["summary"]["required"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!(key)),
            "the summary's count of {key}"
        );
    }
    let fixed = serde_json::to_value(fixed_report()).unwrap();
    assert_valid(&validator, &fixed, "the fixed report");

    let dir = support::Scratch::new("report-schema");
    let (json, html) = (dir.join("run.json"), dir.join("run.html"));
    assert_cmd::Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["run", "--select", "jsonrpc/id", "--select", "http/sse"])
        .args(["--select", "schema/tools", "--json"])
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(0);
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(run["negotiation_matrix"].is_object() && run["processes"].is_object());
    assert!(run["results"][0]["transcript"].is_array());
    assert_valid(&validator, &run, "a run's report");
    // Read back, the typed report writes the same JSON.
    let again = RunReport::from_json(run.clone()).unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), run);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report of another schema version is refused with the versions named, not misread.
#[test]
fn a_report_of_another_schema_version_is_refused() {
    let mut report = serde_json::to_value(fixed_report()).unwrap();
    report["schema_version"] = 1.into();
    let err = RunReport::from_json(report.clone())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("schema_version 1") && err.contains("reads 2"),
        "{err}"
    );
    report.as_object_mut().unwrap().remove("schema_version");
    let err = RunReport::from_json(report).unwrap_err().to_string();
    assert!(err.contains("schema_version 0"), "{err}");
}
