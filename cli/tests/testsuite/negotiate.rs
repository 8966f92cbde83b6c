//! `mcpspec negotiate`: the version matrix, snapshotted for the reference server in each
//! `--eras` mode and for the Python SDK; `--expect` catches a changed matrix.

use crate::support;

use std::sync::Arc;

use assert_cmd::Command;
use mcpspec_harness::driver::Settings;
use mcpspec_harness::negotiation::matrix;

fn snapshot(name: &str, value: &impl serde::Serialize) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(support::repo_root().join("snapshots/negotiate"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_yaml_snapshot!(name, value));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reference_server_matrices() {
    let settings = Arc::new(Settings::default());
    for mode in ["both", "modern", "legacy"] {
        let m = matrix(&support::reference_eras(support::eras(mode)), &settings)
            .await
            .unwrap();
        snapshot(&format!("reference-eras-{mode}"), &m);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_sdk_matrix() {
    let settings = Arc::new(Settings::default());
    let m = matrix(&support::python_server(&[]), &settings)
        .await
        .unwrap();
    snapshot("python-sdk-2.3.0", &m);
}

#[test]
fn expect_passes_on_a_match_and_fails_with_the_difference() {
    let out = Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["negotiate", "--json"])
        .assert()
        .code(0);
    let json = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let dir = support::Scratch::new("negotiate");
    let same = dir.join("same.json");
    std::fs::write(&same, &json).unwrap();
    Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["negotiate", "--expect"])
        .arg(&same)
        .assert()
        .code(0);

    // Edit one cell: the expectation now says 2099-01-01 is served by modern clients.
    let mut edited: serde_json::Value = serde_json::from_str(&json).unwrap();
    let row = edited["rows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["version"] == "2099-01-01")
        .unwrap();
    row["modern"] = serde_json::json!({"answer": "served"});
    let changed = dir.join("edited.json");
    std::fs::write(&changed, serde_json::to_string(&edited).unwrap()).unwrap();
    let out = Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["negotiate", "--expect"])
        .arg(&changed)
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("2099-01-01 modern: expected served, got error -32022"),
        "{err}"
    );

    // The same file against a legacy-only server differs in every modern cell.
    let out = Command::cargo_bin("mcpspec")
        .unwrap()
        .args(["negotiate", "--eras", "legacy", "--expect"])
        .arg(&same)
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("2026-07-28 modern: expected served"), "{err}");
}

/// The "used connection" column asks the modern row again on one process that served
/// 2026-07-28 first: equal to the fresh column on a server that keeps no history, and showing
/// the difference on one that pins its version on first use (the reference server's fault and
/// `fixtures/scripted/history_dual.py --pin-version`, which a fresh cell never sees).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_used_connection_column_shows_a_version_pinned_on_first_use() {
    let settings = Arc::new(Settings::default());
    let clean = matrix(&support::reference_with(&[]), &settings)
        .await
        .unwrap();
    for row in &clean.rows {
        assert_eq!(row.used.as_ref(), Some(&row.modern), "{row:?}");
    }
    let script = support::repo_root().join("fixtures/scripted/history_dual.py");
    let scripted = mcpspec::Target::command(support::python3())
        .arg(script.display().to_string())
        .arg("--pin-version");
    for target in [
        support::reference_with(&["version-pinned-on-first-use"]),
        scripted,
    ] {
        let m = matrix(&target, &settings).await.unwrap();
        let unknown = m.rows.iter().find(|r| r.version == "2099-01-01").unwrap();
        assert!(
            matches!(
                unknown.modern,
                mcpspec_harness::negotiation::Cell::Error { code: -32022, .. }
            ),
            "{unknown:?}"
        );
        assert_eq!(
            unknown.used,
            Some(mcpspec_harness::negotiation::Cell::Served),
            "{unknown:?}"
        );
        assert!(m.to_table().contains("modern, used connection"));
    }
}
