#!/usr/bin/env bash
# The logic of the mcpspec GitHub Action (action.yml): runs `mcpspec run` with JUnit, Markdown
# and JSON reports, appends the Markdown to $GITHUB_STEP_SUMMARY, writes the report paths and
# the exit code to $GITHUB_OUTPUT, and exits with mcpspec's exit code (0 ok, 1 unexpected
# failure or stale baseline entry, 2 usage error, 3 target did not start).
#
# Inputs (environment, as the action passes them; all optional):
#   INPUT_COMMAND     the server command line, split on whitespace (default: the embedded
#                     reference server)
#   INPUT_URL         a streamable-HTTP URL instead of a command (`--url`)
#   INPUT_BASELINE    a baseline file of known failures
#   INPUT_SELECT      ids/prefixes/requirement ids to select, whitespace- or comma-separated
#   INPUT_SKIP        the same, to leave out
#   INPUT_SHARD       I/N
#   INPUT_STRICT      "true": NonStrict counts as Fail
#   INPUT_ARGS        further `mcpspec run` arguments, split on whitespace
#   INPUT_OUTPUT_DIR  where the reports go (default: $RUNNER_TEMP/mcpspec or /tmp/mcpspec)
#   MCPSPEC_BIN       the mcpspec binary (default: `mcpspec` on PATH, else built from this
#                     repository with cargo)
set -uo pipefail
set -f # no globbing: ids and arguments are taken literally

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${INPUT_OUTPUT_DIR:-${RUNNER_TEMP:-/tmp}/mcpspec}"
mkdir -p "$out"

bin="${MCPSPEC_BIN:-}"
if [[ -z "$bin" ]]; then
    if command -v mcpspec >/dev/null 2>&1; then
        bin="$(command -v mcpspec)"
    else
        echo "::group::build mcpspec" >&2
        cargo build --release --locked -p mcpspec --manifest-path "$root/Cargo.toml" >&2 || exit 2
        echo "::endgroup::" >&2
        bin="$root/target/release/mcpspec"
    fi
fi

junit="$out/mcpspec-junit.xml"
markdown="$out/mcpspec-summary.md"
json="$out/mcpspec-report.json"
rm -f "$junit" "$markdown" "$json"

args=(run --junit "$junit" --markdown "$markdown" --json "$json")
sel="${INPUT_SELECT:-}"
for p in ${sel//,/ }; do args+=(--select "$p"); done
skp="${INPUT_SKIP:-}"
for p in ${skp//,/ }; do args+=(--skip "$p"); done
[[ -n "${INPUT_SHARD:-}" ]] && args+=(--shard "$INPUT_SHARD")
[[ -n "${INPUT_BASELINE:-}" ]] && args+=(--baseline "$INPUT_BASELINE")
[[ "${INPUT_STRICT:-false}" == "true" ]] && args+=(--strict)
[[ -n "${INPUT_URL:-}" ]] && args+=(--url "$INPUT_URL")
read -ra extra <<<"${INPUT_ARGS:-}"
args+=("${extra[@]}")
if [[ -n "${INPUT_COMMAND:-}" ]]; then
    read -ra command <<<"$INPUT_COMMAND"
    args+=(-- "${command[@]}")
fi

echo "+ $bin ${args[*]}" >&2
"$bin" "${args[@]}"
code=$?

if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    if [[ -s "$markdown" ]]; then
        cat "$markdown" >>"$GITHUB_STEP_SUMMARY"
    else
        printf '## mcpspec: ❌ did not run (exit %s)\n\nSee the step log.\n' "$code" \
            >>"$GITHUB_STEP_SUMMARY"
    fi
fi
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    {
        echo "exit-code=$code"
        [[ -s "$junit" ]] && echo "junit=$junit"
        [[ -s "$markdown" ]] && echo "markdown=$markdown"
        [[ -s "$json" ]] && echo "json=$json"
    } >>"$GITHUB_OUTPUT"
fi
exit "$code"
