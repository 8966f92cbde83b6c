#!/usr/bin/env bash
# A look at a matrix page (`mcpspec matrix … --out DIR` -> DIR/matrix.html) in a real headless
# browser.
#
#   bash scripts/matrix-screenshot.sh PAGE.html OUT.png   -> a 1600x1000 screenshot of the page
#   bash scripts/matrix-screenshot.sh --dom PAGE.html     -> the DOM after the page's script ran,
#                                                           on stdout (`<body … data-ready="1">`)
#
# PAGE.html may end in the page's own URL fragment, e.g. `matrix.html#open=1&show=not_met,fail`
# (every requirement unfolded, only those outcomes; see cli/src/cli/matrix/matrix.js).
#
# The browser is Debian's chromium, found or installed by scripts/chromium.sh (apt-get, as root
# or with passwordless sudo). $MATRIX_WINDOW overrides the window size (`1600,1000`).
set -euo pipefail

usage() {
  printf 'usage: bash scripts/matrix-screenshot.sh PAGE.html OUT.png\n' >&2
  printf '       bash scripts/matrix-screenshot.sh --dom PAGE.html\n' >&2
  exit 2
}

dom=0
if [[ "${1:-}" == "--dom" ]]; then
  dom=1
  shift
  [[ $# -eq 1 ]] || usage
else
  [[ $# -eq 2 ]] || usage
fi
page="${1%%#*}"
fragment=""
[[ "$1" == *"#"* ]] && fragment="#${1#*#}"
[[ -f "$page" ]] || { printf 'matrix-screenshot: no such page: %s\n' "$page" >&2; exit 1; }
page_abs="$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
browser="$(bash "$here/chromium.sh")"

# A profile of its own, removed afterwards: no state from or into another run.
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
  --user-data-dir="$profile" --window-size="${MATRIX_WINDOW:-1600,1000}")

if [[ $dom -eq 1 ]]; then
  # --virtual-time-budget lets the page's script run before the DOM is dumped.
  "$browser" "${flags[@]}" --virtual-time-budget=5000 --dump-dom "file://$page_abs$fragment" 2>/dev/null
else
  out="$2"
  out_abs="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
  rm -f "$out_abs"
  "$browser" "${flags[@]}" --screenshot="$out_abs" "file://$page_abs$fragment" >/dev/null 2>&1 || true
  [[ -s "$out_abs" ]] || { printf 'matrix-screenshot: chromium wrote no screenshot\n' >&2; exit 1; }
  printf '%s\n' "$out_abs"
fi
