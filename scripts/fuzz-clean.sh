#!/usr/bin/env bash
# `mcpspec fuzz` against servers that behave correctly where the fuzzer used to blame them
# (issue 27): the SDK fixtures over stdio and HTTP and the scripted servers that reproduce the
# old false findings, SEEDS runs of SECONDS each. Prints one line per run (target, seed,
# findings, cases) and exits 1 when any run reported a finding. A benchmark-length check, not
# part of scripts/test.sh (the tests bound their fuzzing by --cases).
#
#   SECONDS_PER_RUN=60 SEEDS="1 2 3" bash scripts/fuzz-clean.sh
#   TARGETS="python-stdio scripted-big-ids" bash scripts/fuzz-clean.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
per_run="${SECONDS_PER_RUN:-60}"
seeds="${SEEDS:-1 2 3}"
targets="${TARGETS:-python-stdio python-http typescript-stdio typescript-http rust-stdio rust-http scripted-big-ids scripted-surrogate-echo scripted-lenient-utf8 scripted-header-nul-http scripted-session-http}"
python="$(bash scripts/python-venv.sh)"
bash scripts/typescript-deps.sh >/dev/null
rust_fixture="$(bash scripts/rust-sdk-fixture.sh | tail -n 1)"
cargo build --release -q -p mcpspec
mcpspec="$root/target/release/mcpspec"
out="$(mktemp -d)"
server_pid=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$out"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts `$@ --http PORT` in the background and waits (at most 20 s) until it accepts.
start_http() {
    local port
    port="$(free_port)"
    "$@" --http "$port" >/dev/null 2>&1 &
    server_pid=$!
    for _ in $(seq 200); do
        if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
            url="http://127.0.0.1:$port/mcp"
            return 0
        fi
        sleep 0.1
    done
    echo "fuzz-clean: $* did not listen on $port" >&2
    return 1
}

# Starts a scripted server that prints its port alone on its first stdout line.
start_announcing() {
    local fifo="$out/port.fifo"
    rm -f "$fifo"
    mkfifo "$fifo"
    "$@" > "$fifo" 2>/dev/null &
    server_pid=$!
    local port
    read -r -t 20 port < "$fifo"
    url="http://127.0.0.1:$port/mcp"
}

stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}

failed=0
for target in $targets; do
    for seed in $seeds; do
        url=""
        case "$target" in
            python-stdio) set -- -- "$python" fixtures/servers/python/server.py ;;
            python-http) start_http "$python" fixtures/servers/python/server.py; set -- --url "$url" ;;
            typescript-stdio) set -- -- node fixtures/servers/typescript/server.mjs ;;
            typescript-http) start_http node fixtures/servers/typescript/server.mjs; set -- --url "$url" ;;
            rust-stdio) set -- -- "$rust_fixture" ;;
            rust-http) start_http "$rust_fixture"; set -- --url "$url" ;;
            scripted-big-ids) set -- -- python3 fixtures/scripted/big_ids.py ;;
            scripted-surrogate-echo) set -- -- python3 fixtures/scripted/surrogate_echo.py ;;
            scripted-lenient-utf8) set -- -- python3 fixtures/scripted/lenient_utf8.py ;;
            scripted-header-nul-http) start_announcing python3 fixtures/scripted/header_nul_http.py; set -- --url "$url" ;;
            scripted-session-http) start_announcing python3 fixtures/scripted/session_http.py; set -- --url "$url" ;;
            *) echo "fuzz-clean: unknown target $target" >&2; exit 2 ;;
        esac
        log="$out/$target-$seed.log"
        status=0
        "$mcpspec" fuzz --seed "$seed" --time "$per_run" --out "$out/findings-$target-$seed" "$@" > "$log" 2>&1 || status=$?
        stop_server
        summary="$(grep -m1 'messages in' "$log" || true)"
        case "$status" in
            0) echo "$target seed $seed: 0 findings ($summary)" ;;
            1) echo "$target seed $seed: FINDINGS ($summary)"; sed 's/^/    /' "$log"; failed=1 ;;
            *) echo "$target seed $seed: exit $status"; sed 's/^/    /' "$log"; failed=1 ;;
        esac
    done
done
exit "$failed"
