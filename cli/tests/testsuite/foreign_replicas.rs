//! The `stateless/*` checks (SCALE-1..3, POL-22) against a server nobody here wrote:
//! `fixtures/scripted/stateless_http.py`, run as three HTTP instances, keeps per-instance state
//! the way real servers do: cursors that are an instance's own counters (refused, or read as an
//! empty last page, elsewhere), a `requestState` token only its issuer knows, and a rollout where
//! one instance lists one more tool. With no defect every stateless check passes; with each
//! one, the check that owns it fails (NonStrict for the SHOULD of SCALE-2) and charges it to the
//! instance that answered wrong, never A; checks outside the family keep their verdicts, except
//! the one single-instance check the defect also breaks. No instance outlives its run.

use crate::support;

use std::collections::BTreeMap;

use mcpspec::{Kind, RunReport, Target};
use mcpspec_harness::catalogue;
use mcpspec_harness::replicas::ReplicaSpec;

/// A check expected to move, its verdict, and the texts its message must contain.
type Expected = (&'static str, Kind, &'static [&'static str]);

/// (defect, the checks it moves)
const SPAWNED_DEFECTS: &[(&str, &[Expected])] = &[
    (
        "local-cursor",
        &[
            (
                "stateless/pagination/round-robin",
                Kind::Fail,
                &[
                    "instance A issued (page 1) was not accepted by instance B",
                    r#"-32602 "Invalid cursor""#,
                    "SCALE-1",
                ],
            ),
            (
                "stateless/failover/pagination",
                Kind::Fail,
                &["after instance A was lost", "Invalid cursor", "SCALE-3"],
            ),
        ],
    ),
    (
        "local-cursor-empty",
        &[
            (
                "stateless/pagination/round-robin",
                Kind::Fail,
                &[
                    "differs from instance A's own: 2 items against 5",
                    "in page 2 from instance B",
                    "SCALE-1",
                ],
            ),
            (
                "stateless/failover/pagination",
                Kind::Fail,
                &["finished without instance A differs", "SCALE-3"],
            ),
            // One instance alone shows it too: a cursor it never issued is served (FEAT-2).
            (
                "lists/pagination/invalid-cursor",
                Kind::NonStrict,
                &["never issued was served"],
            ),
        ],
    ),
    (
        "local-state",
        &[
            (
                "stateless/mrtr/round-robin",
                Kind::Fail,
                &[
                    "the retry on instance B with the `requestState` instance A issued",
                    "SCALE-1",
                ],
            ),
            (
                "stateless/failover/mrtr",
                Kind::Fail,
                &["instance A was lost", "instance B", "SCALE-3"],
            ),
        ],
    ),
];

fn script() -> String {
    support::repo_root()
        .join("fixtures/scripted/stateless_http.py")
        .display()
        .to_string()
}

/// The family, and the areas a single instance's answers reach, to show nothing else moves.
fn checks() -> Vec<mcpspec::Check> {
    let areas = ["stateless/", "lists/", "mrtr/", "schema/", "tools/"];
    catalogue::all()
        .into_iter()
        .filter(|c| areas.iter().any(|a| c.id.starts_with(a)))
        .collect()
}

fn options(replicas: ReplicaSpec) -> mcpspec::RunOptions {
    let mut options = support::probe_options();
    options.replicas = Some(replicas);
    options
}

/// Three instances started by mcpspec (`--spawn-http`) with `defect`; each carries a marker in
/// its environment, and none may be left when the run ends.
async fn spawned_run(defect: Option<&str>) -> RunReport {
    let marker = format!(
        "MCPSPEC_FOREIGN_REPLICAS_MARK={}-{}",
        std::process::id(),
        defect.unwrap_or("clean")
    );
    let defect = defect.map_or_else(String::new, |d| format!(" --defect {d}"));
    let command = format!("env {marker} python3 {} --port {{port}}{defect}", script());
    let spec = ReplicaSpec::SpawnHttp { command, count: 3 };
    // The run's target is the first spawned instance; this one is never contacted.
    let placeholder = Target::url("http://127.0.0.1:9/mcp").unwrap();
    let report = support::run(placeholder, &checks(), options(spec)).await;
    // The run waits until every instance's process group is gone (the server under `sh -c`
    // included), so none may be seen once it returns.
    let survivors = support::processes_with_env(&marker);
    assert!(
        survivors.is_empty(),
        "instances outlived the run: {survivors:?}"
    );
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

/// Asserts the checks of `expected` moved as said (a stateless verdict judged an answer of an
/// instance other than A) and every other check kept its clean verdict.
fn assert_moves(what: &str, clean: &RunReport, report: &RunReport, expected: &[Expected]) {
    let clean_kinds = kinds(clean);
    let all = summary(report);
    for r in &report.results {
        let (id, o) = (r.id.as_str(), &r.outcome);
        match expected.iter().find(|(e, _, _)| *e == id) {
            Some((_, kind, texts)) => {
                assert_eq!(o.kind, *kind, "{what}: {id}: {}", o.message);
                for text in *texts {
                    assert!(
                        o.message.contains(text),
                        "{what}: {id} must say `{text}`: {}",
                        o.message
                    );
                }
                if id.starts_with("stateless/") {
                    let evidence = o.evidence.as_ref().expect("evidence");
                    assert!(
                        evidence.instance.as_deref().is_some_and(|i| i != "A"),
                        "{what}: {id} is charged to {evidence}"
                    );
                }
            }
            None => assert_eq!(
                o.kind, clean_kinds[id],
                "{what}: {id} moved: {}\n{all}",
                o.message
            ),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_instance_cursors_and_request_state_fail_the_checks_that_own_them() {
    let mut runs = vec![("clean", tokio::spawn(spawned_run(None)))];
    for &(defect, _) in SPAWNED_DEFECTS {
        runs.push((defect, tokio::spawn(spawned_run(Some(defect)))));
    }
    let mut reports = BTreeMap::new();
    for (name, run) in runs {
        reports.insert(name, run.await.expect("the run completes"));
    }
    let clean = &reports["clean"];
    assert_eq!(clean.instances, Some(3));
    let all = summary(clean);
    for r in clean
        .results
        .iter()
        .filter(|r| r.id.starts_with("stateless/"))
    {
        assert_eq!(r.outcome.kind, Kind::Pass, "clean: {}\n{all}", r.id);
    }
    // Cursors really crossed instances: the listing has more than one page.
    let paged = clean
        .results
        .iter()
        .find(|r| r.id == "stateless/pagination/round-robin")
        .unwrap();
    assert!(
        paged.outcome.message.contains("tools/list (3 pages)"),
        "{}",
        paged.outcome.message
    );
    for &(defect, expected) in SPAWNED_DEFECTS {
        assert_moves(defect, clean, &reports[defect], expected);
    }
}

/// Three given instances (`--url`), the second one a release ahead (one more tool, sorting
/// into page 1): the instances disagree (SCALE-2, a SHOULD: NonStrict), and a listing paged
/// across them is no listing at all (SCALE-1); both charged to instance B.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollout_with_one_instance_ahead_is_charged_to_that_instance() {
    let run = |ahead: bool| async move {
        let script = script();
        let servers: Vec<support::HttpFixture> = (0..3)
            .map(|i| {
                let mut args = vec![script.as_str()];
                if ahead && i == 1 {
                    args.push("--extra-tool");
                }
                support::HttpFixture::announced(support::python3(), &args)
            })
            .collect();
        let urls: Vec<String> = servers.iter().map(|s| s.url.clone()).collect();
        let target = servers[0].target();
        // The servers are killed when `servers` is dropped, after the run.
        support::run(target, &checks(), options(ReplicaSpec::Urls(urls))).await
    };
    let (clean, rollout) = (run(false).await, run(true).await);
    let all = summary(&clean);
    for r in clean
        .results
        .iter()
        .filter(|r| r.id.starts_with("stateless/"))
    {
        let expected = if r.id.starts_with("stateless/failover/") {
            Kind::Skipped // mcpspec does not stop instances it did not start
        } else {
            Kind::Pass
        };
        assert_eq!(r.outcome.kind, expected, "clean: {}\n{all}", r.id);
    }
    let expected: &[Expected] = &[
        (
            "stateless/agreement/instances-agree",
            Kind::NonStrict,
            &[
                "SCALE-2",
                r#"tools/list page 1 /result/tools/1/name: instance A has "echo", instance B has "analyze""#,
            ],
        ),
        (
            "stateless/pagination/round-robin",
            Kind::Fail,
            &["in page 2 from instance B", "SCALE-1"],
        ),
    ];
    assert_moves("rollout", &clean, &rollout, expected);
    for (id, _, _) in expected {
        let r = rollout.results.iter().find(|r| r.id == *id).unwrap();
        let evidence = r.outcome.evidence.as_ref().expect("evidence");
        assert_eq!(evidence.instance.as_deref(), Some("B"), "{id}: {evidence}");
    }
}

/// Three instances whose tool results carry the time they were served (`--clock`, a tracing
/// `_meta` field): no answer repeats, on one instance or across them, and the rest of each answer
/// depends only on the request. `stateless/flows/same-everywhere` asks instance A twice and
/// compares only what A repeats itself: a clock is no state. The sum still counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_that_varies_on_every_call_is_not_instance_state() {
    let script = script();
    let servers: Vec<support::HttpFixture> = (0..3)
        .map(|_| support::HttpFixture::announced(support::python3(), &[script.as_str(), "--clock"]))
        .collect();
    let urls: Vec<String> = servers.iter().map(|s| s.url.clone()).collect();
    let target = servers[0].target();
    let mut options = options(ReplicaSpec::Urls(urls));
    options.checks.allowed_tools = vec!["add".into()];
    let flows: Vec<mcpspec::Check> = catalogue::all()
        .into_iter()
        .filter(|c| c.id == "stateless/flows/same-everywhere")
        .collect();
    let report = support::run(target, &flows, options).await;
    let r = &report.results[0];
    assert_eq!(r.outcome.kind, Kind::Pass, "{}", r.outcome.message);
    assert!(
        r.outcome.message.contains("tools/call add"),
        "the tool was compared: {}",
        r.outcome.message
    );
}
