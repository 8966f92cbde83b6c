//! The published scorecard (`docs/scorecard.*`, written by `bash scripts/scorecard.sh`) is kept
//! in sync, as `docs/reference.md` is: its pages are what the renderers make of its
//! `scorecard.json`, its targets are `fixtures/scorecard.yaml`'s, and its columns hold every
//! check of today's catalogue and its rows today's requirements. A new check, a changed
//! requirement or a changed renderer fails here until the script is run again.

use std::collections::BTreeSet;

use crate::support;

use mcpspec::cli::matrix::{file, html, markdown, model::Matrix, model::Role};

const RUN_AGAIN: &str = "run `bash scripts/scorecard.sh` to regenerate docs/scorecard.*";

fn read(path: &str) -> String {
    std::fs::read_to_string(support::repo_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}; {RUN_AGAIN}"))
}

fn scorecard() -> Matrix {
    serde_json::from_str(&read("docs/scorecard.json"))
        .unwrap_or_else(|e| panic!("docs/scorecard.json: {e}; {RUN_AGAIN}"))
}

#[test]
fn the_scorecard_pages_are_the_renderings_of_its_matrix() {
    let matrix = scorecard();
    let md = format!(
        "{}\n{}",
        read("docs/scorecard-intro.md"),
        markdown::render(&matrix)
    );
    assert!(
        md == read("docs/scorecard.md"),
        "docs/scorecard.md is stale: {RUN_AGAIN}"
    );
    assert!(
        html::render(&matrix) == read("docs/scorecard.html"),
        "docs/scorecard.html is stale: {RUN_AGAIN}"
    );
    // Published without links into the run's folder, which is not published.
    assert!(matrix.targets.iter().all(|t| {
        t.revisions
            .values()
            .all(|s| s.report.is_none() && s.transcripts.is_none())
    }));
}

#[test]
fn the_scorecard_covers_the_fixtures_the_catalogue_and_the_requirements_of_today() {
    let matrix = scorecard();
    let file = file::load(&support::repo_root().join("fixtures/scorecard.yaml"))
        .expect("fixtures/scorecard.yaml loads");
    let listed: Vec<(&str, Option<&str>, Role)> = file
        .targets
        .iter()
        .map(|t| (t.name.as_str(), t.label.as_deref(), t.role))
        .collect();
    let published: Vec<(&str, Option<&str>, Role)> = matrix
        .targets
        .iter()
        .map(|t| (t.name.as_str(), t.label.as_deref(), t.role))
        .collect();
    assert_eq!(published, listed, "{RUN_AGAIN}");
    assert_eq!(matrix.revisions, file.revisions, "{RUN_AGAIN}");

    let servers: BTreeSet<String> = mcpspec_harness::catalogue::all()
        .iter()
        .map(|c| c.id.to_owned())
        .collect();
    let clients: BTreeSet<String> = mcpspec_client::checks::all()
        .iter()
        .map(|c| c.id.to_owned())
        .collect();
    for column in &matrix.targets {
        assert!(
            column.error.is_none(),
            "{}: {:?}",
            column.name,
            column.error
        );
        let ids: BTreeSet<String> = column.checks.keys().cloned().collect();
        let want = match column.role {
            Role::Server => &servers,
            Role::Client => &clients,
        };
        assert!(
            &ids == want,
            "{}: checks not in the catalogue {:?}, checks of the catalogue missing {:?}; {RUN_AGAIN}",
            column.name,
            ids.difference(want).collect::<Vec<_>>(),
            want.difference(&ids).collect::<Vec<_>>()
        );
    }
    for row in &matrix.requirements {
        let req = mcpspec_harness::requirements::requirement(&row.id)
            .unwrap_or_else(|| panic!("{} is no longer a requirement; {RUN_AGAIN}", row.id));
        assert_eq!(
            (&row.level, &row.era, &row.text),
            (&req.level, &req.era, &req.text),
            "{}: {RUN_AGAIN}",
            row.id
        );
    }
}
