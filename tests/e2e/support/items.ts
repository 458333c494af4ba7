import { expect, type Page } from "@playwright/test";

/** Goes to a list page and opens the card whose button is named `button`, as a reader clicks it. */
export async function openItem(page: Page, path: string, button: RegExp) {
  await page.goto(path);
  const toggle = page.getByRole("button", { name: button }).first();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
}

/**
 * Opens a post's own page (`url`) and scrolls to its discussion, which hydrates
 * once seen and then opens its live stream; returns the discussion's
 * "Comments" region once it is live.
 */
export async function openDiscussion(page: Page, url: string) {
  await page.goto(url);
  const section = page.getByRole("region", { name: /^Reactions/ });
  await section.scrollIntoViewIfNeeded();
  await expect(section.locator('[data-live="true"]')).toBeAttached({ timeout: 15_000 });
  return section.getByRole("region", { name: "Comments" });
}
