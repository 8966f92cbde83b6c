#!/usr/bin/env bash
# Build (or reuse) the fixture server on the official Rust SDK (fixtures/servers/rust, rmcp
# pinned exactly in its Cargo.toml and Cargo.lock).
#
#   scripts/rust-sdk-fixture.sh             -> builds it; prints the binary's path
#   BIN=$(scripts/rust-sdk-fixture.sh)      -> the only line on stdout is that path
#
# The fixture is its own cargo workspace (not a member of mcpspec's). It builds with
# `--locked` in the dev profile (no debug info) into <repo>/target/sdk-fixtures, so CI caches
# it with the rest of target/ and a warm rebuild is a no-op. Bounded: a wall-clock cap on cargo.
# Environment: MCPSPEC_CARGO_WALL (cap on the build, s; default 1500).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
manifest="$repo/fixtures/servers/rust/Cargo.toml"
target_dir="$repo/target/sdk-fixtures"
bin="$target_dir/debug/rust-sdk-fixture"
wall="${MCPSPEC_CARGO_WALL:-1500}"

log() { printf 'rust-sdk-fixture: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -f "$manifest" ]] || die "missing $manifest"
command -v cargo >/dev/null 2>&1 || die "cargo is not on PATH"

cap=()
command -v timeout >/dev/null 2>&1 && cap=(timeout --kill-after=10 "$wall")

log "cargo build --locked ($manifest)"
"${cap[@]}" cargo build --locked --quiet \
    --manifest-path "$manifest" --target-dir "$target_dir" >&2 \
    || die "cargo build failed (or took more than $wall s)"
[[ -x "$bin" ]] || die "the build did not produce $bin"
log "ready: $bin"
printf '%s\n' "$bin"
