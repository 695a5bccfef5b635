// The build-error panel of `report serve` in a real browser (Debian's
// Chromium, driven by playwright-core):
//
//   node overlay.mjs URL FILE FROM TO
//
// URL is a `report serve` whose study is broken. The panel must show the
// error over the lower part of the last good page (not all of it), close
// with its Close button and stay closed while the same error stands; after
// FROM is replaced by TO in FILE (another error) it must open again, and
// close with the Escape key. Its text (heading and message) must reach a
// contrast of 4.5:1 against the panel in the light and the dark theme.
// Prints one JSON object: {"failures": [...]}.

import { readFile, writeFile } from "node:fs/promises";
import { chromium } from "playwright-core";

const [url, file, from, to] = process.argv.slice(2);
const failures = [];
const fail = (message) => failures.push(message);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
const panel = page.locator("#report-serve-error");
try {
  await page.goto(url);
  await panel.waitFor({ state: "visible", timeout: 10000 });
  const box = await panel.boundingBox();
  if (!box || box.height > 768 * 0.65) fail(`the panel covers ${box?.height} of 768 px`);
  const top = await page.evaluate(() => document.elementFromPoint(512, 20)?.closest("#report-serve-error") === null);
  if (!top) fail("the top of the page is covered");
  const text = await panel.textContent();
  if (!text.includes("the build failed")) fail(`the panel says: ${text}`);

  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    for (const [what, ratio] of await page.evaluate(contrasts)) {
      if (!(ratio >= 4.5)) fail(`${colorScheme} theme: the panel's ${what} has a contrast of ${ratio.toFixed(2)}:1`);
    }
  }

  await panel.getByRole("button", { name: "Close" }).click();
  await page.waitForTimeout(1000); // five polls of the same error
  if (await panel.count()) fail("the panel came back for the same error");

  await writeFile(file, (await readFile(file, "utf8")).replace(from, to));
  await panel.waitFor({ state: "visible", timeout: 10000 });
  if (!(await panel.textContent()).includes(to)) fail("the panel does not show the new error");
  await page.keyboard.press("Escape");
  await page.waitForTimeout(600);
  if (await panel.count()) fail("Escape did not close the panel");
} catch (err) {
  fail(String(err));
}
await browser.close();

// The contrast of the panel's heading and message against the first
// opaque background behind each (WCAG 2 relative luminance).
function contrasts() {
  const rgb = (c) => c.match(/[\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const o = document.getElementById("report-serve-error");
  return [["heading", o.querySelector("strong")], ["message", o.querySelector("pre")]].map(([what, el]) => {
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))];
    return [what, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
  });
}
console.log(JSON.stringify({ failures }, null, 2));
process.exit(failures.length ? 1 : 0);
