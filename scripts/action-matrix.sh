#!/usr/bin/env bash
# The Action's matrix mode (action.yml, `matrix` or `matrix-merge` set; docs/matrix-file.md):
# `mcpspec matrix` on a matrix file's targets (one with `matrix-only`), its GitHub job plan
# (`matrix-plan`), or the merge of the jobs' records (`matrix-merge`). The page's Markdown goes
# to the step summary; exit-code, dir, artifact-name, markdown and json go to $GITHUB_OUTPUT, as
# scripts/action-run.sh writes them for one run. Tested by cli/tests/testsuite/action.rs.
set -euo pipefail

# Matrix mode: `mcpspec matrix` (docs/matrix-file.md).
bin="${MCPSPEC_BIN:-mcpspec}"
out="${INPUT_OUTPUT_DIR:-matrix-out}"
code=0
if [[ -n "${INPUT_COMMAND:-}${INPUT_URL:-}${INPUT_START:-}" ]]; then
  echo "::warning title=mcpspec::matrix mode: command, url and start are not used; the matrix file names the targets"
fi
if [[ -n "${INPUT_MATRIX_MERGE:-}" ]]; then
  shopt -s nullglob
  # shellcheck disable=SC2206 # whitespace-separated globs, expanded here
  records=(${INPUT_MATRIX_MERGE:-})
  shopt -u nullglob
  if [[ ${#records[@]} -eq 0 ]]; then
    echo "::error title=mcpspec::matrix-merge: no file matches ${INPUT_MATRIX_MERGE:-}"
    echo "exit-code=2" >>"$GITHUB_OUTPUT"
    exit 2
  fi
  args=(matrix merge "${records[@]}" --out "$out")
  artifact="${INPUT_ARTIFACT_NAME:-mcpspec-matrix}"
elif [[ "${INPUT_MATRIX_PLAN:-}" == true ]]; then
  plan="$("$bin" matrix "${INPUT_MATRIX:-}" --plan github)" || code=$?
  if [[ $code -eq 0 ]]; then
    echo "$plan"
    echo "matrix-plan=$plan" >>"$GITHUB_OUTPUT"
  else
    echo "::error title=mcpspec::mcpspec matrix --plan github exited with $code; see the step log"
  fi
  echo "exit-code=$code" >>"$GITHUB_OUTPUT"
  exit "$code"
else
  args=(matrix "${INPUT_MATRIX:-}" --out "$out")
  artifact="${INPUT_ARTIFACT_NAME:-mcpspec-matrix}"
  if [[ -n "${INPUT_MATRIX_ONLY:-}" ]]; then
    args+=(--only "${INPUT_MATRIX_ONLY:-}")
    artifact="${INPUT_ARTIFACT_NAME:-mcpspec-matrix-${INPUT_MATRIX_ONLY:-}}"
  fi
fi
# Further arguments, one a line.
while IFS= read -r arg; do
  arg="${arg%$'\r'}"
  if [[ -n "$arg" ]]; then args+=("$arg"); fi
done <<<"${INPUT_ARGS:-}"
# No earlier page (a downloaded one-target page, say) stands for this run's.
rm -f "$out/matrix.md" "$out/matrix.json"
{ printf '+'; printf ' %q' "$bin" "${args[@]}"; echo; } >&2
"$bin" "${args[@]}" || code=$?
if [[ -s "$out/matrix.md" ]]; then
  cat "$out/matrix.md" >>"$GITHUB_STEP_SUMMARY"
elif [[ $code -ne 0 ]]; then
  echo "::error title=mcpspec::mcpspec matrix exited with $code and wrote no page; see the step log"
  printf '## mcpspec matrix: ❌ did not run (exit %s)\n\nSee the step log.\n' "$code" >>"$GITHUB_STEP_SUMMARY"
fi
{
  echo "exit-code=$code"
  echo "dir=$out"
  echo "artifact-name=$artifact"
  if [[ -s "$out/matrix.md" ]]; then echo "markdown=$out/matrix.md"; fi
  if [[ -s "$out/matrix.json" ]]; then echo "json=$out/matrix.json"; fi
} >>"$GITHUB_OUTPUT"
exit "$code"
