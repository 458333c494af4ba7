import { expect, type Page } from "@playwright/test";

/** Goes to a list page and opens the card whose button is named `button`, as a reader clicks it. */
export async function openItem(page: Page, path: string, button: RegExp) {
  await page.goto(path);
  const toggle = page.getByRole("button", { name: button }).first();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
}
