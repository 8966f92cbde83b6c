//! `mcpspec::testing` (issue 20, part 5): a baseline shows its listed failures as ignored with
//! their reason and fails on a stale entry; any number of filters select like libtest; the
//! example crate (`examples/cargo-test-integration`) uses a baseline for its server's known
//! deviation, and a fix makes that entry stale.

use crate::support;

use std::path::PathBuf;

use std::sync::atomic::{AtomicUsize, Ordering};

use libtest_mimic::Conclusion;
use mcpspec::testing::Suite;

/// A baseline file in the temp directory, with these (check, reason) entries.
fn baseline(name: &str, entries: &[(&str, &str)]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("mcpspec-{name}-{}.yaml", std::process::id()));
    let mut text = String::from("entries:\n");
    for (check, reason) in entries {
        text.push_str(&format!("  - check: {check}\n    reason: {reason}\n"));
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `suite` in this process with the libtest arguments `list`, its report written to a log
/// file (libtest-mimic writes to the real stdout, which would mix its "test result" lines into
/// this test binary's own); the conclusion and the log.
fn run(suite: Suite, list: &[&str]) -> (Conclusion, String) {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let log = std::env::temp_dir().join(format!(
        "mcpspec-cargo-test-{}-{}.log",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let args = ["conformance", "--logfile", log.to_str().unwrap()]
        .into_iter()
        .chain(list.iter().copied())
        .map(str::to_owned);
    let conclusion = suite.run_with_args(args);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    (conclusion, text)
}

#[test]
fn a_listed_failure_is_ignored_and_a_stale_entry_fails() {
    let listed = baseline("listed", &[("jsonrpc/parse-error/id-null", "id 0, known")]);
    let faulty = support::reference_with(&["parse-error-id-zero"]);
    let (unlisted, _) = run(Suite::new(faulty.clone()), &["jsonrpc/parse-error/"]);
    assert_eq!((unlisted.num_passed, unlisted.num_failed), (2, 1));

    let (known, log) = run(
        Suite::new(faulty).baseline(&listed),
        &["jsonrpc/parse-error/"],
    );
    assert_eq!(
        (known.num_passed, known.num_failed, known.num_ignored),
        (2, 0, 1),
        "the listed Fail is ignored, not failed: {log}"
    );
    assert!(
        line_of(&log, "jsonrpc/parse-error/id-null")
            .contains("ignored (expected failure (baseline): id 0, known — FAIL: "),
        "{log}"
    );

    let (fixed, log) = run(
        Suite::new(mcpspec::Target::embedded()).baseline(&listed),
        &["jsonrpc/parse-error/"],
    );
    assert_eq!(
        (fixed.num_passed, fixed.num_failed),
        (2, 1),
        "the entry is stale once the check passes: {log}"
    );
    assert!(log.contains("stale baseline entry"), "{log}");

    // Entries for checks that did not run are neither expected nor stale.
    let (elsewhere, _) = run(
        Suite::new(mcpspec::Target::embedded()).baseline(&listed),
        &["modern/discover/answers"],
    );
    assert_eq!((elsewhere.num_passed, elsewhere.num_failed), (1, 0));
    let _ = std::fs::remove_file(listed);
}

#[test]
fn a_baseline_naming_no_check_fails_before_any_check_runs() {
    let wrong = baseline("wrong", &[("jsonrpc/no-such-check", "typo")]);
    let (conclusion, log) = run(
        Suite::new(mcpspec::Target::embedded()).baseline(&wrong),
        &[],
    );
    assert_eq!(
        (
            conclusion.num_failed,
            conclusion.num_passed,
            conclusion.num_ignored
        ),
        (1, 0, 0),
        "{log}"
    );
    assert!(
        log.contains("names unknown check(s): jsonrpc/no-such-check"),
        "{log}"
    );
    let _ = std::fs::remove_file(wrong);
}

#[test]
fn several_filters_and_skips_select_like_libtest() {
    let all = mcpspec_harness::catalogue::all();
    let count = |prefix: &str| all.iter().filter(|c| c.id.contains(prefix)).count() as u64;
    let suite = || Suite::new(mcpspec::Target::embedded());

    let (two, _) = run(suite(), &["jsonrpc/parse-error/", "modern/discover/"]);
    let selected = count("jsonrpc/parse-error/") + count("modern/discover/");
    assert_eq!(two.num_passed + two.num_ignored, selected);
    assert_eq!(two.num_filtered_out, all.len() as u64 - selected);

    let (skipped, _) = run(
        suite(),
        &[
            "jsonrpc/parse-error/",
            "modern/discover/",
            "--skip",
            "discover/answers",
        ],
    );
    assert_eq!(skipped.num_passed + skipped.num_ignored, selected - 1);

    let (exact, _) = run(
        suite(),
        &[
            "--exact",
            "modern/discover/answers",
            "jsonrpc/parse-error/keeps-serving",
            "jsonrpc/parse-error/",
        ],
    );
    assert_eq!(exact.num_passed, 2, "--exact: whole ids only");
}

/// The `test ID ... outcome` line of `id` (libtest pads the ids to one width).
fn line_of<'a>(text: &'a str, id: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(&format!("test {id} ")))
        .unwrap_or_default()
}

#[test]
fn the_example_crate_uses_a_baseline() {
    let known =
        support::example_conformance(&["jsonrpc/parse-error/", "modern/discover/answers"], &[]);
    let text = String::from_utf8_lossy(&known.stdout).into_owned();
    assert!(
        known.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&known.stderr)
    );
    assert!(
        line_of(&text, "jsonrpc/parse-error/id-null").contains(
            "... ignored (expected failure (baseline): the parse-error reply carries \"id\" 0 \
             instead of null"
        ),
        "{text}"
    );
    assert!(text.contains("3 passed; 0 failed; 1 ignored"), "{text}");

    let fixed = support::example_conformance(
        &["jsonrpc/parse-error/id-null"],
        &[("EXAMPLE_SERVER_FIXED", "1")],
    );
    let text = String::from_utf8_lossy(&fixed.stdout).into_owned();
    assert!(!fixed.status.success(), "a stale entry fails: {text}");
    assert!(
        line_of(&text, "jsonrpc/parse-error/id-null").ends_with("... FAILED"),
        "{text}"
    );
    assert!(
        text.contains("stale baseline entry: jsonrpc/parse-error/id-null is listed"),
        "{text}"
    );
}
