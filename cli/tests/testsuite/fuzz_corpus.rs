//! Replays the fuzz seeds and every committed regression (fixtures/fuzz/) through every
//! in-process target and the black-box oracles, so plain `cargo test` guards past crashes and
//! past false positives without cargo-fuzz.

use crate::support;

use std::path::PathBuf;

use mcpspec_harness::fuzz::{ExecOptions, reproducer, run_case};

fn inputs() -> Vec<PathBuf> {
    let root = support::repo_root().join("fixtures/fuzz");
    let mut files = Vec::new();
    for dir in ["seeds", "regressions"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("fixtures/fuzz exists") {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "the corpus is there: {files:?}");
    files
}

#[test]
fn in_process_targets_hold_on_the_corpus_and_regressions() {
    for path in inputs() {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display();
        mcpspec_core::fuzz_targets::codec_invariants(&bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        mcpspec_core::fuzz_targets::sse_invariants(&bytes)
            .unwrap_or_else(|e| panic!("sse, {name}: {e}"));
        for line in reproducer::split_lines(&bytes) {
            mcpspec_core::fuzz_targets::codec_invariants(&line)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        mcp_reference_server::fuzz_targets::dispatch_invariants(&bytes)
            .unwrap_or_else(|e| panic!("dispatch, {name}: {e}"));
        mcp_reference_server::fuzz_targets::transport_invariants(&bytes)
            .unwrap_or_else(|e| panic!("transport, {name}: {e}"));
        // The in-memory targets judge what the transport writes.
        mcp_reference_server::fuzz_targets::paths_agree(Default::default(), &bytes)
            .unwrap_or_else(|e| panic!("paths, {name}: {e}"));
        mcp_reference_server::fuzz_targets::structured_invariants(&bytes)
            .unwrap_or_else(|e| panic!("structured, {name}: {e}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn black_box_oracles_find_nothing_on_the_corpus_against_the_reference_server() {
    let target = support::reference_with(&[]);
    for path in inputs() {
        let case = reproducer::read(&path).unwrap();
        let outcome = run_case(&target, &case, &ExecOptions::default())
            .await
            .unwrap();
        assert_eq!(outcome.violation, None, "{}", path.display());
    }
}
