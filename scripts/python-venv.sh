#!/usr/bin/env bash
# Create (or reuse) the Python venv for the Python-SDK fixture server.
#
#   scripts/python-venv.sh            -> venv at $MCPSPEC_VENV (default <repo>/.venv)
#   PY=$(scripts/python-venv.sh)      -> the only line on stdout is the venv's python path
#
# Idempotent: the venv is reused when its stamp file holds the sha256 of
# fixtures/servers/python/requirements.txt plus the interpreter version; otherwise
# it is (re)created from scratch. Every package is pinned exactly and installed with
# --no-deps, then `pip check` proves the pin list is complete, so CI is reproducible.
# Bounded: per-connection timeout, few retries, and a wall-clock cap on pip.
# Environment: MCPSPEC_VENV (venv dir), MCPSPEC_PYTHON (interpreter to use),
# MCPSPEC_PIP_TIMEOUT (pip socket timeout, s; default 60),
# MCPSPEC_PIP_WALL (cap on the whole install, s; default 900).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
req="$repo/fixtures/servers/python/requirements.txt"
venv="${MCPSPEC_VENV:-$repo/.venv}"
pip_timeout="${MCPSPEC_PIP_TIMEOUT:-60}"
pip_wall="${MCPSPEC_PIP_WALL:-900}"

log() { printf 'python-venv: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -f "$req" ]] || die "missing $req"

if [[ -n "${MCPSPEC_PYTHON:-}" ]]; then
  base_py="$MCPSPEC_PYTHON"
elif command -v python3.11 >/dev/null 2>&1 && python3.11 -c 'import sys' >/dev/null 2>&1; then
  base_py=python3.11
elif command -v python3 >/dev/null 2>&1; then
  base_py=python3
  log "python3.11 not found; falling back to $(python3 --version 2>&1) (pins were frozen on 3.11)"
else
  die "neither python3.11 nor python3 is on PATH"
fi
py_version="$("$base_py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"

req_hash="$( (cat "$req"; echo "python=$py_version") | sha256sum | cut -d' ' -f1)"
stamp="$venv/.mcpspec-requirements.sha256"
venv_py="$venv/bin/python"

if [[ -f "$stamp" && -x "$venv_py" && "$(cat "$stamp")" == "$req_hash" ]] \
   && "$venv_py" -c 'import mcp' >/dev/null 2>&1; then
  log "up to date: $venv"
  printf '%s\n' "$venv_py"
  exit 0
fi

if [[ -e "$venv" ]]; then
  # Only ever delete something that is recognisably a venv.
  [[ -f "$venv/pyvenv.cfg" ]] || die "$venv exists and is not a venv; refusing to replace it"
  log "requirements changed or venv incomplete; recreating $venv"
  rm -rf -- "$venv"
fi

log "creating $venv with $base_py ($py_version)"
"$base_py" -m venv "$venv"

wall=()
command -v timeout >/dev/null 2>&1 && wall=(timeout --kill-after=10 "$pip_wall")
pip_opts=(--disable-pip-version-check --no-input --timeout "$pip_timeout" --retries 2)

log "installing pinned requirements"
"${wall[@]}" "$venv_py" -m pip install "${pip_opts[@]}" --quiet --no-deps --requirement "$req" >&2 \
  || die "pip install failed (venv left without stamp; rerun to retry)"
"${wall[@]}" "$venv_py" -m pip check "${pip_opts[@]}" >&2 \
  || die "pip check failed: requirements.txt is missing a transitive pin"
"$venv_py" -c 'import mcp, uvicorn' >/dev/null || die "installed venv cannot import mcp"

printf '%s\n' "$req_hash" >"$stamp"
log "ready: $venv"
printf '%s\n' "$venv_py"
