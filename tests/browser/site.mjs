// The index of a site of studies in Debian's Chromium (through
// playwright-core): axe-core finds nothing at 375 and 1440 px in both
// themes; the search, fetched on first use, finds a claim by a word of its
// label and by its value, and is usable by keyboard (its script and index
// are fetched only then); the tag filter hides the studies without the tag;
// Lighthouse scores 100 in its four categories, performance included (as a
// phone on a slow network, simulated, served compressed as GitHub Pages
// serves it; audited once more if under 100, as other jobs on a shared host
// slow the browser's own work). LARGE_DIR, if given, holds the index of a
// site of 50 studies of 20 headline claims: axe and Lighthouse audit it too.
// Usage:
//   node tests/browser/site.mjs SITE_DIR LABEL_WORD VALUE EXPECTED_CLAIM [LARGE_DIR]
// Prints a JSON report; exits 1 on any failure.
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import lighthouse from "lighthouse";
import { launch as launchChrome } from "chrome-launcher";
import { serve } from "./serve.mjs";

const require = createRequire(import.meta.url);
const [siteDir, word, value, claim, largeDir] = process.argv.slice(2);
const failures = [];
const fail = (message) => failures.push(message);
const requested = [];
const seen = (path) => requested.push(path);
const site = await serve(siteDir, "/", seen);
const large = largeDir ? await serve(largeDir, "/", seen) : null;
const origin = site.origin;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });

let axe = 0;
for (const [name, at] of [["index", site], ["index of 50 studies", large]]) {
  if (!at) continue;
  for (const width of [375, 1440]) {
    for (const scheme of ["light", "dark"]) {
      const label = `${name} at ${width}px, ${scheme}`;
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const tab = await context.newPage();
      tab.on("pageerror", (e) => fail(`${label}: page error: ${e.message}`));
      tab.on("response", (r) => { if (r.status() >= 400) fail(`${label}: HTTP ${r.status()} for ${r.url()}`); });
      await tab.goto(at.origin + "/", { waitUntil: "networkidle" });
      const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 0) fail(`${label}: ${overflow}px of horizontal overflow`);
      await tab.addScriptTag({ path: require.resolve("axe-core/axe.min.js") });
      const result = await tab.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
      for (const v of result.violations) {
        axe += 1;
        fail(`${label}: axe ${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
      }
      await context.close();
    }
  }
}

// The search: nothing fetched before the box is used; then by keyboard.
const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
const tab = await context.newPage();
tab.on("pageerror", (e) => fail(`search: page error: ${e.message}`));
requested.length = 0;
await tab.goto(origin + "/", { waitUntil: "networkidle" });
const searching = (p) => p.endsWith("search.json") || /\/search\.[0-9a-f]+\.js$/.test(p);
if (requested.some(searching)) fail(`${requested.filter(searching)} fetched before the search box was used`);
const controls = await tab.evaluate(() => getComputedStyle(document.querySelector(".site-controls")).display);
if (controls === "none") fail("the tag filter and sort are not shown where the script runs");
await tab.keyboard.press("Tab"); // the skip link
await tab.keyboard.press("Tab"); // the search box
if (!(await tab.evaluate(() => document.activeElement?.id === "site-search"))) fail("the search box is not the second stop of the keyboard");
const search = {};
for (const [kind, query] of [["label word", word], ["value", value]]) {
  await tab.fill("#site-search", "");
  await tab.keyboard.type(query);
  await tab.waitForFunction(() => document.getElementById("search-status").textContent !== "", null, { timeout: 5000 }).catch(() => {});
  const found = await tab.locator("#search-results a").allTextContents();
  search[kind] = found;
  if (!found.some((t) => t.includes(claim))) fail(`search by ${kind} (${query}) does not find "${claim}": ${JSON.stringify(found)}`);
}
if (!requested.some((p) => p.endsWith("search.json"))) fail("search.json was never fetched");
if (!requested.some((p) => /\/search\.[0-9a-f]+\.js$/.test(p))) fail("the search's script was never fetched");
await tab.keyboard.press("ArrowDown");
const focused = await tab.evaluate(() => document.activeElement?.closest("#search-results") !== null);
if (!focused) fail("ArrowDown does not move into the results");
await tab.keyboard.press("Escape");
await tab.keyboard.press("Escape");
if ((await tab.inputValue("#site-search")) !== "") fail("Escape does not clear the search");
// The tag filter.
const buttons = tab.locator(".site-controls button.tag");
if ((await buttons.count()) > 1) {
  const button = buttons.nth(1);
  const tag = await button.getAttribute("data-tag");
  await button.click();
  const shown = await tab.evaluate(() => [...document.querySelectorAll("#studies > li")].filter((li) => !li.hidden).map((li) => li.dataset.tags.split("|")));
  if (!shown.length || !shown.every((tags) => tags.includes(tag))) fail(`filtering by ${tag} shows ${JSON.stringify(shown)}`);
}
await context.close();
await browser.close();

const chrome = await launchChrome({ chromePath: "/usr/bin/chromium", chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
const CATEGORIES = ["performance", "seo", "accessibility", "best-practices"];
const scores = {};
for (const [name, at] of [["index", site], ["index of 50 studies", large]]) {
  if (!at) continue;
  const audit = async () => (await lighthouse(at.origin + "/", { port: chrome.port, logLevel: "error", onlyCategories: CATEGORIES })).lhr;
  let lhr = await audit();
  if (lhr.categories.performance.score < 1) lhr = await audit();
  scores[name] = Object.fromEntries(Object.entries(lhr.categories).map(([k, c]) => [k, Math.round(c.score * 100)]));
  for (const [key, category] of Object.entries(lhr.categories)) {
    if (category.score === 1) continue;
    const failed = category.auditRefs.filter((r) => r.weight > 0 && lhr.audits[r.id].score !== null && lhr.audits[r.id].score < 1)
      .map((r) => `${r.id} ${lhr.audits[r.id].displayValue ?? ""}`.trim());
    fail(`${name}: Lighthouse ${key} ${Math.round(category.score * 100)}, not 100 (${failed.join(", ")})`);
  }
}
await chrome.kill();
site.server.close();
large?.server.close();
console.log(JSON.stringify({ axe: { violations: axe }, lighthouse: scores, search, failures }, null, 2));
process.exit(failures.length ? 1 : 0);
