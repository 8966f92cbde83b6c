//! The params of what a modern server sends on its own, judged by the typed layer, against a
//! server nobody here wrote: `fixtures/scripted/stream_params.py` (stdio, 2026-07-28) sends the
//! acknowledgement of `subscriptions/listen`, `notifications/tools/list_changed` on the stream
//! and an `elicitation/create` input request (the 2026-07-28 form of a server→client request),
//! and each `--defect` breaks their params as servers in the wild do. With no defect every
//! subscription and MRTR check that can run passes; with each one, every check that receives
//! the broken message fails with a schema violation naming its pointer, and the checks outside
//! the family keep their verdicts.

use crate::support;

use std::collections::BTreeMap;

use mcpspec::{Kind, RunReport};
use mcpspec_harness::catalogue;

// Every check that opens a listen stream (so receives the acknowledgement): the plan's list,
// which runs them last in their groups.
use mcpspec_harness::plan::LISTENING;

/// The listening checks that also fire a list change (so receive `list_changed`).
const TRIGGERING: &[&str] = &[
    "subscriptions/stream/tagged-with-listen-id",
    "subscriptions/filter/only-requested-types",
    "subscriptions/list-changed/delivered",
    "subscriptions/cancel/stream-stops",
];

/// The checks that get an InputRequiredResult of `mcpspec_confirm` (the others get -32021).
const INPUT_REQUIRED: &[&str] = &[
    "mrtr/input-required/shape",
    "mrtr/input-required/no-cache-hints",
    "mrtr/capabilities/per-request",
    "mrtr/request-state/tampered-rejected",
    "mrtr/retry/missing-responses",
];

/// (defect, the checks that receive it, text each one's Fail must contain)
const DEFECTS: &[(&str, &[&str], &str)] = &[
    (
        "ack-without-notifications",
        LISTENING,
        "notifications/subscriptions/acknowledged notification at /notifications: expected a \
         required member, got absent",
    ),
    (
        "ack-flag-string",
        LISTENING,
        r#"notifications/subscriptions/acknowledged notification at /notifications/toolsListChanged: expected a boolean, got string "true""#,
    ),
    (
        "list-changed-params-array",
        TRIGGERING,
        "notifications/tools/list_changed notification at (root): expected an object, got []",
    ),
    (
        "elicitation-schema-string",
        INPUT_REQUIRED,
        "tools/call result at /inputRequests/confirm/params/requestedSchema: expected struct",
    ),
];

/// The family and, to show the defects move nothing else, the checks that read every message of
/// a stdio server (its shape, its framing).
fn checks() -> Vec<mcpspec::Check> {
    let areas = ["subscriptions/", "mrtr/", "schema/", "stdio/"];
    catalogue::all()
        .into_iter()
        .filter(|c| areas.iter().any(|a| c.id.starts_with(a)))
        .collect()
}

/// The checks against the server with `defects`; no process of it may outlive the run (each
/// carries a marker argument the script ignores, looked for in /proc).
async fn run(defects: &[&str]) -> RunReport {
    let script = support::repo_root().join("fixtures/scripted/stream_params.py");
    let marker = format!(
        "mcpspec-foreign-stream-{}-{}",
        std::process::id(),
        defects.join("+")
    );
    let mut target = mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .arg(marker.clone());
    for d in defects {
        target = target.arg("--defect").arg(*d);
    }
    let report = support::run(target, &checks(), support::probe_options()).await;
    // The run returns once every process it started is gone.
    let survivors = support::processes_with_arg(&marker);
    assert!(
        survivors.is_empty(),
        "servers outlived the run: {survivors:?}"
    );
    report
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
async fn clean_params_pass_and_each_defect_fails_every_check_that_receives_it() {
    let mut runs = vec![("clean", tokio::spawn(async { run(&[]).await }))];
    for &(defect, _, _) in DEFECTS {
        runs.push((defect, tokio::spawn(async move { run(&[defect]).await })));
    }
    let mut reports = BTreeMap::new();
    for (name, run) in runs {
        reports.insert(name, run.await.expect("the run completes"));
    }
    let clean = &reports["clean"];
    let all = summary(clean);
    let clean_kinds: BTreeMap<&str, Kind> = clean
        .results
        .iter()
        .map(|r| (r.id.as_str(), r.outcome.kind))
        .collect();
    // Every check of the family that receives a defect passes when it is not sent.
    for id in LISTENING.iter().chain(INPUT_REQUIRED) {
        assert_eq!(clean_kinds[id], Kind::Pass, "clean: {id}\n{all}");
    }
    for &(defect, owners, text) in DEFECTS {
        let report = &reports[defect];
        let all = summary(report);
        for r in &report.results {
            let (id, o) = (r.id.as_str(), &r.outcome);
            if owners.contains(&id) {
                assert_eq!(o.kind, Kind::Fail, "{defect}: {id}: {}", o.message);
                assert!(
                    o.message.contains("schema violation (SCHEMA-1)") && o.message.contains(text),
                    "{defect}: {id} must name `{text}`: {}",
                    o.message
                );
            } else {
                assert_eq!(
                    o.kind, clean_kinds[id],
                    "{defect}: {id} moved, though it does not receive the defect: {}\n{all}",
                    o.message
                );
            }
        }
    }
}
