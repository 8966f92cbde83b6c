#!/usr/bin/env bash
# Installs the mcpspec binary for the GitHub Action (action.yml): the prebuilt release binary of
# the pinned version (built by .github/workflows/release.yml), checked against its published
# sha256; when there is none for this version or machine, `cargo install --locked` of the
# Action's own source, run from a temporary directory on the stable toolchain, so neither the
# user's rust-toolchain.toml nor their .cargo/config.toml applies. Tested by
# cli/tests/testsuite/action.rs.
#
#   bash scripts/action-install.sh plan      # version=, target=, dir= (the directory to cache)
#   bash scripts/action-install.sh install   # bin=, source=cache|release|cargo
#
# Both write `key=value` lines to $GITHUB_OUTPUT (and to stdout). The binary goes to
# <dir>/mcpspec, where dir = $MCPSPEC_CACHE_DIR/<version>/<target>; a binary already there
# that prints the right version is used as it is (the Action restores dir with actions/cache).
#
# Environment (all optional):
#   MCPSPEC_VERSION      the version to install (default: the workspace version in the
#                        Action's Cargo.toml, i.e. the version the Action is pinned to)
#   MCPSPEC_REPOSITORY   owner/name of the repository whose releases hold the binaries
#                        (the Action passes github.action_repository)
#   MCPSPEC_RELEASE_URL  the base URL of the releases' downloads (default:
#                        https://github.com/$MCPSPEC_REPOSITORY/releases/download)
#   MCPSPEC_CACHE_DIR    default: $RUNNER_TOOL_CACHE/mcpspec, else ~/.cache/mcpspec
#   MCPSPEC_NO_CARGO     "true": fail instead of falling back to cargo install
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

emit() {
    echo "$1"
    [[ -n "${GITHUB_OUTPUT:-}" ]] && echo "$1" >>"$GITHUB_OUTPUT"
    return 0
}
log() { echo "mcpspec install: $*" >&2; }

version="${MCPSPEC_VERSION:-}"
if [[ -z "$version" ]]; then
    # The first `version = "…"` of the workspace manifest is [workspace.package]'s.
    version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
fi
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || {
    log "cannot tell the version to install (got '$version')"
    exit 2
}
case "$(uname -m)" in
x86_64 | amd64) target=x86_64-unknown-linux-gnu ;;
aarch64 | arm64) target=aarch64-unknown-linux-gnu ;;
*) target="" ;;
esac
[[ "$(uname -s)" == Linux ]] || target=""
cache="${MCPSPEC_CACHE_DIR:-${RUNNER_TOOL_CACHE:-$HOME/.cache}/mcpspec}"
dir="$cache/$version/${target:-$(uname -m)-$(uname -s)}"

if [[ "${1:-}" == plan ]]; then
    emit "version=$version"
    emit "target=$target"
    emit "dir=$dir"
    exit 0
fi
[[ "${1:-}" == install ]] || {
    log "usage: action-install.sh plan|install"
    exit 2
}

bin="$dir/mcpspec"
is_installed() { [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -qx "mcpspec $version"; }

if is_installed; then
    log "mcpspec $version from the cache: $bin"
    emit "bin=$bin"
    emit "source=cache"
    exit 0
fi
mkdir -p "$dir"

# The release asset: mcpspec-v<version>-<target>.tar.gz (one directory of the same name, holding
# the binary) and its .sha256, as scripts/release-package.sh writes them.
download() {
    [[ -n "$target" ]] || return 1
    local base="${MCPSPEC_RELEASE_URL:-}"
    if [[ -z "$base" ]]; then
        [[ -n "${MCPSPEC_REPOSITORY:-}" ]] || return 1
        base="https://github.com/$MCPSPEC_REPOSITORY/releases/download"
    fi
    local name="mcpspec-v$version-$target" tmp
    tmp="$(mktemp -d)"
    local url="$base/v$version/$name.tar.gz"
    log "downloading $url"
    if ! curl -fsSL --retry 3 --max-time 120 -o "$tmp/$name.tar.gz" "$url" ||
        ! curl -fsSL --retry 3 --max-time 30 -o "$tmp/$name.tar.gz.sha256" "$url.sha256"; then
        rm -rf "$tmp"
        return 1
    fi
    if ! (cd "$tmp" && sha256sum --quiet -c "$name.tar.gz.sha256" >&2); then
        log "checksum mismatch for $url"
        rm -rf "$tmp"
        return 1
    fi
    tar -xzf "$tmp/$name.tar.gz" -C "$tmp" && install -m 755 "$tmp/$name/mcpspec" "$bin"
    local ok=$?
    rm -rf "$tmp"
    return $ok
}

if download && is_installed; then
    log "mcpspec $version from the release: $bin"
    emit "bin=$bin"
    emit "source=release"
    exit 0
fi

if [[ "${MCPSPEC_NO_CARGO:-false}" == true ]]; then
    log "no release binary of mcpspec $version for ${target:-this machine}"
    exit 3
fi
log "no release binary of mcpspec $version for ${target:-this machine}; building it with cargo"
work="$(mktemp -d)"
# Outside every checkout (so no rust-toolchain.toml or .cargo/config.toml of the user applies),
# on stable (the MSRV and edition 2024 hold there), with its own target directory.
(
    cd "$work"
    export RUSTUP_TOOLCHAIN="${MCPSPEC_TOOLCHAIN:-stable}"
    if command -v rustup >/dev/null 2>&1; then
        rustup toolchain install "$RUSTUP_TOOLCHAIN" --profile minimal >&2
    fi
    CARGO_TARGET_DIR="$work/target" cargo install --locked --path "$root/cli" \
        --root "$work/root" >&2
) || {
    rm -rf "$work"
    log "cargo install failed"
    exit 3
}
install -m 755 "$work/root/bin/mcpspec" "$bin"
rm -rf "$work"
is_installed || {
    log "the built mcpspec does not print version $version"
    exit 3
}
emit "bin=$bin"
emit "source=cargo"
