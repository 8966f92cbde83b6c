//! The `http/*` checks' raw exchanges against a server nobody here wrote:
//! `fixtures/scripted/http_defects.py` answers a request whose headers contradict its body with
//! 400 and -32020, and each `--defect` breaks that answer as servers in the wild do (an error
//! without `message`, `code` as a string, the id `"server-error"`, `"result": null` beside
//! `error`), or sends `notifications/progress` with a string `progress` on the event stream of
//! the probe profile's `mcpspec_slow`. With no defect every `http/*` check passes; with each
//! one, every check that gets the broken message fails naming the JSON pointer (the raw exchange
//! goes through the schema layer, its envelope and its stream's events included); no other
//! check's verdict moves, unless it received the broken message itself.

use crate::support;

use std::collections::BTreeMap;

use mcpspec::{Kind, RunReport};
use mcpspec_core::transcript::Event;
use mcpspec_harness::catalogue;

/// The checks that provoke a header error (400 with -32020), so that see every defect.
const HEADER_ERROR_CHECKS: &[&str] = &[
    "http/version-header/mismatch",
    "http/version-header/missing",
    "http/method-header/missing",
    "http/method-header/mismatch",
    "http/name-header/missing",
    "http/headers/duplicate",
    "http/headers/duplicate-mismatched",
    "http/headers/invalid-characters",
    "http/headers/value-case-sensitive",
    "http/headers/invalid-base64",
    "http/param-headers/validated",
];

/// The checks that read the event stream of `mcpspec_slow` (close-cancels its first event).
const STREAM_CHECKS: &[&str] = &[
    "http/sse/no-server-requests",
    "http/sse/terminates",
    "http/sse/close-cancels",
];

/// (defect, the checks that get it, text each one's Fail must contain: the pointer and what
/// came there, and what its verdict quotes)
const DEFECTS: &[(&str, &[&str], &str, &str)] = &[
    (
        "error-without-message",
        HEADER_ERROR_CHECKS,
        "error at /message: expected a required member, got absent",
        "-32020",
    ),
    (
        "error-code-string",
        HEADER_ERROR_CHECKS,
        r#"error at /code: expected i64, got string "-32020""#,
        "-32020",
    ),
    (
        "id-server-error",
        HEADER_ERROR_CHECKS,
        r#"reply at /id: expected the id of the request it answers, 1 (RPC-3), got "server-error""#,
        "-32020",
    ),
    (
        "both-members",
        HEADER_ERROR_CHECKS,
        "reply at (root): expected either `result` or `error`, never both",
        "-32020",
    ),
    (
        "progress-string",
        STREAM_CHECKS,
        r#"notifications/progress notification at /progress: expected f64, got string "1""#,
        r#""progress":"1""#,
    ),
];

/// The whole catalogue against the scripted server with `defects`; the server is killed when
/// the run ends.
async fn run(defects: &[&str]) -> RunReport {
    let script = support::repo_root().join("fixtures/scripted/http_defects.py");
    let mut args = vec![script.display().to_string()];
    for d in defects {
        args.extend(["--defect".to_owned(), (*d).to_owned()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = support::HttpFixture::announced(support::python3(), &args);
    let report = support::run(server.target(), &catalogue::all(), support::probe_options()).await;
    drop(server);
    report
}

fn kinds(report: &RunReport) -> BTreeMap<String, Kind> {
    report
        .results
        .iter()
        .map(|r| (r.id.clone(), r.outcome.kind))
        .collect()
}

fn summary(report: &RunReport) -> String {
    report
        .results
        .iter()
        .map(|r| format!("{} {} — {}", r.id, r.outcome.kind, r.outcome.message))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a check received a message that carries `mark` (what a defect breaks).
fn received(result: &mcpspec_harness::report::CheckResult, mark: &str) -> bool {
    result.transcript.iter().any(|e| match &e.event {
        Event::Recv { .. } | Event::RecvInvalid { .. } | Event::RecvLarge { .. } => {
            serde_json::to_string(&e.event).is_ok_and(|t| t.contains(mark))
        }
        _ => false,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_answers_pass_every_http_check_and_each_defect_fails_the_checks_that_get_it() {
    let mut runs = vec![("clean", tokio::spawn(async { run(&[]).await }))];
    for &(defect, _, _, _) in DEFECTS {
        runs.push((defect, tokio::spawn(async move { run(&[defect]).await })));
    }
    let mut reports = BTreeMap::new();
    for (name, run) in runs {
        reports.insert(name, run.await.expect("the run completes"));
    }
    let clean = &reports["clean"];
    let all = summary(clean);
    for r in clean.results.iter().filter(|r| r.id.starts_with("http/")) {
        assert_eq!(r.outcome.kind, Kind::Pass, "clean: {}\n{all}", r.id);
    }
    let clean_kinds = kinds(clean);
    for &(defect, owners, text, quoted) in DEFECTS {
        let report = &reports[defect];
        let all = summary(report);
        for r in &report.results {
            let (id, o) = (r.id.as_str(), &r.outcome);
            if owners.contains(&id) {
                assert_eq!(o.kind, Kind::Fail, "{defect}: {id}: {}", o.message);
                assert!(
                    o.message.contains(text),
                    "{defect}: {id} must name `{text}`: {}",
                    o.message
                );
                // The verdict quotes the broken message.
                let quote = &o.evidence.as_ref().expect("evidence").quote;
                assert!(quote.contains(quoted), "{defect}: {id}: {quote}");
            } else if clean_kinds[id] != o.kind {
                // Another check may move only because it received the broken message itself.
                assert!(
                    received(r, quoted),
                    "{defect}: {id} moved from {} to {} without receiving the defect: {}\n{all}",
                    clean_kinds[id],
                    o.kind,
                    o.message
                );
            }
        }
    }
}

/// POL-29 both ways over HTTP. A 400 rejection decided from the headers whose error has
/// `id: null` answers its POST: every check that gets one is NonStrict (RPC-3 asks for the
/// id), never a Fail. A 200 result with `id: null` to a request whose id was readable is a
/// reply whose id is wrong: the checks that read it fail, naming POL-29. (Over stdio the same
/// null id is a Fail: `scripted.rs`, `jsonrpc/invalid-request/wrong-jsonrpc-version`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_null_rejection_is_non_strict_and_an_id_null_result_in_a_200_fails() {
    let rejections = run(&["header-error-id-null"]).await;
    let all = summary(&rejections);
    for id in HEADER_ERROR_CHECKS {
        let r = rejections.results.iter().find(|r| r.id == *id).unwrap();
        assert_eq!(r.outcome.kind, Kind::NonStrict, "{id}\n{all}");
        assert!(
            r.outcome.message.contains("carried `id: null`")
                && r.outcome.message.contains("POL-29"),
            "{id}: {}",
            r.outcome.message
        );
    }
    let results = run(&["list-result-id-null"]).await;
    let all = summary(&results);
    let r = results
        .results
        .iter()
        .find(|r| r.id == "tools/list/capability-matches")
        .unwrap();
    assert_eq!(r.outcome.kind, Kind::Fail, "{all}");
    assert!(
        r.outcome.message.contains("a result without an id")
            && r.outcome
                .message
                .contains("POL-29: in an HTTP 200 response"),
        "{}",
        r.outcome.message
    );
}
