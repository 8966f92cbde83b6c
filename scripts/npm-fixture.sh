#!/usr/bin/env bash
# Install (or reuse) the node_modules of one Node fixture (a folder with package.json and
# package-lock.json, every package pinned exactly). The fixtures' own scripts call it:
#
#   scripts/npm-fixture.sh NAME DIR PACKAGE IMPORTS
#     NAME     how its log lines start (the calling script's name)
#     DIR      the fixture's folder, from the repository root
#     PACKAGE  the package whose package.json shows node_modules is there
#     IMPORTS  JavaScript (a module) that must run once installed: the imports the fixture needs
#
# The only line on stdout is the node path.
#
# Node: the one on PATH (Debian's nodejs is enough); only when `node` is missing does this run
# `apt-get update && apt-get install -y nodejs npm` (as root, or through sudo).
# Idempotent: node_modules is reused when its stamp file holds the sha256 of package-lock.json
# plus the node version; otherwise `npm ci` (which deletes node_modules first) installs exactly
# the lock file, with install scripts off. Bounded: npm's fetch timeout and retries, and a
# wall-clock cap on apt-get and npm.
# Environment: MCPSPEC_NPM_WALL (cap on each install step, s; default 600).
set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: npm-fixture.sh NAME DIR PACKAGE IMPORTS" >&2; exit 2; }
name="$1"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo/$2"
package="$3"
imports="$4"
lock="$dir/package-lock.json"
modules="$dir/node_modules"
stamp="$modules/.mcpspec-package-lock.sha256"
wall="${MCPSPEC_NPM_WALL:-600}"

log() { printf '%s: %s\n' "$name" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -f "$lock" ]] || die "missing $lock"

cap=()
command -v timeout >/dev/null 2>&1 && cap=(timeout --kill-after=10 "$wall")

if ! command -v node >/dev/null 2>&1; then
  log "node is not on PATH; installing Debian's nodejs and npm"
  sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "node is missing and this is not root (no sudo)"
    sudo=(sudo)
  fi
  "${cap[@]}" "${sudo[@]}" apt-get update >&2 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive "${cap[@]}" "${sudo[@]}" apt-get install -y nodejs npm >&2 \
    || die "apt-get install nodejs npm failed"
fi
node_bin="$(command -v node)"
command -v npm >/dev/null 2>&1 || die "npm is not on PATH (Debian: apt-get install -y npm)"
node_version="$("$node_bin" --version)"

lock_hash="$( (cat "$lock"; echo "node=$node_version") | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]] \
   && [[ -f "$modules/$package/package.json" ]]; then
  log "up to date: $modules"
  printf '%s\n' "$node_bin"
  exit 0
fi

log "npm ci in $dir (node $node_version)"
(cd "$dir" && "${cap[@]}" npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
    --fetch-timeout=60000 --fetch-retries=2) >&2 \
  || die "npm ci failed (node_modules left without stamp; rerun to retry)"
(cd "$dir" && "$node_bin" --input-type=module -e "$imports") \
  || die "the installed node_modules cannot load $package"

printf '%s\n' "$lock_hash" >"$stamp"
log "ready: $modules"
printf '%s\n' "$node_bin"
