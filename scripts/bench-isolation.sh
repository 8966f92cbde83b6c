#!/usr/bin/env bash
# Benchmark of `--isolation shared` against `--isolation fresh` (POL-21, POL-30): the whole
# catalogue over stdio against the reference binary, the Python SDK fixture, a fastmcp server
# and the TypeScript SDK fixture, RUNS times each (default 5), with the default --jobs. For the
# interpreted servers also: the CPU one start costs (median of 5, scripts/startup_cpu.py), the
# catalogue's wall time over streamable HTTP against the same server, and the budget the wall
# time is held to:
#
#     budget = 1.3 x (processes x start-up CPU / cores) + the wall time over HTTP
#
# Prints a Markdown table: medians of wall time and processes started per mode, the floor and
# the budget, and whether every run of both modes gave the same outcome kind for every check
# (a difference that is not a verdict carrying its earlier traffic, POL-30, makes this exit 1).
#
#   bash scripts/bench-isolation.sh            # RUNS=5
#   RUNS=3 bash scripts/bench-isolation.sh
#
# A benchmark, not a test: it is not part of scripts/test.sh. It installs fastmcp (pinned) in
# a venv of its own under target/.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-5}"
py="$(bash scripts/python-venv.sh)"
bash scripts/typescript-deps.sh >/dev/null
fm_venv=target/bench-fastmcp-venv
if [[ ! -x "$fm_venv/bin/python" ]] || ! "$fm_venv/bin/python" -c 'import fastmcp' 2>/dev/null; then
    python3 -m venv "$fm_venv"
    "$fm_venv/bin/pip" install --quiet 'fastmcp==4.1.6'
fi
fm="$fm_venv/bin/python"
cargo build --release --locked -p mcpspec -p mcp-reference-server >&2
mcpspec=target/release/mcpspec
reference=target/release/mcp-reference-server
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"; [[ -n "${server:-}" ]] && kill "$server" 2>/dev/null || true' EXIT
cores=$(nproc)

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench NAME MODE CMD...: RUNS runs; writes $scratch/NAME-MODE-{wall,procs} and each report
bench() {
    local name="$1" mode="$2"
    shift 2
    for i in $(seq "$runs"); do
        local json="$scratch/$name-$mode-$i.json" start end
        start=$(date +%s%N)
        "$mcpspec" run --isolation "$mode" --json "$json" -- "$@" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        echo $(((end - start) / 1000000)) >>"$scratch/$name-$mode-wall"
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["processes"]["started"])' \
            "$json" >>"$scratch/$name-$mode-procs"
        echo "bench: $name --isolation $mode run $i: $(tail -1 "$scratch/$name-$mode-wall") ms" >&2
    done
}

# http NAME PORT CMD...: RUNS runs of the catalogue over HTTP against CMD serving PORT
http() {
    local name="$1" port="$2"
    shift 2
    "$@" >/dev/null 2>&1 &
    server=$!
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
        sleep 0.1
    done
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s%N)
        "$mcpspec" run --url "http://127.0.0.1:$port/mcp" --json "$scratch/$name-http.json" \
            >/dev/null 2>&1 || true
        end=$(date +%s%N)
        echo $(((end - start) / 1000000)) >>"$scratch/$name-http-wall"
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=
}

# same_verdicts NAME: whether every run of both modes gave the same kind for every check (a
# shared verdict that depends on earlier traffic and shows it, POL-30, is the one exception)
same_verdicts() {
    python3 - "$scratch" "$1" "$runs" <<'EOF'
import json, sys
scratch, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
reports = {(mode, i): json.load(open(f"{scratch}/{name}-{mode}-{i}.json"))
           for mode in ("shared", "fresh") for i in range(1, runs + 1)}
first = {c["id"]: c["outcome"]["kind"] for c in reports[("fresh", 1)]["results"]}
diff = set()
for (mode, i), r in reports.items():
    for c in r["results"]:
        if (c.get("confirmed") or {}).get("by") == "earlier-traffic":
            continue
        if c["outcome"]["kind"] != first[c["id"]]:
            diff.add(f"{mode} run {i}: {c['id']} {c['outcome']['kind']} (fresh run 1: {first[c['id']]})")
for d in sorted(diff):
    print(d, file=sys.stderr)
print("yes" if not diff else f"NO ({len(diff)} differences)")
EOF
}

port=$((20000 + RANDOM % 20000))
bench reference shared "$reference"
bench reference fresh "$reference"
for name in python-sdk fastmcp typescript-sdk; do
    case $name in
        python-sdk) cmd=("$py" fixtures/servers/python/server.py) ;;
        fastmcp) cmd=("$fm" fixtures/bench/fastmcp_server.py) ;;
        typescript-sdk) cmd=(node fixtures/servers/typescript/server.mjs) ;;
    esac
    python3 scripts/startup_cpu.py 5 "${cmd[@]}" >"$scratch/$name-startup"
    bench "$name" shared "${cmd[@]}"
    bench "$name" fresh "${cmd[@]}"
    port=$((port + 1))
    http "$name" "$port" "${cmd[@]}" --http "$port"
done

echo
echo "| server (stdio) | isolation | wall (median) | processes (median) | start-up CPU | floor: processes x CPU / $cores cores | budget: 1.3 x floor + HTTP wall (HTTP) | same verdicts |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
status=0
for name in reference python-sdk fastmcp typescript-sdk; do
    same="$(same_verdicts "$name")"
    [[ "$same" == yes ]] || status=1
    for mode in shared fresh; do
        wall=$(median <"$scratch/$name-$mode-wall")
        procs=$(median <"$scratch/$name-$mode-procs")
        if [[ -f "$scratch/$name-startup" ]]; then
            cpu=$(cat "$scratch/$name-startup")
            httpw=$(median <"$scratch/$name-http-wall")
            awk -v n="$name" -v m="$mode" -v w="$wall" -v p="$procs" -v c="$cpu" -v k="$cores" \
                -v h="$httpw" -v s="$same" 'BEGIN {
                    floor = p * c / k; budget = 1.3 * floor + h / 1000
                    printf "| %s | %s | %.2f s | %s | %.2f s | %.2f s | %.2f s (%.2f s) | %s |\n",
                        n, m, w / 1000, p, c, floor, budget, h / 1000, s }'
        else
            awk -v n="$name" -v m="$mode" -v w="$wall" -v p="$procs" -v s="$same" \
                'BEGIN { printf "| %s | %s | %.2f s | %s | | | | %s |\n", n, m, w / 1000, p, s }'
        fi
    done
done
echo
echo "runs: $runs; machine: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
exit "$status"
