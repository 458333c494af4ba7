import type { Page } from "@playwright/test";

/**
 * Holds the page's `nth` request whose URL matches `url` (1 = the first): the
 * server answers it at once, with what it holds then, and that answer reaches
 * the page only when `release` is called, as a slow network would deliver it.
 * So a test can make a read that left before a write land after the write's
 * live event. `answered` resolves once the server has answered.
 */
export async function holdRead(page: Page, url: RegExp, nth = 1) {
  const answered = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const delivered = Promise.withResolvers<void>();
  let seen = 0;
  await page.route(url, async (route) => {
    seen += 1;
    if (seen !== nth) return route.continue();
    const response = await route.fetch();
    answered.resolve();
    await gate.promise;
    // The page may have abandoned the read meanwhile: then there is no one to answer.
    await route.fulfill({ response }).catch(() => {});
    delivered.resolve();
  });
  return {
    answered: answered.promise,
    /** Lets the held answer through; resolves once the page has it. */
    release() {
      gate.resolve();
      return delivered.promise;
    },
  };
}
