#!/usr/bin/env bash
# Runs each cargo-fuzz target for a short, bounded time on the stable toolchain (`-s none`: no
# sanitizer, so no nightly). Installs cargo-fuzz 0.13.2 when it is missing. Seeds: the named
# corpus in fixtures/fuzz/seeds (and the spec's example messages when ../shared/mcp-spec is
# there); new corpus entries go to a temporary directory, crashes to fuzz/artifacts/ (ignored).
#
#   FUZZ_SECONDS=20 bash scripts/fuzz-smoke.sh            # every target, 20 s each
#   bash scripts/fuzz-smoke.sh structured                 # one target
#   MCP_REFERENCE_FAULTS=panic-on-dunder-argument FUZZ_RUNS=2000000 \
#     bash scripts/fuzz-smoke.sh --expect-crash structured  # the planted panic must be found
#
# FUZZ_RUNS bounds each run by work (executions) instead of time, so that a loaded machine
# takes longer but reaches the same inputs: what must be found is found whatever the load.
# FUZZ_SECONDS then only caps the wall time.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-20}"
runs="${FUZZ_RUNS:-}"
# A fixed libFuzzer seed: the same binary explores the same inputs (FUZZ_SEED=0 for a random one).
fuzz_seed="${FUZZ_SEED:-1}"
expect_crash=false
if [[ "${1:-}" == "--expect-crash" ]]; then
    expect_crash=true
    shift
fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(codec sse dispatch structured transport)
fi

if ! cargo fuzz --version 2>/dev/null | grep -q '0\.13\.2'; then
    cargo install cargo-fuzz --version 0.13.2 --locked
fi

seed_dirs=("$PWD/fixtures/fuzz/seeds" "$PWD/fixtures/fuzz/regressions")
spec_examples=../shared/mcp-spec/schema/2026-07-28/examples
if [[ -d "$spec_examples" ]]; then
    # libFuzzer reads corpus directories one level deep: flatten the examples into a temp dir.
    spec_corpus="$(mktemp -d)"
    find "$spec_examples" -name '*.json' -exec cp {} "$spec_corpus"/ \;
    seed_dirs+=("$spec_corpus")
fi

(cd fuzz && cargo fuzz build -s none)

status=0
bound=(-max_total_time="$seconds")
what="${seconds} s"
if [[ -n "$runs" ]]; then
    bound+=(-runs="$runs")
    what="${runs} runs (at most ${seconds} s)"
fi

for target in "${targets[@]}"; do
    corpus="$(mktemp -d)"
    echo "== cargo fuzz run -s none $target (${what})"
    set +e
    (cd fuzz && cargo fuzz run -s none "$target" "$corpus" "${seed_dirs[@]}" -- \
        "${bound[@]}" -seed="$fuzz_seed" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1) \
        > "$corpus.log" 2>&1
    rc=$?
    set -e
    grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|Done [0-9]+ runs' \
        "$corpus.log" || true
    if $expect_crash; then
        if [[ $rc -eq 0 ]]; then
            echo "$target: expected a crash, found none in ${what}"
            status=1
        else
            grep -m1 -E 'panicked|invariant violated' "$corpus.log" || true
            echo "$target: crash found, as expected"
        fi
    elif [[ $rc -ne 0 ]]; then
        tail -n 40 "$corpus.log"
        echo "$target: FAILED (artifacts in fuzz/artifacts/$target)"
        status=1
    fi
    rm -rf "$corpus" "$corpus.log"
done
exit $status
