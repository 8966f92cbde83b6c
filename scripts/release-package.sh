#!/usr/bin/env bash
# Packs a release binary as the GitHub Action (scripts/action-install.sh) and `cargo binstall`
# (cli/Cargo.toml [package.metadata.binstall]) expect it:
#   OUT/mcpspec-v<version>-<target>.tar.gz         one directory of that name: mcpspec, README.md
#   OUT/mcpspec-v<version>-<target>.tar.gz.sha256  `sha256sum` format, checkable with -c
#
#   bash scripts/release-package.sh target/x86_64-unknown-linux-gnu/release/mcpspec \
#       x86_64-unknown-linux-gnu 0.1.0 dist/
set -euo pipefail

[[ $# -eq 4 ]] || {
    echo "usage: release-package.sh BINARY TARGET VERSION OUT_DIR" >&2
    exit 2
}
binary="$1" target="$2" version="$3" out="$4"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="mcpspec-v$version-$target"

"$binary" --version | grep -qx "mcpspec $version" || {
    echo "release-package.sh: $binary is not mcpspec $version" >&2
    exit 1
}
mkdir -p "$out"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
install -m 755 "$binary" "$stage/$name/mcpspec"
cp "$root/README.md" "$stage/$name/"
# Reproducible archives: fixed order, owner and times.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2020-01-01 00:00Z' \
    -C "$stage" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "$out/$name.tar.gz"
