// Measures built studies of generated shapes in Debian's Chromium (driven by
// playwright-core) against the layout's rules (docs/layout.md):
//
//   node shapes.mjs SITE_DIR...
//
// Loads each site's index.html at 390 × 844, 768 × 1024 and 1440 × 900 px and
// fails (exit 1, the failures listed as JSON) on: a block of the article
// off its grid lines (the prose measure, centred in the band, or the band);
// a page wider than the window; a table cell whose text overflows it; blocks,
// cards or figures overlapping; a row of cards less than full; chart text
// larger than the body text; at 1440 px a table of up to 8 columns wider than
// its box; a table wider than its box without a scroll box, a sticky first
// column and a cue; and at 390 px the answer or the first card's value below
// the first screen.

import { chromium } from "playwright-core";
import { resolve, join } from "node:path";

const sites = process.argv.slice(2).map((p) => resolve(p));
const failures = [];
const measured = [];
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const sizes = [[390, 844], [768, 1024], [1440, 900]];
for (const site of sites) {
  for (const [width, height] of sizes) {
    const context = await browser.newContext({ viewport: { width, height } });
    const tab = await context.newPage();
    await tab.goto("file://" + join(site, "index.html"), { waitUntil: "load" });
    const found = await tab.evaluate(measure, { width, height });
    measured.push({ site: site.split("/").pop(), width, ...found.figures });
    for (const f of found.problems) failures.push(`${site.split("/").pop()} at ${width}px: ${f}`);
    await context.close();
  }
}
await browser.close();
console.log(JSON.stringify({ measured, failures }, null, 1));
process.exit(failures.length ? 1 : 0);

// Runs in the page: every rule, each failure as a sentence.
function measure({ width, height }) {
  const problems = [];
  const box = (e) => e.getBoundingClientRect();
  const near = (a, b) => Math.abs(a - b) <= 1.5;
  const article = document.querySelector("main article");
  const a = box(article);
  const style = getComputedStyle(article);
  const band = { left: a.left + parseFloat(style.paddingLeft), right: a.right - parseFloat(style.paddingRight) };
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
  const measureWidth = Math.min(46 * rem, band.right - band.left);
  const centre = (band.left + band.right) / 2;
  const prose = { left: centre - measureWidth / 2, right: centre + measureWidth / 2 };
  const onLine = (b) => (near(b.left, prose.left) && near(b.right, prose.right)) || (near(b.left, band.left) && near(b.right, band.right));
  const blocks = [...article.children].filter((e) => e.getClientRects().length);
  let previous = null;
  for (const e of blocks) {
    const b = box(e);
    const name = `${e.localName}${e.id ? "#" + e.id : ""}.${e.className}`;
    if (!onLine(b)) problems.push(`${name} at x ${Math.round(b.left)}–${Math.round(b.right)}, off the measure (${Math.round(prose.left)}–${Math.round(prose.right)}) and the band (${Math.round(band.left)}–${Math.round(band.right)})`);
    if (previous && b.top < previous.bottom - 1) problems.push(`${name} overlaps the block before it (${Math.round(b.top)} < ${Math.round(previous.bottom)})`);
    previous = b;
  }
  // The cards and the title on the grid too.
  const cards = document.querySelector(".cards");
  if (cards && !onLine(box(cards))) problems.push(`the cards at x ${Math.round(box(cards).left)}–${Math.round(box(cards).right)}, off the grid`);
  const title = document.querySelector("header.site h1");
  if (title && !near(box(title).left, prose.left)) problems.push(`the title at x ${Math.round(box(title).left)}, not on the measure's line ${Math.round(prose.left)}`);
  const overflow = document.documentElement.scrollWidth - window.innerWidth;
  if (overflow > 1) problems.push(`the page is ${overflow}px wider than the window`);
  // Cards: no two overlap, and every row is full.
  const list = [...document.querySelectorAll(".cards > .card")].map(box);
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
    const [p, q] = [list[i], list[j]];
    if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) problems.push(`cards ${i + 1} and ${j + 1} overlap`);
  }
  const rows = {};
  for (const c of list) (rows[Math.round(c.top)] ??= []).push(c);
  if (cards) for (const [top, row] of Object.entries(rows)) {
    const span = Math.max(...row.map((c) => c.right)) - Math.min(...row.map((c) => c.left));
    if (span < box(cards).width - 2) problems.push(`the row of cards at y ${top} fills ${Math.round(span)} of ${Math.round(box(cards).width)} px`);
  }
  // Figures in a dashboard never overlap.
  for (const grid of document.querySelectorAll(".dashboard")) {
    const figs = [...grid.children].map(box);
    for (let i = 0; i < figs.length; i++) for (let j = i + 1; j < figs.length; j++) {
      const [p, q] = [figs[i], figs[j]];
      if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) problems.push(`figures ${i + 1} and ${j + 1} of a dashboard overlap`);
    }
  }
  // Tables: no cell's text cut; within their box, or scrolling in one with a sticky first column and a cue.
  let widest = 0;
  for (const table of document.querySelectorAll("figure.table table")) {
    const scroller = table.closest(".table-scroll");
    const columns = table.tHead ? table.tHead.rows[0].cells.length : 0;
    for (const cell of table.querySelectorAll("th, td")) {
      if (cell.scrollWidth > cell.clientWidth + 1) { problems.push(`a cell of ${columns} columns' table cuts its text: ${cell.textContent.slice(0, 40)}`); break; }
    }
    if (!scroller) { problems.push("a computed table without its scroll box"); continue; }
    widest = Math.max(widest, table.scrollWidth);
    const scrolls = scroller.scrollWidth > scroller.clientWidth + 1;
    if (scrolls && width >= 1440 && columns <= 8) problems.push(`a table of ${columns} columns is ${scroller.scrollWidth}px in a box of ${scroller.clientWidth}px`);
    if (scrolls) {
      if (getComputedStyle(scroller).overflowX !== "auto") problems.push("a wide table's box does not scroll");
      const first = table.querySelector("tbody tr > :first-child");
      if (first && getComputedStyle(first).position !== "sticky") problems.push("a wide table's first column is not sticky");
      if (!scroller.nextElementSibling?.classList.contains("scroll-cue")) problems.push("a wide table has no cue that it scrolls");
    }
    if (box(scroller).right > window.innerWidth + 1) problems.push("a table's box sticks out of the window");
  }
  // Chart text never larger than the body text.
  const body = parseFloat(getComputedStyle(document.querySelector("main article p") ?? document.body).fontSize);
  for (const t of document.querySelectorAll(".chart svg text")) {
    if (!t.getClientRects().length) continue;
    const m = t.getScreenCTM();
    const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    if (size > body + 0.5) { problems.push(`chart text at ${size.toFixed(1)} px, larger than the body's ${body} px`); break; }
  }
  // A phone's first screen holds the answer and the first card's value.
  const value = document.querySelector(".cards .card .value");
  const answer = document.querySelector("header .answer");
  const firstCard = value ? Math.round(box(value).bottom + scrollY) : null;
  if (width <= 400 && value && firstCard > height) problems.push(`the first card's value ends at y ${firstCard}, below the first screen (${height} px)`);
  if (width <= 400 && answer && box(answer).bottom + scrollY > height) problems.push("the answer ends below the first screen");
  // No empty headings and no heading repeating the title.
  const headings = [...article.querySelectorAll("h2, h3")];
  for (const h of headings) {
    const next = h.nextElementSibling;
    if (!next || /^H[1-3]$/.test(next.tagName) && next.tagName <= h.tagName) problems.push(`an empty heading: ${h.textContent}`);
  }
  if (headings[0] && title && headings[0].textContent.replace(/#$/, "").trim() === title.textContent.trim()) problems.push("the first heading repeats the title");
  return { problems, figures: { firstCard, widest, cards: list.length } };
}
