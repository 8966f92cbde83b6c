//! The schema layer against a server nobody here wrote: `fixtures/scripted/shape_defects.py`
//! sends, byte for byte, the shape defects hand-written and framework servers send (a tool
//! without `inputSchema`, a `"txt"` content block, a capability of the wrong JSON type, an
//! error without `message`, `structuredContent` that breaks its `outputSchema`). With no defect
//! every `schema/*` check that applies passes; with each one, the check that owns it fails and
//! names the pointer, so no shape defect passes unseen (issue 16).

use crate::support;

use mcpspec::{Kind, RunReport};
use mcpspec_harness::catalogue;

fn shape_server(defects: &[&str]) -> mcpspec::Target {
    let script = support::repo_root().join("fixtures/scripted/shape_defects.py");
    let mut target = mcpspec::Target::command(support::python3()).arg(script.display().to_string());
    for d in defects {
        target = target.arg("--defect").arg(*d);
    }
    target
}

async fn schema_run(defects: &[&str]) -> RunReport {
    let checks: Vec<_> = catalogue::all()
        .into_iter()
        .filter(|c| c.id.starts_with("schema/") || c.id == "tools/list/capability-matches")
        .collect();
    let mut options = support::options();
    options.jobs = 4;
    options.checks.allowed_tools = vec!["add".into()];
    support::run(shape_server(defects), &checks, options).await
}

fn outcome<'a>(report: &'a RunReport, id: &str) -> &'a mcpspec::Outcome {
    &report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} ran"))
        .outcome
}

fn summary(report: &RunReport) -> String {
    report
        .results
        .iter()
        .map(|r| format!("{} {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_well_shaped_server_passes_every_schema_check_that_applies() {
    let report = schema_run(&[]).await;
    let all = summary(&report);
    for r in &report.results {
        let expected = if r.id == "schema/initialize/result" {
            Kind::Skipped // a modern-only server has no handshake
        } else {
            Kind::Pass
        };
        assert_eq!(r.outcome.kind, expected, "{all}");
    }
    // The allowed tool was called with arguments built from its inputSchema and judged.
    assert!(
        outcome(&report, "schema/tools/structured-output")
            .message
            .ends_with(": add"),
        "{all}"
    );
}

/// (defect, the check that owns it, text its Fail must contain)
const DEFECTS: &[(&str, &str, &str)] = &[
    (
        "tool-without-input-schema",
        "schema/lists/advertised",
        "tools/list result at /tools/0/inputSchema",
    ),
    ("invalid-input-schema", "schema/tools/input-schema", "echo"),
    (
        "txt-content",
        "schema/tools/structured-output",
        "tools/call result at /content/0",
    ),
    (
        "tools-capability-array",
        "schema/discover/result",
        "/capabilities/tools",
    ),
    ("error-without-message", "schema/error/object", "/message"),
    (
        "structured-mismatch",
        "schema/tools/structured-output",
        "SCHEMA-3",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_shape_defect_fails_the_check_that_owns_it() {
    let mut runs = Vec::new();
    for &(defect, check, text) in DEFECTS {
        runs.push((
            defect,
            check,
            text,
            tokio::spawn(async move { schema_run(&[defect]).await }),
        ));
    }
    for (defect, check, text, run) in runs {
        let report = run.await.expect("the run completes");
        let o = outcome(&report, check);
        assert_eq!(o.kind, Kind::Fail, "{defect}:\n{}", summary(&report));
        assert!(
            o.message.contains(text),
            "{defect}: {check} must name `{text}`: {}",
            o.message
        );
    }
}

/// An allowed tool that cannot be called successfully with the smallest arguments leaves its
/// output unjudged: Info, never a Pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsuccessful_call_is_not_judged() {
    let checks = [catalogue::all()
        .into_iter()
        .find(|c| c.id == "schema/tools/structured-output")
        .expect("the check exists")];
    let mut options = support::options();
    options.checks.allowed_tools = vec!["add".into()];
    // `add` rejects non-numbers with isError: the schema says strings, so the call fails.
    let script = support::repo_root().join("fixtures/scripted/shape_defects.py");
    let target = mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .arg("--defect")
        .arg("string-inputs");
    let report = support::run(target, &checks, options).await;
    let o = &report.results[0].outcome;
    assert_eq!(o.kind, Kind::Info, "{}", o.message);
    assert!(o.message.contains("isError"), "{}", o.message);
}
