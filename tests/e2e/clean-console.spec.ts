import type { Page } from "@playwright/test";
import { prerenderedPaths } from "../../app/navigation.ts";
import { sections, siteItems } from "../../content/items.ts";
import { loadContent } from "../../content/load.ts";
import { expect, test } from "./support/fixtures.ts";
import { wakeWaitingIslands } from "./support/islands.ts";
import { siteEnv } from "./support/site.ts";

/*
 * A page in normal use logs no console error and breaks no rule of the
 * Content-Security-Policy: every route, read to its end with every island
 * live, and the home page until its moving parts (the confetti's burst, the
 * quotes' rotation) have each run once. Chromium reports a refused script,
 * worker, frame or style on the console; the page's own
 * `securitypolicyviolation` events are collected too, so a violation counts
 * even when a browser keeps it off the console.
 */

type Trouble = string[];

/**
 * Everything that went wrong on `page` from now on, as lines to read in a
 * failure. The chatbot's provider is outside this machine: a stand-in script
 * answers for it, from its own origin, as the page's policy must allow.
 */
async function watch(page: Page): Promise<Trouble> {
  const trouble: Trouble = [];
  await page.route(siteEnv.CHATBOT_SCRIPT_URL, (route) =>
    route.fulfill({
      contentType: "text/javascript",
      body: `document.getElementById(document.currentScript.dataset.container).textContent = "Hello";`,
    }),
  );
  page.on("console", (message) => {
    if (message.type() === "error") trouble.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => trouble.push(`uncaught: ${error.message}`));
  await page.exposeFunction("__reportViolation", (line: string) => trouble.push(line));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __reportViolation(line: string): void })
        .__reportViolation;
      report(`CSP violation: ${event.violatedDirective} refused ${event.blockedURI || "inline"}`);
    });
  });
  return trouble;
}

/** Opens `path` and reads it to the end, so that the islands that wait to be seen hydrate. */
async function read(page: Page, path: string) {
  const response = await page.goto(path);
  expect(response?.status(), path).toBe(200);
  await wakeWaitingIslands(page);
  await page.evaluate(async () => {
    const step = Math.max(200, window.innerHeight - 100);
    for (let y = 0; y < document.body.scrollHeight; y += step) {
      window.scrollTo(0, y);
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
    }
  });
  await expect(page.locator("astro-island[ssr]")).toHaveCount(0, { timeout: 15_000 });
  // Whatever the islands fetched once live (counts, comments, the event stream's first answer).
  await page.waitForLoadState("networkidle").catch(() => {});
}

/**
 * The confetti library adds its canvas for a burst and takes it away when the
 * last particle has fallen, which it learns from its worker: a canvas that
 * comes and goes is a burst that was drawn to its end.
 */
async function burstRunsToTheEnd(page: Page) {
  await expect(page.locator("body > canvas")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.locator("body > canvas")).toHaveCount(0, { timeout: 20_000 });
}

const items = siteItems(loadContent());
const pages = [...prerenderedPaths.filter((path) => path !== "/"), "/admin/sign-in"];

test.describe("no console error and no CSP violation", () => {
  test("/: until the confetti has burst and a quote has changed, once each", async ({ page }) => {
    const trouble = await watch(page);
    await read(page, "/");
    const quote = page.getByTestId("quote-card").locator("blockquote");
    const first = await quote.textContent();
    // Both run every 10 s once the islands are live.
    await burstRunsToTheEnd(page);
    await expect(quote).not.toHaveText(first ?? "", { timeout: 20_000 });
    expect(trouble).toEqual([]);
  });

  test("Technical: Like and Love burst confetti that is drawn to its end", async ({ page }) => {
    const trouble = await watch(page);
    await read(page, "/technical");
    await page.getByRole("tab", { name: "Engines" }).click();
    const article = page.locator("#ice-blog");
    await article.getByRole("button").first().click();
    for (const reaction of [/^Like \d/, /^Love \d/]) {
      await article.getByRole("button", { name: reaction }).click();
      await burstRunsToTheEnd(page);
    }
    expect(trouble).toEqual([]);
  });

  for (const path of pages) {
    test(path, async ({ page }) => {
      const trouble = await watch(page);
      await read(page, path);
      expect(trouble).toEqual([]);
    });
  }

  // Every item's own page, a section per test.
  for (const section of sections) {
    test(`the item pages of ${section.name}`, async ({ page }) => {
      const trouble = await watch(page);
      for (const item of items.filter((entry) => entry.section.id === section.id)) {
        await read(page, item.path);
        expect(trouble, item.path).toEqual([]);
      }
    });
  }
});
