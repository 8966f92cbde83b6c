#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (the Python SDK venv),
# then runs formatting, lints and every test. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== python venv (mcp==2.3.0 fixtures)"
bash scripts/python-venv.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
# insta never writes snapshots here: a mismatch fails (CI=true does the same in CI).
INSTA_UPDATE=no cargo test --workspace --locked
