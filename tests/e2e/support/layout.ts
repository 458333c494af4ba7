import type { Page } from "@playwright/test";

/**
 * From the first frame on, each frame's position in the document of what
 * `follows` (a selector: the first element it matches that is drawn), once
 * `from` (a selector) is on the page, and the layout shifts the browser
 * reports that no input caused.
 */
export async function watchLayout(page: Page, follows: string, from = "body") {
  await page.addInitScript(
    ({ follows, from }) => {
      const seen = { tops: [] as number[], shifts: [] as number[] };
      (window as unknown as { seen: typeof seen }).seen = seen;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & {
          value: number;
          hadRecentInput: boolean;
        })[]) {
          if (!entry.hadRecentInput) seen.shifts.push(entry.value);
        }
      }).observe({ type: "layout-shift", buffered: true });
      const frame = () => {
        const follower = [...document.querySelectorAll(follows)].find(
          (element) => element.getClientRects().length > 0,
        );
        if (follower && document.querySelector(from))
          seen.tops.push(Math.round(follower.getBoundingClientRect().top + window.scrollY));
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    },
    { follows, from },
  );
}

export const seen = (page: Page) =>
  page.evaluate(() => (window as unknown as { seen: { tops: number[]; shifts: number[] } }).seen);

/** Two more frames: a change made by the last render is drawn. */
export const drawn = (page: Page) =>
  page.evaluate(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
  );
