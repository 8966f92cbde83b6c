#!/usr/bin/env bash
# Regenerate the published scorecard (docs/scorecard.md, docs/scorecard.html,
# docs/scorecard.json, docs/scorecard.png): `mcpspec matrix fixtures/scorecard.yaml` over the
# suite's own SDK fixtures, servers and clients, each at the three newest revisions.
#
#   bash scripts/scorecard.sh            -> installs the fixtures, runs the matrix, writes docs/
#
# The run's own pages and every target's reports and transcripts stay in target/scorecard/;
# what docs/ keeps is matrix.json without the links into them (they are not published), the
# pages rendered again from it (`mcpspec matrix render`), and a screenshot of the page in
# headless Chromium. cli/tests/testsuite/scorecard.rs holds docs/ to the catalogue and to the
# renderers: a new check, a changed requirement or a changed page fails it until this script
# is run again. Bounded: every run of a target is bounded by mcpspec itself.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'scorecard: %s\n' "$*" >&2; }

log "fixtures"
bash scripts/python-venv.sh >/dev/null
bash scripts/typescript-deps.sh >/dev/null
bash scripts/typescript-v2-deps.sh >/dev/null
bash scripts/typescript-client-deps.sh >/dev/null
bash scripts/rust-sdk-fixture.sh >/dev/null

log "cargo build --release -p mcpspec"
cargo build --release --locked --quiet -p mcpspec
mcpspec=target/release/mcpspec

out=target/scorecard
rm -rf "$out"
log "mcpspec matrix fixtures/scorecard.yaml --out $out"
started=$SECONDS
# Exit 1 only says a target could not be run; its column then says why, and the page is
# still written.
"$mcpspec" matrix fixtures/scorecard.yaml --out "$out" || [[ $? -eq 1 ]]
log "the matrix took $((SECONDS - started)) s"

# The published matrix: the run's, without links into target/scorecard.
python3 - "$out/matrix.json" docs/scorecard.json <<'PY'
import json, sys
matrix = json.load(open(sys.argv[1]))
for target in matrix["targets"]:
    for score in target["revisions"].values():
        score.pop("report", None)
        score.pop("transcripts", None)
with open(sys.argv[2], "w") as f:
    json.dump(matrix, f, indent=2, ensure_ascii=False)
    f.write("\n")
PY
pages="$(mktemp -d)"
trap 'rm -rf "$pages"' EXIT
"$mcpspec" matrix render docs/scorecard.json --out "$pages"
cp "$pages/matrix.html" docs/scorecard.html
{ cat docs/scorecard-intro.md; echo; cat "$pages/matrix.md"; } > docs/scorecard.md

log "screenshot (headless Chromium)"
bash scripts/matrix-screenshot.sh "docs/scorecard.html" docs/scorecard.png
log "wrote docs/scorecard.md, docs/scorecard.html, docs/scorecard.json, docs/scorecard.png"
