import { expect, type Page } from "@playwright/test";

/**
 * Islands hydrate after the page's `load`, when the browser is idle; the
 * footer's newsletter form only once it is seen; the header and the topic
 * tabs only once the reader reaches for them (a pointer over them stands in
 * for that here). Tests that need a scripted widget (not the HTML it starts
 * as) wait for this first.
 */
export async function islandsHydrated(page: Page) {
  await wakeWaitingIslands(page);
  await expect(page.locator("astro-island[ssr]:not(:has(form))")).toHaveCount(0, {
    timeout: 15_000,
  });
}

/**
 * Islands that hydrate on interaction, woken as a pointer passing over them would;
 * one that waits for the reader's first move with nothing of its own on the page
 * (/book's form), as the pointer moving would (a pointermove that moves: one
 * that does not is ignored).
 */
export async function wakeWaitingIslands(page: Page) {
  await page.locator('astro-island[ssr][opts*="interaction"]').evaluateAll((islands) => {
    for (const island of islands) island.dispatchEvent(new PointerEvent("pointerover"));
  });
  if (await page.locator('astro-island[ssr][opts*="activity"]:not(:has(form))').count()) {
    await page.evaluate(() => dispatchEvent(new PointerEvent("pointermove", { movementX: 1 })));
  }
}

/** The footer's form, scrolled into view so that it hydrates, then live. */
export async function newsletterHydrated(page: Page) {
  const form = page.locator("astro-island:has(form)").last();
  await form.locator("form").scrollIntoViewIfNeeded();
  await expect(form).not.toHaveAttribute("ssr", { timeout: 15_000 });
}

/**
 * Under Playwright's fake clock the idle callback that hydrates islands waits
 * for the clock: advance it until they are live.
 */
export async function hydrateUnderFakeClock(page: Page) {
  await wakeWaitingIslands(page);
  await expect
    .poll(
      async () => {
        await page.clock.runFor(250);
        return page.locator("astro-island[ssr]:not(:has(form))").count();
      },
      { timeout: 15_000 },
    )
    .toBe(0);
}

/**
 * Rests the pointer in the middle of the window, over the page's text, as a
 * reader's usually is, before the test opens its page. Chromium's headless
 * shell puts a new page's pointer at the top-left corner, which on a narrow
 * window is the header: the page would load under it and wake the header, as
 * it would for a reader whose pointer rests there. The shell keeps the
 * pointer's place across a navigation within the site, not from a blank
 * page, hence the small page opened first.
 */
export async function pointerOnText(page: Page) {
  await page.goto("/robots.txt");
  const { width, height } = page.viewportSize() ?? { width: 800, height: 600 };
  await page.mouse.move(Math.round(width / 2), Math.round(height / 2));
}
