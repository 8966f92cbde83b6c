#!/usr/bin/env bash
# Install (or find) a headless Chromium for the HTML report's browser test
# (cli/tests/testsuite/html_report.rs).
#
#   BROWSER=$(bash scripts/chromium.sh)   -> the only line on stdout is the browser's path
#   bash scripts/chromium.sh --find-only  -> the path if installed, else exit 1 (no install)
#
# Idempotent: a `chromium` (or `chromium-browser`, or $MCPSPEC_CHROMIUM) already on the machine is
# used as it is; otherwise Debian's `chromium` package is installed with apt-get (as root, or with
# passwordless sudo). Bounded: apt-get gets a wall-clock cap ($MCPSPEC_APT_WALL, default 900 s).
# Exits 1 with the reason on stderr where Chromium cannot be installed (no apt-get, no root, no
# network); the browser test then skips with that reason.
set -euo pipefail

log() { printf 'chromium: %s\n' "$*" >&2; }
wall="${MCPSPEC_APT_WALL:-900}"

find_browser() {
  for candidate in "${MCPSPEC_CHROMIUM:-}" chromium chromium-browser; do
    [[ -n "$candidate" ]] || continue
    if command -v "$candidate" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if find_browser; then
  exit 0
fi
if [[ "${1:-}" == "--find-only" ]]; then
  log "chromium is not installed (bash scripts/chromium.sh installs it; scripts/test.sh calls it)"
  exit 1
fi

command -v apt-get >/dev/null 2>&1 || { log "no apt-get on this machine: cannot install chromium"; exit 1; }
if [[ "$(id -u)" -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  log "not root and no passwordless sudo: cannot install chromium"
  exit 1
fi

log "installing Debian's chromium (apt-get, at most ${wall} s)"
export DEBIAN_FRONTEND=noninteractive
if ! timeout "$wall" "${sudo[@]}" apt-get update -qq >&2 \
  || ! timeout "$wall" "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium >&2; then
  log "apt-get could not install chromium"
  exit 1
fi
find_browser || { log "chromium was installed but is not on PATH"; exit 1; }
