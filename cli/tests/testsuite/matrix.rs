//! `mcpspec matrix`: the reference server with and without faults, each at several revisions,
//! on one page. Every cell is the verdict of the same target run alone; each target gets its
//! tier with what kept it from the next; a target that cannot start is a column of Errors while
//! the others still run; the per-target runs of `--plan github` merged give the same page as one
//! machine; a bad file is exit 2 naming file, line and key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support;

fn mcpspec(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mcpspec"))
        .args(args)
        .output()
        .expect("mcpspec runs")
}

fn scratch(name: &str) -> support::Scratch {
    support::Scratch::new(&format!("matrix-{name}"))
}

/// The matrix file of these tests: the healthy reference server at the three newest
/// revisions; one whose legacy `ping` is refused (LEG-6) at two; one serving only the modern
/// era at two; one that cannot start.
fn matrix_file(dir: &Path) -> PathBuf {
    let server = support::reference_binary().display().to_string();
    let text = format!(
        "revisions: [2026-07-28, 2025-11-25, 2025-06-18]\n\
         targets:\n\
         \x20 - name: healthy\n\
         \x20   label: \"reference (stdio)\"\n\
         \x20   role: server\n\
         \x20   command: [{server}]\n\
         \x20   allow_tools: [add, echo]\n\
         \x20 - name: no-ping\n\
         \x20   role: server\n\
         \x20   command: [{server}, --fault, no-ping]\n\
         \x20   revisions: [2026-07-28, 2025-11-25]\n\
         \x20 - name: modern-only\n\
         \x20   role: server\n\
         \x20   command: [{server}, --eras, modern]\n\
         \x20   revisions: [2026-07-28, 2025-11-25]\n\
         \x20 - name: broken\n\
         \x20   role: server\n\
         \x20   command: [/nonexistent/mcp-server]\n"
    );
    let path = dir.join("matrix.yaml");
    std::fs::write(&path, text).expect("the matrix file is written");
    path
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn target<'a>(matrix: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    matrix["targets"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("{name} in matrix.json"))
}

/// Each check's kind in a run report.
fn kinds(report: &serde_json::Value) -> BTreeMap<String, String> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().expect("id").to_owned(),
                r["outcome"]["kind"].as_str().expect("kind").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_matrix_scores_each_target_per_revision_and_the_github_plan_merges_to_the_same_page() {
    let dir = scratch("one");
    let file = matrix_file(&dir);
    let out = dir.join("out");
    let run = mcpspec(&[
        "matrix",
        &file.display().to_string(),
        "--out",
        &out.display().to_string(),
        "--jobs",
        "2",
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // A target could not be run: exit 1, and every other target still ran.
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let matrix = read_json(&out.join("matrix.json"));
    assert_valid_matrix(&matrix);
    assert_eq!(
        matrix["revisions"],
        serde_json::json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );

    // The healthy server meets every MUST at the three newest revisions.
    let healthy = target(&matrix, "healthy");
    assert_eq!(healthy["tier"], 1, "{}", healthy["kept_from_next"]);
    assert_eq!(healthy["label"], "reference (stdio)");
    for rev in ["2026-07-28", "2025-11-25", "2025-06-18"] {
        let score = &healthy["revisions"][rev];
        assert_eq!(score["not_met"], serde_json::json!([]), "{rev}");
        assert!(score["pass_rate"].as_f64().expect("a rate") > 0.9, "{rev}");
    }
    // The handshake checks judge the legacy revisions only, the modern ones 2026-07-28 only.
    let cells = &healthy["checks"]["legacy/initialize/result-shape"];
    assert_eq!(cells["2025-06-18"], "pass");
    assert_eq!(cells["2026-07-28"], "skipped");
    assert_eq!(
        healthy["checks"]["modern/discover/result-shape"]["2025-11-25"],
        "skipped"
    );

    // Legacy `ping` refused: a MUST not met at 2025-11-25 keeps it in Tier 3, and it says which.
    let no_ping = target(&matrix, "no-ping");
    assert_eq!(no_ping["tier"], 3);
    let kept = no_ping["kept_from_next"].to_string();
    assert!(kept.contains("2025-11-25: MUST not met:"), "{kept}");
    let not_met = &no_ping["revisions"]["2025-11-25"]["not_met"];
    assert!(
        not_met
            .as_array()
            .expect("a list")
            .iter()
            .any(|id| id == "LEG-6"),
        "{not_met}"
    );
    assert_eq!(
        no_ping["revisions"]["2026-07-28"]["not_met"],
        serde_json::json!([])
    );

    // Modern only: 2025-11-25 not served, said with the runner's reason, never a Fail (what
    // ran there does not depend on the revision: stdio framing, the process's exit).
    let modern = target(&matrix, "modern-only");
    assert_eq!(modern["tier"], 3);
    let kept = modern["kept_from_next"].to_string();
    assert!(
        kept.contains("2025-11-25: not served (the server does not serve 2025-11-25: it serves no legacy revision"),
        "{kept}"
    );
    let legacy_cells: Vec<_> = modern["checks"]
        .as_object()
        .expect("checks")
        .iter()
        .filter(|(id, _)| id.starts_with("legacy/"))
        .map(|(_, c)| c["2025-11-25"].clone())
        .collect();
    assert!(!legacy_cells.is_empty());
    assert!(
        legacy_cells.iter().all(|k| k == "skipped"),
        "{legacy_cells:?}"
    );

    // Cannot start: a column of Errors with the reason, no tier.
    let broken = target(&matrix, "broken");
    assert_eq!(broken["tier"], serde_json::Value::Null);
    let error = broken["error"].as_str().expect("a reason");
    assert!(error.contains("/nonexistent/mcp-server"), "{error}");
    let cells = broken["checks"].as_object().expect("checks");
    assert!(cells.values().all(|c| {
        c.as_object()
            .expect("by revision")
            .values()
            .all(|k| k == "error")
    }));

    // Every cell is the verdict of the target's own run at that revision...
    for name in ["healthy", "no-ping", "modern-only"] {
        let column = target(&matrix, name);
        for rev in column["revisions"].as_object().expect("revisions").keys() {
            let report = read_json(&out.join(name).join(rev).join("report.json"));
            for (id, kind) in kinds(&report) {
                assert_eq!(column["checks"][&id][rev], kind, "{name} {rev} {id}");
            }
            assert!(out.join(name).join(rev).join("report.html").is_file());
        }
    }
    // ...and of the same target run alone, as a user would.
    let alone = dir.join("alone.json");
    let server = support::reference_binary().display().to_string();
    let solo = mcpspec(&[
        "run",
        "--revision",
        "2025-11-25",
        "--json",
        &alone.display().to_string(),
        "--",
        &server,
        "--fault",
        "no-ping",
    ]);
    assert_eq!(
        solo.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&solo.stderr)
    );
    for (id, kind) in kinds(&read_json(&alone)) {
        assert_eq!(no_ping["checks"][&id]["2025-11-25"], kind, "{id}");
    }

    // The pages.
    let page = std::fs::read_to_string(out.join("matrix.html")).expect("matrix.html");
    assert!(page.contains("healthy/2025-06-18/report.html#check-legacy/initialize/result-shape"));
    let md = std::fs::read_to_string(out.join("matrix.md")).expect("matrix.md");
    assert!(
        md.contains("| **healthy** reference (stdio) | server | Tier 1 |"),
        "{md}"
    );
    assert!(md.contains("`LEG-6`"), "{md}");

    // The GitHub plan: one job per target; each job's run merged gives the same page.
    let plan = mcpspec(&["matrix", &file.display().to_string(), "--plan", "github"]);
    assert_eq!(plan.status.code(), Some(0));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).expect("the plan is JSON");
    let jobs: Vec<String> = plan["include"]
        .as_array()
        .expect("include")
        .iter()
        .map(|j| j["target"].as_str().expect("a target").to_owned())
        .collect();
    assert_eq!(jobs, ["healthy", "no-ping", "modern-only", "broken"]);
    let mut records = Vec::new();
    for job in &jobs {
        let job_out = dir.join("jobs").join(job);
        let ran = mcpspec(&[
            "matrix",
            &file.display().to_string(),
            "--only",
            job,
            "--out",
            &job_out.display().to_string(),
        ]);
        assert!(
            matches!(ran.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        records.push(job_out.join(job).join("report.json").display().to_string());
    }
    let merged = dir.join("merged");
    let mut args = vec!["matrix", "merge"];
    args.extend(records.iter().rev().map(String::as_str));
    let merged_arg = merged.display().to_string();
    args.extend(["--out", &merged_arg]);
    let merge = mcpspec(&args);
    assert_eq!(
        merge.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    for page in ["matrix.html", "matrix.md", "matrix.json"] {
        let one = std::fs::read_to_string(out.join(page)).expect("one machine's page");
        let many = std::fs::read_to_string(merged.join(page)).expect("the merged page");
        assert!(
            one == many,
            "{page} differs between one machine and the merge"
        );
    }
    // The merged page's links reach the reports it copied.
    assert!(merged.join("healthy/2025-06-18/report.html").is_file());
    // And `render` draws the same pages from matrix.json alone.
    let rendered = dir.join("rendered");
    let render = mcpspec(&[
        "matrix",
        "render",
        &out.join("matrix.json").display().to_string(),
        "--out",
        &rendered.display().to_string(),
    ]);
    assert_eq!(render.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(rendered.join("matrix.html")).expect("rendered"),
        page
    );
}

/// `matrix.json` is valid under `docs/matrix.schema.json`, whose version and kinds are ours.
fn assert_valid_matrix(matrix: &serde_json::Value) {
    let path = support::repo_root().join("docs/matrix.schema.json");
    let schema = read_json(&path);
    assert_eq!(
        schema["properties"]["schema_version"]["const"],
        mcpspec::cli::matrix::model::SCHEMA_VERSION
    );
    let kinds: Vec<&str> = mcpspec::Kind::ALL.iter().map(|k| k.key()).collect();
    assert_eq!(schema["$defs"]["kind"]["enum"], serde_json::json!(kinds));
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(matrix)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn a_bad_matrix_file_is_exit_2_naming_file_line_and_key() {
    let dir = scratch("bad");
    let cases = [
        (
            "targets:\n  - name: a\n    role: server\n    command: [x]\n    colour: red\n",
            ":5: `colour`",
        ),
        (
            "targets:\n  - name: a\n    role: server\n    command: [x]\n  - name: a\n    role: server\n    command: [y]\n",
            ":5: `name`",
        ),
        (
            "revisions: [2026-07-28, 2025-01-01]\ntargets:\n  - name: a\n    role: server\n    command: [x]\n",
            ":1: `revisions`",
        ),
        (
            "targets:\n  - name: a\n    role: server\n    url: http://127.0.0.1:9/mcp\n    bearer_env: MCPSPEC_MATRIX_TEST_UNSET_VARIABLE\n",
            ":5: `bearer_env`",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad-{i}.yaml"));
        std::fs::write(&path, text).expect("written");
        let out = mcpspec(&[
            "matrix",
            &path.display().to_string(),
            "--out",
            &dir.display().to_string(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "case {i}: {err}");
        let named = format!("{}{want}", path.display());
        assert!(err.contains(&named), "case {i}: wanted {named:?} in {err}");
    }
}
