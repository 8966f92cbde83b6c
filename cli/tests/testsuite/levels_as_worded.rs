//! No check is stricter than the requirement it cites (docs/checks.md, "Levels held to the
//! requirement's words"): where the text says SHOULD, a server that departs from it is
//! NonStrict, never a Fail, and where the text leaves a member optional its absence is no
//! deviation at all. Each case is a verdict that was a Fail before.

use crate::support;

use support::outcome;

use mcpspec::{Kind, RunReport};
use mcpspec_harness::catalogue;

/// (reference-server fault, check, words the NonStrict verdict names): each fault departs from
/// a SHOULD only.
const SHOULDS: &[(&str, &str, &str)] = &[
    (
        "unknown-prompt-result",
        "prompts/get/unknown-prompt",
        "FEAT-2: it SHOULD be -32602",
    ),
    (
        "prompt-missing-argument-accepted",
        "prompts/get/missing-argument",
        "FEAT-2: it SHOULD be -32602",
    ),
    (
        "invalid-log-level-accepted",
        "logging/level/invalid-rejected",
        "META-6: it SHOULD be -32602",
    ),
    (
        "list-order-random",
        "lists/order/deterministic",
        "LIST-2: SHOULD be deterministic",
    ),
    (
        "listen-no-list-changed",
        "subscriptions/list-changed/delivered",
        "SUB-5: SHOULD send it",
    ),
    (
        "http-close-not-cancellation",
        "http/sse/close-cancels",
        "SHOULD stop work",
    ),
    (
        "read-mime-type-changed",
        "resources/read/listed",
        "FEAT-4: SHOULD agree",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn departing_from_a_should_is_non_strict() {
    let mut wrong = Vec::new();
    for &(fault, id, words) in SHOULDS {
        let check = catalogue::by_id(id).unwrap();
        let report = support::run_under_fault(check, fault).await;
        let o = &report.results[0].outcome;
        if o.kind != Kind::NonStrict || !o.message.contains(words) || o.evidence.is_none() {
            wrong.push(format!("{id} under {fault}: {} — {}", o.kind, o.message));
        }
    }
    assert!(
        wrong.is_empty(),
        "expected NonStrict naming the SHOULD, with evidence:\n{}",
        wrong.join("\n")
    );
}

/// `fixtures/scripted/should_words.py` at `version`, with `ids`.
async fn should_words(version: &str, ids: &[&str]) -> RunReport {
    let script = support::repo_root().join("fixtures/scripted/should_words.py");
    let target = mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .args(["--version".to_owned(), version.to_owned()]);
    let checks: Vec<_> = ids.iter().map(|id| catalogue::by_id(id).unwrap()).collect();
    support::run(target, &checks, support::options()).await
}

/// FEAT-4: read contents without the `mimeType` the listing gives are no deviation (the member
/// is optional in every revision's `ResourceContents`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_contents_without_mime_type_pass() {
    let report = should_words("2025-06-18", &["resources/read/listed"]).await;
    let o = outcome(&report, "resources/read/listed");
    assert_eq!(o.kind, Kind::Pass, "{}", o.message);
    assert!(o.message.contains("file:///notes.txt"), "{}", o.message);
}

/// SCHEMA-2 is a SHOULD before 2025-11-25 and a MUST from it: the same invalid `inputSchema` is
/// NonStrict in a 2025-06-18 session and a Fail in a 2025-11-25 one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_input_schema_is_judged_by_the_negotiated_revision() {
    let id = "schema/tools/input-schema";
    let older = should_words("2025-06-18", &[id]).await;
    let o = outcome(&older, id);
    assert_eq!(o.kind, Kind::NonStrict, "{}", o.message);
    assert!(
        o.message.contains("a SHOULD in 2025-06-18") && o.message.contains("`count`"),
        "{}",
        o.message
    );
    let newer = should_words("2025-11-25", &[id]).await;
    let o = outcome(&newer, id);
    assert_eq!(o.kind, Kind::Fail, "{}", o.message);
}
