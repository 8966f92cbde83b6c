#!/usr/bin/env bash
# Benchmark of a conformance run against interpreted servers over stdio (POL-21, POL-30), in one
# sitting, RUNS times each (default 5), default --jobs, `--allow-tool echo --allow-tool add`:
#
#  - this build beside the floor: processes started x the CPU one start costs (median of 5,
#    scripts/startup_cpu.py) / cores; and beside an older build (OLD_REV, default a3cc264, built
#    once under target/bench-old) on the same server in the same sitting: wall and processes;
#  - whether every run of this build gave the same verdict for every check (the fixed plan,
#    POL-30.3), and how many distinct verdict sets the older build gave;
#  - the README's main command (`mcpspec run --allow-tool add`, the embedded reference server): wall, processes
#    and whether the verdicts and process counts were the same in every run;
#  - the TypeScript SDK v2 fixture at --jobs 1, 2 and 4, RUNS runs each: one verdict set?
#
# Servers: the Python SDK fixture (mcp==2.3.0), a fastmcp server (fastmcp pinned, a venv of its
# own under target/) and the TypeScript SDK v2 fixture (@modelcontextprotocol/server 2.4.0).
# Prints Markdown tables; exits 1 if this build's verdicts changed between any two runs.
#
#   bash scripts/bench-isolation.sh              # RUNS=5
#   RUNS=3 OLD_REV=0517e1b bash scripts/bench-isolation.sh
#
# A benchmark, not a test: it is not part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-5}"
old_rev="${OLD_REV:-a3cc264}"
py="$(bash scripts/python-venv.sh)"
bash scripts/typescript-v2-deps.sh >/dev/null
fm_venv=target/bench-fastmcp-venv
if [[ ! -x "$fm_venv/bin/python" ]] || ! "$fm_venv/bin/python" -c 'import fastmcp' 2>/dev/null; then
    python3 -m venv "$fm_venv"
    "$fm_venv/bin/pip" install --quiet 'fastmcp==4.1.6'
fi
fm="$fm_venv/bin/python"
cargo build --release --locked -p mcpspec >&2
new=target/release/mcpspec
# The older build, once per revision: a worktree and a target directory of its own.
old_dir="target/bench-old/$old_rev"
old="$old_dir/target/release/mcpspec"
if [[ ! -x "$old" ]]; then
    rm -rf "$old_dir/src"
    mkdir -p "$old_dir"
    git worktree add --force --detach "$old_dir/src" "$old_rev" >&2
    (cd "$old_dir/src" && CARGO_TARGET_DIR="$PWD/../target" cargo build --release --locked -p mcpspec >&2)
    git worktree remove --force "$old_dir/src"
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cores=$(nproc)

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench NAME BUILD LABEL ARGS... -- CMD...: RUNS runs; $scratch/NAME-LABEL-{wall,procs,N.json}
bench() {
    local name="$1" build="$2" label="$3"
    shift 3
    for i in $(seq "$runs"); do
        local json="$scratch/$name-$label-$i.json" start end
        start=$(date +%s%N)
        "$build" run --json "$json" "$@" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        echo $(((end - start) / 1000000)) >>"$scratch/$name-$label-wall"
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["processes"]["started"])' \
            "$json" >>"$scratch/$name-$label-procs"
        echo "bench: $name $label run $i: $(tail -1 "$scratch/$name-$label-wall") ms, $(tail -1 "$scratch/$name-$label-procs") processes" >&2
    done
}

# verdict_sets NAME LABEL...: how many distinct verdict sets (each check's outcome kind) the
# runs of these labels gave; the checks that differed go to stderr
verdict_sets() {
    python3 - "$scratch" "$runs" "$@" <<'EOF'
import json, sys
scratch, runs, name, labels = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
sets = {}
for label in labels:
    for i in range(1, runs + 1):
        r = json.load(open(f"{scratch}/{name}-{label}-{i}.json"))
        kinds = tuple((c["id"], c["outcome"]["kind"]) for c in r["results"])
        sets.setdefault(kinds, []).append(f"{label} run {i}")
if len(sets) > 1:
    first = dict(next(iter(sets)))
    for kinds, where in list(sets.items())[1:]:
        diff = [f"{k}: {v} (not {first[k]})" for k, v in kinds if first.get(k) != v]
        print(f"{name}: {', '.join(where)}: {'; '.join(diff)}", file=sys.stderr)
print(len(sets))
EOF
}

tools=(--allow-tool echo --allow-tool add)
status=0
echo "| server (stdio) | build | wall (median of $runs) | processes (median) | start-up CPU | floor: processes x CPU / $cores cores | wall / floor | wall / older build's | verdict sets in $runs runs |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for name in python-sdk fastmcp typescript-sdk-v2; do
    case $name in
        python-sdk) cmd=("$py" fixtures/servers/python/server.py) ;;
        fastmcp) cmd=("$fm" fixtures/bench/fastmcp_server.py) ;;
        typescript-sdk-v2) cmd=(node fixtures/servers/typescript-v2/server.mjs) ;;
    esac
    python3 scripts/startup_cpu.py 5 "${cmd[@]}" >"$scratch/$name-startup"
    bench "$name" "$new" new "${tools[@]}" -- "${cmd[@]}"
    bench "$name" "$old" old "${tools[@]}" -- "${cmd[@]}"
    cpu=$(cat "$scratch/$name-startup")
    old_wall=$(median <"$scratch/$name-old-wall")
    for label in new old; do
        sets=$(verdict_sets "$name" "$label")
        [[ $label == new && $sets != 1 ]] && status=1
        wall=$(median <"$scratch/$name-$label-wall")
        procs=$(median <"$scratch/$name-$label-procs")
        build=$([[ $label == new ]] && echo "this build" || echo "$old_rev")
        awk -v n="$name" -v b="$build" -v w="$wall" -v p="$procs" -v c="$cpu" -v k="$cores" \
            -v o="$old_wall" -v s="$sets" 'BEGIN {
                floor = p * c / k
                printf "| %s | %s | %.2f s | %s | %.2f s | %.2f s | %.2f | %.2f | %s |\n",
                    n, b, w / 1000, p, c, floor, w / 1000 / floor, w / o, s }'
    done
done

echo
echo "| the README's main command (run --allow-tool add, embedded reference server) | wall (median of $runs) | processes (each run) | verdict sets in $runs runs |"
echo "| --- | --- | --- | --- |"
bench readme "$new" new --allow-tool add
sets=$(verdict_sets readme new)
[[ $sets == 1 ]] || status=1
echo "| this build | $(median <"$scratch/readme-new-wall" | awk '{ printf "%.2f s", $1 / 1000 }') | $(paste -sd/ "$scratch/readme-new-procs") | $sets |"

echo
echo "| TypeScript SDK v2 over stdio, $runs runs each | --jobs 1 | --jobs 2 | --jobs 4 | verdict sets over all |"
echo "| --- | --- | --- | --- | --- |"
for jobs in 1 2 4; do
    bench tsv2-jobs "$new" "jobs$jobs" --jobs "$jobs" "${tools[@]}" -- node fixtures/servers/typescript-v2/server.mjs
done
sets=$(verdict_sets tsv2-jobs jobs1 jobs2 jobs4)
[[ $sets == 1 ]] || status=1
walls=()
for jobs in 1 2 4; do
    walls+=("$(median <"$scratch/tsv2-jobs-jobs$jobs-wall" | awk '{ printf "%.2f s", $1 / 1000 }')")
done
echo "| wall (median) | ${walls[0]} | ${walls[1]} | ${walls[2]} | $sets |"

echo
echo "runs: $runs; machine: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
exit "$status"
