#!/usr/bin/env bash
# Benchmark of `--isolation shared` against `--isolation fresh` (issue 17, POL-21): the whole
# catalogue against the reference binary and the Python SDK fixture server, both over stdio,
# RUNS times each (default 5), with the default --jobs. Prints a Markdown table of the median
# wall time and the median number of server processes started, and whether the two modes gave
# the same outcome kind for every check (they must: a difference is a bug, and makes this
# script exit 1).
#
#   bash scripts/bench-isolation.sh            # RUNS=5
#   RUNS=3 bash scripts/bench-isolation.sh
#   PY_RUNS=3 bash scripts/bench-isolation.sh  # fewer runs of the (slow) Python SDK server
#
# A benchmark, not a test: it is not part of scripts/test.sh. Numbers depend on the machine and
# on what else runs on it; docs/performance.md says where it was measured.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-5}"
py_runs="${PY_RUNS:-$runs}"
py="$(bash scripts/python-venv.sh)"
cargo build --release --locked -p mcpspec -p mcp-reference-server >&2
mcpspec=target/release/mcpspec
reference=target/release/mcp-reference-server
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench NAME MODE CMD...: RUNS runs; writes $scratch/NAME-MODE-{wall,procs} and the last report
bench() {
    local name="$1" mode="$2" n="$3"
    shift 3
    for i in $(seq "$n"); do
        local json="$scratch/$name-$mode-$i.json"
        local start end
        start=$(date +%s%N)
        "$mcpspec" run --isolation "$mode" --json "$json" -- "$@" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        echo $(( (end - start) / 1000000 )) >>"$scratch/$name-$mode-wall"
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["processes"]["started"])' \
            "$json" >>"$scratch/$name-$mode-procs"
        echo "bench: $name --isolation $mode run $i: $(tail -1 "$scratch/$name-$mode-wall") ms" >&2
    done
}

# same_verdicts NAME RUNS: whether every run of both modes gave the same kind for every check
same_verdicts() {
    python3 - "$scratch" "$1" "$2" <<'EOF'
import json, sys
scratch, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
kinds = {}
for mode in ("shared", "fresh"):
    for i in range(1, runs + 1):
        r = json.load(open(f"{scratch}/{name}-{mode}-{i}.json"))
        kinds[(mode, i)] = [(c["id"], c["outcome"]["kind"]) for c in r["results"]]
first = kinds[("fresh", 1)]
diff = sorted({f"{mode} run {i}: {a} {b[1]} (fresh run 1: {c[1]})"
               for (mode, i), k in kinds.items() for a, b, c in
               ((x[0], x, y) for x, y in zip(k, first)) if b[1] != c[1]})
for d in diff:
    print(d, file=sys.stderr)
print("yes" if not diff else f"NO ({len(diff)} differences)")
EOF
}

bench reference shared "$runs" "$reference"
bench reference fresh "$runs" "$reference"
bench python-sdk shared "$py_runs" "$py" fixtures/servers/python/server.py
bench python-sdk fresh "$py_runs" "$py" fixtures/servers/python/server.py

echo
echo "| server (stdio) | isolation | wall (median) | processes started (median) | same verdicts (every run) |"
echo "| --- | --- | --- | --- | --- |"
status=0
for name in reference python-sdk; do
    n=$runs
    [[ $name == python-sdk ]] && n=$py_runs
    same="$(same_verdicts "$name" "$n")"
    [[ "$same" == yes ]] || status=1
    for mode in shared fresh; do
        wall=$(median <"$scratch/$name-$mode-wall")
        procs=$(median <"$scratch/$name-$mode-procs")
        awk -v n="$name" -v m="$mode" -v w="$wall" -v p="$procs" -v s="$same" \
            'BEGIN { printf "| %s | %s | %.2f s | %s | %s |\n", n, m, w / 1000, p, s }'
    done
done
echo
echo "runs: $runs (reference), $py_runs (Python SDK); machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
exit "$status"
