#!/usr/bin/env bash
# Benchmark of the `stateless/*` family (issue 18, POL-22): `mcpspec run --replicas 3` against
# the reference binary over stdio (with --probe-profile and --allow-tool add, so all six checks
# run), RUNS times (default 5). Prints each wall time and the median, in seconds, and exits 1
# if a run did not pass all six checks.
#
#   bash scripts/bench-replicas.sh
#   RUNS=9 bash scripts/bench-replicas.sh
#
# A benchmark, not a test: it is not part of scripts/test.sh. Numbers depend on the machine and
# on what else runs on it; docs/performance.md says where it was measured.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-5}"
cargo build --release --locked -p mcpspec -p mcp-reference-server >&2
mcpspec=target/release/mcpspec
reference=target/release/mcp-reference-server
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

walls=()
for i in $(seq "$runs"); do
    start=$(date +%s%N)
    "$mcpspec" run --replicas 3 --select stateless --probe-profile --allow-tool add \
        --json "$scratch/run-$i.json" -- "$reference" --probe-profile >/dev/null 2>&1 || true
    end=$(date +%s%N)
    walls+=("$(( (end - start) / 1000000 ))")
    grep -q '"pass": 6' "$scratch/run-$i.json" || { echo "run $i: not 6 passes" >&2; exit 1; }
done
printf 'run %s ms\n' "${walls[@]}"
printf '%s\n' "${walls[@]}" | sort -n |
    awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
           printf "median of %d: %.3f s\n", NR, m / 1000 }'
