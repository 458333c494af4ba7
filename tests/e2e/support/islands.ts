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

/** Islands that hydrate on interaction, woken as a pointer passing over them would. */
export async function wakeWaitingIslands(page: Page) {
  await page.locator('astro-island[ssr][opts*="interaction"]').evaluateAll((islands) => {
    for (const island of islands) island.dispatchEvent(new PointerEvent("pointerover"));
  });
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
