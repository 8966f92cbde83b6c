//! The feature surface on its success paths (POL-31, FEAT-3..8) against a server nobody here
//! wrote: `fixtures/scripted/feature_surface.py` has tools, text and blob resources, a
//! template, prompts, completions and paged lists, in the modern era or (`--era legacy`) after
//! the `initialize` handshake. Right, every feature check passes in both eras; with each
//! `--defect` (one way real servers get a feature wrong) the check that owns it fails, naming
//! the item and the requirement. A tool that needs real input, and one whose schema mcpspec
//! cannot build arguments for, are Info, never Fail.

use crate::support;

use mcpspec::{Check, Kind, RunReport};
use mcpspec_harness::catalogue;

fn surface_server(era: &str, defects: &[&str]) -> mcpspec::Target {
    let script = support::repo_root().join("fixtures/scripted/feature_surface.py");
    let mut target = mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .arg("--era")
        .arg(era);
    for d in defects {
        target = target.arg("--defect").arg(*d);
    }
    target
}

/// The checks of the feature surface: every check citing POL-31.
fn surface_checks() -> Vec<Check> {
    let checks: Vec<Check> = catalogue::all()
        .into_iter()
        .filter(|c| c.requirements.contains(&"POL-31"))
        .collect();
    assert!(checks.len() >= 12, "{} feature checks", checks.len());
    checks
}

async fn run(era: &str, defects: &[&str], checks: &[Check], allowed: &[&str]) -> RunReport {
    let mut options = support::options();
    options.jobs = 2;
    options.checks.allowed_tools = allowed.iter().map(|t| (*t).to_owned()).collect();
    support::run(surface_server(era, defects), checks, options).await
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
async fn a_right_server_passes_every_feature_check_in_both_eras() {
    for era in ["modern", "legacy"] {
        let report = run(era, &[], &surface_checks(), &["echo", "add", "media"]).await;
        let all = summary(&report);
        for r in &report.results {
            assert_eq!(r.outcome.kind, Kind::Pass, "{era}:\n{all}");
            assert!(
                !r.outcome.items.is_empty(),
                "{era}: {} judged no item",
                r.id
            );
        }
        let tools = report
            .results
            .iter()
            .find(|r| r.id == "tools/call/result-shape")
            .unwrap();
        let items: Vec<&str> = tools
            .outcome
            .items
            .iter()
            .map(|i| i.item.as_str())
            .collect();
        assert_eq!(
            items,
            ["tool `echo`", "tool `add`", "tool `media`"],
            "{era}"
        );
        assert!(
            tools.outcome.items[2]
                .message
                .contains("image, audio, resource_link, resource"),
            "{all}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_input_and_unbuildable_schemas_are_info_never_fail() {
    let checks: Vec<Check> = surface_checks()
        .into_iter()
        .filter(|c| c.id == "tools/call/result-shape")
        .collect();
    let report = run("modern", &[], &checks, &["lookup", "strict"]).await;
    let outcome = &report.results[0].outcome;
    assert_eq!(outcome.kind, Kind::Info, "{}", outcome.message);
    let items = &outcome.items;
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0].item, "tool `lookup`");
    assert_eq!(items[0].kind, Kind::Info);
    assert!(
        items[0].message.contains("`isError: true`")
            && items[0].message.contains("no record with id 'mcpspec'"),
        "{}",
        items[0].message
    );
    assert_eq!(items[1].item, "tool `strict`");
    assert!(
        items[1]
            .message
            .starts_with("could not build arguments for `strict`: "),
        "{}",
        items[1].message
    );
    // Beside a tool that passes, the unjudged ones are named, and the verdict is the pass.
    let report = run("modern", &[], &checks, &["echo", "lookup"]).await;
    let outcome = &report.results[0].outcome;
    assert_eq!(outcome.kind, Kind::Pass, "{}", outcome.message);
    assert!(
        outcome.message.contains("1 not judged: tool `lookup`"),
        "{}",
        outcome.message
    );
}

/// A server listing 10 000 resources costs what one listing a few does: the walks stop at
/// `--max-items` items (the reads) or at the page bound (the pagination check, which says so).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_walks_are_bounded_in_items_and_pages() {
    let ids = ["resources/read/listed", "pagination/resources/ends"];
    let checks: Vec<Check> = ids.iter().map(|id| catalogue::by_id(id).unwrap()).collect();
    let script = support::repo_root().join("fixtures/scripted/feature_surface.py");
    let target = mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .arg("--many")
        .arg("10000");
    let mut options = support::options();
    options.jobs = 2;
    options.checks.max_items = 3;
    let report = support::run(target, &checks, options).await;
    let sent = |r: &mcpspec_harness::report::CheckResult, method: &str| {
        r.transcript
            .iter()
            .filter(|e| {
                serde_json::to_value(e).unwrap()["message"]["method"] == serde_json::json!(method)
            })
            .count()
    };
    let reads = &report.results[0];
    assert_eq!(reads.outcome.kind, Kind::Pass, "{}", reads.outcome.message);
    assert_eq!(
        sent(reads, "resources/read"),
        3,
        "{}",
        reads.outcome.message
    );
    assert_eq!(
        sent(reads, "resources/list"),
        2,
        "two pages hold three items"
    );
    assert!(
        reads.outcome.message.contains("up to --max-items 3"),
        "{}",
        reads.outcome.message
    );
    let pages = &report.results[1];
    assert_eq!(pages.outcome.kind, Kind::Info, "{}", pages.outcome.message);
    assert!(
        pages
            .outcome
            .message
            .contains("did not end within 20 pages"),
        "{}",
        pages.outcome.message
    );
    assert_eq!(sent(pages, "resources/list"), 20);
}

/// (defect, era, the check that owns it, the item its Fail names, words of the finding, the
/// requirement it names)
const DEFECTS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "is-error-string",
        "modern",
        "tools/call/result-shape",
        "tool `echo`",
        "`isError` is \"false\", not a boolean",
        "FEAT-3",
    ),
    (
        "image-data-url",
        "modern",
        "tools/call/result-shape",
        "tool `media`",
        "`data` is not base64",
        "FEAT-3",
    ),
    (
        "text-not-string",
        "modern",
        "tools/call/result-shape",
        "tool `add`",
        "no string `text`",
        "FEAT-3",
    ),
    (
        "resource-without-name",
        "modern",
        "resources/list/complete",
        "resource file:///notes/prompts.txt",
        "no string `name`",
        "FEAT-4",
    ),
    (
        "read-wrong-uri",
        "modern",
        "resources/read/listed",
        "resource file:///notes/paging.txt",
        "neither the URI read",
        "FEAT-4",
    ),
    (
        "read-text-and-blob",
        "modern",
        "resources/read/listed",
        "resource file:///logo.png",
        "both `text` and `blob`",
        "FEAT-4",
    ),
    (
        "blob-not-base64",
        "modern",
        "resources/read/listed",
        "resource file:///logo.png",
        "`blob` is not a base64 string",
        "FEAT-4",
    ),
    (
        "template-unclosed",
        "modern",
        "resources/templates/shape",
        "template notes://topics/{topic",
        "not an RFC 6570 template",
        "FEAT-5",
    ),
    (
        "template-read-template",
        "modern",
        "resources/templates/read-expanded",
        "template notes://topics/{topic}",
        "neither the URI read (notes://topics/paging)",
        "FEAT-5",
    ),
    (
        "prompt-role-system",
        "modern",
        "prompts/get/listed",
        "prompt `greet`",
        "the role \"system\"",
        "FEAT-6",
    ),
    (
        "prompt-content-list",
        "modern",
        "prompts/get/listed",
        "prompt `review`",
        "content is an array",
        "FEAT-6",
    ),
    (
        "completion-total-low",
        "modern",
        "completion/complete/prompt-argument",
        "prompt `review` argument `language`",
        "`completion.total` is 1, below the 3 values",
        "FEAT-7",
    ),
    (
        "completion-too-many",
        "modern",
        "completion/complete/prompt-argument",
        "prompt `greet` argument `name`",
        "150 values; at most 100",
        "FEAT-7",
    ),
    (
        "template-completion-error",
        "modern",
        "completion/complete/template-variable",
        "template notes://topics/{topic} variable `topic`",
        "error -32603",
        "FEAT-7",
    ),
    (
        "cursor-loop",
        "modern",
        "pagination/resources/ends",
        "resources/list page 2",
        "already sent for page 2",
        "FEAT-8",
    ),
    (
        "page-overlap",
        "modern",
        "pagination/prompts/ends",
        "prompts/list page 2",
        "repeats `review`, listed on page 1",
        "FEAT-8",
    ),
    // The legacy-session variants of the same checks (POL-28).
    (
        "image-data-url",
        "legacy",
        "tools/call/result-shape",
        "tool `media`",
        "`data` is not base64",
        "FEAT-3",
    ),
    (
        "read-wrong-uri",
        "legacy",
        "resources/read/listed",
        "resource file:///logo.png",
        "neither the URI read",
        "FEAT-4",
    ),
    (
        "prompt-role-system",
        "legacy",
        "prompts/get/listed",
        "prompt `explain`",
        "the role \"system\"",
        "FEAT-6",
    ),
    (
        "completion-total-low",
        "legacy",
        "completion/complete/template-variable",
        "variable `topic`",
        "below the 3 values",
        "FEAT-7",
    ),
    (
        "cursor-loop",
        "legacy",
        "pagination/resources/ends",
        "resources/list page 2",
        "already sent for page 2",
        "FEAT-8",
    ),
];

/// How many defect runs go at once (each starts a few short-lived `python3` processes).
const RUNS_AT_ONCE: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_defect_fails_its_check_naming_the_item_and_the_requirement() {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(RUNS_AT_ONCE));
    let mut runs = tokio::task::JoinSet::new();
    for (n, (defect, era, id, ..)) in DEFECTS.iter().enumerate() {
        let slots = slots.clone();
        runs.spawn(async move {
            let _slot = slots.acquire().await.unwrap();
            let check = catalogue::by_id(id).unwrap();
            (
                n,
                run(era, &[defect], &[check], &["echo", "add", "media"]).await,
            )
        });
    }
    let mut reports: Vec<(usize, RunReport)> = runs.join_all().await;
    reports.sort_by_key(|(n, _)| *n);
    let mut wrong = Vec::new();
    for ((defect, era, id, item, words, requirement), (_, report)) in DEFECTS.iter().zip(&reports) {
        let outcome = &report.results[0].outcome;
        let failing: Vec<&mcpspec_harness::outcome::Judged> = outcome
            .items
            .iter()
            .filter(|j| j.kind == Kind::Fail)
            .collect();
        let named = failing
            .iter()
            .any(|j| j.item.contains(item) && j.message.contains(words));
        let ok = outcome.kind == Kind::Fail
            && named
            && outcome.message.contains(item)
            && outcome.message.contains(requirement)
            && outcome.evidence.is_some();
        if !ok {
            wrong.push(format!(
                "{defect} ({era}): {id} {} — {} — items {failing:?}",
                outcome.kind, outcome.message
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
