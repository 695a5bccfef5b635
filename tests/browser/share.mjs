// Sharing a view in a real browser (Debian's Chromium, driven by
// playwright-core):
//
//   node share.mjs SITE_DIR
//
// Serves SITE_DIR (a study with charts of several series and a computed
// table) on 127.0.0.1 and checks that every figure, table and card has a
// "Copy link" button whose link is the page's address with the block's
// anchor; that hiding a series and sorting a table write the view into the
// address (?hide-fig-ID=…, ?sort-tbl-ID=…); and that opening that address
// in a new page restores both: the same series hidden, the same column
// sorted the same way, the rows in the same order. Prints one JSON object:
// {"failures": [...]}.

import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { join, extname, resolve } from "node:path";
import { chromium } from "playwright-core";

const siteDir = resolve(process.argv[2]);
const TYPES = { ".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml", ".json": "application/json", ".csv": "text/csv" };
const failures = [];
const fail = (message) => failures.push(message);
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
  const inside = resolve(siteDir, "." + path);
  try {
    if (!inside.startsWith(siteDir)) throw new Error("outside");
    const file = (await stat(inside)).isDirectory() ? join(inside, "index.html") : inside;
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(await readFile(file));
  } catch {
    res.writeHead(404);
    res.end("not found");
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
try {
  const page = await context.newPage();
  page.on("pageerror", (e) => fail(`page error: ${e}`));
  await page.goto(`${origin}/index.html`);

  // A copy-link button on every figure, table and card, each named for it.
  const blocks = await page.evaluate(() =>
    [...document.querySelectorAll(".chart[id], figure.table, li.card[id]")].map((el) => ({
      id: el.id || el.closest("[id]")?.id || "",
      buttons: el.querySelectorAll(".copy-link").length,
      name: el.querySelector(".copy-link")?.getAttribute("aria-label") ?? "",
    })));
  if (blocks.length < 3) fail(`only ${blocks.length} figures, tables and cards`);
  for (const b of blocks) {
    if (!b.id) fail("a block without an anchor");
    if (b.buttons !== 1) fail(`${b.id}: ${b.buttons} copy-link buttons`);
    if (!/^Copy link to .+/.test(b.name)) fail(`${b.id}: named "${b.name}"`);
  }
  const chart = await page.evaluate(() => [...document.querySelectorAll(".chart[id]")].find((c) => c.querySelectorAll(".series-toggle button").length > 1)?.id);
  const table = await page.evaluate(() => document.querySelector("figure.table th > button.sort")?.closest("figure").id);
  if (!chart) fail("no chart with series toggles");
  if (!table) fail("no sortable table");
  if (chart && table) {
    // Copy the link to the chart.
    await page.locator(`#${chart} .copy-link`).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    if (copied !== `${origin}/index.html#${chart}`) fail(`copied ${copied}`);
    if ((await page.locator(`#${chart} .copy-link`).textContent()) !== "Link copied") fail("the button does not say the link was copied");

    // Hide the second series; sort the table by its third column, descending.
    await page.locator(`#${chart} .series-toggle button`).nth(1).click();
    const sort = page.locator(`#${table} thead th`).nth(2).locator("button.sort");
    await sort.click();
    await sort.click();
    const url = new URL(page.url());
    if (url.searchParams.get(`hide-${chart}`) !== "1") fail(`hide not in the address: ${url}`);
    if (url.searchParams.get(`sort-${table}`) !== "2d") fail(`sort not in the address: ${url}`);
    const rows = (p) => p.evaluate((id) => [...document.querySelectorAll(`#${id} tbody tr`)].map((r) => r.textContent), table);
    const sorted = await rows(page);

    // The same view, restored from the address in a new page.
    const again = await context.newPage();
    again.on("pageerror", (e) => fail(`page error: ${e}`));
    await again.goto(url.toString());
    const pressed = await again.evaluate((id) => [...document.querySelectorAll(`#${id} .series-toggle button`)].map((b) => b.getAttribute("aria-pressed")), chart);
    if (pressed[1] !== "false" || pressed.filter((p) => p === "false").length !== 1) fail(`series restored as ${pressed}`);
    const hidden = await again.evaluate((id) => {
      const style = JSON.parse(document.getElementById(id).dataset.series)[1][0];
      return [...document.querySelectorAll(`#${id} svg .s${style}`)].every((el) => el.style.display === "none");
    }, chart);
    if (!hidden) fail("the hidden series is drawn");
    const order = await again.evaluate((id) => document.querySelectorAll(`#${id} thead th`)[2].getAttribute("aria-sort"), table);
    if (order !== "descending") fail(`table order restored as ${order}`);
    if (JSON.stringify(await rows(again)) !== JSON.stringify(sorted)) fail("rows restored in another order");
  }
} catch (err) {
  fail(String(err));
}
await browser.close();
server.close();
console.log(JSON.stringify({ failures }, null, 2));
process.exit(failures.length ? 1 : 0);
