#!/usr/bin/env bash
# Two mcpspec binaries side by side over streamable HTTP, against one reference server: the whole
# catalogue's wall time and the fuzzer's message rate, alternated in one sitting, median of
# ROUNDS (5). Usage: scripts/bench-http.sh OLD_BINARY NEW_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
old="$1"
new="$2"
rounds="${ROUNDS:-5}"
window="${WINDOW:-10}"
cargo build --release -q -p mcp-reference-server
scratch="$(mktemp -d)"
port=$((20000 + RANDOM % 10000))
target/release/mcp-reference-server --http "127.0.0.1:$port" > "$scratch/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$scratch"' EXIT
url="http://127.0.0.1:$port/mcp"
for _ in $(seq 50); do
    curl -s -o /dev/null "$url" && break
    sleep 0.1
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for round in $(seq "$rounds"); do
    for which in old new; do
        bin="$old"
        [ "$which" = new ] && bin="$new"
        start=$(date +%s%N)
        "$bin" run --url "$url" --json "$scratch/$which.json" > /dev/null 2>&1 || true
        awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }' \
            >> "$scratch/$which.run"
        "$bin" fuzz --seed "$round" --time "$window" --shrink-time 1 --out "$scratch/fz-$which" \
            --url "$url" 2>&1 | sed -n 's/.*(\([0-9]*\) msg\/s).*/\1/p' >> "$scratch/$which.fuzz"
    done
done

printf '| over HTTP, reference server | old | new | new / old |\n|---|---|---|---|\n'
for kind in run fuzz; do
    o=$(median < "$scratch/old.$kind")
    n=$(median < "$scratch/new.$kind")
    label="whole catalogue, wall (s)"
    [ "$kind" = fuzz ] && label="fuzz, msg/s over ${window} s"
    awk -v l="$label" -v o="$o" -v n="$n" 'BEGIN { printf "| %s | %s | %s | %.2f |\n", l, o, n, n / o }'
done
for which in old new; do
    echo "$which runs: $(tr '\n' ' ' < "$scratch/$which.run")· fuzz: $(tr '\n' ' ' < "$scratch/$which.fuzz")"
done
