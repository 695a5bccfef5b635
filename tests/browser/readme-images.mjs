// The README's pictures of a page: a built site's index.html in Debian's
// Chromium (playwright-core), in the light and the dark theme: the first
// screen at 1440 px wide (title, answer and headline cards) and on a 375 px
// phone, and the first row of charts at 1440 px.
//
//   node readme-images.mjs SITE_DIR OUT_DIR
//
// writes OUT_DIR/page-1440-{light,dark}.png, OUT_DIR/page-375-{light,dark}.png
// and OUT_DIR/charts-{light,dark}.png. The paper's picture is its first page,
// from poppler's pdftoppm:
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
// A desktop's first screen at half scale (720 × 450 pixels), a phone's at its own.
const screens = [
  { width: 1440, height: 900, scale: 0.5 },
  { width: 375, height: 844, scale: 1 },
];
for (const scheme of ["light", "dark"]) {
  for (const { width, height, scale } of screens) {
    const page = await browser.newPage({ viewport: { width, height }, colorScheme: scheme, deviceScaleFactor: scale });
    await page.goto(pathToFileURL(join(siteDir, "index.html")).href);
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: join(outDir, `page-${width}-${scheme}.png`) });
    if (width === 1440) {
      const first = page.locator("div.chart").first();
      await first.scrollIntoViewIfNeeded();
      const row = await first.evaluate((e) => {
        const box = (e.closest(".dashboard") ?? e).getBoundingClientRect();
        return { x: box.left, y: box.top + window.scrollY, width: box.width, height: Math.min(box.height, 640) };
      });
      await page.screenshot({
        path: join(outDir, `charts-${scheme}.png`),
        clip: { x: row.x - 16, y: row.y - 16, width: row.width + 32, height: row.height + 32 },
        fullPage: true,
      });
    }
    await page.close();
  }
}
await browser.close();
