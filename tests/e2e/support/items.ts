import { expect, type Page } from "@playwright/test";

/** Goes to a list page and opens the card whose button is named `button`, as a reader clicks it. */
export async function openItem(page: Page, path: string, button: RegExp) {
  await page.goto(path);
  const toggle = page.getByRole("button", { name: button }).first();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
}

/**
 * Scrolls to a post page's discussion, which hydrates once seen and then opens
 * its live stream, and returns its "Comments" region once it is live and its
 * comments have arrived: from then on the discussion keeps its height.
 */
export async function liveDiscussion(page: Page) {
  const section = page.getByRole("region", { name: /^Reactions/ });
  await section.scrollIntoViewIfNeeded();
  await expect(section.locator('[data-live="true"]')).toBeAttached({ timeout: 15_000 });
  await expect(section.getByText("Loading comments…")).toHaveCount(0);
  // The server's copy of the comments stays until the live ones arrive, then leaves the page.
  await expect(section.locator(".static-comments")).toHaveCount(0);
  return section.getByRole("region", { name: "Comments" });
}

/** Opens a post's own page (`url`) and waits for its discussion (`liveDiscussion`). */
export async function openDiscussion(page: Page, url: string) {
  await page.goto(url);
  return liveDiscussion(page);
}
