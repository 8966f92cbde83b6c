#!/usr/bin/env bash
# The logic of the mcpspec GitHub Action (action.yml), after the binary is installed
# (scripts/action-install.sh): starts the server if asked and waits until it answers, runs
# `mcpspec run` with JSON, JUnit and Markdown reports and transcripts, appends the Markdown to
# $GITHUB_STEP_SUMMARY, turns every unexpected Fail/Error and stale baseline entry into an
# `::error` annotation, writes the outputs to $GITHUB_OUTPUT, and exits with mcpspec's exit code
# (0 ok, 1 unexpected failure or stale entry, 2 usage error, 3 target did not start or answer).
# Tested by cli/tests/testsuite/action.rs with a mock GITHUB_* environment.
#
# Inputs (environment, as action.yml passes them; all optional):
#   INPUT_COMMAND        the server command, ONE ARGUMENT PER LINE (default: the embedded
#                        reference server)
#   INPUT_URL            a streamable-HTTP URL instead of a command (`--url`)
#   INPUT_START          a shell command started in the background before the run (a server
#                        to test by URL); its process group is ended after the run
#   INPUT_WAIT_FOR       a URL polled until it answers any HTTP status (default: INPUT_URL when
#                        INPUT_START is set)
#   INPUT_WAIT_TIMEOUT   seconds to wait for it (default 60)
#   INPUT_BEARER         a bearer token (a secret): masked, and given to mcpspec through the
#                        environment (`--bearer-env`), never on its command line
#   INPUT_BEARER_COMMAND a shell command printing a bearer token (`--bearer-command`)
#   INPUT_HEADERS        headers for a protected server, ONE `Name: value` PER LINE (`--header`);
#                        each value is masked, and shown redacted in the command line logged
#   INPUT_AUTH_ISSUER    the built-in test issuer's URL or keys directory (`--auth-issuer`)
#   INPUT_BASELINE       a baseline file of known failures
#   INPUT_SELECT         ids/prefixes/requirement ids to select, whitespace- or comma-separated
#   INPUT_SKIP           the same, to leave out
#   INPUT_SHARD          I/N
#   INPUT_STRICT         "true": NonStrict counts as Fail
#   INPUT_ARGS           further `mcpspec run` arguments, ONE ARGUMENT PER LINE
#   INPUT_ARTIFACT_NAME  the artifact's name (default: mcpspec-<job>, with the shard or the
#                        matrix job's index when there is one)
#   INPUT_OUTPUT_DIR     where the reports go (default: $RUNNER_TEMP/mcpspec/<artifact name>)
#   GITHUB_JOB, JOB_INDEX, JOB_TOTAL   the job id, strategy.job-index, strategy.job-total
#   MCPSPEC_BIN          the mcpspec binary (default: `mcpspec` on PATH)
set -uo pipefail
set -f # no globbing: ids and arguments are taken literally

# One argument per line; blank lines are ignored, nothing else is changed (no word splitting,
# no quote removal), so an argument may hold spaces and quotes.
lines_to_array() {
    local -n into=$1
    local line
    into=()
    while IFS= read -r line || [[ -n "$line" ]]; do
        line="${line%$'\r'}"
        [[ -n "$line" ]] && into+=("$line")
    done <<<"${2:-}"
}

# A workflow command's data: %, CR and LF escaped (GitHub's toolkit `escapeData`).
escape_data() {
    local s="${1//%/%25}"
    s="${s//$'\r'/%0D}"
    printf '%s' "${s//$'\n'/%0A}"
}

bin="${MCPSPEC_BIN:-$(command -v mcpspec || true)}"

# The artifact's name must differ between the jobs of a matrix (upload-artifact v4 refuses a
# name twice in one workflow run).
artifact="${INPUT_ARTIFACT_NAME:-}"
if [[ -z "$artifact" ]]; then
    artifact="mcpspec-${GITHUB_JOB:-run}"
    if [[ -n "${INPUT_SHARD:-}" ]]; then
        artifact+="-shard-${INPUT_SHARD//\//-of-}"
    elif [[ "${JOB_TOTAL:-1}" -gt 1 ]] 2>/dev/null; then
        artifact+="-job-$((${JOB_INDEX:-0} + 1))-of-${JOB_TOTAL}"
    fi
fi
out="${INPUT_OUTPUT_DIR:-${RUNNER_TEMP:-/tmp}/mcpspec/$artifact}"
mkdir -p "$out"
junit="$out/mcpspec-junit.xml"
markdown="$out/mcpspec-summary.md"
json="$out/mcpspec-report.json"
transcripts="$out/transcripts"
server_log="$out/server.log"
rm -rf "$junit" "$markdown" "$json" "$transcripts" "$server_log"

# Writes the summary and the outputs, ends the started server, and exits with `code`.
finish() {
    local code=$1 why="${2:-}"
    stop_server
    if [[ -n "$why" ]]; then
        echo "::error title=mcpspec::$(escape_data "$why")"
    elif [[ -s "$json" && -n "$bin" ]]; then
        # `::error` lines on stdout, where the runner reads workflow commands.
        "$bin" report "$json" --annotations - 2>/dev/null
    elif [[ "$code" -ne 0 ]]; then
        echo "::error title=mcpspec::mcpspec exited with $code and wrote no report; see the step log"
    fi
    if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
        if [[ -s "$markdown" ]]; then
            cat "$markdown" >>"$GITHUB_STEP_SUMMARY"
        else
            printf '## mcpspec: ❌ did not run (exit %s)\n\n%s\n\nSee the step log.\n' \
                "$code" "${why:-}" >>"$GITHUB_STEP_SUMMARY"
        fi
    fi
    if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
        {
            echo "exit-code=$code"
            echo "dir=$out"
            echo "artifact-name=$artifact"
            [[ -s "$json" ]] && echo "json=$json"
            [[ -s "$junit" ]] && echo "junit=$junit"
            [[ -s "$markdown" ]] && echo "markdown=$markdown"
            [[ -d "$transcripts" ]] && echo "transcripts=$transcripts"
        } >>"$GITHUB_OUTPUT"
    fi
    exit "$code"
}

server_pid=""
# Ends the started server's whole process group (TERM, then KILL after 5 s).
stop_server() {
    [[ -z "$server_pid" ]] && return
    kill -TERM -- "-$server_pid" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 -- "-$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=""
}
trap stop_server EXIT
trap 'finish 130 "interrupted"' INT TERM

log_tail() {
    [[ -s "$server_log" ]] && printf '\nthe last lines of its output:\n%s' "$(tail -n 20 "$server_log")"
}

[[ -n "$bin" ]] || finish 2 "no mcpspec binary: set MCPSPEC_BIN or put mcpspec on PATH"

if [[ -n "${INPUT_START:-}" ]]; then
    # Its own session, so the whole process group it starts can be ended after the run.
    setsid bash -c "$INPUT_START" >"$server_log" 2>&1 </dev/null &
    server_pid=$!
    echo "started the server (pid $server_pid): $INPUT_START" >&2
    wait_for="${INPUT_WAIT_FOR:-${INPUT_URL:-}}"
    if [[ -n "$wait_for" ]]; then
        limit="${INPUT_WAIT_TIMEOUT:-60}"
        [[ "$limit" =~ ^[0-9]+$ && "$limit" -gt 0 ]] ||
            finish 2 "wait-timeout must be a whole number of seconds, not '$limit'"
        deadline=$((SECONDS + limit))
        until status=$(curl -s -o /dev/null --max-time 2 -w '%{http_code}' "$wait_for") &&
            [[ "$status" != 000 ]]; do
            kill -0 "$server_pid" 2>/dev/null ||
                finish 3 "the server exited before $wait_for answered$(log_tail)"
            ((SECONDS < deadline)) ||
                finish 3 "$wait_for did not answer within ${limit} s$(log_tail)"
            sleep 0.5
        done
        echo "$wait_for answered (HTTP $status)" >&2
    fi
fi

args=(run --junit "$junit" --markdown "$markdown" --json "$json" --transcripts "$transcripts")
sel="${INPUT_SELECT:-}"
for p in ${sel//,/ }; do args+=(--select "$p"); done
skp="${INPUT_SKIP:-}"
for p in ${skp//,/ }; do args+=(--skip "$p"); done
[[ -n "${INPUT_SHARD:-}" ]] && args+=(--shard "$INPUT_SHARD")
[[ -n "${INPUT_BASELINE:-}" ]] && args+=(--baseline "$INPUT_BASELINE")
[[ "${INPUT_STRICT:-false}" == "true" ]] && args+=(--strict)
[[ -n "${INPUT_URL:-}" ]] && args+=(--url "$INPUT_URL")
# Credentials: the runner's log never shows them (::add-mask::), and the token never appears on
# a command line (other users of the machine can read those): mcpspec reads it from a variable.
if [[ -n "${INPUT_BEARER:-}" ]]; then
    echo "::add-mask::$INPUT_BEARER"
    export MCPSPEC_ACTION_BEARER="$INPUT_BEARER"
    args+=(--bearer-env MCPSPEC_ACTION_BEARER)
fi
[[ -n "${INPUT_BEARER_COMMAND:-}" ]] && args+=(--bearer-command "$INPUT_BEARER_COMMAND")
headers=()
lines_to_array headers "${INPUT_HEADERS:-}"
for h in "${headers[@]}"; do
    value="${h#*:}"
    value="${value# }"
    [[ -n "$value" ]] && echo "::add-mask::$value"
    args+=(--header "$h")
done
[[ -n "${INPUT_AUTH_ISSUER:-}" ]] && args+=(--auth-issuer "$INPUT_AUTH_ISSUER")
extra=() server_command=()
lines_to_array extra "${INPUT_ARGS:-}"
for a in "${extra[@]}"; do
    # The old whitespace-split form: say so rather than let a usage error puzzle.
    [[ "$a" == --*" "* ]] &&
        echo "::warning title=mcpspec::$(escape_data "args: '$a' is one argument; put each argument on its own line")"
done
args+=("${extra[@]}")
lines_to_array server_command "${INPUT_COMMAND:-}"
[[ ${#server_command[@]} -gt 0 ]] && args+=(-- "${server_command[@]}")

# The command line as run, header values redacted.
shown=() after_header=false
for a in "${args[@]}"; do
    if $after_header; then
        shown+=("${a%%:*}: REDACTED")
        after_header=false
    else
        shown+=("$a")
        [[ "$a" == --header ]] && after_header=true
    fi
done
printf '+ %q' "$bin" "${shown[@]}" >&2
echo >&2
"$bin" "${args[@]}"
finish $?
