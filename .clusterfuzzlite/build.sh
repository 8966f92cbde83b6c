#!/bin/bash -eu
# Builds the cargo-fuzz targets of fuzz/ for ClusterFuzzLite and OSS-Fuzz (the same file is
# oss-fuzz/projects/mcpspec/build.sh): each target's binary into $OUT, with its seed corpus
# ($OUT/<target>_seed_corpus.zip: fixtures/fuzz/seeds and the regressions).
#
# In the base image (gcr.io/oss-fuzz-base/base-builder-rust) $SANITIZER is set and cargo is the
# image's nightly with its sanitizer and coverage flags: `cargo fuzz build -O` as the OSS-Fuzz
# Rust guide builds, with debug assertions as the local build has them. Without
# $SANITIZER (or with SANITIZER=none) it builds as scripts/fuzz-smoke.sh does, on stable with no
# sanitizer (`-s none`), so the test suite runs this script here (scripts/cflite-build-test.sh)
# and shares fuzz-smoke's build.
#
# Environment: SRC and OUT (set by the image); MCPSPEC_SRC, the source tree (default
# $SRC/mcpspec, where the Dockerfile puts it).

src="${MCPSPEC_SRC:-$SRC/mcpspec}"
cd "$src/fuzz"

if [[ -z "${SANITIZER:-}" || "$SANITIZER" == none ]]; then
    # Exactly scripts/fuzz-smoke.sh's build (release, debug assertions, no sanitizer): the same
    # artifacts in fuzz/target, so it is built once (`-O` builds without debug assertions, so
    # it would rebuild every crate into the same directory).
    cargo fuzz build -s none
else
    cargo fuzz build -O --debug-assertions
fi

triple="$(rustc -vV | sed -n 's/^host: //p')"
seeds=("$src"/fixtures/fuzz/seeds/*.jsonl "$src"/fixtures/fuzz/regressions/*.jsonl)
for target in $(cargo fuzz list); do
    cp "target/$triple/release/$target" "$OUT/"
    rm -f "$OUT/${target}_seed_corpus.zip"
    zip -q -j "$OUT/${target}_seed_corpus.zip" "${seeds[@]}"
done
