#!/usr/bin/env bash
# shellcheck disable=SC2016 # backticks in the Markdown this prints, not commands
# Benchmark of `mcpspec matrix` against the floor it cannot beat: the same runs made alone, one
# after another (`mcpspec run --revision REV` for each revision), in one sitting, RUNS times
# each (default 5), medians printed as a Markdown table. Targets: the Python SDK fixture over
# stdio (mcp==2.3.0) and the Rust SDK fixture (rmcp), each at the three newest revisions; with
# BOTH=1, also both targets in one file at --jobs 1 and --jobs 2.
#
#   bash scripts/bench-matrix.sh          # RUNS=5
#
# A benchmark, not a test: it is not part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-5}"
py="$(bash scripts/python-venv.sh)"
rust="$(bash scripts/rust-sdk-fixture.sh)"
cargo build --release --locked --quiet -p mcpspec
bin="$(pwd)/target/release/mcpspec"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
revs=(2026-07-28 2025-11-25 2025-06-18)

matrix_file() { # NAME COMMAND… -> a one-target matrix file
    local name="$1"; shift
    local list
    list="$(printf '"%s", ' "$@")"
    printf 'revisions: [%s]\ntargets:\n  - name: %s\n    role: server\n    command: [%s]\n    allow_tools: [echo, add]\n' \
        "$(IFS=,; echo "${revs[*]}")" "$name" "${list%, }" >"$work/$name.yaml"
}
matrix_file python "$py" "$(pwd)/fixtures/servers/python/server.py"
matrix_file rust "$rust"
{ cat "$work/python.yaml"; tail -n +3 "$work/rust.yaml"; } >"$work/both.yaml"

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A times
measure() { # KEY COMMAND…: one timed run
    local key="$1"; shift
    local t0 t1
    t0="$(now)"
    "$@" >/dev/null 2>&1 || [[ $? -eq 1 ]]
    t1="$(now)"
    times[$key]+="$(echo "$t1 - $t0" | bc) "
}
alone() { # COMMAND…: the three runs alone, one after another
    local rev
    for rev in "${revs[@]}"; do
        "$bin" run --revision "$rev" --allow-tool echo --allow-tool add --json "$work/alone.json" -- "$@" || [[ $? -eq 1 ]]
    done
}
for ((i = 1; i <= runs; i++)); do
    echo "run $i of $runs" >&2
    measure python-alone alone "$py" "$(pwd)/fixtures/servers/python/server.py"
    measure python-matrix "$bin" matrix "$work/python.yaml" --out "$work/out-py"
    measure rust-alone alone "$rust"
    measure rust-matrix "$bin" matrix "$work/rust.yaml" --out "$work/out-rust"
    if [[ -n "${BOTH:-}" ]]; then
        measure both-jobs1 "$bin" matrix "$work/both.yaml" --out "$work/out-1" --jobs 1
        measure both-jobs2 "$bin" matrix "$work/both.yaml" --out "$work/out-2" --jobs 2
    fi
done
med() { tr ' ' '\n' <<<"${times[$1]}" | grep . | median; }
ratio() { echo "scale=3; $1 / $2" | bc; }
echo "| what | median wall (s) | ratio |"
echo "|---|---|---|"
for t in python rust; do
    a="$(med "$t-alone")"; m="$(med "$t-matrix")"
    printf '| %s: 3 runs alone, one after another | %.2f | 1.000 |\n' "$t" "$a"
    printf '| %s: `mcpspec matrix`, the same 3 revisions | %.2f | %s |\n' "$t" "$m" "$(ratio "$m" "$a")"
done
if [[ -n "${BOTH:-}" ]]; then
    j1="$(med both-jobs1)"; j2="$(med both-jobs2)"
    printf '| both targets, `--jobs 1` | %.2f | 1.000 |\n' "$j1"
    printf '| both targets, `--jobs 2` | %.2f | %s |\n' "$j2" "$(ratio "$j2" "$j1")"
fi
