// Checks a built report site in a real browser (Debian's Chromium, driven by
// playwright-core), with axe-core for accessibility, the Nu HTML Checker
// (vnu-jar, on the machine's Java) for validity, and Lighthouse for
// performance, SEO, accessibility and best practices (100 each on every
// study's first page).
//
//   node check.mjs SITE_DIR SCREENSHOT_DIR
//
// Serves SITE_DIR on 127.0.0.1 under the sub-path /study/, loads every page at
// 360, 375, 1024, 1440 and 1920 px in light and dark themes, opens every
// <details> (the data tables), and fails (exit 1) on console errors, failed
// requests, broken links or assets, a page over 200 kB (200,000 bytes, its
// CSS, script and images with it), cards or Table 1 under them that differ
// from stats.json, any axe
// violation (every impact: minor, moderate, serious, critical), any vnu error
// or a vnu run that exits non-zero; and on layout and legibility defects: a
// page wider than the window or dashboard columns of unequal width (an open
// data table widening its column), chart text rendered under 12 CSS px (10th
// percentile, at 375 px and wider) or 11 px (any), a legend or annotation box
// intersecting a data mark, numbers in data tables not right-aligned, series
// colours under 3:1 against their background, a formula not painted in its
// text's colour (at 1440 px, both themes), and print rules missing. The JSON report counts the axe violations by
// impact and lists each with its rule, the nodes' selectors and HTML.

import { readFile, readdir, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import lighthouse from "lighthouse";
import { launch as launchChrome } from "chrome-launcher";
import { serve } from "./serve.mjs";

const require = createRequire(import.meta.url);
const [siteDir, shotDir] = process.argv.slice(2).map((p) => resolve(p));
const BASE = "/study/";
const failures = [];
const fail = (message) => failures.push(message);
const axeViolations = [];

const { server, origin } = await serve(siteDir, BASE);

// Every page of the site, and of each study published inside it
// (examples/NAME/), each with its study's stats.json.
const pages = (await readdir(siteDir)).filter((f) => f.endsWith(".html")).sort();
const examples = join(siteDir, "examples");
for (const name of (await readdir(examples).catch(() => [])).sort()) {
  const dir = join(examples, name);
  for (const f of (await readdir(dir).catch(() => [])).filter((f) => f.endsWith(".html")).sort()) pages.push(`examples/${name}/${f}`);
}
const statsOf = {};
const stats = async (page) => {
  const dir = page.includes("/") ? page.slice(0, page.lastIndexOf("/") + 1) : "";
  statsOf[dir] ??= JSON.parse(await readFile(join(siteDir, dir, "data", "stats.json"), "utf8"));
  return statsOf[dir];
};
const isIndex = (page) => page === "index.html" || page.endsWith("/index.html");
const shares = {};
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
await mkdir(shotDir, { recursive: true });
const weights = {};

// The compressors study's computed tables sort by column (and stay
// accessible sorted); every page gets every check below.
const hasGrid = (page) => page.startsWith("examples/compressors/");
for (const page of pages.filter(hasGrid)) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const tab = await context.newPage();
  tab.on("pageerror", (e) => fail(`${page}: page error: ${e.message}`));
  await tab.goto(origin + BASE + page, { waitUntil: "networkidle" });
  if ((await tab.locator("figure.table table:has(td.verdict)").count()) === 0) fail(`${page}: no verdict grid`);
  await checkSorting(tab, page);
  await checkAxe(tab, `${page}, sorted`);
  await context.close();
}
for (const page of pages) {
  for (const width of [360, 375, 1024, 1440, 1920]) {
    for (const scheme of ["light", "dark"]) {
      const label = `${page} at ${width}px, ${scheme}`;
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const tab = await context.newPage();
      let bytes = 0;
      tab.on("console", (m) => { if (m.type() === "error") fail(`${label}: console error: ${m.text()}`); });
      tab.on("pageerror", (e) => fail(`${label}: page error: ${e.message}`));
      tab.on("requestfailed", (r) => fail(`${label}: request failed: ${r.url()}`));
      tab.on("response", (r) => {
        if (r.status() >= 400) fail(`${label}: HTTP ${r.status()} for ${r.url()}`);
        if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) fail(`${label}: external request to ${r.url()}`);
      });
      await tab.goto(origin + BASE + page, { waitUntil: "networkidle" });
      if (scheme === "light" && (width === 375 || width === 1440)) await checkReading(tab, label, page, width);
      await openDetails(tab, label);
      bytes = await tab.evaluate(() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
        .reduce((sum, e) => sum + (e.decodedBodySize || 0), 0));
      weights[page] = Math.max(weights[page] ?? 0, bytes);
      if (width === 375 || width === 1440) {
        await tab.screenshot({ path: join(shotDir, `${page.replaceAll("/", "-").replace(".html", "")}-${width}-${scheme}.png`), fullPage: true });
      }
      if (bytes > 200_000) fail(`${label}: page weight ${bytes} bytes is over 200 kB (200,000 bytes)`);
      if (isIndex(page)) await checkCards(tab, label, await stats(page));
      await checkLinks(tab, label);
      await checkAxe(tab, label);
      if (width === 1440 && scheme === "light") await checkNumbers(tab, label, await stats(page));
      if (page === "index.html" && width === 1440 && scheme === "light") {
        await checkTooltip(tab, label);
        await checkKeyboard(tab, label);
        await checkAxe(tab, `${label}, a point focused`);
        await checkToggle(tab, label);
      }
      if (width === 1440 && scheme === "light") await checkSorting(tab, label);
      const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 1) fail(`${label}: the page is ${overflow}px wider than the window`);
      await checkLayout(tab, label, width);
      if (width !== 360) await checkChartText(tab, label);
      await checkLegends(tab, label);
      await checkTables(tab, label);
      await checkContrast(tab, label);
      if (width === 1440) await checkMath(tab, label);
      await context.close();
    }
  }
}

// Every <details> open, so that the checks and screenshots see the tables too.
// The document is complete first (load, then readyState), and the opening is
// retried for up to 5 s: a <details> that a script or the markup keeps closed
// still fails, and the report names it by its summary.
async function openDetails(tab, label) {
  await tab.waitForLoadState("load");
  await tab.waitForFunction(() => document.readyState === "complete");
  let closed = [];
  for (let attempt = 0; attempt < 50; attempt++) {
    closed = await tab.evaluate(async () => {
      document.querySelectorAll("details:not([open])").forEach((d) => { d.open = true; });
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      return [...document.querySelectorAll("details:not([open])")].map((d) => d.querySelector("summary")?.textContent ?? "?");
    });
    if (!closed.length) break;
    await tab.waitForTimeout(100);
  }
  await tab.waitForLoadState("networkidle");
  if (closed.length) fail(`${label}: ${closed.length} <details> would not open: ${closed.join("; ")}`);
}

// Cards show stats.json's difference in words ("8.8% faster"), or a
// summary's value; so does Table 1 under them, a row per card in their order.
async function checkCards(tab, label, stats) {
  const headline = stats.metrics.filter((m) => m.headline);
  for (const metric of headline) {
    const shown = await tab.locator(`#metric-${metric.name} .value`).textContent().catch(() => null);
    const want = metric.text.words ?? metric.text.value;
    if (shown?.replace(/\s+/g, " ").trim() !== want) fail(`${label}: card ${metric.name} shows ${shown}, stats.json says ${want}`);
  }
  if (!headline.length) return;
  const table = await tab.evaluate(() => {
    const figure = document.querySelector("#tbl-headline figure.table");
    const rows = [...(figure?.querySelectorAll("tbody tr") ?? [])];
    return { number: figure?.querySelector("figcaption .table-number")?.textContent,
      differences: rows.map((r) => r.querySelector("td.difference")?.textContent.replace(/\s+/g, " ").trim()) };
  });
  if (table.number !== "Table 1.") fail(`${label}: the headline table is numbered ${table.number}, not Table 1.`);
  const want = headline.map((m) => m.text.words ?? m.text.value);
  if (table.differences.join("|") !== want.join("|")) fail(`${label}: Table 1 shows ${table.differences.join(", ")}, stats.json says ${want.join(", ")}`);
}

// As a reader first sees the page (every <details> closed): the data's
// provenance label near the title, when the study declares one, and the
// caveats at most 15% of the page's height (the rest is in the collapsed
// Diagnostics).
async function checkReading(tab, label, page, width) {
  const m = await tab.evaluate(() => {
    const height = document.documentElement.scrollHeight;
    const callouts = [...document.querySelectorAll("blockquote.markdown-alert-warning")];
    const caveats = callouts.reduce((sum, e) => sum + e.getBoundingClientRect().height, 0);
    const provenance = document.querySelector("header .provenance");
    const box = provenance?.getBoundingClientRect();
    return { height, caveats, provenance: provenance ? { top: box.top + scrollY, text: provenance.textContent } : null };
  });
  shares[`${page} at ${width}px`] = `${((100 * m.caveats) / m.height).toFixed(1)}% (${Math.round(m.caveats)} of ${m.height} px)`;
  if (m.caveats > 0.15 * m.height) fail(`${label}: the caveats take ${Math.round(m.caveats)} of ${m.height} px, over 15% of the page`);
  if (!m.provenance) fail(`${label}: no provenance label beside the title`);
  else if (m.provenance.top > 600) fail(`${label}: the provenance label is ${Math.round(m.provenance.top)} px down the page, not beside the title`);
}

// Numbers read alike everywhere: no number in the page's text or in a
// chart's tooltip (an SVG <title>) carries a hyphen-minus ("-2.4%" instead
// of "−2.4%"), and no raw column id of the data ("size_bytes", "procs = 32")
// appears in the prose (the Diagnostics, code and data tables aside).
async function checkNumbers(tab, label, stats) {
  const ids = [...new Set(stats.groups.flatMap((g) => [g.inputs.column, ...Object.keys(g.config)]))];
  const problems = await tab.evaluate((ids) => {
    const out = [];
    const hyphen = /(?<![\p{L}\p{N}_.\/-])-\d/u;
    const texts = (root, skip) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const all = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) if (!n.parentElement.closest(skip)) all.push(n.textContent);
      return all;
    };
    for (const t of texts(document.body, "code, pre, script, style, footer")) {
      const m = t.match(hyphen);
      if (m) out.push(`a number with a hyphen-minus in the text: ${JSON.stringify(t.slice(Math.max(0, m.index - 30), m.index + 20))}`);
    }
    for (const t of document.querySelectorAll("svg title, [aria-label]")) {
      const text = t.textContent || t.getAttribute("aria-label") || "";
      const m = text.match(hyphen);
      if (m) out.push(`a number with a hyphen-minus in a tooltip: ${JSON.stringify(text.slice(0, 80))}`);
    }
    const prose = texts(document.body, "code, pre, script, style, footer, table, .diagnostics, svg, details").join(" ");
    // An id that is also a word ("atoms", "steps") is a column only as `id = 32`.
    for (const id of ids) {
      const word = /^\p{L}+$/u.test(id) ? " = \\S" : "";
      const m = prose.match(new RegExp(`(?<![\\p{L}\\p{N}_])${id}(?![\\p{L}\\p{N}_])${word}`, "u"));
      if (m) out.push(`the column id ${id} in the prose: ${JSON.stringify(prose.slice(Math.max(0, m.index - 40), m.index + 40))}`);
    }
    return out.slice(0, 20);
  }, ids);
  for (const p of problems) fail(`${label}: ${p}`);
}

// Every dashboard column as wide as the others in its grid (an open data
// table must not widen its column), and nothing wider than its container.
async function checkLayout(tab, label) {
  const problems = await tab.evaluate(() => {
    const out = [];
    for (const grid of document.querySelectorAll(".dashboard")) {
      // A chart alone in the last row spans it: as wide as the grid, no hole.
      const full = grid.getBoundingClientRect().width;
      const lone = [...grid.children].filter((c) => Math.abs(c.getBoundingClientRect().width - full) <= 1);
      const columns = getComputedStyle(grid).gridTemplateColumns.split(" ").length;
      if (columns > 1 && grid.children.length % columns !== 0 && !lone.length) out.push(`a hole in the last row of a dashboard of ${grid.children.length} charts`);
      const widths = [...grid.children].filter((c) => !lone.includes(c) || columns === 1).map((c) => Math.round(c.getBoundingClientRect().width));
      if (Math.max(...widths) - Math.min(...widths) > 1) out.push(`dashboard columns of unequal width: ${widths.join(", ")}`);
      const room = grid.getBoundingClientRect().right;
      for (const c of grid.children) if (c.getBoundingClientRect().right > room + 1) out.push(`#${c.id} sticks out of the dashboard`);
    }
    return out;
  });
  for (const p of problems) fail(`${label}: ${p}`);
}

// The size chart text renders at: its font size times the SVG's scale.
async function checkChartText(tab, label) {
  const sizes = await tab.evaluate(() => [...document.querySelectorAll(".chart svg text")]
    .filter((t) => t.getClientRects().length && t.textContent.trim())
    .map((t) => { const m = t.getScreenCTM(); return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); })
    .sort((a, b) => a - b));
  // A page without charts (the study's data page) has no chart text to check.
  const charts = await tab.evaluate(() => document.querySelectorAll(".chart svg").length);
  if (!sizes.length) return charts ? fail(`${label}: no chart text`) : undefined;
  const p10 = sizes[Math.floor(sizes.length / 10)];
  if (p10 < 12) fail(`${label}: chart text renders at ${p10.toFixed(1)} CSS px (10th percentile), under 12`);
  if (sizes[0] < 11) fail(`${label}: the smallest chart text renders at ${sizes[0].toFixed(1)} CSS px, under 11`);
}

// Legends and annotations ("n.s.") never cover a data mark: a line, marker,
// error bar, bar or point of a series (the shapes of a series' group, class
// sN, and its points' hover targets).
async function checkLegends(tab, label) {
  const problems = await tab.evaluate(() => {
    const out = [];
    const box = (e) => e.getBoundingClientRect();
    const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    for (const svg of document.querySelectorAll(".chart svg")) {
      const chart = svg.closest("div.chart");
      const id = chart.id;
      const series = JSON.parse(chart.dataset.series || "[]");
      const legend = svg.querySelector(".legend");
      if (series.length > 1 && !legend) out.push(`${id}: no legend outside the plot`);
      const marks = [...svg.querySelectorAll("[class^='s'], [class^='s'] *")].filter((e) => !e.closest(".legend") && !["g", "text", "title"].includes(e.localName) && /^s\d+$/.test(e.closest("[class^='s']").getAttribute("class")));
      const notes = [...svg.querySelectorAll("text")].filter((t) => !t.closest(".legend") && t.textContent.trim() === "n.s.");
      const boxes = (legend ? [["legend", box(legend)]] : []).concat(notes.map((n) => ["n.s. label", box(n)]));
      for (const [what, b] of boxes) {
        const hit = marks.find((m) => meets(b, box(m)));
        if (hit) out.push(`${id}: the ${what} covers a data mark (${hit.outerHTML.slice(0, 80)})`);
      }
    }
    return out;
  });
  for (const p of problems) fail(`${label}: ${p}`);
}

// Numbers in the data tables are right-aligned in tabular figures, under a
// <thead>, with a <caption>.
async function checkTables(tab, label) {
  const problems = await tab.evaluate(() => {
    const out = [];
    for (const table of document.querySelectorAll(".chart table")) {
      const id = table.closest("div.chart").id;
      if (!table.tHead) out.push(`${id}: data table without <thead>`);
      if (!table.caption) out.push(`${id}: data table without <caption>`);
      for (const cell of table.querySelectorAll("td")) {
        if (!/^[\u2212+-]?\d/.test(cell.textContent.trim())) continue;
        const style = getComputedStyle(cell);
        if (style.textAlign !== "right") { out.push(`${id}: number ${cell.textContent} aligned ${style.textAlign}`); break; }
        if (!style.fontVariantNumeric.includes("tabular-nums")) { out.push(`${id}: number ${cell.textContent} not in tabular figures`); break; }
      }
      if ([...table.querySelectorAll("td")].some((c) => /\d\.\d{6,}/.test(c.textContent))) out.push(`${id}: data table shows a float artefact`);
    }
    return out;
  });
  for (const p of problems) fail(`${label}: ${p}`);
}

// Every series colour drawn reaches 3:1 against the chart's background.
async function checkContrast(tab, label) {
  const problems = await tab.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) || []).slice(0, 4).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const background = (e) => {
      for (let n = e; n; n = n.parentElement) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c;
      }
      return [255, 255, 255];
    };
    const out = new Set();
    for (const e of document.querySelectorAll("div.chart svg [class^='s'], div.chart svg [class^='s'] *")) {
      if (["g", "text", "title"].includes(e.localName) || !/^s\d+$/.test(e.closest("[class^='s']").getAttribute("class"))) continue;
      const style = getComputedStyle(e);
      const stroked = style.stroke !== "none" && parseFloat(style.strokeOpacity) > 0;
      const paint = stroked ? style.stroke : parseFloat(style.fillOpacity) > 0 ? style.fill : "none";
      if (!paint.startsWith("rgb")) continue;
      const chart = e.closest("div.chart");
      const [a, b] = [lum(rgb(paint)), lum(background(chart))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 3) out.add(`${chart.id}: series colour ${paint} has ${ratio.toFixed(2)}:1 against its background`);
    }
    return [...out];
  });
  for (const p of problems) fail(`${label}: ${p}`);
}

async function checkLinks(tab, label) {
  const targets = await tab.evaluate(() => [...document.querySelectorAll("a[href], link[href], script[src], img[src]")]
    .map((e) => e.getAttribute("href") ?? e.getAttribute("src")));
  for (const target of targets) {
    if (target.startsWith("#")) {
      const id = decodeURIComponent(target.slice(1));
      if (!(await tab.evaluate((id) => !!document.getElementById(id), id))) fail(`${label}: link to missing #${id}`);
      continue;
    }
    if (/^[a-z]+:/i.test(target)) {
      if (!/^(https?|mailto|data):/.test(target)) fail(`${label}: odd link ${target}`);
      continue;
    }
    const url = new URL(target, tab.url()).toString();
    const response = await tab.request.get(url);
    if (response.status() !== 200) fail(`${label}: ${target} answers ${response.status()}`);
  }
}

async function checkAxe(tab, label) {
  await tab.addScriptTag({ path: require.resolve("axe-core/axe.min.js") });
  const result = await tab.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  for (const v of result.violations) {
    const nodes = v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html }));
    axeViolations.push({ where: label, impact: v.impact, id: v.id, help: v.help, nodes });
    fail(`${label}: axe ${v.impact} ${v.id}: ${v.help} (${nodes.length} nodes: ${nodes.map((n) => n.target).join(", ")})`);
  }
}

// Hovering a point shows at once the details of every series at its x, one
// line each, as their SVG <title>s have them: a point under another is read
// too.
async function checkTooltip(tab, label) {
  const point = tab.locator("div.chart .points circle").first();
  // Charts are laid out only near the screen (`content-visibility: auto`),
  // so the reader scrolls to one before pointing at it, as here.
  await tab.locator("div.chart").first().scrollIntoViewIfNeeded();
  await tab.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await point.hover({ force: true });
  const tip = tab.locator("div.chart .tooltip").first();
  const expected = await tab.evaluate(() => {
    const first = document.querySelector("div.chart .points circle");
    const x = first.getAttribute("cx");
    return [...first.closest("div.chart").querySelectorAll(".points circle")]
      .filter((p) => p.getAttribute("cx") === x).map((p) => p.querySelector("title").textContent).join("\n");
  });
  if (!(await tip.isVisible()) || (await tip.textContent()) !== expected) fail(`${label}: hovering a point shows ${JSON.stringify(await tip.textContent())}, not every series at its x: ${JSON.stringify(expected)}`);
  if (!expected.includes("\n")) fail(`${label}: the first chart's first x has one series only; the unified details are not tested`);
}

// Tab reaches a chart's points (one tab stop per chart) and shows the focused
// point's details, as its <title> has them; the arrow keys move from point to
// point, and End reaches the chart's last point.
async function checkKeyboard(tab, label) {
  const focused = () => tab.evaluate(() => {
    const p = document.activeElement;
    if (!p || !p.closest || !p.closest(".points")) return null;
    const figure = p.closest("div.chart");
    const tip = figure.querySelector(".tooltip");
    const all = [...figure.querySelectorAll(".points circle")];
    return { index: all.indexOf(p), count: all.length, title: p.querySelector("title").textContent,
      tip: tip.hidden ? null : tip.textContent, stops: all.filter((c) => c.getAttribute("tabindex") === "0").length };
  });
  // The pointer out of the way: a point it rests on shows its own details.
  await tab.mouse.move(0, 0);
  await tab.evaluate(() => document.activeElement?.blur());
  let point = null;
  for (let i = 0; i < 200 && !point; i++) {
    await tab.keyboard.press("Tab");
    point = await focused();
  }
  if (!point) return fail(`${label}: Tab never reaches a chart's point`);
  if (point.index !== 0) fail(`${label}: Tab reaches point ${point.index} of a chart, not its first`);
  if (point.tip !== point.title) fail(`${label}: a focused point shows ${JSON.stringify(point.tip)}, not its details ${JSON.stringify(point.title)}`);
  if (!/n = \d/.test(point.title)) fail(`${label}: a point's details lack n: ${point.title}`);
  await tab.keyboard.press("ArrowRight");
  const next = await focused();
  if (!next || next.index !== 1 || next.tip !== next.title) fail(`${label}: ArrowRight does not move to the next point and show it: ${JSON.stringify(next)}`);
  if (next && next.stops !== 1) fail(`${label}: a chart has ${next.stops} tab stops among its points, not 1`);
  await tab.keyboard.press("End");
  const last = await focused();
  if (!last || last.index !== last.count - 1) fail(`${label}: End does not reach the chart's last point: ${JSON.stringify(last)}`);
  await tab.keyboard.press("Tab");
  const after = await focused();
  if (after && after.index !== 0) fail(`${label}: Tab from a chart's point goes to another point of it, not on`);
  await tab.keyboard.press("Shift+Tab");
}

// A computed table sorts by each column: every header is a button, aria-sort
// names the one order in force, the column's numbers come in that order
// (cells without one after them), and the rows stay whole.
async function checkSorting(tab, label) {
  const computed = tab.locator("figure.table table:has(td.verdict, td.cell)");
  for (let t = 0; t < (await computed.count()); t++) {
    const table = computed.nth(t);
    const name = `${label}: computed table ${t + 1}`;
    const headers = table.locator("thead th");
    const columns = await headers.count();
    if ((await table.locator("thead th > button.sort").count()) !== columns) { fail(`${name}: a header is not a sort button`); continue; }
    const rows = () => table.evaluate((e) => [...e.tBodies[0].rows].map((r) => r.textContent).sort().join("\n"));
    const before = await rows();
    for (let c = 0; c < columns; c++) {
      for (const order of ["ascending", "descending"]) {
        await headers.nth(c).locator("button").click();
        if ((await headers.nth(c).getAttribute("aria-sort")) !== order) fail(`${name}: column ${c + 1} not marked ${order}`);
        if ((await table.locator("thead th[aria-sort]").count()) !== 1) fail(`${name}: aria-sort on more than one header`);
        if (c === 0) continue;
        const values = await table.evaluate((e, c) => [...e.tBodies[0].rows].map((r) => {
          const m = r.cells[c].textContent.replace(/\u2212/g, "-").match(/[-+]?\d+(\.\d+)?/);
          return m ? parseFloat(m[0]) : null;
        }), c);
        const numbers = values.filter((v) => v !== null);
        const sorted = numbers.every((v, i) => i === 0 || (order === "ascending" ? numbers[i - 1] <= v : numbers[i - 1] >= v));
        if (!sorted) fail(`${name}: column ${c + 1} is not ${order}: ${numbers.join(", ")}`);
        if (values.slice(numbers.length).some((v) => v !== null)) fail(`${name}: column ${c + 1} puts a cell without a number before a number`);
      }
    }
    if ((await rows()) !== before) fail(`${name}: sorting changed or lost rows`);
  }
}

// Formulas take the text's colour in either theme: each glyph (a <use>)
// and rule (a stroked path) of a formula's SVG is painted in the colour of
// the text around it.
async function checkMath(tab, label) {
  const problems = await tab.evaluate(() => [...document.querySelectorAll("svg.math")].flatMap((svg) => {
    const text = getComputedStyle(svg.parentElement).color;
    const marks = [...svg.querySelectorAll("use, path[stroke]")].filter((e) => !e.closest("symbol"));
    const paints = marks.map((e) => {
      const style = getComputedStyle(e);
      return e.hasAttribute("stroke") && e.getAttribute("fill") === "none" ? style.stroke : style.fill;
    });
    const wrong = [...new Set(paints.filter((paint) => paint !== text))];
    return wrong.map((paint) => `formula "${svg.getAttribute("aria-label")}" painted ${paint}, not its text's ${text}`);
  }));
  for (const p of problems) fail(`${label}: ${p}`);
}

async function checkToggle(tab, label) {
  const button = tab.locator(".chart .series-toggle button").first();
  if ((await button.count()) === 0) return fail(`${label}: no series toggle`);
  await button.click();
  const hidden = await tab.evaluate(() => [...document.querySelector(".chart svg").querySelectorAll(".s0")].every((e) => e.style.display === "none"));
  if (!hidden) fail(`${label}: the series toggle did not hide the series`);
  if ((await button.getAttribute("aria-pressed")) !== "false") fail(`${label}: aria-pressed not updated`);
}

// Without JavaScript the page still shows everything; printing hides the chrome.
for (const page of pages) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, javaScriptEnabled: false });
  const tab = await context.newPage();
  await tab.goto(origin + BASE + page, { waitUntil: "networkidle" });
  const charts = await tab.locator(".chart svg").count();
  const expected = (await readFile(join(siteDir, page), "utf8")).split('<div class="chart"').length - 1;
  if (charts !== expected) fail(`${page} without JavaScript: ${charts} of ${expected} charts`);
  if (isIndex(page)) await checkCards(tab, `${page} without JavaScript`, await stats(page));
  // Computed tables read as written, their headers plain text.
  if ((await tab.locator("th button.sort").count()) > 0) fail(`${page} without JavaScript: sort buttons in the markup`);
  await tab.emulateMedia({ media: "print" });
  const printed = await tab.evaluate(() => [...document.querySelectorAll("nav, a.pdf, details")].every((e) => getComputedStyle(e).display === "none"));
  if (!printed) fail(`${page}: the print stylesheet does not hide navigation, the PDF button and data tables`);
  const breaks = await tab.evaluate(() => {
    const out = [];
    for (const e of document.querySelectorAll(".card, div.chart, table, .environments section")) {
      if (getComputedStyle(e).breakInside !== "avoid") { out.push(`${e.className || e.tagName} may split across pages`); break; }
    }
    for (const h of document.querySelectorAll("main h2, main h3")) {
      if (getComputedStyle(h).breakAfter !== "avoid") { out.push(`heading ${h.id} may be stranded at a page foot`); break; }
    }
    return out;
  });
  for (const b of breaks) fail(`${page} printed: ${b}`);
  await context.close();
}

await browser.close();

// Lighthouse's four categories (performance, SEO, accessibility, best
// practices) of each study's first page, on Debian's Chromium (never a
// downloaded browser), as a phone on a slow network (Lighthouse's default,
// simulated): 100 each. Performance times the host's own work, which other
// jobs on a shared host can slow: a page under 100 is audited once more, and
// fails if it is under 100 again.
const scores = {};
const metrics = {};
const chrome = await launchChrome({ chromePath: "/usr/bin/chromium", chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
const CATEGORIES = ["performance", "seo", "accessibility", "best-practices"];
const TIMES = ["first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index"];
for (const page of pages.filter(isIndex)) {
  let lhr = (await lighthouse(origin + BASE + page, { port: chrome.port, logLevel: "error", onlyCategories: CATEGORIES })).lhr;
  if (lhr.categories.performance.score < 1) {
    lhr = (await lighthouse(origin + BASE + page, { port: chrome.port, logLevel: "error", onlyCategories: CATEGORIES })).lhr;
  }
  scores[page] = Object.fromEntries(Object.entries(lhr.categories).map(([k, c]) => [k, Math.round(c.score * 100)]));
  metrics[page] = Object.fromEntries(TIMES.map((id) => [id, lhr.audits[id].displayValue]));
  for (const [key, category] of Object.entries(lhr.categories)) {
    if (category.score === 1) continue;
    const failed = category.auditRefs.filter((r) => r.weight > 0 && lhr.audits[r.id].score !== null && lhr.audits[r.id].score < 1).map((r) => r.id);
    fail(`${page}: Lighthouse ${key} ${Math.round(category.score * 100)}, not 100 (${failed.join(", ")})`);
  }
}
await chrome.kill();
server.close();

// vnu exits 1 when it finds an error; any other non-zero status, or output
// that is not its JSON, is a checker that did not run, and fails too.
const vnu = spawnSync("java", ["-jar", require.resolve("vnu-jar/build/dist/vnu.jar"), "--errors-only", "--format", "json", ...pages.map((p) => join(siteDir, p))], { encoding: "utf8" });
if (vnu.error) {
  fail(`vnu: could not run java: ${vnu.error.message}`);
} else {
  let messages = [];
  try {
    messages = JSON.parse(vnu.stderr || vnu.stdout).messages ?? [];
  } catch {
    fail(`vnu: no JSON report: ${`${vnu.stderr}\n${vnu.stdout}`.trim().slice(0, 2000)}`);
  }
  for (const m of messages) fail(`vnu: ${m.url?.split("/").pop()}:${m.lastLine}:${m.firstColumn ?? m.lastColumn}: ${m.message}`);
  if (vnu.status !== 0) fail(`vnu: exit status ${vnu.status ?? `killed by ${vnu.signal}`}`);
}

const impacts = {};
for (const v of axeViolations) impacts[v.impact] = (impacts[v.impact] ?? 0) + 1;
const axe = { violations: axeViolations.length, impacts, list: axeViolations };
console.log(JSON.stringify({ pages, weights, caveats: shares, lighthouse: scores, timings: metrics, axe, failures }, null, 2));
process.exit(failures.length ? 1 : 0);
