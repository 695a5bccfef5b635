// The README's pictures of a page: a built site's index.html in Debian's
// Chromium (playwright-core), light theme, 1280 px wide: the top of the page
// (title and headline cards) and its first row of charts.
//
//   node readme-images.mjs SITE_DIR OUT_DIR
//
// writes OUT_DIR/page.png and OUT_DIR/charts.png. The paper's picture is its
// first page, from poppler's pdftoppm:
//
//   pdftoppm -png -r 60 -f 1 -l 1 -singlefile SITE_DIR/paper.pdf OUT_DIR/paper
//
// CONTRIBUTING.md says when and how to make them again from the shipped study.

import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [siteDir, outDir] = process.argv.slice(2).map((p) => resolve(p));
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: "light", deviceScaleFactor: 0.75 });
await page.goto(pathToFileURL(join(siteDir, "index.html")).href);
await page.waitForLoadState("networkidle");
await page.screenshot({ path: join(outDir, "page.png"), clip: { x: 0, y: 0, width: 1280, height: 716 } });
const charts = await page.locator("div.chart").first().evaluate((e) => {
  const r = e.getBoundingClientRect();
  return { y: r.top + window.scrollY, height: r.height };
});
await page.screenshot({
  path: join(outDir, "charts.png"),
  clip: { x: 0, y: charts.y - 16, width: 1280, height: charts.height + 32 },
  fullPage: true,
});
await browser.close();
