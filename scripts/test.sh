#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (the Python SDK venv,
# the TypeScript SDK fixture's node_modules, the Rust SDK fixture's binary, cargo-fuzz,
# mdBook), then runs formatting, lints, short fuzz runs, the book's build and link check, and
# every test. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== python venv (mcp==2.3.0 fixtures)"
bash scripts/python-venv.sh

echo "== TypeScript SDK fixture (npm ci: @modelcontextprotocol/sdk 1.32.2)"
bash scripts/typescript-deps.sh
bash scripts/typescript-v2-deps.sh

echo "== TypeScript SDK v2 client fixture (npm ci: @modelcontextprotocol/client 2.4.0)"
bash scripts/typescript-client-deps.sh

echo "== Rust SDK fixture (cargo build: rmcp 3.11.0, into target/sdk-fixtures)"
bash scripts/rust-sdk-fixture.sh

echo "== Chromium (the HTML report's browser test; skipped with the reason if it cannot be installed)"
bash scripts/chromium.sh >/dev/null || echo "chromium: not installed; cli/tests/testsuite/html_report.rs skips its browser test"

echo "== cargo fmt --check"
cargo fmt --all -- --check
# The Rust SDK fixture is its own workspace, which `--all` does not reach.
cargo fmt --manifest-path fixtures/servers/rust/Cargo.toml -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo fuzz (short bounded runs of every target)"
FUZZ_SECONDS="${FUZZ_SECONDS:-15}" bash scripts/fuzz-smoke.sh
# Bounded by work, not time: found after 18k to 181k executions in the runs measured, so 2M
# runs is ten times the most it took; the 900 s cap only stops a hang.
echo "== cargo fuzz: the structure-aware target finds the planted panic within 2,000,000 runs"
MCP_REFERENCE_FAULTS=panic-on-dunder-argument FUZZ_RUNS=2000000 FUZZ_SECONDS=900 \
    bash scripts/fuzz-smoke.sh --expect-crash structured

echo "== ClusterFuzzLite/OSS-Fuzz build.sh (outside the base image): every target builds and runs"
bash scripts/cflite-build-test.sh

echo "== shellcheck (every shell script)"
bash scripts/shellcheck.sh

echo "== actionlint (every workflow file)"
bash scripts/actionlint.sh .github/workflows/*.yml

echo "== the book (mdBook build of docs/ into target/book, every relative link and anchor checked)"
bash scripts/book.sh

echo "== cargo test"
# insta never writes snapshots here: a mismatch fails (CI=true does the same in CI).
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# Four tests at once on any machine: most of the suite's wall time is tests waiting (on a hang
# bound, a timeout, another process's start-up), not computing, so two at a time (one per core
# on CI) left the cores idle half the time. MCPSPEC_TEST_THREADS overrides it.
INSTA_UPDATE=no cargo test --workspace --locked -- --test-threads="${MCPSPEC_TEST_THREADS:-4}" 2>&1 | tee "$log"
# One closing line for the whole run (cargo prints one per test binary).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;?$/) p += $i; if ($(i+1) ~ /^failed;?$/) f += $i } }
     END { printf "cargo test: %d passed, %d failed\n", p, f }' "$log"
