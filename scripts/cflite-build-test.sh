#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh the way ClusterFuzzLite and OSS-Fuzz run it, minus the base
# image: $SRC and $OUT are temporary directories, no $SANITIZER (so it builds on stable with
# `-s none`, the build scripts/fuzz-smoke.sh already made, in fuzz/target). Then checks that
# every fuzz target of fuzz/Cargo.toml is in $OUT with a non-empty seed corpus and runs one input,
# and that the OSS-Fuzz copy of build.sh is the same file.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

if ! cargo fuzz --version 2>/dev/null | grep -q '0\.13\.2'; then
    cargo install cargo-fuzz --version 0.13.2 --locked
fi
cmp .clusterfuzzlite/build.sh oss-fuzz/projects/mcpspec/build.sh ||
    { echo "cflite: oss-fuzz/projects/mcpspec/build.sh differs from .clusterfuzzlite/build.sh"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out"
env -u SANITIZER SRC="$work/src" OUT="$work/out" MCPSPEC_SRC="$repo" \
    bash .clusterfuzzlite/build.sh

targets=$(sed -n '/^\[\[bin\]\]/,/^path/ s/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml)
[[ -n "$targets" ]] || { echo "cflite: no [[bin]] in fuzz/Cargo.toml"; exit 1; }
one_input="fixtures/fuzz/seeds/modern-tools-call-add.jsonl"
status=0
for target in $targets; do
    bin="$work/out/$target"
    corpus="$work/out/${target}_seed_corpus.zip"
    if [[ ! -x "$bin" ]]; then
        echo "cflite: $target: no binary in \$OUT"
        status=1
        continue
    fi
    entries=$(unzip -Z1 "$corpus" | wc -l)
    if [[ "$entries" -eq 0 ]]; then
        echo "cflite: $target: empty seed corpus"
        status=1
    fi
    # libFuzzer given a file runs that one input and exits 0 unless it crashes.
    if out=$(timeout 60 "$bin" "$one_input" 2>&1) && grep -q "Executed $one_input" <<<"$out"; then
        echo "cflite: $target: built, $entries seeds, ran $one_input"
    else
        echo "$out" | tail -n 20
        echo "cflite: $target: did not run $one_input"
        status=1
    fi
done
exit $status
