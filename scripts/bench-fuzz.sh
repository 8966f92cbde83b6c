#!/usr/bin/env bash
# Fuzzing throughput, measured side by side in one run (median of ROUNDS):
#  - `mcpspec fuzz` against the Python SDK fixture server over stdio, beside mcp-fuzzer 0.7.0
#    (installed in a scratch venv) against the same server for the same window: messages each
#    tool wrote to the server's stdin (counted by a `tee` in front of the server) per second
#    of wall time, start-up, confirmation and shrinking included;
#  - the server's own pipelined ceiling (scripts/ceiling.py: 3000 pings written at once);
#  - `mcpspec fuzz` against the reference binary (its own count of the fuzzing phase).
#
#   WINDOW=20 ROUNDS=5 bash scripts/bench-fuzz.sh
#   MCPSPEC=/path/to/other/mcpspec bash scripts/bench-fuzz.sh   # another build, same machine
set -euo pipefail
cd "$(dirname "$0")/.."
window="${WINDOW:-20}"
rounds="${ROUNDS:-5}"
root="$PWD"
python="$(bash scripts/python-venv.sh)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
python3 -m venv "$scratch/mcp-fuzzer"
"$scratch/mcp-fuzzer/bin/pip" install -q mcp-fuzzer==0.7.0
cargo build --release -q -p mcpspec -p mcp-reference-server
mcpspec="${MCPSPEC:-$root/target/release/mcpspec}"

# One wrapper per tool: every line written to the server's stdin is also appended to a file.
for tool in mcpspec mcp-fuzzer; do
    cat > "$scratch/$tool.sh" <<WRAP
#!/bin/sh
tee -a "$scratch/$tool.lines" | exec "$python" "$root/fixtures/servers/python/server.py"
WRAP
    chmod +x "$scratch/$tool.sh"
done

lines_per_second() { # file seconds
    awk -v n="$(wc -l < "$1")" -v s="$2" 'BEGIN { printf "%.0f\n", n / s }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$scratch/ours"; : > "$scratch/theirs"; : > "$scratch/ceiling"; : > "$scratch/reference"
for round in $(seq "$rounds"); do
    rm -f "$scratch"/*.lines
    start=$(date +%s%N)
    "$mcpspec" fuzz --seed "$round" --time "$window" --shrink-time 1 --max-findings 11 \
        --allow-tool echo --allow-tool add --out "$scratch/out" -- "$scratch/mcpspec.sh" \
        > "$scratch/ours.out" 2>&1 || true
    took=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')
    lines_per_second "$scratch/mcpspec.lines" "$took" >> "$scratch/ours"

    # mcp-fuzzer has no time bound: its stdin lines are counted at the end of the window, then
    # it is stopped (it keeps going for a while after SIGINT).
    "$scratch/mcp-fuzzer/bin/mcp-fuzzer" --mode all --protocol stdio \
        --endpoint "$scratch/mcp-fuzzer.sh" --runs 1000000 --runs-per-type 1000000 \
        > "$scratch/theirs.out" 2>&1 &
    theirs_pid=$!
    sleep "$window"
    cp "$scratch/mcp-fuzzer.lines" "$scratch/mcp-fuzzer.window" 2>/dev/null || : > "$scratch/mcp-fuzzer.window"
    kill -KILL "$theirs_pid" 2>/dev/null || true
    wait "$theirs_pid" 2>/dev/null || true
    # Its server: the wrapper's children (tee and the interpreter), then the wrapper.
    for wrapper in $(pgrep -f "$scratch/mcp-fuzzer.sh" || true); do
        pkill -KILL -P "$wrapper" 2>/dev/null || true
        kill -KILL "$wrapper" 2>/dev/null || true
    done
    lines_per_second "$scratch/mcp-fuzzer.window" "$window" >> "$scratch/theirs"

    python3 scripts/ceiling.py 3000 -- "$python" fixtures/servers/python/server.py >> "$scratch/ceiling"

    "$mcpspec" fuzz --seed "$round" --time "$window" --allow-tool echo --allow-tool add \
        --out "$scratch/out" -- target/release/mcp-reference-server 2>/dev/null \
        | sed -n 's/.*(\([0-9]*\) msg\/s).*/\1/p' | tail -1 >> "$scratch/reference"
    echo "round $round: mcpspec $(tail -1 "$scratch/ours"), mcp-fuzzer $(tail -1 "$scratch/theirs"), ceiling $(tail -1 "$scratch/ceiling"), reference $(tail -1 "$scratch/reference") msg/s" >&2
done

ours=$(median < "$scratch/ours"); theirs=$(median < "$scratch/theirs")
ceiling=$(median < "$scratch/ceiling"); reference=$(median < "$scratch/reference")
cat <<TABLE
| fuzzing over stdio, median of $rounds ($window s windows) | messages/s |
|---|---|
| mcpspec fuzz → Python SDK server | $ours |
| mcp-fuzzer 0.7.0 → Python SDK server | $theirs |
| Python SDK server's pipelined ceiling (ping) | $ceiling |
| mcpspec fuzz → reference binary | $reference |
| mcpspec / mcp-fuzzer | $(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }') |
| mcpspec / ceiling | $(awk -v a="$ours" -v b="$ceiling" 'BEGIN { printf "%.0f %%", 100 * a / b }') |
TABLE
